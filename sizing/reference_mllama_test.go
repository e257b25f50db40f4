package sizing

import (
	"strings"
	"testing"
)

// TestReferenceMllama: Llama 3.2 Vision (mllama) against its published
// figures (testdata/serving/SOURCES.md, "Llama 3.2 Vision").
func TestReferenceMllama(t *testing.T) {
	// huggingface/blog llama32.md: "the 11B Vision model takes about 10 GB
	// of GPU RAM during inference, in 4-bit mode" (transformers,
	// bitsandbytes). fitbot's total with its CUDA context; 15 %: the blog
	// rounds and states no context.
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.2-11b-vision", Method: MethodInference, GPU: "rtx-4090", Quant: QuantNF4, SeqLen: 2048})
	if err != nil {
		t.Fatal(err)
	}
	got := float64(a.PerGPU.TotalBytes) / gb
	t.Logf("11B Vision in 4-bit: %.2f GB vs about 10 (%.2f)", got, got/10)
	if !withinRel(got, 10, 0.15) {
		t.Errorf("11B Vision in 4-bit: %.2f GB, the blog's about 10 GB (±15%%)", got)
	}
	// vllm-project/vllm#9445 (vLLM 0.6.3, A100 80GB, --max-model-len 1024):
	// the default max_num_seqs OOMs at start-up, 32 starts;
	// vllm-project/vllm#8879: 16 starts (the maintainers' recipe). The
	// profile runs the vision tower on one image per sequence.
	for _, tc := range []struct {
		seqs   int
		starts bool
	}{{256, false}, {32, true}, {16, true}} {
		rs, err := resolve(Query{Model: "llama-3.2-11b-vision", Method: MethodInference, GPU: "a100-80", SeqLen: 1024})
		if err != nil {
			t.Fatal(err)
		}
		sp := rs.req.spec()
		sp.maxSeqsOverride = tc.seqs
		avail, reserve, _, _ := kvCapacity(&rs.req, &rs.shape, &rs.gpu, sp)
		t.Logf("max_num_seqs %d: engine reserve %s, KV cache %s", tc.seqs, gibString(int64(reserve)), gibString(int64(avail)))
		if starts := avail >= requestKVBytes(&rs.req, &rs.shape, 1024); starts != tc.starts {
			t.Errorf("max_num_seqs %d on an A100 80GB: starts %v (reserve %s), published: starts %v", tc.seqs, starts, gibString(int64(reserve)), tc.starts)
		}
	}
}

// TestMllamaCrossAttention: the cross-attention layers keep the image's
// keys and values per sequence, not the text's per token; serving is
// sized at max_num_seqs 16 and says so; an image asked does not lengthen
// the sequence.
func TestMllamaCrossAttention(t *testing.T) {
	m, _, err := LookupModel("llama-3.2-11b-vision")
	if err != nil {
		t.Fatal(err)
	}
	// 8 layers × 6,404 states × 2 (k, v) × 8 KV heads × 128 at 2 bytes.
	const image = 8 * 6404 * 2 * 8 * 128 * 2
	// 32 self-attention layers × 2 × 8 × 128 × 2 bytes per text token.
	const perToken = 32 * 2 * 8 * 128 * 2
	if got := m.KVCacheBytes(2, 1000); got != image+1000*perToken {
		t.Errorf("KV of 1,000 tokens = %.0f bytes, want %d", got, image+1000*perToken)
	}
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.2-11b-vision", Method: MethodInference, GPU: "a100-80", SeqLen: 4096, Images: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.SeqLen != 4096 || a.Serving == nil || a.Serving.MaxConcurrency != crossAttnMaxSeqs {
		t.Errorf("seq_len %d, serving %+v; want 4096 and %d sequences", a.Request.SeqLen, a.Serving, crossAttnMaxSeqs)
	}
	said := strings.Join(a.Assumptions, "\n")
	for _, w := range []string{"8 cross-attention layers", "--max-num-seqs 16"} {
		if !strings.Contains(said, w) {
			t.Errorf("assumptions do not say %q:\n%s", w, said)
		}
	}
}

// TestMllamaFromHub: the Hub's config.json of Llama 3.2 11B Vision is read
// as the catalog's model, and its count matches the Hub's safetensors
// total exactly.
func TestMllamaFromHub(t *testing.T) {
	m, err := ModelFromHub("meta-llama/Llama-3.2-11B-Vision-Instruct", readConfig(t, "llama-3.2-11b-vision-instruct.json"), HubWeights{Total: 10_670_220_835})
	if err != nil {
		t.Fatal(err)
	}
	total, _ := m.ParamCount()
	if total != 10_670_220_835 || m.CrossAttnLayers != 8 || m.CrossAttnTokens != 6404 || m.Architecture() != ArchVisionLanguage {
		t.Errorf("from the Hub: %d parameters, %d cross-attention layers of %d states, %s", total, m.CrossAttnLayers, m.CrossAttnTokens, m.Architecture())
	}
}
