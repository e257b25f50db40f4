package sizing

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLayoutMemory: Megatron's split of model states (÷ TP × PP, ZeRO-1
// over DP) and Korthikanti's activations under TP + SP (÷ TP), CP (÷ CP)
// and 1F1B (the first stage holds PP micro-batches of L/PP layers: the
// whole model's worth).
func TestLayoutMemory(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-3.1-70b"))
	base := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 64, 1)
	base.SeqLen, base.GradAccumSteps = 8192, 16
	plain := trainingMemory(&base, &s)
	r := base
	r.TensorParallel, r.PipelineParallel = 4, 4
	m := trainingMemory(&r, &s)
	if got, want := float64(m.WeightsBytes), float64(plain.WeightsBytes)/16; !withinRel(got, want, 1e-6) {
		t.Errorf("weights under TP 4 × PP 4: %.3g B, want 1/16 of %.3g", got, float64(plain.WeightsBytes))
	}
	if got, want := float64(m.OptimizerBytes), 12*float64(s.total)/16/4; !withinRel(got, want, 1e-6) {
		t.Errorf("ZeRO-1 over DP 4: optimizer %.3g B, want %.3g", got, want)
	}
	// Activations: first stage L/4 layers × 4 in flight × interleaving, ÷ TP.
	cp := r
	cp.ContextParallel = 2
	if a, b := float64(trainingMemory(&cp, &s).ActivationsBytes), float64(m.ActivationsBytes); !withinRel(a, b/2, 0.01) {
		t.Errorf("CP 2 activations %.3g, want half of %.3g", a, b)
	}
	tp8 := r
	tp8.TensorParallel = 8
	if a, b := float64(trainingMemory(&tp8, &s).ActivationsBytes), float64(m.ActivationsBytes); !withinRel(a, b/2, 0.01) {
		t.Errorf("TP 8 activations %.3g, want half of TP 4's %.3g", a, b)
	}
	if f := bubbleFraction(&r, &s); !withinRel(f, 3.0/(float64(virtualStages(&r, &s))*16), 1e-9) {
		t.Errorf("bubble %.3f, want (PP-1)/(V·m)", f)
	}
}

// TestLayoutSearch: a 405B run over 2,048 machines that does not fit as
// plain FSDP gets a layout, says so, and the search is fast.
func TestLayoutSearch(t *testing.T) {
	q := Query{Model: "llama-3.1-405b", Method: MethodFull, GPU: "h100", GPUs: 16384, SeqLen: 8192, GlobalBatchTokens: 16 << 20}
	a, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits || !hasLayout(&a.Request) {
		t.Fatalf("405B on 16,384 H100: fits %v, layout %s", a.Fits, layoutName(&a.Request))
	}
	if !anyContains(a.Assumptions, "chosen") {
		t.Errorf("the chosen layout is not said: %q", a.Assumptions)
	}
	if a.Request.GlobalBatchTokens < 16<<20 || a.Request.GlobalBatchTokens > 17<<20 {
		t.Errorf("global batch %d, want the asked 16M tokens kept", a.Request.GlobalBatchTokens)
	}
	rs, err := resolve(q)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	const n = 20
	for range n {
		rs.req.TensorParallel, rs.req.PipelineParallel, rs.req.ContextParallel = 1, 1, 1
		rs.searchLayout(q)
	}
	if per := time.Since(start) / n; per > 5*time.Millisecond {
		t.Errorf("layout search takes %v, want under 5 ms", per)
	}
}

// TestMegatronWordSearches: "megatron" on one machine of H100s picks a tensor or
// pipeline layout although FSDP fits.
func TestMegatronWordSearches(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8, ModelParallel: true})
	if err != nil {
		t.Fatal(err)
	}
	if tensorParallel(&a.Request)*pipelineParallel(&a.Request) == 1 {
		t.Errorf("megatron asked, layout %s", layoutName(&a.Request))
	}
}

// TestPipelineFilled: a pipeline with no accumulation or global batch said
// runs 4 × PP micro-batches per step, not one. DeepSeek-V3 fp8 on 64 H100
// (EP 8) chose PP 32 and ran one micro-batch through it: 5,190 tokens/s,
// 1% MFU, against the report's ~1,470 tokens/s per H800 (2.788M GPU-hours
// for 14.8T tokens, technical report Table 1); an asked PP keeps the
// asked accumulation.
func TestPipelineFilled(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "deepseek-v3", Method: MethodFull, Precision: PrecisionFP8, GPU: "h100", GPUs: 64, ExpertParallel: 8})
	if err != nil {
		t.Fatal(err)
	}
	pp := pipelineParallel(&a.Request)
	if pp > 1 && a.Request.GradAccumSteps < 4*pp {
		t.Errorf("layout %s: %d micro-batches per step, want at least 4 × PP", layoutName(&a.Request), a.Request.GradAccumSteps)
	}
	if a.Throughput.TokensPerSecond == nil {
		t.Fatal("DeepSeek-V3 on 64 H100: no speed")
	}
	if perGPU := *a.Throughput.TokensPerSecond / 64; perGPU < 700 || perGPU > 3000 {
		t.Errorf("DeepSeek-V3 on 64 H100: %.0f tokens/s per GPU, want within 2× of the report's ~1,470", perGPU)
	}
	b, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8, PipelineParallel: 2, GradAccumSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if b.Request.GradAccumSteps != 3 {
		t.Errorf("accumulation 3 asked with PP 2: %d", b.Request.GradAccumSteps)
	}
}

// FuzzLayout: any layout either answers with a consistent total or is
// refused with an *InputError; never a panic.
func FuzzLayout(f *testing.F) {
	f.Add(uint8(3), int16(64), int16(8), int16(4), int16(2), int16(1), int32(8192))
	f.Add(uint8(200), int16(2048), int16(1), int16(16), int16(1), int16(64), int32(4096))
	models := Models()
	f.Fuzz(func(t *testing.T, model uint8, gpus, tp, pp, cp, ep int16, seq int32) {
		q := Query{Model: models[int(model)%len(models)].ID, Method: MethodFull, GPU: "h100", GPUs: int(gpus),
			TensorParallel: int(tp), PipelineParallel: int(pp), ContextParallel: int(cp), ExpertParallel: int(ep), SeqLen: int(seq)}
		a, err := (&Estimator{}).Answer(q)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%+v: %v is not an *InputError", q, err)
			}
			return
		}
		if a.PerGPU.TotalBytes != termSum(a.PerGPU) || a.PerGPU.TotalBytes < 0 {
			t.Fatalf("%+v: total %d, terms %d", q, a.PerGPU.TotalBytes, termSum(a.PerGPU))
		}
	})
}

// BenchmarkLayoutSearch: the search for 405B on 16,384 H100 (every
// tensor, pipeline and context degree that divides the GPUs).
func BenchmarkLayoutSearch(b *testing.B) {
	q := Query{Model: "llama-3.1-405b", Method: MethodFull, GPU: "h100", GPUs: 16384, SeqLen: 8192, GlobalBatchTokens: 16 << 20}
	rs, err := resolve(q)
	if err != nil {
		b.Fatal(err)
	}
	base := rs.req
	base.TensorParallel, base.PipelineParallel, base.ContextParallel = 1, 1, 1
	b.ReportAllocs()
	for b.Loop() {
		rs.req = base
		rs.searchLayout(q)
	}
}

// TestNoZeROWithoutDataParallel: ZeRO shards across data-parallel ranks
// only, so a layout that leaves one (Mixtral 8x7B as TP 4 × PP 2 on 8
// GPUs) answers without ZeRO, says why, and a ZeRO stage asked anyway is
// noted as sharding nothing; the layout line names only the parts there.
func TestNoZeROWithoutDataParallel(t *testing.T) {
	e := &Estimator{}
	a, err := e.Answer(Query{Model: "mixtral-8x7b", Method: MethodFull, GPU: "h100", GPUs: 8, TensorParallel: 4, PipelineParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.ZeROStage != 0 || !anyContains(a.Assumptions, "no ZeRO: it shards across data-parallel ranks, and TP 4 × PP 2 × EP 4 on 8 GPUs leaves one") {
		t.Errorf("ZeRO-%d, assumptions %q; want no ZeRO, said", a.Request.ZeROStage, a.Assumptions)
	}
	if !anyContains(a.Assumptions, "as Megatron-LM lays it out: sequence parallel with tensor parallel, 1F1B pipeline with 4 virtual stages per GPU") ||
		anyContains(a.Assumptions, "ring attention") {
		t.Errorf("assumptions %q; want the tensor and pipeline parts only", a.Assumptions)
	}
	// Megatron-LM has no bitsandbytes: the optimizer alternative under a
	// Megatron layout is its precision-aware Adam.
	if len(a.Alternatives) == 0 || !strings.Contains(a.Alternatives[0].Why, "Adam with FP8 moments (Megatron's precision-aware optimizer)") {
		t.Errorf("alternatives %+v; want Megatron's FP8-moment Adam first, not 8-bit AdamW", a.Alternatives)
	}
	three := 3
	b, err := e.Answer(Query{Model: "mixtral-8x7b", Method: MethodFull, GPU: "h100", GPUs: 8, TensorParallel: 4, PipelineParallel: 2, ZeROStage: &three})
	if err != nil {
		t.Fatal(err)
	}
	if b.PerGPU.TotalBytes != a.PerGPU.TotalBytes || !anyContains(b.Warnings, "ZeRO-3 shards across data-parallel ranks only") {
		t.Errorf("asked ZeRO-3: %d bytes (without: %d), notes %q; want the same memory and a note", b.PerGPU.TotalBytes, a.PerGPU.TotalBytes, b.Warnings)
	}
	// With data-parallel ranks left, ZeRO is chosen as before.
	c, err := e.Answer(Query{Model: "llama-3.1-70b", Method: MethodFull, GPU: "h100", GPUs: 16, TensorParallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.Request.ZeROStage == 0 || !anyContains(c.Assumptions, "sequence parallel with tensor parallel") || anyContains(c.Assumptions, "1F1B") {
		t.Errorf("TP 4 on 16 GPUs: ZeRO-%d, assumptions %q", c.Request.ZeROStage, c.Assumptions)
	}
}

// TestZeROSaidKeepsDataParallel: "with zero3" asks for DeepSpeed or FSDP
// sharding: no Megatron layout is chosen for it, even where one would
// fit; the answer then says what does (gradient checkpointing).
func TestZeROSaidKeepsDataParallel(t *testing.T) {
	p, err := Parse("llama 3.1 70b full fine tune on 16 h100 with zero3")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if hasLayout(&a.Request) || a.Request.ZeROStage != 3 {
		t.Errorf("request TP %d PP %d CP %d ZeRO-%d: want plain ZeRO-3", a.Request.TensorParallel, a.Request.PipelineParallel, a.Request.ContextParallel, a.Request.ZeROStage)
	}
	// With ZeRO-3's gathered layers (4.8 GiB for a 70B) checkpointing alone
	// leaves no room; with the fused loss beside it it fits.
	if len(a.Alternatives) == 0 || !strings.HasPrefix(a.Alternatives[0].Why, "gradient checkpointing") || !strings.Contains(a.Alternatives[0].Why, " on the same 16×") {
		t.Errorf("first alternative %v, want gradient checkpointing on the same cards", a.Alternatives)
	}
}
