package reading

// A quantity is typed by its noun before any name is looked up: a number
// whose noun the vocabulary knows under another spelling is given the
// noun the parser reads ("32k kv cache" is 32k of context). The nouns
// are slot rows of vocab.txt (kind context_noun); this file is the code
// of that kind.

// contextKey is the key of the noun a context_noun slot's words read as.
const contextKey = "context"

// classQuantities reads the context_noun slots: the words after the
// number of each match become one token whose key is contextKey, quoted
// as the asker wrote them; a number said after its noun ("context 128k")
// keeps it. toks is rewritten in place.
func classQuantities(toks []token) []token {
	key := func(i int) string {
		if i < 0 || i >= len(toks) || toks[i].ignorable {
			return ""
		}
		return toks[i].key
	}
	out := toks[:0]
	for i := 0; i < len(toks); {
		m, ok := vocab.slot("context_noun", key, i)
		if !ok || i > 0 && phrases[key(i-1)].kind == kindSeqKey { // "context 128k kv cache fp8": the number has its noun
			out = append(out, toks[i])
			i++
			continue
		}
		noun := token{raw: joinRaw(toks, i+1, i+m.n), key: contextKey, low: contextKey, start: toks[i+1].start, end: toks[i+m.n-1].end}
		out = append(out, toks[i], noun)
		i += m.n
	}
	return out
}
