package sizing

import (
	"os"
	"strings"
	"testing"
)

func readHubTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../hub/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// qwen3MoE is Qwen/Qwen3-235B-A22B's config.json, trimmed to what sizing reads.
const qwen3MoE = `{"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","hidden_size":4096,"intermediate_size":12288,
"moe_intermediate_size":1536,"num_experts":128,"num_experts_per_tok":8,"num_hidden_layers":94,"num_attention_heads":64,
"num_key_value_heads":4,"head_dim":128,"vocab_size":151936,"tie_word_embeddings":false,"max_position_embeddings":40960,
"decoder_sparse_step":1,"mlp_only_layers":[],"torch_dtype":"bfloat16"}`

func TestModelFromHub(t *testing.T) {
	qwen14 := readHubTestdata(t, "config_qwen3-14b.json")
	qwen17 := readHubTestdata(t, "config_qwen3-1.7b.json")
	dsv3 := readHubTestdata(t, "config_deepseek-v3.1.json")
	vlm := `{"model_type":"llava","text_config":` + string(qwen14) + `,"vision_config":{"model_type":"siglip_vision_model","hidden_size":1152}}`
	tests := []struct {
		name       string
		config     string
		weights    HubWeights
		wantTotal  int64
		wantFormat Quant
		wantIn     []string // in the assumption
		wantErr    string
	}{
		{name: "bf16, counts agree", config: string(qwen14), weights: HubWeights{ByDType: map[string]int64{"BF16": 14_768_307_200}, Total: 14_768_307_200},
			wantTotal: 14_768_307_200, wantIn: []string{"org/model: 14,768,307,200 parameters, exactly the Hub's safetensors count"}},
		// The pair recorded from the Hub's API for Qwen/Qwen3-235B-A22B.
		{name: "qwen3 moe, counts agree", config: qwen3MoE, weights: HubWeights{ByDType: map[string]int64{"BF16": 235_093_634_560}, Total: 235_093_634_560},
			wantTotal: 235_093_634_560},
		{name: "vision tower counted from the Hub", config: vlm, weights: HubWeights{Total: 14_768_307_200 + 412_442_352},
			wantTotal: 14_768_307_200 + 412_442_352, wantIn: []string{"15,180,749,552 parameters by the Hub's safetensors count, 412,442,352 more than config.json's decoder, counted as the vision tower and projector"}},
		{name: "tied output embedding stored twice", config: string(qwen17), weights: HubWeights{ByDType: map[string]int64{"BF16": 2_031_739_904}, Total: 2_031_739_904},
			wantTotal: 1_720_574_976, wantIn: []string{"1,720,574,976 parameters; the Hub's safetensors count (2,031,739,904) also holds the tied output embedding, which is loaded once"}},
		{name: "fp8 block-scaled release", config: string(dsv3),
			weights:   HubWeights{ByDType: map[string]int64{"BF16": 3_918_786_560, "F8_E4M3": 680_571_490_736, "F32": 41_108_704}, Total: 684_531_386_000},
			wantTotal: 684_489_845_504, wantFormat: QuantFP8, wantIn: []string{"multi-token-prediction layer"}},
		{name: "fp8 by the dtype split", config: string(qwen14), weights: HubWeights{ByDType: map[string]int64{"BF16": 1_555_829_760, "F8_E4M3": 13_212_477_440}, Total: 14_768_307_200},
			wantTotal: 14_768_307_200, wantFormat: QuantFP8, wantIn: []string{"89% of the safetensors elements are fp8"}},
		{name: "unreadable config sized from the count", config: `{"model_type":"rwkv7","vocab_size":65536}`, weights: HubWeights{ByDType: map[string]int64{"BF16": 2_900_000_000}, Total: 2_900_000_000},
			wantTotal: 2_900_000_000, wantIn: []string{"its config.json cannot be read", "sized from the Hub's safetensors count", "activations and KV cache follow that shape"}},
		{name: "architecture above the Hub's count", config: string(qwen14), weights: HubWeights{ByDType: map[string]int64{"BF16": 14_000_000_000}, Total: 14_000_000_000},
			wantTotal: 14_768_307_200, wantIn: []string{"config.json's architecture gives 14,768,307,200 parameters, 768,307,200 more than the Hub's safetensors count (14,000,000,000)"}},
		{name: "no config.json", weights: HubWeights{Total: 7_000_000_000}, wantTotal: 7_000_000_000, wantIn: []string{"the repo has no config.json"}},
		{name: "unknown model_type read as Llama-style", config: `{"model_type":"smollm3","hidden_size":2048,"intermediate_size":11008,"num_hidden_layers":36,"num_attention_heads":16,"num_key_value_heads":4,"vocab_size":128256,"tie_word_embeddings":true,"max_position_embeddings":65536}`,
			weights: HubWeights{Total: 3_075_098_624}, wantTotal: 3_075_098_624, wantIn: []string{`"smollm3" is not one fitbot knows`}},
		{name: "nothing to size", wantErr: "neither a config.json nor safetensors"},
		{name: "bad config and no count", config: `{"model_type":"mistral"}`, wantErr: "config.json has no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ModelFromHub("org/model", []byte(tt.config), tt.weights)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			total, _ := m.ParamCount()
			if total != tt.wantTotal || m.ReleasedFormat != tt.wantFormat || m.ID != "org/model" {
				t.Errorf("%s: %d parameters, format %q; want %d, %q", m.ID, total, m.ReleasedFormat, tt.wantTotal, tt.wantFormat)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(m.Assumption(), w) {
					t.Errorf("assumption %q lacks %q", m.Assumption(), w)
				}
			}
		})
	}
}

func TestReleasedBySplit(t *testing.T) {
	tests := []struct {
		config string
		w      HubWeights
		want   Quant
	}{
		{`{"model_type":"llama"}`, HubWeights{ByDType: map[string]int64{"F8_E4M3": 90, "BF16": 10}}, QuantFP8},
		{`{"model_type":"llama"}`, HubWeights{ByDType: map[string]int64{"F8_E4M3": 40, "BF16": 60}}, ""},
		{`{"model_type":"llama"}`, HubWeights{ByDType: map[string]int64{"BF16": 10}}, ""},
		{`{"model_type":"llama","quantization_config":{"quant_method":"fp8"}}`, HubWeights{ByDType: map[string]int64{"F8_E4M3": 90}}, ""}, // config.json's to say
		{``, HubWeights{ByDType: map[string]int64{"F8_E5M2": 9, "F32": 1}}, QuantFP8},
	}
	for _, tt := range tests {
		got, why := releasedBySplit([]byte(tt.config), tt.w)
		if got != tt.want || (got != "") != (why != "") {
			t.Errorf("releasedBySplit(%s, %v) = %q (%q), want %q", tt.config, tt.w.ByDType, got, why, tt.want)
		}
	}
}
