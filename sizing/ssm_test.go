package sizing

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestMambaCountsMatchHub: the Mamba mixer's count (transformers'
// MambaMixer) gives the Hub's exact safetensors totals of the five
// state-spaces/mamba-*-hf checkpoints (testdata/families/SOURCES.md),
// from the catalog and from config.json.
func TestMambaCountsMatchHub(t *testing.T) {
	for id, want := range map[string]int64{
		"mamba-130m": 129_135_360, "mamba-370m": 371_516_416, "mamba-790m": 793_204_224,
		"mamba-1.4b": 1_372_178_432, "mamba-2.8b": 2_768_345_600,
	} {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		if total, _ := m.ParamCount(); total != want {
			t.Errorf("%s: %d parameters, want the Hub's %d", id, total, want)
		}
		if m.Architecture() != ArchSSM || m.KVElemsPerTokenPerLayer() != 0 {
			t.Errorf("%s: architecture %q with %d KV elements per token", id, m.Architecture(), m.KVElemsPerTokenPerLayer())
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "families", "mamba-2.8b-hf.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ModelFromConfig(data, "state-spaces/mamba-2.8b-hf")
	if err != nil {
		t.Fatal(err)
	}
	cat, _, _ := LookupModel("mamba-2.8b")
	if total, _ := m.ParamCount(); total != 2_768_345_600 || m.MixerState != cat.MixerState || m.LinearAttnParams != cat.LinearAttnParams {
		t.Errorf("config.json: %d parameters, state %d, mixer %d; want 2768345600 and the catalog's %d, %d",
			total, m.MixerState, m.LinearAttnParams, cat.MixerState, cat.LinearAttnParams)
	}
}

// TestSSMStateConstantInContext: a Mamba model's inference memory is the
// same at 1k and 1M tokens of context (a fixed state, no KV cache), and
// grows with the batch by exactly the state.
func TestSSMStateConstantInContext(t *testing.T) {
	e := &Estimator{}
	ask := func(ctx, batch int) Memory {
		a, err := e.Answer(Query{Model: "mamba-2.8b", Method: MethodInference, GPU: "rtx-4090", SeqLen: ctx, MicroBatch: batch})
		if err != nil {
			t.Fatal(err)
		}
		if a.Request.Architecture != ArchSSM {
			t.Errorf("architecture %q, want ssm", a.Request.Architecture)
		}
		return a.PerGPU
	}
	short, long := ask(1024, 4), ask(1<<20, 4)
	if short.KVCacheBytes != long.KVCacheBytes || short.KVCacheBytes == 0 {
		t.Errorf("state %d bytes at 1k tokens, %d at 1M: want the same, non-zero", short.KVCacheBytes, long.KVCacheBytes)
	}
	// 64 layers × (5120×16 SSM + 5120×3 convolution) elements × 2 bytes × 4 sequences.
	if want := int64(64 * (5120*16 + 5120*3) * 2 * 4); short.KVCacheBytes != want {
		t.Errorf("state = %d bytes, want %d", short.KVCacheBytes, want)
	}
}

// TestJambaKVCachePublished: the Jamba paper (Lieber et al. 2024,
// arXiv:2403.19887, Table 1) gives the KV cache at 256K tokens in 16 bit:
// Jamba 4GB against Mistral's 32GB and Llama-2 7B's 128GB (binary GB: the
// figures are 2·layers·kv_heads·head_dim·2 B·262,144 exactly). Jamba's
// attention layers alone keep KV (4 of 32); its 28 Mamba layers add a
// fixed state of 8.7 MB. Tolerance 1 %.
func TestJambaKVCachePublished(t *testing.T) {
	const ctx = 256 << 10
	for id, gib := range map[string]float64{"jamba-v0.1": 4, "llama-2-7b": 128} {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		got := m.KVCacheBytes(2, ctx) / (1 << 30)
		if math.Abs(got-gib)/gib > 0.01 {
			t.Errorf("%s: KV cache at 256K tokens = %.2f GiB, want %.0f (Jamba paper, Table 1)", id, got, gib)
		}
	}
	m, _, _ := LookupModel("jamba-v0.1")
	if m.Architecture() != ArchHybrid {
		t.Errorf("jamba architecture %q, want hybrid", m.Architecture())
	}
	total, active := m.ParamCount()
	// The card: 52B total, 12B active.
	if math.Abs(float64(total)/52e9-1) > 0.01 || math.Abs(float64(active)/12e9-1) > 0.02 {
		t.Errorf("jamba: %d total, %d active; want 52B and 12B within 1-2%%", total, active)
	}
}

// TestJambaConfigMatchesCatalog: --config on Jamba's config.json gives
// the catalog's hybrid: 4 attention layers with KV, 28 Mamba layers.
func TestJambaConfigMatchesCatalog(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "families", "jamba-v0.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ModelFromConfig(data, "ai21labs/Jamba-v0.1")
	if err != nil {
		t.Fatal(err)
	}
	cat, _, _ := LookupModel("jamba-v0.1")
	gt, ga := m.ParamCount()
	wt, wa := cat.ParamCount()
	if gt != wt || ga != wa || m.LinearAttnLayers != 28 || m.DenseLayers != 16 || m.Architecture() != ArchHybrid {
		t.Errorf("config.json: %d/%d parameters, %d Mamba layers, %d dense, %s; want the catalog's %d/%d, 28, 16, hybrid",
			gt, ga, m.LinearAttnLayers, m.DenseLayers, m.Architecture(), wt, wa)
	}
	if m.KVCacheBytes(2, 4096) != cat.KVCacheBytes(2, 4096) {
		t.Errorf("KV cache %v, catalog %v", m.KVCacheBytes(2, 4096), cat.KVCacheBytes(2, 4096))
	}
}

// TestMamba2Config reads Mamba-Codestral's config.json as published
// (mistralai/Mamba-Codestral-7B-v0.1: model_type mamba2, 64 layers, 128
// heads of 64, 8 groups, state 128, and a time_step_limit with Python's
// Infinity in it): transformers' Mamba2Mixer gives 7,285,403,648
// parameters, the model card's 7.3B (the Hub shows 7.29B).
func TestMamba2Config(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "families", "mamba-codestral-7b-v0.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ModelFromConfig(data, "mistralai/Mamba-Codestral-7B-v0.1")
	if err != nil {
		t.Fatal(err)
	}
	total, _ := m.ParamCount()
	if total != 7_285_403_648 || m.Architecture() != ArchSSM || m.SSMVersion != 2 {
		t.Errorf("%d parameters, %s, Mamba-%d; want 7285403648, ssm, Mamba-2", total, m.Architecture(), m.SSMVersion)
	}
	// 128 heads × 64 × state 128, plus (8192 + 2·8·128) channels × 3 convolution inputs.
	if want := int64(8192*128 + (8192+2048)*3); m.MixerState != want {
		t.Errorf("state %d elements per layer, want %d", m.MixerState, want)
	}
}

// TestJambaNoAWQ: a model with Mamba mixers is never offered AWQ (vLLM
// keeps the mixers 16-bit and no AWQ checkpoint exists), and an asked
// AWQ says so.
func TestJambaNoAWQ(t *testing.T) {
	e := &Estimator{}
	a, err := e.Answer(Query{Model: "jamba-v0.1", Method: MethodInference, GPU: "rtx-4090"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits || len(a.Alternatives) == 0 {
		t.Fatalf("fits %v with %d alternatives; the case needs a misfit", a.Fits, len(a.Alternatives))
	}
	for _, alt := range a.Alternatives {
		if alt.Request.Quant == QuantAWQ {
			t.Errorf("alternative %q offers AWQ for Jamba", alt.Why)
		}
	}
	b, err := e.Answer(Query{Model: "jamba-v0.1", Method: MethodInference, GPU: "l40s", GPUs: 2, Quant: QuantAWQ})
	if err != nil {
		t.Fatal(err)
	}
	if !anyContains(b.Warnings, "no AWQ checkpoint of it exists") {
		t.Errorf("warnings %q; want the AWQ caveat", b.Warnings)
	}
	c, err := e.Answer(Query{Model: "llama-3.1-70b", Method: MethodInference, GPU: "rtx-4090"})
	if err != nil {
		t.Fatal(err)
	}
	awq := false
	for _, alt := range c.Alternatives {
		awq = awq || alt.Request.Quant == QuantAWQ
	}
	if !awq || anyContains(c.Warnings, "Mamba") {
		t.Errorf("Llama 3.1 70B alternatives %+v: want AWQ still offered to a decoder", c.Alternatives)
	}
}
