package pricing

import (
	"strings"
	"sync"

	"github.com/fitbot/fitbot/sizing"
)

// gpuFamilies maps a family key ("a100", "h100", "rtx4090") to the
// catalog ids of its variants, in catalog order: the first word of each
// GPU's name, two words for RTX cards ("RTX 4090", "RTX A6000").
var gpuFamilies = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for _, g := range sizing.GPUs() {
		words := strings.Fields(g.Name)
		if len(words) == 0 {
			continue
		}
		n := 1
		if strings.EqualFold(words[0], "RTX") && len(words) > 1 {
			n = 2
		}
		k := familyKey(strings.Join(words[:n], " "))
		out[k] = append(out[k], g.ID)
	}
	return out
})

// familyKey folds a family name for lookup: lower case, no spaces,
// dashes or underscores ("A100", "a-100" and "a 100" are one key).
func familyKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// GPUFamily returns the catalog ids of every variant of the GPU family a
// name stands for, when it names a family of more than one variant
// ("a100": the 80 GB SXM, 80 GB PCIe, 40 GB SXM and 40 GB PCIe; "h100":
// SXM, NVL and PCIe), in catalog order; nil for a name that is one GPU or
// no family.
func GPUFamily(name string) []string {
	ids := gpuFamilies()[familyKey(name)]
	if len(ids) < 2 {
		return nil
	}
	return append([]string(nil), ids...)
}
