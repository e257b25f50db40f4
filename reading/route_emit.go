package reading

import (
	"slices"
	"sort"
	"strings"
)

// emitPrefix starts the names of the vocab.txt sets that name a launch
// config kind (emit_deepspeed: "deepspeed").
const emitPrefix = "emit_"

// emitReach is how many words apart a launch kind and the word that asks
// for its config may be ("vllm serve command", "config for deepspeed").
const emitReach = 3

// emitKind is a launch config kind and the words that name it.
type emitKind struct {
	name  string
	words map[string]bool
}

// Words of the launch config ask, by key, and the kinds, in name order.
var (
	emitAsk   = vocab.set("emit_ask")
	emitKinds = func() []emitKind {
		var out []emitKind
		for name, words := range vocab.sets {
			if strings.HasPrefix(name, emitPrefix) && name != "emit_ask" {
				out = append(out, emitKind{name: strings.TrimPrefix(name, emitPrefix), words: words})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
		return out
	}()
)

// emitAsked is the launch config kind the tokens ask for ("give me a
// deepspeed config", "vllm command to serve ..."): a kind's word with a
// word asking for its config near it; "" when none is asked.
func emitAsked(toks []token) string {
	if !slices.ContainsFunc(toks, func(t token) bool { return emitAsk.has(t.key) }) {
		return "" // no word asks for a config: spares looking up each kind's words
	}
	for i, t := range toks {
		for _, kind := range emitKinds {
			if !kind.words[t.key] {
				continue
			}
			for j := max(0, i-emitReach); j < min(len(toks), i+emitReach+1); j++ {
				if emitAsk.has(toks[j].key) {
					return kind.name
				}
			}
		}
	}
	return ""
}
