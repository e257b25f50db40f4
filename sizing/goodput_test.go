package sizing

import (
	"strings"
	"testing"
)

// TestRunGoodputBasis: what a training answer's hours count by what is
// asked: no budget is a step rate, a fine-tuning job or a short run takes
// RunGoodput, full training of ProductionTokens or more
// ProductionGoodput, and a projection none; the answer, its GPU-hours and
// its assumptions line agree.
func TestRunGoodputBasis(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       Query
		basis   string
		goodput float64
		said    string
	}{
		{"speed only", Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8}, GoodputStep, 0, "a run's hours count 90%"},
		{"LoRA job", Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "h100", Tokens: 2e11}, GoodputJob, RunGoodput, "a run's hours count 90%"},
		{"short full run", Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8, Tokens: 1e9}, GoodputJob, RunGoodput, "a run's hours count 90%"},
		{"pre-training", Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 512, Tokens: 1e12}, GoodputProduction, ProductionGoodput, "a production run (full training of 1T tokens on 512 GPUs for "},
		{"projection", Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 512, Tokens: 1e12, Projection: true}, GoodputProjection, 1, "the run is a projection"},
	} {
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		th := a.Throughput
		if th.GoodputBasis != tc.basis {
			t.Errorf("%s: basis %q, want %q", tc.name, th.GoodputBasis, tc.basis)
		}
		if tc.basis == GoodputStep {
			if th.Goodput != nil || th.Hours != nil {
				t.Errorf("%s: a speed carries goodput %v and hours %v", tc.name, th.Goodput, th.Hours)
			}
		} else {
			if th.Goodput == nil || *th.Goodput != tc.goodput {
				t.Errorf("%s: goodput %v, want %v", tc.name, th.Goodput, tc.goodput)
			}
			want := float64(tc.q.Tokens) / *th.TokensPerSecond / 3600 / tc.goodput
			if !withinRel(*th.Hours, want, 1e-9) {
				t.Errorf("%s: %.4g hours, the tokens at the speed over the goodput are %.4g", tc.name, *th.Hours, want)
			}
			if g := CountGPUHours(a.Request, th); g.Run == nil || !withinRel(*g.Run, *th.Hours*float64(a.Request.GPUs), 1e-9) {
				t.Errorf("%s: GPU-hours %v, not the answer's hours × GPUs", tc.name, g.Run)
			}
		}
		said := false
		for _, s := range a.Assumptions {
			said = said || strings.Contains(s, tc.said)
		}
		if !said {
			t.Errorf("%s: no assumption says %q: %q", tc.name, tc.said, a.Assumptions)
		}
	}
}
