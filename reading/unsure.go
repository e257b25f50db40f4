package reading

import (
	"slices"
	"strings"
)

// Alternative is one thing a question may ask when the reader is unsure
// which it asks: what it asks, in words for a person, and words that ask
// it without doubt (a face offers them as the question to ask instead).
type Alternative struct {
	Label string `json:"label"`
	Words string `json:"words"`
}

// unsureReading is a "reading" row of vocab.txt: the words that ask one
// thing an unsure cue may ask, and its label; "{gpu}" in either stands
// for the cards the question named.
type unsureReading struct {
	words, label string
}

// gpuPlaceholder stands for the cards a question named in a reading row.
const gpuPlaceholder = "{gpu}"

// Unsure is what a question may ask when its words ask one of several
// things alike ("what is an h100 selling for": its rental price, or
// what buying one costs), from vocab.txt's unsure and reading rows; nil
// when the question is clear. A face asks back with them rather than
// answer one silently. A reading that needs the cards named is offered
// only when the question named one.
func Unsure(text string) []Alternative {
	text = strings.Join(strings.Fields(text), " ")
	toks, err := lex(text)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(vocab.unsure))
	for name := range vocab.unsure {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !cuedAt(vocab.unsure[name], toks) {
			continue
		}
		_, said, _ := gpusNamed(text, toks)
		gpu := strings.Join(said, " ")
		var out []Alternative
		for _, r := range vocab.readings[name] {
			if gpu == "" && strings.Contains(r.words+r.label, gpuPlaceholder) {
				continue
			}
			out = append(out, Alternative{Label: strings.ReplaceAll(r.label, gpuPlaceholder, gpu), Words: strings.ReplaceAll(r.words, gpuPlaceholder, gpu)})
		}
		if len(out) >= 2 {
			return out
		}
	}
	return nil
}

// cuedAt reports whether one of the cues (each a run of token keys)
// is in the tokens.
func cuedAt(cues [][]string, toks []token) bool {
	for i := range toks {
		for _, cue := range cues {
			if i+len(cue) <= len(toks) && slices.EqualFunc(cue, toks[i:i+len(cue)], func(w string, t token) bool { return w == t.key }) {
				return true
			}
		}
	}
	return false
}
