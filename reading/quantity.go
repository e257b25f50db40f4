package reading

import (
	"slices"
	"strings"
	"time"
)

// A quantity is typed by its noun before any name is looked up: a number
// whose noun the vocabulary knows under another spelling is given the
// noun the parser reads ("32k kv cache" is 32k of context, "8-way" is
// 8x, "2 secs" is a time). The nouns are slot rows of vocab.txt (kinds
// context_noun, gpu_count, tp_degree and time_apart); this file is the
// code of those kinds, and of counted_noun: a number after a noun that
// counts something other than GPUs ("at step 300"); bound: comparator
// words before a number or a quantity ("at least 15", "at most 500ms"),
// quoted with it; count_apart:
// words between a count and its noun ("300 internal users"), quoted with
// the count; a bare memory figure after a card ("a6000 48", read as
// "48gb": vocab.txt's memory_variant); multiplier: a number of times ("3x the users", "2 times
// faster"), a quantity with no slot (typedQuantity).

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
	toks = unglue(toks)
	key := unitKeysOf(toks)
	out := toks[:0]
	for i := 0; i < len(toks); {
		if w := key(i); !quantitySlots.may(w) && !memoryVariants.has(w) {
			out = append(out, toks[i]) // no quantity starts here: spares trying each kind
			i++
			continue
		}
		if m, ok := boundSlot.at(key, i); ok && numberStart(key(i+m.n)) {
			// "at least 15", "no more than 500ms": the number as said,
			// a bound being how a target is said.
			t := toks[i+m.n]
			t.raw, t.start = joinRaw(toks, i, i+m.n+1), toks[i].start
			out = append(out, t)
			i += m.n + 1
			continue
		}
		if m, ok := countApartSlot.at(key, i); ok {
			// "300 internal users": the count, its noun next to it.
			t := toks[i]
			t.raw, t.end = joinRaw(toks, i, i+m.n-1), toks[i+m.n-2].end
			out = append(out, t)
			i += m.n - 1
			continue
		}
		if memoryVariants.has(key(i)) && (cardBefore(key(i-1)) || countWord(key(i-1)) && cardBefore(key(i-2))) && !memoryNotBefore.has(key(i+1)) {
			// "a6000 48", "a100 x4 80": the card's memory, as "48gb" says it.
			t := toks[i]
			t.key += "gb"
			t.low = t.key
			out = append(out, t)
			i++
			continue
		}
		if m, ok := multiplierSlot.at(key, i); ok {
			// "3x the users": a number of times, never a count of GPUs.
			t := toks[i]
			t.key = m.value(classNum) + multiplierUnit
			t.low, t.raw, t.end = t.key, joinRaw(toks, i, i+m.n), toks[i+m.n-1].end
			out = append(out, t)
			i += m.n
			continue
		}
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

// quantitySlots are the kinds of slot classQuantities tries at each word.
var quantitySlots = newSlotGroup(boundSlot, countApartSlot, multiplierSlot, tpDegreeSlot, timeApartSlot, countedNounSlot, gpuCountSlot, contextNounSlot)

// unitKeysOf reads the keys of toks for the slot patterns of quantities
// and deadlines: as keysOf does, but "" for an ignorable word, and a word
// with a slash as said ("tok/s", which keys as "s"; "docs/day" is a rate,
// not a day).
func unitKeysOf(toks []token) func(int) string {
	return func(i int) string {
		switch {
		case i < 0 || i >= len(toks) || toks[i].ignorable:
			return ""
		case strings.Contains(toks[i].raw, "/"):
			return toks[i].low
		}
		return toks[i].key
	}
}

// memoryNotBefore are the words a bare memory figure after a card may
// not come before: they say what the number counts ("h100 80 users").
var memoryNotBefore = vocab.set("memory_not_before")

// cardBefore reports whether a word may be a card a bare memory figure
// follows ("a6000 48", "4090 24"): a card's shape, not a model's size
// ("70b 48" is no card's memory).
func cardBefore(key string) bool {
	n, ok := parseNumber(key)
	return looksLikeGPU(key) && (!ok || n.suffix == "")
}

// countWord reports whether a word is a count of cards glued to its x
// ("x4" after a card, "4x").
func countWord(key string) bool {
	n, ok := parseNumber(strings.Trim(key, "x"))
	return ok && n.isInteger() && len(key) > 1 && (key[0] == 'x' || key[len(key)-1] == 'x')
}

// multiplierUnit is the unit a multiplier slot's number is keyed with
// ("3x the users" keys as "3×"), a word of vocab.txt's unslotted sets that
// no lexed word is: the lexer makes "×" a word of its own.
const multiplierUnit = "×"

// typedQuantity reports whether a word is a quantity its unit types, so
// that it is never looked up as a name: a time ("500ms"), a span of
// days or weeks ("3wk", "2-day": vocab.txt's span sets), a percentile
// ("p95"), a time of day ("5pm", "17:00") or a quantity that fills no
// slot of the question (vocab.txt's unslotted sets: "10-person", "3x the").
func typedQuantity(key string) bool {
	if isDuration(key) || percentile.MatchString(key) || clockTime(key) {
		return true
	}
	_, _, ok := vocab.gluedAt("SPAN", key)
	if !ok {
		_, _, ok = vocab.gluedAt("UNSLOTTED", key)
	}
	return ok
}

// clockTime reports whether a word is a time of day: "5pm", "9am" (the
// unslotted_clock set), "17:00", "5:30pm".
func clockTime(key string) bool {
	if num, _, ok := vocab.gluedAt("UNSLOTTED", key); ok {
		return clockUnits.has(key[len(num):])
	}
	for _, layout := range []string{"15:04", "3:04pm", "3:04am"} {
		if _, err := time.Parse(layout, key); err == nil {
			return true
		}
	}
	return false
}

// clockUnits are the units of a time of day: "am", "pm".
var clockUnits = vocab.set("unslotted_clock")

// boundGlued are comparators glued to a number ("≥15", "sub-100ms",
// "300+", "~300ish"), by where they are glued (vocab.txt: bound_prefix,
// bound_suffix).
var boundGlued = [2]*wordSet{vocab.set("bound_prefix"), vocab.set("bound_suffix")}

// unglue splits the quantities glued to a word beside them: a
// comparator ("≥15" reads as 15, quoted as written) and a count glued
// before a card that a memory figure follows ("4xa100 80": "4x", then
// "a100 80", a card with its memory, as "4x a100 80" reads). It returns
// toks, or a copy with the counts split.
func unglue(toks []token) []token {
	for i := 0; i < len(toks); i++ {
		t := &toks[i]
		if t.ignorable {
			continue
		}
		unbound(t)
		x := strings.IndexAny(t.raw, "xX")
		if x <= 0 || x+1 >= len(t.raw) || !isLetters(strings.ToLower(t.raw[x+1:x+2])) || i+1 >= len(toks) || !numberStart(toks[i+1].key) {
			continue
		}
		if num, ok := parseNumber(keyOf(t.raw[:x])); !ok || !num.isInteger() {
			continue
		}
		count, name := *t, *t
		count.raw, count.end = t.raw[:x+1], t.start+x+1
		name.raw, name.start = t.raw[x+1:], t.start+x+1
		for _, w := range []*token{&count, &name} {
			w.key, w.low = keyOf(w.raw), strings.TrimFunc(strings.ToLower(w.raw), edgePunct)
		}
		toks = slices.Concat(toks[:i], []token{count, name}, toks[i+1:])
		i++
	}
	return toks
}

// unbound reads a number with a comparator glued to it as the number
// ("≥15" as 15, "300+" as 300), quoted as written.
func unbound(t *token) {
	if !hasDigit(t.key) && !strings.ContainsAny(t.key, "-.") {
		return // no number: this runs for every word of every question
	}
	for k := min(len(t.key)-1, 4); k > 0; k-- {
		if boundGlued[0].has(t.key[:k]) && numberStart(t.key[k:]) {
			t.key, t.low = t.key[k:], t.key[k:]
			return
		}
		cut := len(t.key) - k
		if !boundGlued[1].has(t.key[cut:]) {
			continue // the set first: it turns nearly every word away before a number is read
		}
		if _, ok := parseNumber(t.key[:cut]); ok {
			t.key, t.low = t.key[:cut], t.key[:cut]
			return
		}
	}
}
