package reading

import (
	"slices"
	"sort"
	"strings"
)

// outsidePrefix starts the names of the vocab.txt sets and phrases that
// cue something fitbot cannot do (outside_book: booking GPUs).
const outsidePrefix = "outside_"

// unlessPrefix starts the names of the vocab.txt sets whose words, said
// anywhere, make a cue of the outside thing after it ask something else
// (unless_quality: "worth it vs renting" weighs buying, not models).
const unlessPrefix = "unless_"

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
		words, unless := vocab.sets[outsidePrefix+name], vocab.sets[unlessPrefix+name]
		if slices.ContainsFunc(toks, func(t token) bool { return unless[t.key] }) {
			continue // "is a 4090 worth it vs renting": buying weighed, not models
		}
		for i, t := range toks {
			if words[t.key] || vocab.phraseAt(outsidePrefix+name, toks, i) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// cloudAskedWords say that a question asks about rented cards (vocab.txt
// cloud_asked).
var cloudAskedWords = vocab.set("cloud_asked")

// CloudAsked reports whether text asks about rented cards: a cloud word
// ("cloud credits", "rented") or a provider named. A question that asks so
// and names none of the team's machines is not sized on them.
func CloudAsked(text string) bool {
	toks, err := lex(text)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(toks, func(t token) bool { return cloudAskedWords.has(t.key) }) || len(providersNamed(toks)) > 0
}
