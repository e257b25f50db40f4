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
// Kaplan et al. 2020): tokens/s = GPUs · peak · MFU / (6 · active params),
// 8 with full recomputation; LoRA skips weight gradients (4, +2 with
// recomputation), QLoRA adds its dequantisation factor.
func TestTrainingTokensPerSecond(t *testing.T) {
	h100 := gpuOf(t, "h100")
	s := bareShape(7e9)
	peak := 989e12 * 0.4
	for _, tc := range []struct {
		method   Method
		ckpt     bool
		perToken float64
	}{
		{MethodFull, false, 6}, {MethodFull, true, 8},
		{MethodLoRA, false, 4}, {MethodLoRA, true, 6},
		{MethodQLoRA, true, 6 * qloraDequantFactor},
	} {
		r := trainReq(tc.method, OptimizerAdamW, PrecisionBF16, 1, 0)
		r.GradCheckpointing = tc.ckpt
		tps, _, _ := trainingSpeed(&r, &s, &h100, 0.4)
		if want := peak / (tc.perToken * 7e9); !nearlyEqual(tps, want) {
			t.Errorf("%s ckpt=%v: %.1f tokens/s, want %.1f", tc.method, tc.ckpt, tps, want)
		}
	}
}

// TestCostAndHours: hours = tokens / rate; usd/hour = GPU-hour price ×
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
	if want := 2e9 / *tp.TokensPerSecond / 3600; !nearlyEqual(*tp.Hours, want) {
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
	if want := g.PeakFLOPS() * 0.4 / (2 * float64(s.active)); !nearlyEqual(prefill, want) {
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
