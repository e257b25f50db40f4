package sizing

import (
	"math"
	"testing"
)

func mustModel(t testing.TB, id string) Model {
	t.Helper()
	m, _, err := LookupModel(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestParamCountPublished checks every catalog model's computed count
// against the published count stored beside it: exactly, or within the
// row's stated tolerance (DeepSeek-V3: the report's rounded 671B;
// NLLB-600M: the nominal 600M of its name; Qwen2-VL-7B: the Hub's 8.29B).
func TestParamCountPublished(t *testing.T) {
	for _, m := range Models() {
		total, active := m.ParamCount()
		if !within(total, m.PublishedParams, m.ParamsTolerance) {
			t.Errorf("%s: ParamCount total = %d, published %d (tolerance %g)", m.ID, total, m.PublishedParams, m.ParamsTolerance)
		}
		// Cards count active parameters two ways: Mistral's 12.9B for
		// Mixtral includes the input embedding, OpenAI's 3.6B for
		// gpt-oss-20b does not. fitbot leaves it out (a lookup, no FLOPs);
		// a card that counts it matches with the table added back.
		withEmbed := active + int64(m.Vocab)*int64(m.Hidden)
		if m.PublishedActive != 0 && !within(active, m.PublishedActive, m.ParamsTolerance) &&
			!within(withEmbed, m.PublishedActive, m.ParamsTolerance) {
			t.Errorf("%s: ParamCount active = %d, published %d", m.ID, active, m.PublishedActive)
		}
		if !m.MoE() && active != total {
			t.Errorf("%s: dense model with active %d != total %d", m.ID, active, total)
		}
		if m.MoE() && active >= total {
			t.Errorf("%s: MoE with active %d >= total %d", m.ID, active, total)
		}
	}
}

func within(got, want int64, tol float64) bool {
	if tol == 0 {
		return got == want
	}
	return math.Abs(float64(got-want)) <= tol*float64(want)
}

// TestParamCountReference pins counts written independently of the data
// file, so a wrong edit of both the data and the code is still caught.
// Source: sizing reference §6 (counts recomputed from config.json and
// matching the Hub's safetensors totals); MoE active counts likewise.
func TestParamCountReference(t *testing.T) {
	tests := []struct {
		id            string
		total, active int64
	}{
		{"llama-2-7b", 6_738_415_616, 6_738_415_616},
		{"llama-2-13b", 13_015_864_320, 13_015_864_320},
		{"llama-2-70b", 68_976_648_192, 68_976_648_192},
		{"llama-3.1-8b", 8_030_261_248, 8_030_261_248},
		{"llama-3.1-70b", 70_553_706_496, 70_553_706_496},
		{"llama-3.1-405b", 405_853_388_800, 405_853_388_800},
		{"mistral-7b-v0.1", 7_241_732_096, 7_241_732_096},
		{"mixtral-8x7b", 46_702_792_704, 12_879_925_248 - 32000*4096}, // Mistral's 12.9B counts the input embedding; fitbot does not
		{"qwen2.5-0.5b", 494_032_768, 494_032_768},
		{"qwen2.5-7b", 7_615_616_512, 7_615_616_512},
		{"qwen2.5-72b", 72_706_203_648, 72_706_203_648},
		{"qwen3-0.6b", 596_049_920, 596_049_920},
		{"gemma-2-9b", 9_241_705_984, 9_241_705_984},
		{"gemma-7b", 8_537_680_896, 8_537_680_896}, // Gemma 1: 8.54B, the 256k tied vocabulary on top of "7B"
		{"gemma-2b", 2_506_172_416, 2_506_172_416},
		{"phi-3-mini-4k", 3_821_079_552, 3_821_079_552},
		{"gpt-oss-20b", 20_914_757_184, 4_187_440_704 - 201088*2880}, // reference: "4.19B incl. both embeddings"; OpenAI's card: 3.6B without the input one
		{"falcon-40b", 41_303_293_952, 41_303_293_952},
		{"gpt2", 124_439_808, 124_439_808},
		{"bert-base-uncased", 109_482_240, 109_482_240},
		{"bert-base-cased", 108_310_272, 108_310_272},
		{"bert-large-uncased", 335_141_888, 335_141_888},
	}
	for _, tt := range tests {
		total, active := mustModel(t, tt.id).ParamCount()
		if total != tt.total || active != tt.active {
			t.Errorf("%s: ParamCount = %d, %d; want %d, %d", tt.id, total, active, tt.total, tt.active)
		}
	}
	// DeepSeek-V3: the report says 671B total, 37B active; the config
	// gives 671.03B and 37.55B with the input embedding, 36.63B without it
	// (what fitbot counts as active).
	total, active := mustModel(t, "deepseek-v3").ParamCount()
	if total != 671_026_419_200 || active != 37_552_297_472-129280*7168 {
		t.Errorf("deepseek-v3: ParamCount = %d, %d", total, active)
	}
}

// TestKVBytesPerToken checks the KV cache against sizing reference §6's
// table (16-bit, 2 × layers × KV heads × head_dim × 2 bytes, MLA latent
// for DeepSeek-V3) at a context inside every sliding window, and the
// sliding-window caps beyond it.
func TestKVBytesPerToken(t *testing.T) {
	tests := []struct {
		id   string
		ctx  int
		want float64
	}{
		{"llama-2-13b", 2048, 819_200},
		{"llama-2-7b", 4096, 524_288},
		{"llama-2-70b", 4096, 327_680},
		{"llama-3.1-70b", 4096, 327_680},
		{"qwen2.5-72b", 4096, 327_680},
		{"llama-3.1-8b", 32768, 131_072},
		{"mistral-7b-v0.1", 4096, 131_072},
		{"mixtral-8x7b", 32768, 131_072},
		{"llama-3.1-405b", 4096, 516_096},
		{"qwen2.5-7b", 3072, 57_344},
		{"qwen2.5-0.5b", 1000, 12_288},
		{"qwen3-0.6b", 1000, 114_688},
		{"gemma-2-9b", 4096, 344_064},
		{"gemma-7b", 8192, 458_752}, // 16 KV heads of 256 on 28 layers: 448 KiB, 3.5× a GQA 7B
		{"gemma-2b", 8192, 18_432},
		{"phi-3-mini-4k", 4096, 393_216},
		{"gpt-oss-20b", 128, 49_152},
		{"falcon-40b", 2048, 122_880},
		{"gpt2", 1024, 36_864},
		{"deepseek-v3", 163840, 70_272},
		// Sliding windows beyond their size: Mistral v0.1 caps all 32
		// layers at 4096 tokens, so at 32768 the average is 1/8.
		{"mistral-7b-v0.1", 32768, 131_072 / 8},
		// Gemma 2 9B at 8192: 21 full layers grow, 21 stop at 4096.
		{"gemma-2-9b", 8192, 344_064 * 0.75},
		// gpt-oss-20b at 131072: 12 full layers at 24,576 B/token (the
		// reference's figure) plus 12 sliding layers holding 128 tokens.
		{"gpt-oss-20b", 131072, 24_576 + 24_576*128.0/131072},
		// Gemma 3 27B at 131072: 10 global layers, 52 capped at 1024.
		{"gemma-3-27b", 131072, 2 * 16 * 128 * 2 * (10 + 52*1024.0/131072)},
		// Encoders keep no cache; T5 caches its decoder's self-attention.
		{"bert-base-uncased", 512, 0},
		{"t5-base", 512, 2 * 12 * 12 * 64 * 2},
	}
	for _, tt := range tests {
		got := mustModel(t, tt.id).KVBytesPerToken(2, tt.ctx)
		if math.Abs(got-tt.want) > 1e-6*tt.want {
			t.Errorf("%s at %d tokens: KVBytesPerToken = %.2f, want %.2f", tt.id, tt.ctx, got, tt.want)
		}
	}
	// The reference's worked examples: Llama-3.1-8B at 131072 tokens is
	// 16 GiB; Llama-2-70B at 4096 tokens is 1,342,177,280 bytes; fp8 halves.
	if got := mustModel(t, "llama-3.1-8b").KVCacheBytes(2, 131072); got != 16<<30 {
		t.Errorf("llama-3.1-8b KV at 128k = %v, want 16 GiB", got)
	}
	if got := mustModel(t, "llama-2-70b").KVCacheBytes(2, 4096); got != 1_342_177_280 {
		t.Errorf("llama-2-70b KV at 4096 = %v", got)
	}
	if got := mustModel(t, "llama-2-70b").KVCacheBytes(1, 4096); got != 1_342_177_280/2 {
		t.Errorf("llama-2-70b fp8 KV at 4096 = %v", got)
	}
	if got := mustModel(t, "llama-2-7b").KVCacheBytes(2, 0); got != 0 {
		t.Errorf("KV at zero context = %v", got)
	}
}

// TestLoRAParams checks LinearShapes against adapter counts PEFT prints
// ("trainable params: ...") for well-known setups.
func TestLoRAParams(t *testing.T) {
	all := func(string) bool { return true }
	only := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if n == x {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		id     string
		r      int
		target func(string) bool
		want   int64
	}{
		// PEFT's README example: Llama-2-7B, r=8 on q_proj and v_proj.
		{"llama-2-7b", 8, only("q_proj", "v_proj"), 4_194_304},
		// r=16 on all linear layers (QLoRA paper setup).
		{"llama-2-7b", 16, all, 39_976_960},
		{"llama-3-8b", 16, all, 41_943_040},
		// Mixtral r=16 on the attention only: 32 × 16 × (2·4096+1024) × 2 ...
		{"mixtral-8x7b", 16, only("q_proj", "k_proj", "v_proj", "o_proj"), 32 * 16 * (2*(4096+4096) + 2*(4096+1024))},
		// Phi-3 fuses qkv: one adapter of r × (3072 + 9216) per layer.
		{"phi-3-mini-4k", 8, only("qkv_proj"), 32 * 8 * (3072 + 3*3072)},
	}
	for _, tt := range tests {
		var got int64
		for _, l := range mustModel(t, tt.id).LinearShapes() {
			if tt.target(l.Name) {
				got += l.LoRAParams(tt.r)
			}
		}
		if got != tt.want {
			t.Errorf("%s r=%d: LoRA params = %d, want %d", tt.id, tt.r, got, tt.want)
		}
	}
}

// TestLinearShapesCoverWeights checks that, for bias-free models, the
// linear layers plus embeddings and norms add up to ParamCount: nothing
// is missing from or doubled in LinearShapes.
func TestLinearShapesCoverWeights(t *testing.T) {
	for _, id := range []string{"llama-2-7b", "llama-3.1-70b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3", "phi-4", "mistral-7b-v0.1"} {
		m := mustModel(t, id)
		var linear int64
		for _, l := range m.LinearShapes() {
			linear += l.Params()
		}
		h := int64(m.Hidden)
		rest := int64(m.Vocab) * h * 2 // untied in all of these
		rest += int64(m.Layers)*int64(m.NormsPerLayer)*h + h
		if m.QKNorm {
			rest += int64(m.Layers) * 2 * int64(m.HeadDim)
		}
		if m.RouterBias {
			rest += int64(m.Layers-m.DenseLayers) * int64(m.Experts)
		}
		if m.MLA() {
			rest += int64(m.Layers) * int64(m.QLoRARank+m.KVLoRARank) // q_a and kv_a norms
		}
		total, _ := m.ParamCount()
		if linear+rest != total {
			t.Errorf("%s: linear %d + embeddings and norms %d = %d, ParamCount %d", id, linear, rest, linear+rest, total)
		}
	}
}

// TestBareModel checks the bare-size rule: the count is exactly the
// request, the shape is representative (hidden a multiple of 128, 8 KV
// heads wherever there are more heads, as today's dense models, the
// remainder under 2 × hidden) and the assumption says so.
func TestBareModel(t *testing.T) {
	for _, p := range []int64{1_000_000, 50_000_000, 125_000_000, 350_000_000, 1_500_000_000, 3e9, 7e9, 13e9, 34e9, 70e9, 175e9, 405e9, 1e12} {
		m := BareModel(p, 0)
		total, active := m.ParamCount()
		if total != p || active != p {
			t.Errorf("BareModel(%d): ParamCount = %d, %d", p, total, active)
		}
		if m.Hidden%128 != 0 || m.Layers < 1 || m.Vocab < 1 || m.ExtraParams < 0 || m.ExtraParams >= 2*int64(m.Hidden) {
			t.Errorf("BareModel(%d): unrepresentative shape %+v", p, m)
		}
		if m.KVHeads != min(m.Heads, 8) {
			t.Errorf("BareModel(%d): %d KV heads of %d", p, m.KVHeads, m.Heads)
		}
		if m.Assumption() == "" || m.ID == "" || m.Name == "" {
			t.Errorf("BareModel(%d): missing id, name or assumption", p)
		}
	}
	// A 7B bare model lands near Mistral 7B's shape (7.24B: 32 layers,
	// hidden 4096, FFN 14336, 8 KV heads): 128 KiB of bf16 KV per token
	// at 32 layers, never Llama 2's 512.
	if m := BareModel(7e9, 0); m.Hidden != 4096 || m.Layers < 30 || m.Layers > 32 || m.KVHeads != 8 {
		t.Errorf("BareModel(7B) = %d layers, hidden %d, %d KV heads; want Mistral-7B-like", m.Layers, m.Hidden, m.KVHeads)
	}
	// A bare 8B holds about Llama 3.1 8B's 128 KiB of bf16 KV per token,
	// not the 608 KiB of a KV head per head.
	if m := BareModel(8e9, 0); m.KVBytesPerToken(2, 2048) > 160<<10 {
		t.Errorf("BareModel(8B): %.0f KiB of KV per token, want about 128", m.KVBytesPerToken(2, 2048)/1024)
	}
	if m := BareModel(10, 0); m.PublishedParams != MinBareParams {
		t.Errorf("BareModel(10): %d params, want the minimum", m.PublishedParams)
	}
	// 8x7B: Mixtral-like, a little under Mixtral's 46.7B because the
	// dense base is exactly 7B rather than 7.24B.
	m := BareModel(7e9, 8)
	total, active := m.ParamCount()
	if m.Experts != 8 || m.ExpertsActive != 2 || total < 35e9 || total > 47e9 || active < 10e9 || active > 14e9 {
		t.Errorf("BareModel(7B, 8): %d experts, %d active; %d total, %d active params", m.Experts, m.ExpertsActive, total, active)
	}
	if m.ID != "bare-8x7b" {
		t.Errorf("BareModel(7B, 8).ID = %q", m.ID)
	}
}

// TestDeepSeekR1IsNamed: a DeepSeek-R1 question is answered under R1's
// name, with V3's figures and a note that says why, never titled V3.
func TestDeepSeekR1IsNamed(t *testing.T) {
	e := &Estimator{}
	p, err := Parse("will deepseek r1 run on 8 h200")
	if err != nil {
		t.Fatal(err)
	}
	r1, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	v3, err := e.Answer(Query{Model: "deepseek-v3", Method: MethodInference, GPU: "h200", GPUs: 8})
	if err != nil {
		t.Fatal(err)
	}
	if r1.ModelName != "DeepSeek-R1" || r1.Request.Model != "deepseek-r1" {
		t.Errorf("answer for %s (%s), want DeepSeek-R1", r1.ModelName, r1.Request.Model)
	}
	if r1.PerGPU != v3.PerGPU || r1.Request.Params != v3.Request.Params {
		t.Errorf("R1 %+v, V3 %+v: want V3's figures", r1.PerGPU, v3.PerGPU)
	}
	if !anyContains(r1.Assumptions, "DeepSeek-R1 has DeepSeek-V3's architecture") || anyContains(r1.Assumptions, "taken as DeepSeek-V3") {
		t.Errorf("assumptions %q; want the shared-architecture note", r1.Assumptions)
	}
}
