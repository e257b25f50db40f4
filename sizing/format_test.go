package sizing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormat checks the canonical command for Queries built by hand, and
// that each parses back to the same Query.
func TestFormat(t *testing.T) {
	tests := []struct {
		q    Query
		want string
	}{
		{Query{}, ""},
		{Query{Model: "llama-3.1-70b", Method: MethodQLoRA, GPU: "a100-80", GPUs: 2, SeqLen: 4096}, "llama-3.1-70b qlora 2xa100-80 seq 4096"},
		{Query{Params: 13e9, Method: MethodLoRA, GPU: "rtx-4090"}, "13b lora rtx-4090"},
		{Query{Params: 1.5e9}, "1.5b"},
		{Query{Params: 6738415616}, "6.738415616b"},
		{Query{Params: 350e6, Tokens: 2e9}, "350m 2b tokens"},
		{Query{Params: 7e9, Experts: 8}, "8x7b"},
		{Query{Params: 2e12}, "2t"},
		{Query{GPUs: 8}, "8 gpus"},
		{Query{GPU: "h100", GPUs: 16, Nodes: 2}, "16xh100 2 nodes"},
		{Query{GPU: "h100", GPUs: 8, Nodes: 1}, "8xh100 1 node"},
		// A count after an id with no size in it is a count, not a version
		// (FuzzParse found "deepseek-v3 1 node" read back as DeepSeek-V3.1).
		{Query{Model: "deepseek-v3", Nodes: 1}, "deepseek-v3 1 node"},
		{Query{Model: "deepseek-v3", Nodes: 2}, "deepseek-v3 2 nodes"},
		// A GPU count after the optimizer is a count: "adamw 8" is not 8-bit
		// AdamW (FuzzParse: "adamw 8 gpus" read back as adamw-8bit).
		{Query{Optimizer: OptimizerAdamW, GPUs: 8}, "adamw 8 gpus"},
		{Query{Model: "qwen2.5-7b", Method: MethodFull, Optimizer: OptimizerAdamW8bit, Precision: PrecisionBF16,
			ZeROStage: new(0), Offload: OffloadNone, GradCheckpointing: new(false), MicroBatch: 4, LoRARank: 8},
			"qwen2.5-7b full adamw-8bit bf16 zero0 no-offload no-ckpt batch 4 rank 8"},
		{Query{Optimizer: OptimizerSGDMomentum, ZeROStage: new(3), Offload: OffloadNVMe, GradCheckpointing: new(true)},
			"sgd-momentum zero3 offload-nvme ckpt"},
		{Query{Method: MethodInference, Quant: QuantQ4_KM, KVPrecision: PrecisionINT8}, "inference q4_k_m kv-int8"},
		{Query{Quant: QuantNF4DQ, KVPrecision: PrecisionFP8}, "nf4-dq kv-fp8"},
	}
	for _, tt := range tests {
		got := Format(tt.q)
		if got != tt.want {
			t.Errorf("Format(%+v) = %q, want %q", tt.q, got, tt.want)
		}
		if tt.want == "" {
			continue
		}
		p, err := Parse(got)
		if err != nil {
			t.Errorf("Parse(%q): %v", got, err)
			continue
		}
		if d := cmp.Diff(tt.q, p.Query); d != "" {
			t.Errorf("Parse(Format(q)) (-q +parsed):\n%s", d)
		}
	}
}

// TestFormatEveryName checks that every catalog id, quant, precision and
// optimizer survives Format and Parse.
func TestFormatEveryName(t *testing.T) {
	var qs []Query
	for _, m := range Models() {
		qs = append(qs, Query{Model: m.ID, Method: MethodInference})
	}
	for _, g := range GPUs() {
		qs = append(qs, Query{GPU: g.ID}, Query{GPU: g.ID, GPUs: 4})
	}
	for _, qt := range []Quant{QuantINT8, QuantNF4, QuantNF4DQ, QuantGPTQ, QuantAWQ, QuantQ8_0, QuantQ6_K, QuantQ5_KM, QuantQ4_KM, QuantQ4_0, QuantQ3_KM, QuantQ2_K} {
		qs = append(qs, Query{Quant: qt})
	}
	for _, p := range []Precision{PrecisionFP32, PrecisionBF16, PrecisionFP16, PrecisionFP8} {
		qs = append(qs, Query{Precision: p})
	}
	for _, p := range []Precision{PrecisionFP32, PrecisionBF16, PrecisionFP16, PrecisionFP8, PrecisionINT8, PrecisionINT4} {
		qs = append(qs, Query{KVPrecision: p})
	}
	for _, o := range []Optimizer{OptimizerAdamW, OptimizerAdamW8bit, OptimizerSGD, OptimizerSGDMomentum, OptimizerAdafactor} {
		qs = append(qs, Query{Optimizer: o})
	}
	for _, m := range []Method{MethodFull, MethodLoRA, MethodQLoRA, MethodInference} {
		qs = append(qs, Query{Method: m})
	}
	for _, q := range qs {
		s := Format(q)
		p, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if d := cmp.Diff(q, p.Query); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", s, d)
		}
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{999, "999"},
		{1e6, "1m"},
		{1_000_001, "1.000001m"},
		{125e6, "125m"},
		{1.3e9, "1.3b"},
		{70_553_706_496, "70.553706496b"},
		{1e15, "1000t"},
	}
	for _, tt := range tests {
		if got := formatCount(tt.n); got != tt.want {
			t.Errorf("formatCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
