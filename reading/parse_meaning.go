package reading

import (
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// Words that carry meaning: of the words a question leaves unread
// (Request.Unused), some are chat ("lol", "quick q", "pls", an emoji, a
// mistyped "plese") and some say something about the job the grammar
// cannot read ("distributed", "multi-node", "long context", "colab").
// The first are phrasing and never reach the answer or a Hub search; the
// second are Request.Unused: named in the answer ("not used: ...") and
// worth asking a language model about.

// answeredFigures are words that ask a figure every memory answer
// reports ("how much headroom": the memory of the card it leaves), and
// servedFigures those that ask one every inference answer reports (the
// KV cache, the decode and prefill speeds, the first token's time):
// phrasing when the answer reports them, not words it failed to use.
// leftFigures ("left") ask the memory left only beside "room" or "how
// much" ("how much room is left"); "left over from the last run" is not
// read (vocab.txt, its parse_meaning.go section).
var (
	answeredFigures = vocab.set("figures_answered")
	servedFigures   = vocab.set("figures_served")
	leftFigures     = vocab.set("figures_left")
)

// reportedFigures removes from unused the words that ask a figure the
// answer reports: answeredFigures always, servedFigures for inference,
// "left" in a question that asks how much or about room (input is the
// question, lower-cased).
func reportedFigures(unused []string, input string, inference bool) []string {
	howMuch := strings.Contains(input, "how much") || strings.Contains(input, "room")
	return slices.DeleteFunc(unused, func(raw string) bool {
		key := keyOf(raw)
		return answeredFigures.has(key) || inference && servedFigures.has(key) || leftFigures.has(key) && howMuch
	})
}

// fillerTypo reports whether key is chat: a filler or a chat word, one
// with its letters drawn out ("pleaseee", "lolll"), laughter ("hahah"),
// or a word of five letters or more one edit from one ("plese",
// "thnks").
func fillerTypo(key string) bool {
	if !isLetters(key) {
		return false
	}
	if chatWord(key) {
		return true
	}
	if sq := squeeze(key); sq != key && (chatWord(sq) || chatWord(sq+sq[len(sq)-1:])) {
		return true // "pleaseee", "plzzz", "sooo", "lolll"
	}
	if len(key) >= 4 && strings.Trim(key, "ha") == "" || strings.Trim(key, "he") == "" && len(key) >= 4 {
		return true // "hahah", "hehehe"
	}
	if len(key) < 5 {
		return false
	}
	var rows sizing.EditRows
	for _, w := range chatterTypos() {
		if len(w) >= 5 && rows.Distance(key, w, 1) <= 1 {
			return true
		}
	}
	return false
}

// chatWord reports whether key is a filler or a chat word.
func chatWord(key string) bool {
	w, ok := phrases[key]
	return ok && w.kind == kindFiller
}

// chatterTypos are the fillers and chat words a mistyped word is
// compared with.
var chatterTypos = func() func() []string {
	var words []string
	for k, w := range phrases {
		if w.kind == kindFiller && isLetters(k) {
			words = append(words, k)
		}
	}
	return func() []string { return words }
}()

// squeeze folds runs of one letter into one: "pleaseee" is "please".
func squeeze(key string) string {
	b := make([]byte, 0, len(key))
	for i := 0; i < len(key); i++ {
		if i == 0 || key[i] != key[i-1] {
			b = append(b, key[i])
		}
	}
	return string(b)
}

// carriesMeaning reports whether an unused word may say something about
// the job: it has letters, more than one, and is not chat (fillerTypo).
func carriesMeaning(raw string) bool {
	key := keyOf(raw)
	letters := 0
	for i := 0; i < len(key); i++ {
		if 'a' <= key[i] && key[i] <= 'z' {
			letters++
		}
	}
	return letters > 1 && !fillerTypo(key)
}

// Fill is p with what other, another reading of the same question (a
// language model's), says and p does not: every field p left unsaid that
// other says. p's reading stands where both say something, and where
// other names another model or card p's model or card stays with its
// own count. It returns the words of other that gave the fields it
// added ("2 nodes", "seq 32768"), none when other adds nothing.
func Fill(p, other Request) (Request, []string) {
	o := other.Query
	skip := map[string]bool{}
	if p.Query.Model != "" || p.Query.Params != 0 || p.Query.Arch != nil {
		o.Model, o.Params, o.Experts, o.Arch = "", 0, 0, nil
		skip[fieldNames[fModel].key] = true
	}
	if p.Query.Method != "" {
		o.Method = ""
		skip[fieldNames[fMethod].key] = true
	}
	if p.Query.GPU != "" && o.GPU != "" && o.GPU != p.Query.GPU {
		o.GPU, o.GPUs, o.Nodes, o.GPUMemoryBytes = "", 0, 0, 0
		skip[fieldNames[fGPUs].key], skip[fieldNames[fNodes].key] = true, true
	}
	if o.GPUs <= 1 && o.Nodes <= 1 { // one card on one machine is what p means without a count
		o.GPUs, o.Nodes = 0, 0
		skip[fieldNames[fGPUs].key], skip[fieldNames[fNodes].key] = true, true
	}
	for _, f := range p.Fields {
		skip[f.Name] = true
	}
	var added []string
	var fields []Field
	for _, f := range other.Fields {
		if !skip[f.Name] {
			added = append(added, f.Words)
			fields = append(fields, f)
		}
	}
	if len(added) == 0 {
		return p, nil
	}
	q := o
	merge(&q, p.Query)
	p.Query = q
	p.Fields = append(slices.Clone(p.Fields), fields...)
	slices.SortStableFunc(p.Fields, func(a, b Field) int { return fieldIndex(a.Name) - fieldIndex(b.Name) })
	return p, added
}

// fieldIndex is the place of a field's key in the request JSON.
func fieldIndex(key string) int {
	for i, f := range fieldNames {
		if f.key == key {
			return i
		}
	}
	return len(fieldNames)
}
