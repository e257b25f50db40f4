package reading

// Words of a price history question, by key.
var (
	historyWords = vocab.set("history")
	historyBack  = vocab.set("history_back")
	historySpan  = vocab.set("history_span")
)

// historyAsked reports whether a price question asks how prices moved
// over time: a history word or phrase ("trend", "gone down"), or a span
// back in time ("over the last 3 months").
func historyAsked(toks []token) bool {
	back, span := false, false
	for i, t := range toks {
		if historyWords.has(t.key) || vocab.phraseAt("history", toks, i) {
			return true
		}
		back, span = back || historyBack.has(t.key), span || historySpan.has(t.key)
	}
	return back && span
}
