package bot

// termName is a memory term as people say it: the estimator's
// binding_term ids ("kv_cache") never reach a message.
func termName(term string) string {
	switch term {
	case "kv_cache":
		return "KV cache"
	case "optimizer":
		return "optimizer state"
	case "gathered_layers":
		return "ZeRO-3's gathered layers"
	}
	return term
}
