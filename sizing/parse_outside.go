package sizing

import (
	"fmt"
	"regexp"
	"strings"
)

// Models people name that the catalog lacks and that no catalog family
// word starts ("yi 34b", "command r plus", "vit large"): the parser
// refuses them by name, with their Hugging Face Hub id in the Try line,
// instead of dropping the name and sizing a bare size or another model.

// outsideModel is a model known by name only: what it is called and its
// Hub repo id.
type outsideModel struct {
	name, repo string
}

// outsideModelAt reads an outside model's name starting at token i and
// reports it with the tokens it covers (0 when none starts there). A
// size after the name ("yi 34b") is part of it.
func (p *parser) outsideModelAt(i int) (outsideModel, int) {
	key := func(j int) string {
		if j < len(p.toks) {
			return p.toks[j].key
		}
		return ""
	}
	if strings.HasPrefix(key(i), "yi") {
		return yiAt(key, i, len(p.toks)-i)
	}
	switch k := key(i); k {
	case "command", "commandr", "commandrplus", "commandr+":
		n, plus := 1, k == "commandrplus" || k == "commandr+" || strings.HasSuffix(p.toks[i].raw, "+")
		if k == "command" {
			if key(i+1) != "r" {
				return outsideModel{}, 0
			}
			n = 2
			plus = plus || p.toks[i+1].end < len(p.in) && p.in[p.toks[i+1].end] == '+'
		}
		if key(i+n) == "plus" {
			n, plus = n+1, true
		}
		if plus {
			return outsideModel{"Command R+", "CohereForAI/c4ai-command-r-plus"}, n
		}
		return outsideModel{"Command R", "CohereForAI/c4ai-command-r-v01"}, n
	case "vit", "vitb", "vitl", "vith":
		variants := map[string]outsideModel{
			"b": {"ViT-B", "google/vit-base-patch16-224"}, "base": {"ViT-B", "google/vit-base-patch16-224"},
			"l": {"ViT-L", "google/vit-large-patch16-224"}, "large": {"ViT-L", "google/vit-large-patch16-224"},
			"h": {"ViT-H", "google/vit-huge-patch14-224-in21k"}, "huge": {"ViT-H", "google/vit-huge-patch14-224-in21k"},
		}
		if k != "vit" {
			return variants[k[len("vit"):]], 1
		}
		if m, ok := variants[key(i+1)]; ok {
			return m, 2
		}
		return variants["base"], 1
	}
	return outsideModel{}, 0
}

// yiName is a Yi model's name as keys run together: Yi 1.0 or 1.5
// ("yi-1.5", "yi 1.5", "yi v1.5"), a size, and a Chat or Base tag.
var yiName = regexp.MustCompile(`^yi(v?1\.5|15)?(6b|9b|34b)?(chat|base)?$`)

// yiAt reads a Yi model over up to four tokens from i ("yi 1.5 9b",
// "Yi-1.5-34B-Chat", "yi 34b"), of the left tokens from i on: its name and
// Hub id keep the asked version and size (the Hub id 34B when no size is
// said).
func yiAt(key func(int) string, i, left int) (outsideModel, int) {
	for n := min(4, left); n >= 1; n-- {
		var b strings.Builder
		for j := i; j < i+n; j++ {
			b.WriteString(key(j))
		}
		m := yiName.FindStringSubmatch(b.String())
		if m == nil {
			continue
		}
		name, repo, size := "Yi", "01-ai/Yi-", strings.ToUpper(m[2])
		if m[1] != "" {
			name, repo = "Yi 1.5", "01-ai/Yi-1.5-"
		}
		if size == "" {
			return outsideModel{name, repo + "34B"}, n
		}
		return outsideModel{name + " " + size, repo + size}, n
	}
	return outsideModel{}, 0
}

// outside refuses an outside model named at token i, keeping the rest of
// the question in the Try line with the model's Hub id, and reports the
// tokens it covered (0 when no outside model starts there).
func (p *parser) outside(i int) int {
	m, n := p.outsideModelAt(i)
	if n == 0 || p.words[fModel] != "" {
		return 0
	}
	p.missingModel(i, i+n)
	p.fail(fmt.Sprintf("I don't know %s (%s): it is not in fitbot's catalog; give its Hugging Face Hub id and fitbot reads its config.json", m.name, quote(p.text(i, i+n))),
		func(q *Query) { q.Model, q.Params, q.Experts = m.repo, 0, 0 })
	return n
}
