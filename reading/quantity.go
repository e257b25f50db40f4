package reading

import "strings"

// A quantity is typed by its noun before any name is looked up: a number
// whose noun the vocabulary knows under another spelling is given the
// noun the parser reads ("32k kv cache" is 32k of context, "8-way" is
// 8x, "2 secs" is a time). The nouns are slot rows of vocab.txt (kinds
// context_noun, gpu_count, tp_degree and time_apart); this file is the
// code of those kinds, and of counted_noun: a number after a noun that
// counts something other than GPUs ("at step 300").

// contextKey is the key of the noun a context_noun slot's words read as.
const contextKey = "context"

// classQuantities reads the time_apart slots, a time written apart from
// its unit ("2 secs") read as one word as "2secs" is; the tp_degree slots, a tensor-parallel degree in
// prose ("8-way tensor parallel") read as "tp 8" is; the gpu_count
// slots, a count of GPUs in prose ("8-way") read as "8x" is; and the context_noun slots: the words after
// the number of each match become one token whose key is contextKey,
// quoted as the asker wrote them; a number said after its noun ("context
// 128k") keeps it. toks is rewritten in place.
func classQuantities(toks []token) []token {
	key := func(i int) string {
		switch {
		case i < 0 || i >= len(toks) || toks[i].ignorable:
			return ""
		case strings.Contains(toks[i].raw, "/"):
			return toks[i].low // "tok/s" keys as "s": the word is "tok/s"
		}
		return toks[i].key
	}
	out := toks[:0]
	for i := 0; i < len(toks); {
		if m, ok := tpDegreeSlot.at(key, i); ok {
			// "8-way tensor parallel": the degree, as "tp 8" says it.
			words := joinRaw(toks, i, i+m.n)
			start, end := toks[i].start, toks[i+m.n-1].end
			num := m.value(classNum)
			out = append(out, token{raw: words, key: "tp", low: "tp", start: start, end: end}, token{raw: num, key: num, low: num, start: start, end: end})
			i += m.n
			continue
		}
		if m, ok := timeApartSlot.at(key, i); ok {
			// "2 secs": a time, as "2secs" writes it.
			k := m.value(classNum) + key(i+1)
			out = append(out, token{raw: joinRaw(toks, i, i+m.n), key: k, low: k, start: toks[i].start, end: toks[i+m.n-1].end})
			i += m.n
			continue
		}
		if m, ok := countedNounSlot.at(key, i); ok {
			// "at step 300": a count of something that is not a GPU or a
			// model; the noun keeps the number, never read as a name.
			noun := toks[i+m.n-2]
			noun.raw, noun.end = joinRaw(toks, i+m.n-2, i+m.n), toks[i+m.n-1].end
			out = append(out, toks[i:i+m.n-2]...)
			out = append(out, noun)
			i += m.n
			continue
		}
		if m, ok := gpuCountSlot.at(key, i); ok {
			// "8-way": a count of GPUs, as "8x" says it.
			t := toks[i]
			t.key = m.value(classNum) + "x"
			t.low = t.key
			out = append(out, t)
			i += m.n
			continue
		}
		m, ok := contextNounSlot.at(key, i)
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

// typedQuantity reports whether a word is a quantity its unit types, so
// that it is never looked up as a name: a time ("500ms"), a span of
// days or weeks ("3wk", "2-day": vocab.txt's span sets) or a percentile
// ("p95").
func typedQuantity(key string) bool {
	if isDuration(key) || percentile.MatchString(key) {
		return true
	}
	_, _, ok := vocab.gluedAt("SPAN", key)
	return ok
}
