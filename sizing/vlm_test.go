package sizing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImageTokensCounted: images count in a vision-language model's
// sequence at their published token counts (LLaVA-1.5: 576 per 336px
// image, the LLaVA-1.5 paper and llava-hf's processor; Gemma 3: 256 per
// image, the Gemma 3 technical report and its config's
// mm_tokens_per_image), so the KV cache grows with them exactly.
func TestImageTokensCounted(t *testing.T) {
	e := &Estimator{}
	for _, tt := range []struct {
		model  string
		tokens int
	}{{"llava-1.5-7b", 576}, {"gemma-3-4b", 256}} {
		ask := func(images int) Answer {
			a, err := e.Answer(Query{Model: tt.model, Method: MethodInference, GPU: "h100", SeqLen: 1024, Images: images})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		text, two := ask(0), ask(2)
		if two.Request.SeqLen != 1024+2*tt.tokens || two.Request.Images != 2 {
			t.Errorf("%s with 2 images: seq_len %d, want %d", tt.model, two.Request.SeqLen, 1024+2*tt.tokens)
		}
		m, _, _ := LookupModel(tt.model)
		want := int64(m.KVCacheBytes(2, 1024+2*tt.tokens) - m.KVCacheBytes(2, 1024))
		if got := two.PerGPU.KVCacheBytes - text.PerGPU.KVCacheBytes; got < want-1 || got > want+1 {
			t.Errorf("%s: 2 images add %d bytes of KV cache, want %d", tt.model, got, want)
		}
	}
	p, err := Parse("llava 1.5 7b inference 4090 2 images")
	if err != nil || p.Query.Images != 2 {
		t.Fatalf("Parse: %+v, %v", p.Query, err)
	}
	if again, err := Parse(Format(p.Query)); err != nil || again.Query.Images != 2 {
		t.Errorf("Format %q reads back %+v, %v", Format(p.Query), again.Query, err)
	}
	_, err = e.Answer(Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "h100", Images: 1})
	if err == nil || !strings.Contains(err.Error(), "not a vision-language model") {
		t.Errorf("images on a text model: %v", err)
	}
}

// TestImageTokensFromConfig: config.json gives LLaVA's 576 and Gemma 3's
// 256 tokens per image.
func TestImageTokensFromConfig(t *testing.T) {
	for file, want := range map[string]int{"llava-1.5-7b-hf.json": 576, "gemma-3-4b-it.json": 256} {
		data, err := os.ReadFile(filepath.Join("testdata", "configs", file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := ModelFromConfig(data, file)
		if err != nil {
			t.Fatal(err)
		}
		if m.ImageTokens != want {
			t.Errorf("%s: %d tokens per image, want %d", file, m.ImageTokens, want)
		}
	}
}
