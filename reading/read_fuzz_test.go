package reading

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadWhitespace: Read never panics, and a message reads the same
// whatever the whitespace between its words (spaces doubled, tabs,
// newlines): the same kind, intent and slots, or a refusal both ways.
func FuzzReadWhitespace(f *testing.F) {
	for _, s := range []string{
		"can we fine-tune llama 3.1 8b on a 4090",
		"serve llama 3.1 8b on l4 with 500ms ttft",
		"<@U123ABC> llama 70b qlora, box has 128gb of system ram and a 4090",
		"*llama 3.1 8b* on `2x h100` <https://huggingface.co/meta-llama/Llama-3.1-8B|link> 🚀",
		"what is an h100 selling for",
		"Лама 3.1 8b на h100 吗",
		strings.Repeat("llama ", 700),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\t\n\r\v\f\u0085\u00a0") {
			return
		}
		spaced := strings.ReplaceAll(s, " ", " \t ")
		if len(spaced) > MaxQuestionBytes {
			return // the longer text is over the byte limit: refused for that alone
		}
		a, errA := Read(s)
		b, errB := Read(spaced)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q reads with error %v, %q with %v", s, errA, spaced, errB)
		}
		if errA != nil {
			return
		}
		if a.Kind != b.Kind || a.Intent != b.Intent || !maps.Equal(readingKeys(a), readingKeys(b)) {
			t.Fatalf("%q and %q read differently:\n%v\n%v", s, spaced, readingKeys(a), readingKeys(b))
		}
	})
}
