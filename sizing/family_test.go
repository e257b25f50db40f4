package sizing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFamilyRefusedByName: a config of a family or model type fitbot
// does not size is refused with an *InputError that names what it is,
// through --config (ModelFromConfig) and the Hub (ModelFromHub, even
// with a safetensors count it could size a decoder from).
func TestFamilyRefusedByName(t *testing.T) {
	tests := []struct {
		file, repo string
		want       []string
	}{
		{"flux.1-dev_model_index.json", "black-forest-labs/FLUX.1-dev", []string{"FLUX.1", "diffusion", "FluxPipeline"}},
		{"flux.1-dev_transformer_config.json", "black-forest-labs/FLUX.1-dev", []string{"diffusion", "FluxTransformer2DModel"}},
		{"sdxl-base-1.0_model_index.json", "stabilityai/stable-diffusion-xl-base-1.0", []string{"SDXL", "diffusion"}},
		{"wav2vec2-base-960h.json", "facebook/wav2vec2-base-960h", []string{"wav2vec 2.0", "speech"}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "families", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		_, cerr := ModelFromConfig(data, tt.repo)
		_, herr := ModelFromHub(tt.repo, data, HubWeights{ByDType: map[string]int64{"BF16": 11_901_408_320}, Total: 11_901_408_320})
		for name, err := range map[string]error{"ModelFromConfig": cerr, "ModelFromHub": herr} {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("%s(%s) error %v, want an *InputError", name, tt.file, err)
				continue
			}
			for _, w := range append(tt.want, tt.repo, "not sized as a decoder LLM", "fitbot sizes") {
				if !strings.Contains(ie.Problem, w) {
					t.Errorf("%s(%s) = %q, want it to name %q", name, tt.file, ie.Problem, w)
				}
			}
		}
	}
}

// TestHubShortConfigRefused: without model_index.json, the Hub's short
// config of a diffusers repo is enough to refuse it.
func TestHubShortConfigRefused(t *testing.T) {
	_, err := ModelFromHub("stabilityai/sdxl-turbo", []byte(`{"diffusers": {"_class_name": "StableDiffusionXLPipeline"}}`), HubWeights{Total: 3_500_000_000})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "SDXL") {
		t.Errorf("ModelFromHub = %v, want a refusal naming SDXL", err)
	}
}

// TestUnknownTypeByArchitectures: an unknown model_type is read as a
// decoder only when its architectures are a causal LM.
func TestUnknownTypeByArchitectures(t *testing.T) {
	base := `"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128`
	if _, err := ModelFromConfig([]byte(`{"model_type": "newlm", "architectures": ["NewLMForCausalLM"], `+base+`}`), "x"); err != nil {
		t.Errorf("causal LM of an unknown type: %v", err)
	}
	_, err := ModelFromConfig([]byte(`{"model_type": "newenc", "architectures": ["NewEncForMaskedLM"], `+base+`}`), "x")
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "NewEncForMaskedLM") {
		t.Errorf("masked LM of an unknown type = %v, want a refusal naming NewEncForMaskedLM", err)
	}
}

// TestNamedModelsRefusedByName: popular models fitbot does not size (or
// does not size for the method asked) are refused by name, never "I do
// not understand": a model known by name only when the question is read,
// with no Try (nothing sized is like it).
func TestNamedModelsRefusedByName(t *testing.T) {
	for _, tt := range []struct{ q, name, try string }{
		{"sd3.5 large lora 4090", "Stable Diffusion 3.5 Large", ""},
		{"sd 3.5 medium dreambooth 3060", "Stable Diffusion 3.5 Medium", ""},
	} {
		p, err := Parse(tt.q)
		if err == nil {
			_, err = (&Estimator{}).Answer(p.Query)
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%q: error %v, want an *InputError", tt.q, err)
			continue
		}
		if !strings.Contains(ie.Problem, tt.name) || ie.Hint != tt.try {
			t.Errorf("%q: %q / Try %q, want %q named and the Try %q", tt.q, ie.Problem, ie.Hint, tt.name, tt.try)
		}
	}
}

// TestPopularModelsByName: the questions of the issue answer by name,
// each sized by its own family.
func TestPopularModelsByName(t *testing.T) {
	for q, arch := range map[string]string{
		"flux.1-dev lora 4090":          ArchDiffusion,
		"sdxl inference 3060":           ArchDiffusion,
		"sdxl lora 4090":                ArchDiffusion,
		"sd 1.5 dreambooth 3060":        ArchDiffusion,
		"whisper large-v3 t4":           ArchEncoderDecoder,
		"bge-m3 inference l4":           ArchEncoder,
		"mamba 2.8b inference 4090":     ArchSSM,
		"jamba inference 2 a100":        ArchHybrid,
		"qwen3 next 80b inference h200": ArchHybrid,
		"llava 1.5 7b inference 4090":   ArchVisionLanguage,
	} {
		p, err := Parse(q)
		if err != nil {
			t.Errorf("Parse(%q): %v", q, err)
			continue
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		if a.Request.Architecture != arch {
			t.Errorf("%q sized as %q, want %q", q, a.Request.Architecture, arch)
		}
	}
}

// TestArchitectureOfCatalog: every catalog model states its family.
func TestArchitectureOfCatalog(t *testing.T) {
	want := map[string]string{
		"llama-3.1-8b": ArchDecoder, "bert-base-uncased": ArchEncoder, "t5-base": ArchEncoderDecoder,
		"qwen3-next-80b-a3b": ArchHybrid, "qwen2-vl-7b": ArchVisionLanguage, "llava-1.5-7b": ArchVisionLanguage,
	}
	for id, arch := range want {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Architecture(); got != arch {
			t.Errorf("%s.Architecture() = %q, want %q", id, got, arch)
		}
	}
}
