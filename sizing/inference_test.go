package sizing

import (
	"math"
	"testing"
)

// TestKVCachePerToken reproduces the KV cache per token at 16 bit from
// reference/sizing.md §6 (2 · layers · KV heads · head_dim · 2 bytes,
// computed from each model's config.json): GQA, explicit head_dim
// (Qwen3), and MLA (DeepSeek-V3: 61 · (512 + 64) · 2).
func TestKVCachePerToken(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  float64
	}{
		{"llama-2-13b", 819_200},
		{"llama-2-7b", 524_288},
		{"llama-2-70b", 327_680},
		{"llama-3.1-70b", 327_680},
		{"qwen2.5-72b", 327_680},
		{"llama-3.1-8b", 131_072},
		{"mistral-7b-v0.1", 131_072},
		{"mixtral-8x7b", 131_072},
		{"llama-3.1-405b", 516_096},
		{"qwen2.5-7b", 57_344},
		{"qwen2.5-0.5b", 12_288},
		{"qwen3-0.6b", 114_688},
		{"gemma-2-9b", 344_064},
		{"gemma-7b", 458_752},
		{"phi-3-mini-4k", 393_216},
		{"gpt-oss-20b", 49_152},
		{"falcon-40b", 122_880},
		{"gpt2", 36_864},
		{"deepseek-v3", 70_272},
	} {
		s := shapeOf(modelOf(t, tc.model))
		if got := kvCacheBytes(&s, 1, 1, 2); got != tc.want {
			t.Errorf("%s: %.0f B per token, want %.0f", tc.model, got, tc.want)
		}
	}
}

// TestKVCacheExamples checks the reference's worked sizes (§6) and that
// sliding-window layers stop growing at the window.
func TestKVCacheExamples(t *testing.T) {
	for _, tc := range []struct {
		model      string
		ctx, batch int64
		kv         Precision
		want       float64
	}{
		{"llama-2-13b", 2048, 1, PrecisionBF16, 1.5625 * (1 << 30)},
		{"llama-2-7b", 4096, 1, PrecisionBF16, 2 << 30},
		{"llama-3.1-8b", 131072, 1, PrecisionBF16, 16 << 30},
		{"llama-3.1-8b", 32768, 4, PrecisionBF16, 16 << 30},
		{"llama-3.1-8b", 131072, 1, PrecisionFP8, 8 << 30},
		{"llama-3.1-8b", 131072, 1, PrecisionINT4, 16 << 30 * 4.5 / 16}, // q4_0: 4.5 bits
		// gpt-oss-20b: 12 full layers grow 24,576 B/token; 12 sliding
		// layers keep 128 tokens.
		{"gpt-oss-20b", 8192, 1, PrecisionBF16, 24_576*8192 + 24_576*128},
		// Mistral 7B v0.1: every layer slides over 4096 tokens.
		{"mistral-7b-v0.1", 32768, 1, PrecisionBF16, 131_072 * 4096},
	} {
		s := shapeOf(modelOf(t, tc.model))
		if got := kvCacheBytes(&s, tc.ctx, tc.batch, kvElemBytes(tc.kv)); got != tc.want {
			t.Errorf("%s ctx %d × %d at %s: %.0f B, want %.0f", tc.model, tc.ctx, tc.batch, tc.kv, got, tc.want)
		}
	}
}

// TestWeightFormats checks bits per weight: GPTQ/AWQ int4 with group-128
// fp16 scale and zero is 4.25; NF4 is 4.5 with fp32 block constants (block
// 64) and 4.127 with double quantisation (QLoRA paper §3); FP8 with an
// fp32 scale per 128×128 block 8.002; MXFP4 4.25 and NVFP4 4.5 (one e8m0
// scale per 32, one e4m3 scale per 16); GGUF types at the effective
// bits/weight of llama.cpp's quantize README table for Llama 3.1 8B (Q3_K_M
// and Q4_0 are derived, see memory.go).
func TestWeightFormats(t *testing.T) {
	for _, tc := range []struct {
		q    Quant
		bits float64
	}{
		{QuantGPTQ, 4.25}, {QuantAWQ, 4.25}, {QuantNF4, 4.5}, {QuantNF4DQ, 4.126953125},
		{QuantFP8, 8 + 32.0/16384}, {QuantMXFP4, 4.25}, {QuantNVFP4, 4.5},
		{QuantQ8_0, 8.5008}, {QuantQ6_K, 6.5633}, {QuantQ5_KM, 5.7036}, {QuantQ4_KM, 4.8944},
		{QuantQ4_0, 4.63}, {QuantQ3_KM, 3.99}, {QuantQ2_K, 3.1593},
	} {
		b, _ := quantBytesPerParam(tc.q, 4096)
		if got := 8 * b; got < tc.bits-1e-9 || got > tc.bits+1e-9 {
			t.Errorf("%s = %.6f bits per weight, want %.6f", tc.q, got, tc.bits)
		}
	}
}

// TestInferenceSplit checks that tensor parallelism splits the weights and
// the KV heads, and that a head is never split below one per GPU.
func TestInferenceSplit(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-3.1-70b"))
	r := Request{Method: MethodInference, Precision: PrecisionBF16, KVPrecision: PrecisionBF16, GPUs: 1, Nodes: 1, SeqLen: 8192, MicroBatch: 4}
	one := inferenceMemory(&r, &s)
	r.GPUs = 4
	four := inferenceMemory(&r, &s)
	if four.WeightsBytes != (one.WeightsBytes+3)/4 {
		t.Errorf("weights on 4 GPUs = %d, want a quarter of %d", four.WeightsBytes, one.WeightsBytes)
	}
	if four.KVCacheBytes != one.KVCacheBytes/4 {
		t.Errorf("KV on 4 GPUs = %d, want a quarter of %d", four.KVCacheBytes, one.KVCacheBytes)
	}
	r.GPUs = 16
	r.Nodes = 1
	if got := kvShare(&s, 16, 1); got != 1.0/8 {
		t.Errorf("8 KV heads over 16-way tensor parallelism: share %.4f, want 1/8 (one head each)", got)
	}
	if w := one.WeightsBytes; w != 2*s.total {
		t.Errorf("bf16 weights = %d, want 2 × %d", w, s.total)
	}
}

// TestAppleQuantisedInference reproduces seeds/000 ("Operating System"):
// "a MacBook Pro with 36 GB RAM can run inference on models up to about
// 30B parameters (quantized)". Training there is refused (inference only).
func TestAppleQuantisedInference(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Params: 30e9, Method: MethodInference, Quant: QuantQ4_KM, GPU: "m3-pro-36"})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits {
		t.Errorf("30B at Q4_K_M on a 36 GB M3 Pro: %s of %s, want it to fit", gibString(a.PerGPU.TotalBytes), gibString(a.VRAMBytes))
	}
	a, _ = (&Estimator{}).Answer(Query{Params: 30e9, Method: MethodInference, GPU: "m3-pro-36"})
	if a.Fits {
		t.Errorf("30B in 16-bit (60 GB) fits a 36 GB Mac: %s", gibString(a.PerGPU.TotalBytes))
	}
}

// TestKVCacheSkipsLinearAttention: a hybrid model's linear-attention layers
// (Qwen3-Next's Gated DeltaNet) keep a fixed-size state, not a KV cache, so
// the estimator's KV term is the model's own KVCacheBytes, not one entry for
// every layer.
func TestKVCacheSkipsLinearAttention(t *testing.T) {
	m, _, err := LookupModel("qwen3-next-80b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	if m.LinearAttnLayers == 0 {
		t.Fatal("qwen3-next-80b-a3b has no linear-attention layers in the catalog")
	}
	const ctx, batch = 32768, 1
	s := shapeOf(m)
	got := kvCacheBytes(&s, ctx, batch, 2)
	want := m.KVCacheBytes(2, ctx)
	if math.Abs(got-want) > 1 {
		t.Errorf("kvCacheBytes = %.0f, want the model's KVCacheBytes %.0f (%d of %d layers are linear attention)",
			got, want, m.LinearAttnLayers, m.Layers)
	}
}

// TestNotServableGetsServingWays: a model that loads but leaves vLLM no
// room for one request's KV cache (Mixtral 8x7B in bf16 on two 48 GB
// cards) is offered only ways that serve it, as one that does not fit.
func TestNotServableGetsServingWays(t *testing.T) {
	p, err := Parse("mixtral 8x7b inference on 2 a6000")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits || a.Serving == nil || a.Serving.Fits {
		t.Fatalf("fits %v, serving %+v: want a fit that serves nothing", a.Fits, a.Serving)
	}
	if len(a.Alternatives) == 0 {
		t.Fatal("no ways offered")
	}
	for _, alt := range a.Alternatives {
		r := alt.Request
		g, _, _ := LookupGPU(r.GPU)
		rs, err := resolve(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if !serveReplica(&r, &rs.shape, &g, 0, r.spec(), nil, 1).Fits {
			t.Errorf("%s serves nothing either", alt.Why)
		}
	}
}
