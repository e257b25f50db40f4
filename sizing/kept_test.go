package sizing

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// meta405BFP8Config is the quantization_config of
// meta-llama/Llama-3.1-405B-Instruct-FP8 as its shape is published
// (fbgemm_fp8; modules_to_not_convert lists every layer's self_attn
// projections, layers 0 and 125 whole, and lm_head), written out here
// at 4 layers instead of 126.
func meta405BFP8Config(layers int) string {
	var mods []string
	for i := range layers {
		for _, p := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			mods = append(mods, fmt.Sprintf("model.layers.%d.self_attn.%s", i, p))
		}
		if i == 0 || i == layers-1 {
			for _, p := range []string{"gate_proj", "up_proj", "down_proj"} {
				mods = append(mods, fmt.Sprintf("model.layers.%d.mlp.%s", i, p))
			}
		}
	}
	mods = append(mods, "lm_head")
	b, _ := json.Marshal(map[string]any{"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0, "modules_to_not_convert": mods})
	return string(b)
}

// TestKeptModulesFromConfig reads which block linears a quantised
// release keeps in 16-bit, and sizes those parts at 2 bytes.
func TestKeptModulesFromConfig(t *testing.T) {
	base := `"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128`
	for _, tt := range []struct {
		quant string
		want  Quant
		roles string
		whole int
	}{
		{meta405BFP8Config(4), QuantFP8, "attention", 2},
		{`{"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": ["lm_head", "model.embed_tokens"]}`, QuantFP8, "", 0},
		{`{"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}`, QuantMXFP4, "", 0}, // MXFP4 quantises only routed experts anyway
		{`{"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float"}, "targets": ["Linear"]}}, "ignore": ["lm_head", "re:.*self_attn.*"]}`, QuantFP8, "attention", 0},
		{`{"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}}, "ignore": ["lm_head"]}`, QuantGPTQ, "", 0},
		{`{"quant_method": "modelopt", "quant_algo": "FP8", "exclude_modules": ["lm_head", "model.layers.3.mlp"]}`, QuantFP8, "", 1},
	} {
		m, err := ModelFromConfig([]byte(`{`+base+`, "quantization_config": `+tt.quant+`}`), "x")
		if err != nil {
			t.Fatalf("%s: %v", tt.quant, err)
		}
		if m.ReleasedFormat != tt.want {
			t.Errorf("%.60s: format %q, want %q", tt.quant, m.ReleasedFormat, tt.want)
		}
		var roles string
		var whole int
		if m.Kept16 != nil {
			roles, whole = strings.Join(m.Kept16.Roles, ","), m.Kept16.WholeLayers
			if !strings.Contains(m.Assumption(), "16-bit") {
				t.Errorf("%.60s: assumption %q does not say what stays 16-bit", tt.quant, m.Assumption())
			}
		}
		if roles != tt.roles || whole != tt.whole {
			t.Errorf("%.60s: kept roles %q, %d whole layers; want %q, %d", tt.quant, roles, whole, tt.roles, tt.whole)
		}
	}
}

// TestKeptModulesBytes: the kept parts cost 2 B, the rest the format's
// bytes, and only in the format the release describes.
func TestKeptModulesBytes(t *testing.T) {
	m := modelOf(t, "llama-3.1-405b")
	s := shapeOf(m)
	var attn, mlp int64
	for _, l := range m.LinearShapes() {
		switch l.Role {
		case "attention":
			attn += l.Params()
		case "mlp":
			mlp += l.Params()
		}
	}
	fp8 := 1 + 4.0/(128*128)
	want := float64(s.total-s.linear)*2 + float64(attn)*2 + float64(mlp)*(fp8*124/126+2*2.0/126)
	if got := modelWeightBytes(&s, QuantFP8, PrecisionFP8); !withinRel(got, want, 1e-9) {
		t.Errorf("405B as Meta's FP8 release: %.2f GiB, want %.2f", got/gib, want/gib)
	}
	all := s
	all.keptLinear = 0
	if got, bf := modelWeightBytes(&s, QuantNone, PrecisionBF16), modelWeightBytes(&all, QuantNone, PrecisionBF16); got != bf {
		t.Errorf("bf16 changes with the FP8 release's kept modules: %.2f vs %.2f GiB", got/gib, bf/gib)
	}
	if got, awq := modelWeightBytes(&s, QuantAWQ, PrecisionBF16), modelWeightBytes(&all, QuantAWQ, PrecisionBF16); got != awq {
		t.Errorf("AWQ changes with the FP8 release's kept modules: %.2f vs %.2f GiB", got/gib, awq/gib)
	}
}

// FuzzKeptModules: any list of module names gives a result or nil,
// never a panic, and never more kept than the model's dense linears.
func FuzzKeptModules(f *testing.F) {
	f.Add("model.layers.0.self_attn.q_proj,model.layers.*.mlp,lm_head")
	f.Add("re:.*self_attn.*,model.layers.99999999999999999999.mlp")
	m := modelOf(f, "llama-3.1-8b")
	s := shapeOf(m)
	f.Fuzz(func(t *testing.T, list string) {
		k := keptModules(QuantFP8, strings.Split(list, ","))
		if k == nil {
			return
		}
		if n := keptLinearParams(m, k); n < 0 || n > s.linear-s.expertLinear {
			t.Errorf("%q: %d kept of %d dense linear parameters", list, n, s.linear-s.expertLinear)
		}
	})
}
