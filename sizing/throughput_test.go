package sizing

import (
	"math"
	"strings"
	"testing"
	"time"
)

// stubPrices is a PriceSource with fixed per-GPU-hour prices.
type stubPrices map[string]float64

func (f stubPrices) GPUHourPrice(gpu string) (Price, bool) {
	p, ok := f[gpu]
	if !ok {
		return Price{}, false
	}
	return Price{USDPerGPUHour: p, Provider: "fake", Market: "on_demand", AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, true
}

func nearlyEqual(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

// TestTrainingTokensPerSecond checks C = 6·P·D (Transformer Math 101;
// Kaplan et al. 2020) plus attention at a fixed utilisation: tokens/s =
// GPUs · peak · MFU / executed FLOPs per token, 6 per parameter (8 with
// full recomputation; LoRA 4, +2 with recomputation; QLoRA's dequantisation
// factor on top) plus causal attention, 3 forward passes of it, +½ for
// FlashAttention's backward recompute, +1 with recomputation.
func TestTrainingTokensPerSecond(t *testing.T) {
	h100 := gpuOf(t, "h100")
	s := bareShape(7e9)
	peak := 989e12 * 0.4
	fwdAttn := 4 * float64(s.attnWidth) * float64(s.layers) * 2048 / 2
	for _, tc := range []struct {
		method   Method
		ckpt     bool
		perParam float64
		attn     float64
	}{
		{MethodFull, false, 6, 3.5}, {MethodFull, true, 8, 4.5},
		{MethodLoRA, false, 4, 3.5}, {MethodLoRA, true, 6, 4.5},
		{MethodQLoRA, true, 6 * qloraDequantFactor, 4.5},
	} {
		r := trainReq(tc.method, OptimizerAdamW, PrecisionBF16, 1, 0)
		r.GradCheckpointing = tc.ckpt
		tps, _, _ := trainingSpeed(&r, &s, &h100, 0.4)
		if want := peak / (tc.perParam*float64(s.active) + tc.attn*fwdAttn); !nearlyEqual(tps, want) {
			t.Errorf("%s ckpt=%v: %.1f tokens/s, want %.1f", tc.method, tc.ckpt, tps, want)
		}
	}
}

// TestAttentionFLOPs: Megatron-LM's causal count, 6 × width × seq per
// layer and token in training; at 64k context for an 8B model that is
// more than 6P itself (the 49,264 vs ~15,000 tokens/s).
func TestAttentionFLOPs(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-3.1-8b"))
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 8, 3)
	r.SeqLen = 65536
	model, _ := trainingFLOPs(&r, &s)
	if want := 6 * 32 * 4096 * 65536.0; !nearlyEqual(model.attn, want) {
		t.Errorf("attention %.4g FLOPs per token, want 6·L·width·seq = %.4g", model.attn, want)
	}
	if model.attn < 6*float64(s.active) {
		t.Errorf("at 64k attention (%.3g) should exceed 6P (%.3g)", model.attn, 6*float64(s.active))
	}
	f := NewFootprint(modelOf(t, "llama-3.1-8b"))
	if got, want := f.PrefillFLOPsPerToken(8192), 2*float64(s.active)+2*32*4096*8192.0; !nearlyEqual(got, want) {
		t.Errorf("prefill %.4g FLOPs per token at 8k, want %.4g", got, want)
	}
}

// TestCostAndHours: hours = tokens / rate / goodput; usd/hour = GPU-hour price ×
// GPUs; total = both multiplied.
func TestCostAndHours(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"h100": 2.5}}
	a, err := e.Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8, Tokens: 2e9})
	if err != nil {
		t.Fatal(err)
	}
	tp := a.Throughput
	if tp.TokensPerSecond == nil || tp.Hours == nil || tp.USDPerHour == nil || tp.USDTotal == nil {
		t.Fatalf("throughput has nil parts: %+v", tp)
	}
	if want := 2e9 / *tp.TokensPerSecond / 3600 / RunGoodput; !nearlyEqual(*tp.Hours, want) {
		t.Errorf("hours = %f, want %f", *tp.Hours, want)
	}
	if *tp.USDPerHour != 20 {
		t.Errorf("usd/hour = %f, want 8 × 2.50", *tp.USDPerHour)
	}
	if want := 20 * *tp.Hours; !nearlyEqual(*tp.USDTotal, want) {
		t.Errorf("usd total = %f, want %f", *tp.USDTotal, want)
	}
	a, _ = (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8})
	if a.Throughput.Hours != nil || a.Throughput.USDPerHour != nil {
		t.Errorf("no budget and no prices: hours and usd must be null, got %+v", a.Throughput)
	}
}

// TestCommunicationWarning: ZeRO-3 moves 3Ψ per micro-batch (ZeRO paper
// §7); over a consumer PCIe box with short steps, or between machines on
// a 100 Gb/s-class network, that dominates compute (seeds/003 "Consumer
// cards and multi-GPU") and the answer must say so. Between H100 machines
// on eight 400 Gb/s NICs it does not.
func TestCommunicationWarning(t *testing.T) {
	for _, q := range []Query{
		{Params: 7e9, Method: MethodFull, GPU: "rtx-4090", GPUs: 4, ZeROStage: stagePtr(3), SeqLen: 512},
		{Model: "llama-3.1-70b", Method: MethodFull, GPU: "l40s", GPUs: 16, ZeROStage: stagePtr(3)},
	} {
		a, err := (&Estimator{}).Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		if !anyHasPrefix(a.Warnings, "communication-bound") {
			t.Errorf("%+v: warnings %q, want a communication-bound warning", q, a.Warnings)
		}
	}
	for _, q := range []Query{
		{Params: 7e9, Method: MethodFull, GPU: "h100", GPUs: 8, ZeROStage: stagePtr(3)},
		{Model: "llama-3.1-70b", Method: MethodFull, GPU: "h100", GPUs: 16, ZeROStage: stagePtr(3)},
	} {
		a, _ := (&Estimator{}).Answer(q)
		if anyHasPrefix(a.Warnings, "communication-bound") {
			t.Errorf("ZeRO-3 on NVLink H100s (%d) warned: %q", q.GPUs, a.Warnings)
		}
	}
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 4, 3)
	s := bareShape(7e9)
	if got, want := commBytesPerStep(&r, &s), 3*7e9*2*3/4.0; got != want {
		t.Errorf("ZeRO-3 volume = %.0f, want 3Ψ·2 B·(N-1)/N = %.0f", got, want)
	}
	r.ZeROStage = 2
	if got, want := commBytesPerStep(&r, &s), 2*7e9*2*3/4.0; got != want {
		t.Errorf("ZeRO-2 volume = %.0f, want 2Ψ·2 B·(N-1)/N = %.0f", got, want)
	}
}

// TestZeRO3SharedCompute: ZeRO-3's collectives take zero3SharedBytes of
// the card's memory time per byte sent from the step's compute, hidden
// transfer or not: per token the cost falls as 1/T with the tokens of a
// micro-batch, does not grow with the machines (llm-foundry's 13B rows are
// flat from 8 to 64 H100), and is not charged below stage 3.
func TestZeRO3SharedCompute(t *testing.T) {
	g := gpuOf(t, "h100")
	s := shapeOf(modelOf(t, "llama-2-13b"))
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 8, 3)
	perToken := func(r Request) float64 {
		st := trainingStep(&r, &s, &g, 0)
		return st.shared / (float64(r.SeqLen) * float64(r.MicroBatch) * float64(dataParallel(&r)) / float64(r.GPUs))
	}
	if got, want := trainingStep(&r, &s, &g, 0).shared, zero3SharedBytes*commBytesPerStep(&r, &s)/g.BandwidthBytesPerSec; got != want || got <= 0 {
		t.Errorf("shared = %.4f s, want %d × the traffic over HBM = %.4f s", got, zero3SharedBytes, want)
	}
	one := perToken(r)
	r.MicroBatch = 2
	if two := perToken(r); !nearlyEqual(two, one/2) {
		t.Errorf("per token at micro-batch 2: %.3g s, want half of micro-batch 1's %.3g", two, one)
	}
	r64 := r
	r64.GPUs, r64.Nodes = 64, 8
	if got, want := perToken(r64), perToken(r)*(63.0/64)/(7.0/8); !nearlyEqual(got, want) {
		t.Errorf("per token on 64 GPUs: %.3g s, want 8 GPUs' × (63/64)/(7/8) = %.3g (the ring's share only)", got, want)
	}
	r.ZeROStage = 2
	if got := trainingStep(&r, &s, &g, 0).shared; got != 0 {
		t.Errorf("ZeRO-2: shared %.3g s, want 0", got)
	}
}

// TestDecodeFromBandwidth: decode reads the weights (less the input
// embedding table, of which it reads a row) and the KV cache once per
// step, so a 16 GB model on a 1008 GB/s card at 80 % makes ~50 tokens/s,
// less the per-layer floor.
func TestDecodeFromBandwidth(t *testing.T) {
	g := gpuOf(t, "rtx-4090")
	s := shapeOf(modelOf(t, "llama-3.1-8b"))
	r := Request{Method: MethodInference, Precision: PrecisionBF16, KVPrecision: PrecisionBF16, GPUs: 1, Nodes: 1, SeqLen: 2048, MicroBatch: 1}
	decode, prefill := inferenceSpeed(&r, &s, &g, 0.4)
	bytes := 2*float64(s.total-s.vocab*s.hidden) + kvCacheBytes(&s, 2048, 1, 2)
	if want := 1 / (bytes/(g.BandwidthBytesPerSec*bandwidthUtilisation) + 32*layerFloorSec); !nearlyEqual(decode, want) {
		t.Errorf("decode = %.2f tokens/s, want %.2f", decode, want)
	}
	if want := g.PeakFLOPS() * 0.4 / (2*float64(s.active) + 2*32*4096*2048.0); !nearlyEqual(prefill, want) {
		t.Errorf("prefill = %.0f tokens/s, want %.0f", prefill, want)
	}
}

func stagePtr(v int) *int { return &v }

func anyHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestCommunicationModel: gradients are reduced once per optimizer step
// (ZeRO-0..2), ZeRO-3 gathers every micro-batch; collectives cross the
// card's link within a machine and the machine's fabric across machines;
// expert-parallel MoE training neither gathers nor reduces the experts.
func TestCommunicationModel(t *testing.T) {
	s := bareShape(7e9)
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 16, 2)
	r.Nodes = 2
	one := commBytesPerStep(&r, &s)
	r.GradAccumSteps = 8
	if got := commBytesPerStep(&r, &s); got != one {
		t.Errorf("ZeRO-2 with 8 accumulation steps sends %.0f B per step, want %.0f (once per step)", got, one)
	}
	r.ZeROStage = 3
	r.GradAccumSteps = 1
	z3 := commBytesPerStep(&r, &s)
	r.GradAccumSteps = 8
	if got := commBytesPerStep(&r, &s); !nearlyEqual(got, 8*z3) {
		t.Errorf("ZeRO-3 with 8 accumulation steps sends %.0f B, want 8 × %.0f (gathers every micro-batch)", got, z3)
	}

	h100, l40s := gpuOf(t, "h100"), gpuOf(t, "l40s")
	r = trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 16, 2)
	r.Nodes = 2
	vol := commBytesPerStep(&r, &s)
	// H100: 450 GB/s NVLink, 400 GB/s of NICs per machine.
	if got, want := commSeconds(&r, &h100, vol), vol/450e9+vol/2/400e9; !nearlyEqual(got, want) {
		t.Errorf("H100 2 machines: %.3f s, want %.3f", got, want)
	}
	// L40S: PCIe 32 GB/s, a 100 Gb/s-class link per machine.
	if got, want := commSeconds(&r, &l40s, vol), vol/32e9+vol/2/12.5e9; !nearlyEqual(got, want) {
		t.Errorf("L40S 2 machines: %.3f s, want %.3f", got, want)
	}

	ds := shapeOf(modelOf(t, "deepseek-v3"))
	r = trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 16, 1)
	r.ExpertParallel = 16
	if got, want := commBytesPerStep(&r, &ds), 2*float64(ds.total-ds.expertLinear)*2*15/16; !nearlyEqual(got, want) {
		t.Errorf("DeepSeek-V3 expert-parallel: %.0f B reduced, want the %.0f of the parameters outside the experts", got, want)
	}
	if layoutCommSeconds(&r, &ds, &h100, 0).ep <= 0 {
		t.Error("expert-parallel training charges no token all-to-all")
	}
	r.Method, r.LoRARank = MethodLoRA, 16
	if layoutCommSeconds(&r, &ds, &h100, 0).ep != 0 {
		t.Error("LoRA is charged an expert all-to-all; it runs the experts data-parallel")
	}
}

// TestFabricCatalog: every card in the fabric table is a catalog card, so
// a renamed id cannot silently fall back to the 100 Gb/s default.
func TestFabricCatalog(t *testing.T) {
	ids := map[string]bool{}
	for _, g := range GPUs() {
		ids[g.ID] = true
	}
	for id := range nodeFabricBytesPerSec {
		if !ids[id] {
			t.Errorf("fabric table names %q, which is no catalog GPU id", id)
		}
	}
}

// TestSpeedAssumptionSaysDecodeOnlyWhenServing: the decode rate is how an
// inference answer generates; a training answer's assumptions never
// mention it.
func TestSpeedAssumptionSaysDecodeOnlyWhenServing(t *testing.T) {
	e := &Estimator{}
	for _, tc := range []struct {
		q      Query
		decode bool
	}{
		{Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "rtx-4090"}, false},
		{Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8}, false},
		{Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "rtx-4090"}, false},
		{Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "rtx-4090"}, true},
	} {
		a, err := e.Answer(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(a.Assumptions, "\n"), "decode"); got != tc.decode {
			t.Errorf("%s: assumptions mention decoding = %v, want %v:\n%s", tc.q.Method, got, tc.decode, strings.Join(a.Assumptions, "\n"))
		}
	}
}
