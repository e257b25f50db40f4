package reading

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fitbot/fitbot/sizing"
)

// Typos: a word the parser does not know that is one edit (two for long
// words, or a doubled letter moved in a short one) from a word it does —
// a method, setting, optimizer, precision or keyword of its own vocabulary
// (phrases), or a word that starts a model or GPU name — is read as that
// word, and the answer says so ("lorra" read as "lora"). The vocabulary is
// built from the parser's own word tables, so new words are covered as
// they are added. Corrections are applied by parsing the corrected text
// once more; only a second reading that is no worse is kept.

// typoFix is one correction: tokens [from, to) read as text.
type typoFix struct {
	from, to int
	text     string
}

// The lengths of the words worth correcting: shorter ones are too close
// to too many others ("bs", "gc"), longer ones are not typed by hand.
const (
	minTypoLen = 4
	maxTypoLen = 24
)

// neverCorrect are ordinary chat words one edit from a vocabulary word
// ("code" and "node", "fine" and "nine", "pull" and "full"): they are
// never read as that word; nor is a word any vocabulary set holds.
var neverCorrect = vocab.set("never_correct")

// typoIndex is a vocabulary by word length, for the correction search.
type typoIndex struct {
	byLen [maxTypoLen + 3][]string
}

func newTypoIndex(words []string) *typoIndex {
	x := &typoIndex{}
	for _, w := range words {
		if len(w) >= minTypoLen && len(w) < len(x.byLen) && isLetters(w) && !slices.Contains(x.byLen[len(w)], w) {
			x.byLen[len(w)] = append(x.byLen[len(w)], w)
		}
	}
	for i := range x.byLen {
		slices.Sort(x.byLen[i])
	}
	return x
}

// typoWorthy reports whether words of a kind are worth a correction:
// not fillers, counts, joiners or words that change nothing.
func typoWorthy(k wordKind) bool {
	switch k {
	case kindFiller, kindCount, kindOf, kindTimes, kindUnusedWord, kindUnusedKey:
		return false
	}
	return true
}

// phraseTypos is the parser's own vocabulary, for corrections.
var phraseTypos = sync.OnceValue(func() *typoIndex {
	words := make([]string, 0, len(phrases))
	for k, w := range phrases {
		if typoWorthy(w.kind) {
			words = append(words, k)
		}
	}
	return newTypoIndex(words)
})

// catalogTypos is the catalog lexicon's name words, for corrections.
var catalogTypos = sync.OnceValue(func() *typoIndex { return newTypoIndex(catalogLexicon{}.nameWords()) })

func (catalogLexicon) nameWords() []string {
	words := make([]string, 0, len(modelFamilies())+len(gpuFamilies.words))
	for k := range modelFamilies() {
		words = append(words, k)
	}
	for k := range gpuFamilies.words {
		words = append(words, k)
	}
	return words
}

// correction is the vocabulary word a letters-only key was most likely
// meant to be; ok is false when there is none, or two are equally close.
func (p *parser) correction(key string) (string, bool) {
	if len(key) < minTypoLen || len(key) > maxTypoLen || !isLetters(key) || neverCorrect.has(key) || vocab.known.has(key) {
		return "", false
	}
	names := catalogTypos()
	if _, ok := p.lex.(catalogLexicon); !ok {
		names = newTypoIndex(p.lex.nameWords())
	}
	best, bestD, bestRank, bestSame, tie := "", 3, 0, false, false
	var rows sizing.EditRows
	for _, x := range [2]*typoIndex{phraseTypos(), names} {
		for n := len(key) - 2; n <= len(key)+2; n++ {
			if n < minTypoLen || n >= len(x.byLen) {
				continue
			}
			for _, w := range x.byLen[n] {
				if w[0] != key[0] && w[1] != key[1] && (w[0] != key[1] || w[1] != key[0]) {
					continue // a typo keeps the first or the second letter, or swaps them
				}
				d := rows.Distance(key, w, 2)
				if d == 0 || d > allowedEdits(key, w) || d > bestD {
					continue
				}
				r, same := typoRank(w), len(w) == len(key)
				if d == bestD && w != best {
					switch {
					case r < bestRank || r == bestRank && bestSame && !same:
					case r == bestRank && same == bestSame && phrases[w] == phrases[best]:
						if len(w) > len(best) { // "toks" and "tokens" mean the same: say the longer
							best = w
						}
					case r == bestRank && same == bestSame:
						tie = true
					default:
						best, bestRank, bestSame, tie = w, r, same, false
					}
					continue
				}
				best, bestD, bestRank, bestSame, tie = w, d, r, same, false
			}
		}
	}
	if best == "" || tie {
		return "", false
	}
	return best, true
}

// typoRank orders equally close corrections: a method or a verb is what
// a short mistyped word most often was ("lorra" is "lora", not the
// keyword "lora r"), then names, then the other settings. Among equals a
// word of the key's own length wins ("nodse" is "nodes", not "node").
func typoRank(w string) int {
	ph, ok := phrases[w]
	switch {
	case !ok:
		return 2 // a model or GPU name word
	case ph.kind == kindMethod:
		return 4
	case ph.kind == kindTrainVerb || ph.kind == kindServeVerb:
		return 3
	}
	return 1
}

// allowedEdits is how far a key may be from a word and still be read as
// it: one edit, two for long words, and two for a short word of the
// same length with the same first and last letter ("lamma", "llama").
func allowedEdits(key, w string) int {
	switch {
	case len(key) >= 8:
		return 2
	case len(key) >= 5 && len(key) == len(w) && key[0] == w[0] && key[len(key)-1] == w[len(w)-1]:
		return 2
	}
	return 1
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// nameFix records a correction of the model or GPU name in tokens
// [from, to) to the only suggestion one substitution or swap from it
// ("rtx 4095" to rtx-4090). It reports whether it did.
func (p *parser) nameFix(from, to int, suggestions []string) bool {
	if len(suggestions) == 0 {
		return false
	}
	text := p.text(from, to)
	if strings.Contains(text, "/") {
		return false // a Hugging Face repo id is a name of its own, not a typo
	}
	key := strings.ReplaceAll(keyOf(text), " ", "")
	var rows sizing.EditRows
	close := ""
	for _, s := range suggestions {
		// One substitution or swap, never a digit more or less: "qwen3-14b"
		// is another model than "qwen3-4b", "rtx 4095" a typo of 4090.
		if k := keyOf(s); len(k) == len(key) && rows.Distance(key, k, 1) <= 1 {
			if close != "" {
				return false
			}
			close = s
		}
	}
	if close == "" {
		return false
	}
	p.fixes = append(p.fixes, typoFix{from: from, to: to, text: close})
	p.ignore(from, to)
	return true
}

// corrected is the input with the fixes applied, and the notes that say
// what was read for what.
func (p *parser) corrected() (string, []string) {
	var b strings.Builder
	notes := make([]string, 0, len(p.fixes))
	at := 0
	for _, f := range p.fixes {
		start, end := p.toks[f.from].start, p.toks[f.to-1].end
		b.WriteString(p.in[at:start])
		b.WriteString(f.text)
		at = end
		notes = append(notes, fmt.Sprintf("%s read as %s", quote(p.in[start:end]), quote(f.text)))
	}
	b.WriteString(p.in[at:])
	return b.String(), notes
}
