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

// readAsClass is the class whose words a read_as slot row reads as their
// set's value (vocab.txt: readas_VALUE).
const readAsClass = "READAS"

// readAs reads each word a read_as slot row captures as its class's
// value, in place: "Q1" in "for all of Q1" or "the Q1 budget" reads as
// "quarter". A rewrite row reads a word so everywhere; this reads it so
// only beside the words the row names ("70b q4" keeps its GGUF type).
func readAs(toks []token) {
	key := keysOf(toks) // an ignorable token has no key
	for i := range toks {
		m, ok := readAsSlot.at(key, i)
		for k := i; ok && k < i+m.n; k++ {
			if v, as := vocab.classes[readAsClass][toks[k].key]; as {
				toks[k].key = v
			}
		}
	}
}
