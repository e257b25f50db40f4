package llm

import "github.com/fitbot/fitbot/sizing"

// Intents are the intents of a sizing question, the values a request's
// intent may take.
func Intents() []string {
	return strs(sizing.IntentFit, sizing.IntentServe, sizing.IntentLargest, sizing.IntentMaxContext,
		sizing.IntentWhichGPU, sizing.IntentBuyRent)
}

// RequestSpec is how fitbot's request (the reading package's Request,
// whose JSON paths these are) is shown to the model: the catalogs' GPU
// and model ids, the estimator's closed settings, the kinds of message
// (kinds, from the reading package's routes) and the intents as enums;
// what only the grammar knows (the words it used and left, its notes, a
// Hugging Face repo, a config file's architecture, a comparison's two
// questions, other readings) left out, for the Reader's check to put
// back from the grammar's reading. NewReader refuses it for a type
// whose paths differ, so the two cannot drift apart silently.
func RequestSpec(kinds []string) Spec {
	gpus := GPUIDs()
	return Spec{
		Enums: map[string][]string{
			"kind":                     kinds,
			"intent":                   Intents(),
			"route.kind":               kinds,
			"route.gpus":               gpus,
			"query.model":              ModelIDs(),
			"query.gpu":                gpus,
			"query.method":             methods,
			"query.optimizer":          optimizers,
			"query.precision":          precisions,
			"query.kv_cache_precision": precisions,
			"query.quant":              quants,
			"query.offload":            offloads,
		},
		Skip: []string{"fields", "notes", "ignored", "unused", "hub", "missing", "method_implied",
			"comparison", "query.arch", "query.unknown_gpu", "route.said"},
		About: map[string]string{
			"kind":   "the kind of message: sizing (any question fitbot sizes or searches), price (GPU prices), plans (the team's earlier plans), help, chat",
			"intent": "for a sizing question: fit (does it fit, how, at what cost), serve (users or load a deployment serves, or what serving a load needs), largest_model, max_context, which_gpu, buy_vs_rent",
			"route":  "for a message that is not a sizing question: what it asks (prices of which GPUs, which plans); null for a sizing question",
			"query":  "the sizing question's settings: catalog ids for model and gpu, numbers in plain units (parameters, tokens, bytes, seconds)",
		},
		Prompt: ReadingPrompt,
	}
}
