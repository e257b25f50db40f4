package sizing

import (
	"encoding/json"
	"errors"
	"math"
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
// count and KV cache, vision towers included.
func TestModelFromConfigMatchesCatalog(t *testing.T) {
	tests := []struct {
		file, id string
		note     string // a word the assumption must contain, "" for none
	}{
		{"llama-3.1-8b-instruct.json", "llama-3.1-8b", ""},
		{"mistral-7b-v0.1.json", "mistral-7b-v0.1", ""},
		{"qwen2.5-7b-instruct.json", "qwen2.5-7b", ""},
		{"gemma-2-9b.json", "gemma-2-9b", ""},
		{"gemma-7b.json", "gemma-7b", ""},
		{"deepseek-v3.json", "deepseek-v3", "1 multi-token-prediction layer"},
		{"gpt-oss-20b.json", "gpt-oss-20b", ""},
		{"llava-1.5-7b-hf.json", "llava-1.5-7b", "CLIP vision tower and projector counted"},
		{"qwen2-vl-2b-instruct.json", "qwen2-vl-2b", "Qwen2-VL vision tower and merger counted"},
		{"gemma-3-4b-it.json", "gemma-3-4b", "SigLIP vision tower and projector counted"},
		{"llama-3.2-11b-vision-instruct.json", "llama-3.2-11b-vision", "8 of 40 layers are cross-attention layers"},
		{"llama-3.2-90b-vision-instruct.json", "llama-3.2-90b-vision", "20 of 100 layers are cross-attention layers"},
		{"falcon-7b.json", "falcon-7b", ""},
		{"mixtral-8x7b-v0.1.json", "mixtral-8x7b", ""},
		{"gpt2.json", "gpt2", ""},
		{"t5-base.json", "t5-base", ""},
		{"bert-base-uncased.json", "bert-base-uncased", ""},
	}
	// The catalog states the report's count without DeepSeek-V3's MTP
	// layer and leaves the released format to its own row; config.json
	// gives both.
	ignore := cmpopts.IgnoreFields(Model{}, "ID", "Name", "Family", "Source", "Aliases", "PublishedParams", "PublishedActive",
		"ParamsTolerance", "ExtraParamsNote", "MTPLayers", "MTPCopiesEmbeddings", "ReleasedFormat")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ModelFromConfig(readConfig(t, tt.file), "my-model")
			if err != nil {
				t.Fatalf("ModelFromConfig: %v", err)
			}
			want := mustModel(t, tt.id)
			got.MTPLayers, got.MTPCopiesEmbeddings = 0, false
			if diff := cmp.Diff(want, got, ignore, cmpopts.IgnoreUnexported(Model{})); diff != "" {
				t.Errorf("architecture differs from the catalog's %s (-catalog +config):\n%s", tt.id, diff)
			}
			wantTotal, wantActive := want.ParamCount()
			gotTotal, gotActive := got.ParamCount()
			if gotTotal != wantTotal || gotActive != wantActive {
				t.Errorf("ParamCount = %d, %d; want %d, %d", gotTotal, gotActive, wantTotal, wantActive)
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

// FuzzModelFromConfig feeds arbitrary bytes (seeded with every real
// config under testdata/configs): ModelFromConfig must never panic,
// errors must be *InputError, and an accepted model must have a
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
	families, err := os.ReadDir(filepath.Join("testdata", "families"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range families {
		if strings.HasSuffix(e.Name(), ".json") {
			data, err := os.ReadFile(filepath.Join("testdata", "families", e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"model_type": "qwen2_vl", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "vision_config": {"depth": 2, "embed_dim": 32, "mlp_ratio": 4, "hidden_size": 64, "patch_size": 14, "temporal_patch_size": 2, "spatial_merge_size": 2}}`))
	f.Add([]byte(`{"model_type": "qwen3_next", "num_hidden_layers": 8, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "moe_intermediate_size": 16, "num_experts": 4, "num_experts_per_tok": 1, "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8, "layer_types": ["linear_attention", "full_attention"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ModelFromConfig(data, "fuzz")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Problem == "" {
				t.Fatalf("error %v is not a *InputError with a problem", err)
			}
			return
		}
		var raw rawConfig
		if json.Unmarshal(data, &raw) == nil {
			if arch, _, typ := configFamily(raw); arch != "" && !familyReaders[typ] {
				t.Fatalf("a %s config (%s) was sized as %s", arch, typ, m.Architecture())
			}
		}
		total, active := m.ParamCount()
		if total <= 0 || active <= 0 || active > total || m.ExtraParams < 0 || total < m.ExtraParams {
			t.Fatalf("ParamCount = %d, %d for %+v", total, active, m)
		}
		if m.LinearAttnLayers+m.SlidingLayers > m.Layers || m.LinearAttnParams < 0 {
			t.Fatalf("%d linear and %d sliding layers of %d", m.LinearAttnLayers, m.SlidingLayers, m.Layers)
		}
		attention := m.Kind != KindSSM
		if attention && (m.HeadDim <= 0 || m.KVHeads <= 0 || m.Heads%m.KVHeads != 0) || m.MaxContext <= 0 {
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

// TestConfigParamsMatchHub computes the parameter count of one real
// config.json per architecture family and compares it with the Hub's
// published safetensors total for the same repo (testdata/configs/
// SOURCES.md says where each file and count come from). The tolerance is
// 0.5%; most match exactly. Where they differ, want says why.
func TestConfigParamsMatchHub(t *testing.T) {
	tests := []struct {
		file, repo string
		hub        int64
		mtp, dense int // MTP layers and dense-FFN layers of an MoE, to see the layout was read
		vision     bool
	}{
		{"llama-3.1-8b-instruct.json", "meta-llama/Llama-3.1-8B-Instruct", 8_030_261_248, 0, 0, false},
		{"llama-4-scout-17b-16e-instruct.json", "meta-llama/Llama-4-Scout-17B-16E-Instruct", 108_641_793_536, 0, 0, true},
		{"llama-4-maverick-17b-128e-instruct.json", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", 401_583_781_376, 0, 24, true},
		{"mistral-7b-v0.1.json", "mistralai/Mistral-7B-v0.1", 7_241_732_096, 0, 0, false},
		{"mistral-small-24b-base-2501.json", "mistralai/Mistral-Small-24B-Base-2501", 23_572_403_200, 0, 0, false},
		{"mixtral-8x7b-v0.1.json", "mistralai/Mixtral-8x7B-v0.1", 46_702_792_704, 0, 0, false},
		{"qwen2.5-7b-instruct.json", "Qwen/Qwen2.5-7B-Instruct", 7_615_616_512, 0, 0, false},
		{"qwq-32b.json", "Qwen/QwQ-32B", 32_763_876_352, 0, 0, false},
		{"deepseek-r1-distill-qwen-1.5b.json", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", 1_777_088_000, 0, 0, false},
		{"qwen1.5-moe-a2.7b.json", "Qwen/Qwen1.5-MoE-A2.7B", 14_315_784_192, 0, 0, false},
		{"qwen3-4b.json", "Qwen/Qwen3-4B", 4_022_468_096, 0, 0, false},
		{"qwen3-14b.json", "Qwen/Qwen3-14B", 14_768_307_200, 0, 0, false},
		{"qwen3-235b-a22b.json", "Qwen/Qwen3-235B-A22B", 235_093_634_560, 0, 0, false},
		{"qwen3-coder-480b-a35b-instruct.json", "Qwen/Qwen3-Coder-480B-A35B-Instruct", 480_154_875_392, 0, 0, false},
		{"qwen3-next-80b-a3b-instruct.json", "Qwen/Qwen3-Next-80B-A3B-Instruct", 81_324_862_720, 1, 0, false},
		{"gemma-2-9b.json", "google/gemma-2-9b", 9_241_705_984, 0, 0, false},
		{"gemma-7b.json", "google/gemma-7b", 8_537_680_896, 0, 0, false},
		{"gemma-3-270m.json", "google/gemma-3-270m", 268_098_176, 0, 0, false},
		{"gemma-3-1b-it.json", "google/gemma-3-1b-it", 999_885_952, 0, 0, false},
		{"gemma-3-4b-it.json", "google/gemma-3-4b-it", 4_300_079_472, 0, 0, true},
		{"phi-4-mini-instruct.json", "microsoft/Phi-4-mini-instruct", 3_836_021_760, 0, 0, false},
		// The Hub's total adds the fp8 block scales (41.5M fp32 values).
		{"deepseek-v3.json", "deepseek-ai/DeepSeek-V3", 684_531_386_000, 1, 3, false},
		{"deepseek-v2-lite.json", "deepseek-ai/DeepSeek-V2-Lite", 15_706_484_224, 0, 1, false},
		{"kimi-k2-instruct.json", "moonshotai/Kimi-K2-Instruct", 1_026_408_235_864, 0, 1, false},
		{"glm-4.5.json", "zai-org/GLM-4.5", 358_337_791_296, 1, 3, false},
		{"glm-4.5-air.json", "zai-org/GLM-4.5-Air", 110_468_824_832, 1, 1, false},
		{"gpt-oss-20b.json", "openai/gpt-oss-20b", 20_914_757_184, 0, 0, false},
		{"bloom-560m.json", "bigscience/bloom-560m", 559_214_592, 0, 0, false},
		{"falcon-7b.json", "tiiuae/falcon-7b", 6_921_720_704, 0, 0, false},
		{"pythia-1b.json", "EleutherAI/pythia-1b", 1_011_781_632, 0, 0, false},
		{"gpt2.json", "openai-community/gpt2", 124_439_808, 0, 0, false},
		{"t5-base.json", "google-t5/t5-base", 222_903_552, 0, 0, false},
		{"llava-1.5-7b-hf.json", "llava-hf/llava-1.5-7b-hf", 7_063_427_072, 0, 0, true},
		{"qwen2-vl-2b-instruct.json", "Qwen/Qwen2-VL-2B-Instruct", 2_208_985_600, 0, 0, true},
		{"qwen2.5-vl-7b-instruct.json", "Qwen/Qwen2.5-VL-7B-Instruct", 8_292_166_656, 0, 0, true},
		{"mistral-small-3.1-24b-instruct-2503.json", "mistralai/Mistral-Small-3.1-24B-Instruct-2503", 24_011_361_280, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			m, err := ModelFromConfig(readConfig(t, tt.file), "")
			if err != nil {
				t.Fatalf("ModelFromConfig: %v", err)
			}
			total, _ := m.ParamCount()
			if off := math.Abs(float64(total-tt.hub)) / float64(tt.hub); off > 0.005 {
				t.Errorf("ParamCount = %d, the Hub says %d: %.2f%% off", total, tt.hub, 100*off)
			}
			if m.MTPLayers != tt.mtp || m.DenseLayers != tt.dense || (m.ExtraParams > 0) != tt.vision {
				t.Errorf("MTP layers %d, dense layers %d, vision %d; want %d, %d, %v", m.MTPLayers, m.DenseLayers, m.ExtraParams, tt.mtp, tt.dense, tt.vision)
			}
		})
	}
}

// TestModelFromConfigLayouts checks the pieces that move the count most
// on small configs: interleaved MoE, shared experts, MTP and linear
// attention, each against the count written out by hand.
func TestModelFromConfigLayouts(t *testing.T) {
	// A Llama-style block of hidden 64, 4 heads of 16, 2 KV heads, vocab 100, untied.
	base := `"num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "tie_word_embeddings": false`
	var (
		embed  int64 = 2 * 100 * 64            // embeddings and LM head
		head   int64 = 100 * 64                // the LM head alone: a MoE's active count leaves out the input embedding
		attn   int64 = 64*64 + 2*64*32 + 64*64 // q, k, v, o
		norms  int64 = 2 * 64                  // two RMSNorms a layer
		mlp          = func(i int64) int64 { return 3 * 64 * i }
		glmMoE       = 64*8 + 8 + 9*mlp(16) // router with bias, 8 routed + 1 shared expert
	)
	tests := []struct {
		name, config string
		total        int64
		active       int64
	}{
		{"llama4 interleaved with a shared expert",
			`{"model_type": "llama4_text", ` + base + `, "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2}`,
			embed + 64 + 4*(attn+norms) + 2*mlp(128) + 2*(64*4+5*mlp(32)),
			head + 64 + 4*(attn+norms) + 2*mlp(128) + 2*(64*4+2*mlp(32))},
		{"explicit moe_layers",
			`{"model_type": "llama4_text", ` + base + `, "intermediate_size": 32, "intermediate_size_mlp": 128, "num_local_experts": 4, "num_experts_per_tok": 1, "moe_layers": [3]}`,
			embed + 64 + 4*(attn+norms) + 3*mlp(128) + (64*4 + 5*mlp(32)),
			head + 64 + 4*(attn+norms) + 3*mlp(128) + (64*4 + 2*mlp(32))},
		{"qwen2_moe sparse step, mlp_only_layers, gated shared expert",
			`{"model_type": "qwen2_moe", ` + base + `, "intermediate_size": 128, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 48, "num_experts": 8, "num_experts_per_tok": 2, "decoder_sparse_step": 2, "mlp_only_layers": [3]}`,
			embed + 64 + 4*(attn+128+norms) + 3*mlp(128) + (64*8 + 8*mlp(16) + mlp(48) + 64),
			head + 64 + 4*(attn+128+norms) + 3*mlp(128) + (64*8 + 2*mlp(16) + mlp(48) + 64)},
		{"glm4_moe MTP layer with its own embeddings",
			`{"model_type": "glm4_moe", ` + base + `, "intermediate_size": 128, "moe_intermediate_size": 16, "n_routed_experts": 8, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1, "num_nextn_predict_layers": 1}`,
			embed + 64 + 4*(attn+norms) + mlp(128) + 3*glmMoE + (attn + norms + glmMoE + 2*64*64 + 3*64 + embed),
			head + 64 + 4*(attn+norms) + mlp(128) + 3*(64*8+8+3*mlp(16))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ModelFromConfig([]byte(tt.config), "x")
			if err != nil {
				t.Fatalf("ModelFromConfig: %v", err)
			}
			total, active := m.ParamCount()
			if total != tt.total || active != tt.active {
				t.Errorf("ParamCount = %d, %d; want %d, %d (%+v)", total, active, tt.total, tt.active, m)
			}
		})
	}
}

// TestModelFromConfigRefuses checks that a key or layer kind that would
// change the count, and that fitbot does not model, is refused by name
// rather than ignored.
func TestModelFromConfigRefuses(t *testing.T) {
	base := `"num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128`
	tests := []struct {
		name, config, want string
	}{
		{"cross attention", `{"model_type": "llama", ` + base + `, "cross_attention_layers": [1, 3]}`, `"cross_attention_layers"`},
		{"shared expert on a family without one", `{"model_type": "mixtral", ` + base + `, "num_local_experts": 4, "num_experts_per_tok": 2, "shared_intermediate_size": 64}`, `"shared_intermediate_size"`},
		{"mamba layers", `{"model_type": "llama", ` + base + `, "hybrid_override_pattern": "M-M*"}`, `"hybrid_override_pattern"`},
		{"unknown layer kind", `{"model_type": "llama", ` + base + `, "layer_types": ["mamba", "attention", "mamba", "mamba"]}`, `"layer_types" has a "mamba" layer`},
		{"qk norm on gpt2", `{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100, "n_positions": 128, "qk_layernorm": true}`, `"qk_layernorm"`},
		{"gemma3n", `{"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text"}}`, "Gemma 3n"},
		{"mllama with every layer cross-attention", `{"model_type": "mllama", "text_config": {"model_type": "mllama_text_model", ` + base + `, "cross_attention_layers": [0, 1, 2, 3]}}`, "cross_attention_layers lists 4 layers of 4"},
		{"zero interleave", `{"model_type": "llama4_text", ` + base + `, "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 0}`, `"interleave_moe_layer_step" is 0`},
		{"mlp_only_layers not a list", `{"model_type": "qwen3_moe", ` + base + `, "moe_intermediate_size": 16, "num_experts": 4, "num_experts_per_tok": 1, "mlp_only_layers": "none"}`, `"mlp_only_layers" is "none"`},
	}
	for _, tt := range tests {
		_, err := ModelFromConfig([]byte(tt.config), "x")
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want *InputError", tt.name, err)
			continue
		}
		if !strings.Contains(ie.Problem, tt.want) {
			t.Errorf("%s: problem %q, want it to contain %q", tt.name, ie.Problem, tt.want)
		}
	}
	// The layout keys of an MoE change nothing on a dense model.
	if _, err := ModelFromConfig([]byte(`{"model_type": "qwen2", `+base+`, "num_experts": 0, "decoder_sparse_step": 2, "first_k_dense_replace": 1}`), "x"); err != nil {
		t.Errorf("dense model with MoE layout keys: %v", err)
	}
}

// TestModelFromConfigReleasedFormat reads quantization_config.
func TestModelFromConfigReleasedFormat(t *testing.T) {
	base := `"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128`
	tests := []struct {
		quant string
		want  Quant
		note  string
	}{
		{`{"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}`, QuantFP8, ""},
		{`{"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}`, QuantMXFP4, ""},
		{`{"quant_method": "awq", "bits": 4, "group_size": 128}`, QuantAWQ, ""},
		{`{"quant_method": "gptq", "bits": 4, "group_size": 128}`, QuantGPTQ, ""},
		{`{"quant_method": "bitsandbytes", "load_in_4bit": true}`, QuantNF4, ""},
		{`{"quant_method": "gptq", "bits": 8}`, QuantNone, `quant_method "gptq"`},
		{`{"quant_method": "compressed-tensors"}`, QuantNone, `quant_method "compressed-tensors"`},
		{`null`, QuantNone, ""},
	}
	for _, tt := range tests {
		m, err := ModelFromConfig([]byte(`{`+base+`, "quantization_config": `+tt.quant+`}`), "x")
		if err != nil {
			t.Fatalf("%s: %v", tt.quant, err)
		}
		if m.ReleasedFormat != tt.want || tt.note != "" && !strings.Contains(m.Assumption(), tt.note) {
			t.Errorf("%s: ReleasedFormat %q, assumption %q; want %q mentioning %q", tt.quant, m.ReleasedFormat, m.Assumption(), tt.want, tt.note)
		}
	}
}
