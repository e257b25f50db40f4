package reading

import (
	"sort"
	"strings"
)

// outsidePrefix starts the names of the vocab.txt sets and phrases that
// cue something fitbot cannot do (outside_book: booking GPUs).
const outsidePrefix = "outside_"

// outsideNames are the things vocab.txt names that fitbot cannot do.
var outsideNames = func() []string {
	seen := map[string]bool{}
	for name := range vocab.sets {
		seen[name] = true
	}
	for name := range vocab.phrases {
		seen[name] = true
	}
	var out []string
	for name := range seen {
		if strings.HasPrefix(name, outsidePrefix) {
			out = append(out, strings.TrimPrefix(name, outsidePrefix))
		}
	}
	sort.Strings(out)
	return out
}()

// outsideOfModels are the things fitbot cannot do that only a weighing of
// models asks ("is 70b worth it"): a comparison of two cards, methods or
// formats does not ask them.
var outsideOfModels = vocab.set("model_weighing")

// Outside are the things text asks that fitbot cannot do ("book me 4
// h100s": "book"; "is 70b worth it": "quality"), by their vocab.txt
// name, in name order; none for a message that asks only what fitbot
// answers.
func Outside(text string) []string {
	toks, err := lex(text)
	if err != nil {
		return nil
	}
	cmp, compared := ParseComparison(text)
	var out []string
	for _, name := range outsideNames {
		if outsideOfModels.has(name) && compared && cmp.Setting != settingModel {
			// "is the h200 worth it over the h100": two cards weighed by
			// their cost, which fitbot answers; not two models' quality.
			continue
		}
		words := vocab.sets[outsidePrefix+name]
		for i, t := range toks {
			if words[t.key] || vocab.phraseAt(outsidePrefix+name, toks, i) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
