package sizing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEncoderCounts: embedding and reranker encoders, from the catalog
// and from config.json, give the Hub's counts (testdata/families/SOURCES.md).
func TestEncoderCounts(t *testing.T) {
	for id, want := range map[string]int64{
		"bge-m3": 567_754_752, "bge-reranker-v2-m3": 567_755_777, "nomic-embed-text-v1.5": 136_731_648,
		"bge-large-en-v1.5": 335_141_888, "bge-base-en-v1.5": 109_482_240, "qwen3-embedding-0.6b": 595_776_512,
	} {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		if total, _ := m.ParamCount(); total != want {
			t.Errorf("%s: %d parameters, want %d", id, total, want)
		}
		if m.Architecture() != ArchEncoder || m.KVElemsPerTokenPerLayer() != 0 {
			t.Errorf("%s: %s with KV", id, m.Architecture())
		}
	}
	for file, want := range map[string]int64{"bge-m3.json": 567_754_752, "bge-reranker-v2-m3.json": 567_755_777} {
		data, err := os.ReadFile(filepath.Join("testdata", "families", file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := ModelFromConfig(data, file)
		if err != nil {
			t.Fatal(err)
		}
		if total, _ := m.ParamCount(); total != want || m.MaxContext != 8192 || m.Architecture() != ArchEncoder {
			t.Errorf("%s: %d parameters, context %d, %s; want %d, 8192, encoder", file, total, m.MaxContext, m.Architecture(), want)
		}
	}
}

// TestEncoderServing: an encoder keeps no KV cache, reads its batch whole
// (the workspace grows with batch × sequence), and answers in sequences
// per second, not decode tokens.
func TestEncoderServing(t *testing.T) {
	e := &Estimator{}
	ask := func(batch, seq int) Answer {
		a, err := e.Answer(Query{Model: "bge-m3", Method: MethodInference, GPU: "l4", MicroBatch: batch, SeqLen: seq})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	small, big := ask(1, 512), ask(32, 512)
	if small.PerGPU.KVCacheBytes != 0 || big.PerGPU.KVCacheBytes != 0 {
		t.Errorf("an encoder has a KV cache: %d, %d", small.PerGPU.KVCacheBytes, big.PerGPU.KVCacheBytes)
	}
	if r := float64(big.PerGPU.ActivationsBytes) / float64(small.PerGPU.ActivationsBytes); r < 31 || r > 33 {
		t.Errorf("workspace at batch 32 is %.1f× batch 1's, want 32× (the whole batch in one pass)", r)
	}
	tp := big.Throughput
	if tp.TokensPerSecond != nil || tp.SequencesPerSecond == nil || tp.PrefillTokensPerSecond == nil ||
		*tp.SequencesPerSecond != *tp.PrefillTokensPerSecond/512 {
		t.Errorf("throughput %+v: want no decode rate and sequences/s = prefill tokens/s / 512", tp)
	}
	if big.Request.Architecture != ArchEncoder {
		t.Errorf("architecture %q", big.Request.Architecture)
	}
}

// TestEncoderFineTuneHasNoVocabularyLogits: an encoder is fine-tuned with
// a classification head, so BERT base at batch 32 × 512 tokens fits a T4
// (about 7.6 GiB), where full-vocabulary MLM logits (30,522 × 16,384
// tokens) would add some 5.5 GiB; the assumption says so.
func TestEncoderFineTuneHasNoVocabularyLogits(t *testing.T) {
	p, err := Parse("fine-tune bert base on a t4 batch 32 seq 512")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits || a.PerGPU.ActivationsBytes > 6<<30 || !strings.Contains(strings.Join(a.Assumptions, "\n"), "classification head") {
		t.Errorf("fits %v, activations %.1f GiB, assumptions %q: want a fit without vocabulary logits, said", a.Fits, float64(a.PerGPU.ActivationsBytes)/(1<<30), a.Assumptions)
	}
}

// TestEncoderExamplesAtItsLength: examples counted into a token budget
// are no longer than the encoder reads: 1M BERT examples are 512M tokens
// at BERT's 512, not 2.05B at the 2,048 a decoder defaults to; a sequence length said still decides.
func TestEncoderExamplesAtItsLength(t *testing.T) {
	for q, want := range map[string]int64{
		"bert base finetune on a t4 how long for 1M examples":         512_000_000,
		"bert base finetune on a t4 seq 128 how long for 1M examples": 128_000_000,
		"llama 3 8b lora on a 4090 for 1M examples":                   2_048_000_000,
	} {
		p, err := Parse(q)
		if err != nil || p.Query.Tokens != want {
			t.Errorf("%q: %d tokens, %v; want %d", q, p.Query.Tokens, err, want)
		}
	}
	p, _ := Parse("bert base finetune on a t4 how long for 1M examples")
	if !anyHasPrefix(p.Notes, `"1M examples" taken as that many sequences of 512 tokens (BERT base uncased's longest sequence)`) {
		t.Errorf("notes %q; want the 512-token examples said", p.Notes)
	}
}

// TestEmbeddingFineTuneSaysContrastive: an embedding model's fine-tune
// says that contrastive in-batch negatives are not modelled; a reranker's does not.
func TestEmbeddingFineTuneSaysContrastive(t *testing.T) {
	for q, want := range map[string]bool{"bge-large embedding fine-tune batch 128": true, "bge reranker v2 m3 full finetune a10g": false} {
		p, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if got := anyHasPrefix(a.Assumptions, "one sequence per example: contrastive training with in-batch negatives"); got != want {
			t.Errorf("%q: contrastive said %v, want %v (assumptions %q)", q, got, want, a.Assumptions)
		}
	}
}
