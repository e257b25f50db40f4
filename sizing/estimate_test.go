package sizing

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnswer13BLoRAOn4090 is the README's first command: a 13B model's
// 16-bit base alone (26 GB) exceeds a 24 GB card, so LoRA does not fit
// and the first alternative is QLoRA on the same card.
func TestAnswer13BLoRAOn4090(t *testing.T) {
	a, err := (&Estimator{Prices: stubPrices{"rtx-4090": 0.7, "a100-80": 1.9, "l40s": 1.0}}).Answer(Query{Params: 13e9, Method: MethodLoRA, GPU: "4090"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits || a.BindingTerm != "weights" || a.PerGPU.WeightsBytes < 26e9 {
		t.Errorf("fits %v, binding %q, weights %d; want no fit bound by the 26 GB base", a.Fits, a.BindingTerm, a.PerGPU.WeightsBytes)
	}
	first := a.Alternatives[0]
	if first.Method != MethodQLoRA || first.GPU != "rtx-4090" || first.GPUs != 1 {
		t.Errorf("first alternative = %+v, want QLoRA on the same card", first)
	}
	if first.USDPerHour == nil || *first.USDPerHour != 0.7 {
		t.Errorf("first alternative price = %v, want 0.70", first.USDPerHour)
	}
	if len(a.Alternatives) > 5 {
		t.Errorf("%d alternatives, want at most 5", len(a.Alternatives))
	}
}

// TestAnswerNoGPU: with no card named the answer is for the cheapest card
// that fits, says so, and lists others that fit.
func TestAnswerNoGPU(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"h100": 2.5, "a100-80": 1.9, "l40s": 1.0, "rtx-4090": 0.7}}
	a, err := e.Answer(Query{Model: "llama-3.1-8b", Method: MethodQLoRA})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.GPU != "rtx-4090" || !a.Fits {
		t.Errorf("answered for %s (fits %v), want the cheapest fitting card rtx-4090", a.Request.GPU, a.Fits)
	}
	if !a.GPUChosen || !anyContains(a.Assumptions, "no GPU named") {
		t.Errorf("GPUChosen %v, assumptions %q: want the answer to say no GPU was named", a.GPUChosen, a.Assumptions)
	}
	if named, err := e.Answer(Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "rtx-4090"}); err != nil || named.GPUChosen {
		t.Errorf("a question naming the card: GPUChosen %v (err %v), want false", named.GPUChosen, err)
	}
	if len(a.Alternatives) == 0 {
		t.Error("no alternatives: want the other cards that fit")
	}
	for _, alt := range a.Alternatives {
		if alt.GPU == a.Request.GPU {
			t.Errorf("alternative repeats the answer's card: %+v", alt)
		}
	}
}

// TestAnswerDeterministic: the same question gives the same answer.
func TestAnswerDeterministic(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"h100": 2.5, "a100-80": 1.9, "a100-40": 1.3}}
	q := Query{Model: "llama-3.1-70b", Method: MethodFull, GPU: "a100-80", GPUs: 8}
	a1, err := e.Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := e.Answer(q)
	if diff := cmp.Diff(a1, a2); diff != "" {
		t.Errorf("answers differ (-first +second):\n%s", diff)
	}
}

// randomRequest draws a valid training or inference request on a catalog
// model.
func randomRequest(rng *rand.Rand, models []Model) (Request, *shape) {
	m := models[rng.IntN(len(models))]
	s := shapeOf(m)
	methods := []Method{MethodFull, MethodLoRA, MethodQLoRA, MethodInference}
	opts := []Optimizer{OptimizerAdamW, OptimizerAdamW8bit, OptimizerSGD, OptimizerSGDMomentum, OptimizerAdafactor}
	r := Request{
		Method: methods[rng.IntN(len(methods))], Optimizer: opts[rng.IntN(len(opts))], Precision: PrecisionBF16,
		GPUs: 1 << rng.IntN(7), Nodes: 1, ZeROStage: rng.IntN(4), Offload: OffloadNone,
		SeqLen: 1 + rng.IntN(8192), MicroBatch: 1 + rng.IntN(8), GradCheckpointing: rng.IntN(2) == 0,
		LoRARank: 1 << rng.IntN(8), KVPrecision: PrecisionBF16,
	}
	switch rng.IntN(5) {
	case 0:
		r.Precision = PrecisionFP32
	case 1:
		r.Precision = PrecisionPureBF16
	}
	switch rng.IntN(4) {
	case 0:
		r.Offload = OffloadCPU
		r.ZeROStage = 1 + rng.IntN(3)
	case 1:
		r.Offload = OffloadNVMe
		r.ZeROStage = 1 + rng.IntN(3)
	}
	r.GradAccumSteps = 1 << rng.IntN(6)
	if r.GPUs > 8 && rng.IntN(2) == 0 {
		r.Nodes = r.GPUs / 8 // whole machines of eight
	}
	if r.Method == MethodQLoRA {
		r.Quant, r.Precision = QuantNF4DQ, PrecisionBF16
	}
	if r.Method == MethodInference {
		quants := []Quant{QuantNone, QuantAWQ, QuantQ4_KM, QuantINT8, QuantFP8, QuantMXFP4, QuantNVFP4, QuantQ2_K}
		r.Quant = quants[rng.IntN(len(quants))]
		r.Offload, r.ZeROStage, r.GradAccumSteps = OffloadNone, 0, 1
		if r.Precision == PrecisionPureBF16 {
			r.Precision = PrecisionBF16
		}
	}
	return r, &s
}

func termSum(m Memory) int64 {
	return m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes + m.ActivationsBytes + m.KVCacheBytes + m.OverheadBytes + m.QLoRAWorkBytes + m.GatheredBytes
}

// checkMemoryProperties asserts the properties of the memory model for
// one request: the total is the sum of the terms; more GPUs never raise
// the per-GPU memory (from one GPU to two, only by the communication
// buffers that appear); a higher ZeRO stage never raises it; offload never
// raises it and never lowers the host RAM; gradient accumulation leaves
// the memory alone and never slows the run down.
func checkMemoryProperties(t *testing.T, r Request, s *shape) {
	t.Helper()
	f := Footprint{s: *s}
	m := f.Memory(&r)
	if m.TotalBytes != termSum(m) {
		t.Fatalf("%+v: total %d != sum of terms %d", r, m.TotalBytes, termSum(m))
	}
	more := r
	more.GPUs *= 2
	mm := f.Memory(&more)
	allowed := int64(0)
	if r.GPUs == 1 {
		allowed = commBufferBytes
	}
	if mm.TotalBytes > m.TotalBytes+allowed {
		t.Fatalf("%+v: %d GPUs need %d B each, %d GPUs %d B", r, r.GPUs, m.TotalBytes, more.GPUs, mm.TotalBytes)
	}
	if r.Method != MethodInference && r.ZeROStage < 3 {
		up := r
		up.ZeROStage++
		if mu := f.Memory(&up); mu.TotalBytes > m.TotalBytes {
			t.Fatalf("%+v: stage %d needs %d B, stage %d %d B", r, r.ZeROStage, m.TotalBytes, up.ZeROStage, mu.TotalBytes)
		}
	}
	if r.Method == MethodInference {
		return
	}
	if r.Offload != OffloadNone {
		on := r
		on.Offload = OffloadNone
		if mo := f.Memory(&on); m.TotalBytes > mo.TotalBytes {
			t.Fatalf("%+v: offload needs %d B per GPU, no offload %d B", r, m.TotalBytes, mo.TotalBytes)
		}
		ramOn, _ := hostNeeds(&r, s)
		ramOff, _ := hostNeeds(&on, s)
		if r.Offload == OffloadCPU && ramOn < ramOff {
			t.Fatalf("%+v: CPU offload needs %d B of host RAM, no offload %d B", r, ramOn, ramOff)
		}
	}
	acc := r
	acc.GradAccumSteps *= 2
	if ma := f.Memory(&acc); ma != m {
		t.Fatalf("%+v: accumulation %d changes the memory: %+v vs %+v", r, acc.GradAccumSteps, ma, m)
	}
	g := GPUs()[int(r.SeqLen)%len(GPUs())]
	if g.UnifiedMemory {
		return
	}
	before, _, _ := trainingSpeed(&r, s, &g, 0)
	after, _, _ := trainingSpeed(&acc, s, &g, 0)
	if after < before*(1-1e-9) {
		t.Fatalf("%+v on %s: accumulation %d → %d slows it from %.1f to %.1f tokens/s", r, g.ID, r.GradAccumSteps, acc.GradAccumSteps, before, after)
	}
}

// TestMemoryProperties checks the memory model's properties on 20,000
// random valid requests over the whole model catalog.
func TestMemoryProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	models := Models()
	for range 20000 {
		r, s := randomRequest(rng, models)
		checkMemoryProperties(t, r, s)
	}
}

// FuzzMemoryProperties explores the same properties from fuzzed seeds.
func FuzzMemoryProperties(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7919)
	}
	models := Models()
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r, s := randomRequest(rand.New(rand.NewPCG(a, b)), models)
		checkMemoryProperties(t, r, s)
	})
}

// BenchmarkAnswer measures one full answer: resolve, memory, verdict,
// throughput, cost and the alternatives search over the GPU catalog.
func BenchmarkAnswer(b *testing.B) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.7, "a100-80": 1.9, "h100": 2.5, "l40s": 1.0, "a10g": 1.0}}
	q := Query{Params: 13e9, Method: MethodLoRA, GPU: "rtx-4090"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Answer(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInferenceAlternatives: serving that does not fit is offered the
// smallest format change first (FP8 before int8 before 4-bit), and fewer
// cards with a smaller format beside more cards as asked.
func TestInferenceAlternatives(t *testing.T) {
	e := &Estimator{}
	a, err := e.Answer(Query{Model: "deepseek-v3", Method: MethodInference, Precision: PrecisionBF16, GPU: "h200", GPUs: 8})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits {
		t.Fatalf("DeepSeek-V3 in bf16 (1.34 TB) fits 8 × 141 GB: %s per GPU", gibString(a.PerGPU.TotalBytes))
	}
	if first := a.Alternatives[0]; first.GPUs != 8 || first.GPU != "h200" || first.Why[:4] != "fp8 " {
		t.Errorf("first alternative = %+v, want FP8 weights on the same 8 H200", first)
	}
	a, _ = e.Answer(Query{Model: "llama-3.1-70b", Method: MethodInference, GPU: "rtx-4090"})
	found := false
	for _, alt := range a.Alternatives {
		if alt.GPU == "rtx-4090" && alt.GPUs == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("70B on a 4090: alternatives %+v, want a 4-bit sameCardOption on 2 cards", a.Alternatives)
	}
}

// FuzzAnswer: any query gives an answer or an *InputError, never a panic
// or another error, and an answer's total is the sum of its terms.
func FuzzAnswer(f *testing.F) {
	f.Add(uint8(0), int64(13e9), uint8(1), uint8(21), int16(1), int16(0), int32(2048), int16(1), int8(-1), uint8(0), int64(0))
	f.Add(uint8(5), int64(0), uint8(3), uint8(2), int16(8), int16(1), int32(0), int16(64), int8(3), uint8(1), int64(1e9))
	models := Models()
	gpus := GPUs()
	methods := []Method{"", MethodFull, MethodLoRA, MethodQLoRA, MethodInference, "bogus"}
	f.Fuzz(func(t *testing.T, model uint8, params int64, method, gpu uint8, n, nodes int16, seq int32, batch int16, zero int8, off uint8, tokens int64) {
		q := Query{Params: params, Method: methods[int(method)%len(methods)], GPUs: int(n), Nodes: int(nodes),
			SeqLen: int(seq), MicroBatch: int(batch), Tokens: tokens}
		if int(model) < len(models) {
			q.Model = models[model].ID
		}
		if int(gpu) < len(gpus) {
			q.GPU = gpus[gpu].ID
		}
		if zero >= 0 {
			z := int(zero)
			q.ZeROStage = &z
		}
		q.Offload = []Offload{"", OffloadNone, OffloadCPU, OffloadNVMe}[off%4]
		a, err := (&Estimator{}).Answer(q)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%+v: error %v is not an *InputError", q, err)
			}
			return
		}
		if a.PerGPU.TotalBytes != termSum(a.PerGPU) {
			t.Fatalf("%+v: total %d != sum %d", q, a.PerGPU.TotalBytes, termSum(a.PerGPU))
		}
	})
}

// TestTrainingOnAMac: LoRA on Apple silicon is sized in unified memory
// (mlx-lm trains there), its speed said to be an order of magnitude, and
// no CPU offload is offered since the CPU has no memory of its own.
// Llama 3 8B LoRA in bf16 holds 15 GiB of frozen weights: it fits the
// 48 GiB a 64 GB M2 Max gives its GPU.
func TestTrainingOnAMac(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"a100-80": 1.9}}
	p, err := Parse("llama 3 8b lora on an m2 max 64gb")
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query
	a, err := e.Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits || a.PerGPU.WeightsBytes>>30 != 15 {
		t.Errorf("fits %v with %d GiB of weights, want a fit with about 15 GiB", a.Fits, a.PerGPU.WeightsBytes>>30)
	}
	if !slices.ContainsFunc(a.Assumptions, func(s string) bool { return strings.Contains(s, "through MLX") }) {
		t.Errorf("assumptions %q do not say the speed is MLX's order of magnitude", a.Assumptions)
	}
	q.Method = MethodFull
	full, err := e.Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, alt := range full.Alternatives {
		if alt.Offload != OffloadNone && alt.GPU == "m2-max-96" {
			t.Errorf("alternative %q offloads on unified memory", alt.Why)
		}
	}
}

// TestSpotWithNoCard: spot asked with no card named ranks the cards by
// their spot prices, among those with a spot offer, instead of answering
// on the cheapest on-demand card and warning it has no spot price.
func TestSpotWithNoCard(t *testing.T) {
	e := &Estimator{Prices: stubSpotPrices{stubPrices{"l40s": 0.79, "rtx-3090": 0.22}, stubPrices{"rtx-3090": 0.18}}}
	a, err := e.Answer(Query{Params: 70e9, Method: MethodQLoRA, Spot: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Price == nil || a.Price.Market != "spot" || a.Request.GPU != "rtx-3090" {
		t.Errorf("answered on %s at %+v, want the RTX 3090 at its spot price", a.Request.GPU, a.Price)
	}
}

// stubSpotPrices is a SpotPriceSource: on-demand and spot stubs.
type stubSpotPrices struct{ onDemand, spot stubPrices }

func (s stubSpotPrices) GPUHourPrice(gpu string) (Price, bool) { return s.onDemand.GPUHourPrice(gpu) }

func (s stubSpotPrices) SpotGPUHourPrice(gpu string) (Price, bool) {
	p, ok := s.spot.GPUHourPrice(gpu)
	p.Market = "spot"
	return p, ok
}
