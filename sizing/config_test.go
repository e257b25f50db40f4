package sizing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func readConfig(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestModelFromConfigMatchesCatalog reads real config.json files (copied
// from the Hugging Face repos named in the catalog's sources) and checks
// that they give the catalog's architecture, hence its exact parameter
// count and KV cache. Vision towers are not in config.json as counts, so
// the VLM's language model is compared without them.
func TestModelFromConfigMatchesCatalog(t *testing.T) {
	tests := []struct {
		file, id string
		note     string // a word the assumption must contain, "" for none
	}{
		{"llama-3.1-8b-instruct.json", "llama-3.1-8b", ""},
		{"mistral-7b-v0.1.json", "mistral-7b-v0.1", ""},
		{"qwen2.5-7b-instruct.json", "qwen2.5-7b", ""},
		{"gemma-2-9b.json", "gemma-2-9b", ""},
		{"deepseek-v3.json", "deepseek-v3", ""},
		{"gpt-oss-20b.json", "gpt-oss-20b", ""},
		{"llava-1.5-7b-hf.json", "llava-1.5-7b", "vision tower is not counted"},
		{"gpt2.json", "gpt2", ""},
		{"t5-base.json", "t5-base", ""},
		{"bert-base-uncased.json", "bert-base-uncased", ""},
	}
	ignore := cmpopts.IgnoreFields(Model{}, "ID", "Name", "Family", "Source", "Aliases", "PublishedParams", "PublishedActive",
		"ParamsTolerance", "ExtraParams", "ExtraParamsNote")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ModelFromConfig(readConfig(t, tt.file), "my-model")
			if err != nil {
				t.Fatalf("ModelFromConfig: %v", err)
			}
			want := mustModel(t, tt.id)
			if diff := cmp.Diff(want, got, ignore, cmpopts.IgnoreUnexported(Model{})); diff != "" {
				t.Errorf("architecture differs from the catalog's %s (-catalog +config):\n%s", tt.id, diff)
			}
			wantTotal, wantActive := want.ParamCount()
			gotTotal, gotActive := got.ParamCount()
			if gotTotal != wantTotal-want.ExtraParams || gotActive != wantActive-want.ExtraParams {
				t.Errorf("ParamCount = %d, %d; want %d, %d", gotTotal, gotActive, wantTotal-want.ExtraParams, wantActive-want.ExtraParams)
			}
			if got.ID != "my-model" || got.Name != "my-model" {
				t.Errorf("id, name = %q, %q", got.ID, got.Name)
			}
			if a := got.Assumption(); tt.note == "" && a != "" || !strings.Contains(a, tt.note) {
				t.Errorf("Assumption() = %q, want it to mention %q", a, tt.note)
			}
		})
	}
}

// TestModelFromConfigName checks the id and name fall back to
// _name_or_path, then to model_type.
func TestModelFromConfigName(t *testing.T) {
	m, err := ModelFromConfig([]byte(`{"_name_or_path": "org/Cool Model", "model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4, "vocab_size": 1000}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "cool-model" || m.Name != "Cool Model" {
		t.Errorf("id, name = %q, %q", m.ID, m.Name)
	}
	if m.MaxContext != 2048 {
		t.Errorf("MaxContext = %d, want LlamaConfig's default 2048", m.MaxContext)
	}
}

// TestModelFromConfigErrors checks that bad configs are *InputError
// naming what is wrong.
func TestModelFromConfigErrors(t *testing.T) {
	base := `"model_type": "mistral", "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8`
	tests := []struct {
		name, config, want string
	}{
		{"not json", `{"model_type": `, "not a JSON object"},
		{"array", `[1, 2]`, "not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"missing vocab", `{` + base + `}`, `no "vocab_size"`},
		{"missing layers", `{"model_type": "qwen2", "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 10, "intermediate_size": 8}`, `no "num_hidden_layers" (or "n_layer", "num_layers")`},
		{"string number", `{` + base + `, "vocab_size": "32000"}`, `"vocab_size" is "32000"`},
		{"fraction", `{` + base + `, "vocab_size": 32000.5}`, `"vocab_size" is 32000.5`},
		{"negative", `{` + base + `, "vocab_size": -1}`, `"vocab_size" is -1`},
		{"zero", `{` + base + `, "vocab_size": 0}`, `"vocab_size" is 0`},
		{"bad bool", `{` + base + `, "vocab_size": 32000, "tie_word_embeddings": "yes"}`, `"tie_word_embeddings" is "yes"`},
		{"heads", `{"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 100, "intermediate_size": 8, "num_attention_heads": 3, "vocab_size": 10}`, "not a multiple of 3 heads"},
		{"kv heads", `{` + base + `, "vocab_size": 32000, "num_key_value_heads": 7}`, "32 attention heads do not group into 7"},
		{"experts", `{` + base + `, "vocab_size": 32000, "num_local_experts": 8}`, `no "num_experts_per_tok"`},
		{"too many experts per token", `{` + base + `, "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 9}`, "9 experts per token of 8"},
		{"absurd", `{"model_type": "llama", "num_hidden_layers": 10000, "hidden_size": 1048576, "intermediate_size": 1048576, "num_attention_heads": 1, "vocab_size": 10}`, "over 10^15 parameters"},
		{"text_config", `{"model_type": "llava", "text_config": 3}`, `"text_config" is not an object`},
		{"layer_types", `{` + base + `, "vocab_size": 32000, "sliding_window": 4096, "layer_types": "all"}`, `"layer_types" is "all"`},
	}
	for _, tt := range tests {
		_, err := ModelFromConfig([]byte(tt.config), "x")
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want *InputError", tt.name, err)
			continue
		}
		if !strings.Contains(ie.Problem, tt.want) || ie.Hint == "" {
			t.Errorf("%s: problem %q, want it to contain %q (hint %q)", tt.name, ie.Problem, tt.want, ie.Hint)
		}
	}
}

// TestModelFromConfigUnknownType reads an unknown model_type as a
// Llama-style decoder and says so.
func TestModelFromConfigUnknownType(t *testing.T) {
	m, err := ModelFromConfig([]byte(`{"model_type": "olmo2", "num_hidden_layers": 16, "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 16, "vocab_size": 100352, "max_position_embeddings": 4096}`), "olmo")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Assumption(), `model_type "olmo2" is not one fitbot knows`) {
		t.Errorf("Assumption() = %q", m.Assumption())
	}
	if total, _ := m.ParamCount(); total <= 0 {
		t.Errorf("ParamCount = %d", total)
	}
}

// FuzzModelFromConfig feeds arbitrary bytes: ModelFromConfig must never
// panic, errors must be *InputError, and an accepted model must have a
// countable, consistent architecture.
func FuzzModelFromConfig(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "configs"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		f.Add(readConfig(f, e.Name()))
	}
	f.Add([]byte(`{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "num_hidden_layers": 34}}`))
	f.Add([]byte(`{"model_type": "falcon", "new_decoder_architecture": true, "num_kv_heads": 8, "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128, "vocab_size": 65024}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ModelFromConfig(data, "fuzz")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Problem == "" {
				t.Fatalf("error %v is not a *InputError with a problem", err)
			}
			return
		}
		total, active := m.ParamCount()
		if total <= 0 || active <= 0 || active > total {
			t.Fatalf("ParamCount = %d, %d for %+v", total, active, m)
		}
		if m.HeadDim <= 0 || m.KVHeads <= 0 || m.Heads%m.KVHeads != 0 || m.MaxContext <= 0 {
			t.Fatalf("inconsistent shape %+v", m)
		}
		if kv := m.KVCacheBytes(2, m.MaxContext); kv < 0 {
			t.Fatalf("KVCacheBytes = %v", kv)
		}
		if len(m.LinearShapes()) == 0 {
			t.Fatalf("no linear layers in %+v", m)
		}
	})
}
