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

// TestNamedModelsRefusedByName: the popular models fitbot knows by name
// only are read as models by the parser and refused by name, with a Try
// that names the asked model, never "I do not understand".
func TestNamedModelsRefusedByName(t *testing.T) {
	for _, tt := range []struct{ q, name, id string }{
		{"flux.1-dev lora 4090", "FLUX.1 [dev]", "flux.1-dev"},
		{"can we fine-tune flux dev with lora on a 4090?", "FLUX.1 [dev]", "flux.1-dev"},
		{"sdxl inference 3060", "Stable Diffusion XL", "sdxl"},
		{"sd 1.5 dreambooth 3060", "Stable Diffusion 1.5", "sd-1.5"},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.q, err)
			continue
		}
		_, err = (&Estimator{}).Answer(p.Query)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%q: error %v, want an *InputError", tt.q, err)
			continue
		}
		if !strings.Contains(ie.Problem, tt.name) || !strings.Contains(ie.Hint, tt.id) {
			t.Errorf("%q: %q / Try %q, want %q named and %q in the Try", tt.q, ie.Problem, ie.Hint, tt.name, tt.id)
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
