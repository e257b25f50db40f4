package llm

import (
	"slices"
	"testing"
)

// TestRequestSpecEnums: the request's names are the catalogs' ids, so a
// reading names only cards and models fitbot knows.
func TestRequestSpecEnums(t *testing.T) {
	spec := RequestSpec([]string{"sizing", "price"})
	for path, want := range map[string]string{"query.gpu": "h100", "query.model": "llama-3.1-8b", "route.gpus": "rtx-4090",
		"query.method": "qlora", "query.quant": "awq", "intent": "which_gpu", "kind": "price"} {
		if !slices.Contains(spec.Enums[path], want) {
			t.Errorf("%s enum lacks %q", path, want)
		}
	}
	if n := len(spec.Enums["query.gpu"]) + len(spec.Enums["query.model"]); n < 150 || n > 900 {
		t.Errorf("%d GPU and model ids; strict mode takes up to 1000 enum values in all", n)
	}
}
