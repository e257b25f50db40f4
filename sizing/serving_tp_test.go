package sizing

import (
	"strings"
	"testing"
)

// TestTensorParallelServes checks vLLM's rule on the heads: Llama 3.3 70B
// (64 heads, 8 KV heads) splits over 1, 2, 4, 8 and 16 GPUs, not 3 or 6;
// Qwen2.5 7B (28 heads, 4 KV heads) not over 8.
func TestTensorParallelServes(t *testing.T) {
	for _, tt := range []struct {
		model string
		tp    int
		want  bool
	}{
		{"llama-3.3-70b", 2, true}, {"llama-3.3-70b", 3, false}, {"llama-3.3-70b", 6, false},
		{"llama-3.3-70b", 8, true}, {"llama-3.3-70b", 16, true},
		{"qwen2.5-7b", 4, true}, {"qwen2.5-7b", 8, false},
	} {
		rs, err := resolve(Query{Model: tt.model, Method: MethodInference, GPU: "h100"})
		if err != nil {
			t.Fatal(err)
		}
		if got := tensorParallelServes(&rs.shape, tt.tp); got != tt.want {
			t.Errorf("tensorParallelServes(%s, %d) = %v, want %v", tt.model, tt.tp, got, tt.want)
		}
	}
}

// TestServingOnCountThatSplitsNoHeads: "3x rtx 5090 for
// llama 3.3 70b q4, tp3 possible?" answered as if tensor parallel 3
// worked. The first warning now says it does not, and what runs on three
// cards. The layout note comes only for a layout other than the one
// sized, and no longer says a layout plays no part in serving.
func TestServingOnCountThatSplitsNoHeads(t *testing.T) {
	p, err := Parse("3x rtx 5090 for llama 3.3 70b q4, tp3 possible?")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) == 0 {
		t.Fatal("no warnings")
	}
	first := a.Warnings[0]
	for _, want := range []string{"tensor parallel 3 is not possible", "64 attention heads (8 KV heads)", "--split-mode layer", "--pipeline-parallel-size 3", "or tensor parallel 2 on 2 of them (22.6 GiB per GPU)"} {
		if !strings.Contains(first, want) {
			t.Errorf("first warning %q lacks %q", first, want)
		}
	}
	all := strings.Join(a.Warnings, "\n")
	if strings.Contains(all, "plays no part") {
		t.Errorf("warnings still say a layout plays no part in serving:\n%s", all)
	}
	if strings.Contains(all, "parallel layout asked") {
		t.Errorf("a layout note for tp3 on 3 GPUs, the split sized:\n%s", all)
	}
	p, _ = Parse("llama 3.1 70b on 8 h100 tp 4 pp 2")
	a, err = (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(a.Warnings, "\n"); !strings.Contains(all, "pipeline parallelism splits the layers") || strings.Contains(all, "plays no part") {
		t.Errorf("tp 4 pp 2 on 8 GPUs in one machine: warnings lack the truthful layout note:\n%s", all)
	}
	for _, q := range []string{"llama 3.3 70b q4 on 2x rtx 5090", "llama 3.3 70b q4 on 4x rtx 5090"} {
		p, _ := Parse(q)
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if w := strings.Join(a.Warnings, "\n"); strings.Contains(w, "tensor parallel") {
			t.Errorf("%s: a warning on tensor parallelism where the heads split:\n%s", q, w)
		}
	}
}

// TestServePlanSkipsCountsThatSplitNoHeads: a plan for Qwen2.5 7B (28
// heads) never offers a replica of 8 GPUs, and says why.
func TestServePlanSkipsCountsThatSplitNoHeads(t *testing.T) {
	p, err := Parse("qwen2.5-7b for 3000 users")
	if err != nil {
		t.Fatal(err)
	}
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.34, "h100": 2.99, "l40s": 0.79, "a100-80": 1.39}}
	ans, err := e.Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ans.Serve.Options {
		if o.Serving.GPUsPerReplica == 8 {
			t.Errorf("option %d× %s: 8 GPUs per replica do not split 28 heads", o.Serving.GPUsPerReplica, o.GPUName)
		}
	}
	if all := strings.Join(ans.Assumptions, "\n"); !strings.Contains(all, "no replica of 8 GPUs: Qwen2.5 7B's 28 attention heads do not split over 8") {
		t.Errorf("assumptions do not say why 8 is skipped:\n%s", all)
	}
}

// TestServingOnAMac: on Apple silicon the answer is served with
// llama.cpp in the GPU's share of unified memory (vLLM runs on no Apple
// GPU), at one request in a fit answer; a capacity ask still counts the
// users.
func TestServingOnAMac(t *testing.T) {
	p, err := Parse("mac studio m2 ultra 192gb llama 3.1 70b")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	sv := a.Serving
	if sv == nil || sv.Engine != EngineLlamaCPP || sv.UnifiedMemoryShare != 0.75 || sv.GPUMemoryUtilization != 1 || sv.Concurrency != 1 {
		t.Fatalf("Serving = %+v, want llama.cpp in 75%% of unified memory at 1 request", sv)
	}
	p, err = Parse("how many users can an m2 ultra 192gb serve llama 3.1 70b q4")
	if err != nil {
		t.Fatal(err)
	}
	ans, err := (&Estimator{}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	if c := ans.Serve.Capacity; c == nil || c.Engine != EngineLlamaCPP || c.Concurrency <= 1 {
		t.Errorf("capacity = %+v, want llama.cpp counting the users", c)
	}
	if all := strings.Join(ans.Assumptions, "\n"); !strings.Contains(all, "served with llama.cpp (or MLX; vLLM and SGLang do not run on Apple GPUs)") || strings.Contains(all, "serving engine vllm") {
		t.Errorf("assumptions name the wrong engine:\n%s", all)
	}
}

// TestFirstTokenAsked: "time to first token" and a bare "ttft" ask the
// figure (no target), read back by Format; the answer carries the
// batch-1 time, a prompt's prefill and one decode step (Llama 3.1 8B,
// 32k prompt, one A100: about 4.1 s at 7,900 tokens/s of prefill).
func TestFirstTokenAsked(t *testing.T) {
	for _, q := range []string{"time to first token for a 32k prompt on llama 3.1 8b on one a100?", "whats the ttft of llama 3.1 8b on an a100 at 32k prompt"} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		if !p.Query.Serve.FirstToken || p.Query.Serve.TTFTTargetSeconds != 0 || p.Intent != IntentFit {
			t.Errorf("Parse(%q) = %+v (%s), want the first token asked, no target, a fit", q, p.Query.Serve, p.Intent)
		}
		back, err := Parse(Format(p.Query))
		if err != nil || back.Query.Serve != p.Query.Serve {
			t.Errorf("Format(%q) = %q reads back as %+v, %v", q, Format(p.Query), back.Query.Serve, err)
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Request.FirstTokenAsked || a.Serving == nil || a.Serving.AloneTTFTSeconds < 3.8 || a.Serving.AloneTTFTSeconds > 4.5 {
			t.Errorf("%s: first token asked %v, serving %+v, want about 4.1 s alone", q, a.Request.FirstTokenAsked, a.Serving)
		}
	}
}

// TestOutputInAll: "need to hit 1000 tok/s for llama
// 8b, how many l4s" read 1000 tok/s as each user's speed and never said
// how many L4s. With no users and no "each", asked how many cards (or
// with "total", "aggregate", "throughput"), it is the output of all
// replicas together: the plan adds replicas until they make it. A
// tokens/s with "each", or asked of one card, stays a speed per user.
func TestOutputInAll(t *testing.T) {
	for _, tt := range []struct {
		q            string
		total, each  float64
		noteContains string
	}{
		{"need to hit 1000 tok/s for llama 8b, how many l4s", 1000, 0, `"1000 tok/s" taken as the output of all replicas together`},
		{"llama 3.1 8b 2000 tok/s aggregate throughput on h100s", 2000, 0, ""},
		{"llama 3.1 8b on l4s at 1000 tok/s in total", 1000, 0, ""},
		{"how many l4s for llama 3.1 8b at 20 tok/s each", 0, 20, ""},
		{"llama 3.1 8b on an l4 at 30 tok/s", 0, 30, ""},
		{"how many l4s for 50 users of llama 3.1 8b at 20 tok/s", 0, 20, ""},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.q, err)
		}
		l := p.Query.Serve
		if l.OutputTokensPerSecondTarget != tt.total || l.TokensPerSecondPerUserTarget != tt.each {
			t.Errorf("Parse(%q): %g in all, %g each; want %g, %g", tt.q, l.OutputTokensPerSecondTarget, l.TokensPerSecondPerUserTarget, tt.total, tt.each)
		}
		if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, tt.noteContains) || strings.Contains(notes, "not used") {
			t.Errorf("Parse(%q) notes:\n%s\nwant %q and no words not used", tt.q, notes, tt.noteContains)
		}
		if back, err := Parse(Format(p.Query)); err != nil || back.Query.Serve != l {
			t.Errorf("Format(%q) = %q reads back as %+v, %v", tt.q, Format(p.Query), back.Query.Serve, err)
		}
	}
	p, _ := Parse("need to hit 1000 tok/s for llama 8b, how many l4s")
	ans, err := (&Estimator{Prices: stubPrices{"l4": 0.8}}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	s := ans.Serve
	if !s.MeetsTargets || len(s.Options) == 0 {
		t.Fatalf("no plan meets 1000 tok/s in all: %+v", s)
	}
	for _, o := range s.Options {
		v := o.Serving
		if all := v.OutputTokensPerSecond * float64(v.Replicas); all < 1000 || v.TokensPerSecondPerUser < usableTokensPerSecond {
			t.Errorf("%d × %d× %s (%s): %.0f tok/s in all, %.1f each; want 1000 or more in all, %g or more each",
				v.Replicas, v.GPUsPerReplica, o.GPUName, o.Quant, all, v.TokensPerSecondPerUser, usableTokensPerSecond)
		}
	}
	if v := s.Options[0].Serving; v.Replicas*v.GPUsPerReplica > 5 {
		t.Errorf("cheapest uses %d L4s; about 227 tok/s each in fp8 makes 1000 on 4-5", v.Replicas*v.GPUsPerReplica)
	}
}

// TestServingLayout: the engine's split of a replica is tensor parallel
// over the most GPUs of a machine the heads allow, pipeline stages for
// the rest: Llama 3.3 70B on 3 GPUs is 1 × 3, on 6 is 2 × 3, on 8 is
// 8 × 1, on 2 machines of 8 is 8 × 2.
func TestServingLayout(t *testing.T) {
	rs, err := resolve(Query{Model: "llama-3.3-70b", Method: MethodInference, GPU: "h100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ gpus, nodes, tp, pp int }{{1, 1, 1, 1}, {3, 1, 1, 3}, {6, 1, 2, 3}, {8, 1, 8, 1}, {16, 2, 8, 2}} {
		if tp, pp := servingLayout(&rs.shape, tt.gpus, tt.nodes); tp != tt.tp || pp != tt.pp {
			t.Errorf("servingLayout(%d GPUs, %d machines) = %d × %d, want %d × %d", tt.gpus, tt.nodes, tp, pp, tt.tp, tt.pp)
		}
	}
}
