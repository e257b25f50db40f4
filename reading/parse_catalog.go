package reading

import (
	"errors"
	"sync"

	"github.com/fitbot/fitbot/sizing"
)

// catalogLexicon is the parser's view of the embedded catalogs.
type catalogLexicon struct{}

func (catalogLexicon) matchModel(words string) (id, note string, ok bool) {
	m, ok := sizing.MatchModel(words)
	if !ok {
		// A model known by name only: the resolver refuses it by name.
		if n, ok := sizing.LookupNamed(words); ok {
			return n.ID, "", true
		}
		return "", "", false
	}
	_, note, _ = sizing.LookupModel(words) // a hit: cheap, and it carries the assumption
	return m.ID, note, true
}

func (catalogLexicon) matchGPU(words string) (id, note string, ok bool) {
	g, ok := sizing.MatchGPU(words)
	if !ok {
		return "", "", false
	}
	_, note, _ = sizing.LookupGPU(words)
	return g.ID, note, true
}

// maxSuggestBytes bounds the words worth a suggestion search: longer text
// is not a mistyped name, and the edit-distance search grows with it.
const maxSuggestBytes = 48

func (catalogLexicon) suggestModels(words string) []string {
	return suggestions(words, sizing.LookupModel)
}
func (catalogLexicon) suggestGPUs(words string) []string { return suggestions(words, sizing.LookupGPU) }

// suggestions are the names lookup suggests for words it does not find.
func suggestions[T any](words string, lookup func(string) (T, string, error)) []string {
	if len(words) > maxSuggestBytes {
		return nil
	}
	var nf *sizing.NotFoundError
	if _, _, err := lookup(words); errors.As(err, &nf) {
		return nf.Suggestions
	}
	return nil
}

// isModelFamily reports whether a word starts a model name the catalog
// has a family for: "llama", "llama5", "qwen2.5", "mistral".
func (catalogLexicon) isModelFamily(key string) bool {
	return hasFamilyPrefix(key, modelFamilies())
}

// modelFamilies are the leading letters of every catalog model's family
// and id ("llama", "qwen", "mixtral").
var modelFamilies = sync.OnceValue(func() map[string]bool {
	fams := map[string]bool{}
	for _, m := range sizing.Models() {
		for _, s := range []string{m.Family, m.ID} {
			if l := leadingLetters(keyOf(s)); len(l) >= 3 {
				fams[l] = true
			}
		}
	}
	for _, m := range sizing.Named() {
		if l := leadingLetters(keyOf(m.ID)); len(l) >= 3 {
			fams[l] = true
		}
	}
	return fams
})

// hasFamilyPrefix reports whether key is a family name alone or followed
// by a version or size ("llama", "llama5", "qwen2.5").
func hasFamilyPrefix(key string, fams map[string]bool) bool {
	l := leadingLetters(key)
	if !fams[l] {
		return false
	}
	return len(l) == len(key) || isDigit(key[len(l)]) || key[len(l)] == '.'
}

func leadingLetters(s string) string {
	i := 0
	for i < len(s) && 'a' <= s[i] && s[i] <= 'z' {
		i++
	}
	return s[:i]
}
