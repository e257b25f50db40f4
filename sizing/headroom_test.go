package sizing

import (
	"strings"
	"testing"
)

// TestOneHeadroomRule: the verdict, every alternative and the inverse
// searches class a total against a card by the same rule: more than the
// card does not fit, within 20 % of it is tight, below that comfortable.
func TestOneHeadroomRule(t *testing.T) {
	tight := 0
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.7, "a100-80": 1.9, "h100": 2.5, "l40s": 1.0, "rtx-3090": 0.4}}
	for _, q := range []Query{
		{Params: 13e9, Method: MethodFull, GPU: "rtx-4090"},
		{Model: "llama-3.1-70b", Method: MethodInference, GPU: "rtx-4090"},
		{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "rtx-3090", SeqLen: 8192},
	} {
		a, err := e.Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		if want := headroom(a.PerGPU.TotalBytes, a.VRAMBytes); a.Headroom != want {
			t.Errorf("%+v: verdict headroom %s, rule says %s", q, a.Headroom, want)
		}
		for _, alt := range a.Alternatives {
			want := headroom(alt.TotalBytes, gpuOf(t, alt.GPU).MemoryBytes)
			if alt.Headroom != want || want == HeadroomOver {
				t.Errorf("%+v: alternative %q headroom %s, rule says %s", q, alt.Why, alt.Headroom, want)
			}
			if want == HeadroomTight {
				tight++
			}
			if (want == HeadroomTight) != strings.Contains(alt.Why, tightNote) {
				t.Errorf("alternative %q: tight=%v but the words disagree", alt.Why, want == HeadroomTight)
			}
		}
	}
	if tight == 0 {
		t.Error("no tight alternative among the cases: the test no longer covers the words")
	}
	ans, err := e.MaxContext(Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "a100-80"})
	if err != nil {
		t.Fatal(err)
	}
	c := ans.MaxContext
	if c.Headroom != headroom(c.PerGPU.TotalBytes, c.VRAMBytes) {
		t.Errorf("max context headroom %s disagrees with the rule", c.Headroom)
	}
	if c.Headroom == HeadroomTight {
		if c.ComfortableMaxTokens <= 0 || c.ComfortableMaxTokens >= c.MaxTokens {
			t.Errorf("comfortable max tokens %d, want below the tight maximum %d", c.ComfortableMaxTokens, c.MaxTokens)
		}
		q := Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "a100-80", SeqLen: c.ComfortableMaxTokens}
		if a, _ := e.Answer(q); a.Headroom != HeadroomComfortable {
			t.Errorf("at the comfortable maximum %d tokens the verdict is %s", c.ComfortableMaxTokens, a.Headroom)
		}
	}
	la, err := e.LargestModel(Query{GPU: "rtx-4090"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range la.Largest.Rows {
		if row.MaxParams == 0 {
			continue
		}
		if row.Headroom != headroom(row.TotalBytes, la.Largest.VRAMBytes) {
			t.Errorf("%s: headroom %s disagrees with the rule", row.Label, row.Headroom)
		}
		if row.ComfortableMaxParams > row.MaxParams || (row.Headroom == HeadroomTight && row.ComfortableMaxParams == row.MaxParams) {
			t.Errorf("%s: comfortable %d vs max %d (%s)", row.Label, row.ComfortableMaxParams, row.MaxParams, row.Headroom)
		}
	}
}
