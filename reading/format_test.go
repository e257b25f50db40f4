package reading

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestFormat checks the canonical command for Queries built by hand, and
// that each parses back to the same Query.
func TestFormat(t *testing.T) {
	tests := []struct {
		q    sizing.Query
		want string
	}{
		{sizing.Query{}, ""},
		{sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodQLoRA, GPU: "a100-80", GPUs: 2, SeqLen: 4096}, "llama-3.1-70b qlora 2xa100-80 seq 4096"},
		{sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}, "13b lora rtx-4090"},
		{sizing.Query{Params: 1.5e9}, "1.5b"},
		{sizing.Query{Params: 6738415616}, "6.738415616b"},
		{sizing.Query{Params: 350e6, Tokens: 2e9}, "350m 2b tokens"},
		{sizing.Query{Params: 7e9, Experts: 8}, "8x7b"},
		{sizing.Query{Params: 2e12}, "2t"},
		{sizing.Query{GPUs: 8}, "8 gpus"},
		{sizing.Query{GPU: "h100", GPUs: 16, Nodes: 2}, "16xh100 2 nodes"},
		{sizing.Query{GPU: "h100", GPUs: 8, Nodes: 1}, "8xh100 1 node"},
		// A count after an id with no size in it is a count, not a version
		// (FuzzParse found "deepseek-v3 1 node" read back as DeepSeek-V3.1).
		{sizing.Query{Model: "deepseek-v3", Nodes: 1}, "deepseek-v3 1 node"},
		{sizing.Query{Model: "deepseek-v3", Nodes: 2}, "deepseek-v3 2 nodes"},
		// A GPU count after the optimizer is a count: "adamw 8" is not 8-bit
		// AdamW (FuzzParse: "adamw 8 gpus" read back as adamw-8bit).
		{sizing.Query{Optimizer: sizing.OptimizerAdamW, GPUs: 8}, "adamw 8 gpus"},
		{sizing.Query{Model: "qwen2.5-7b", Method: sizing.MethodFull, Optimizer: sizing.OptimizerAdamW8bit, Precision: sizing.PrecisionBF16,
			ZeROStage: new(0), Offload: sizing.OffloadNone, GradCheckpointing: new(false), MicroBatch: 4, LoRARank: 8},
			"qwen2.5-7b full adamw-8bit bf16 zero0 no-offload no-ckpt batch 4 rank 8"},
		{sizing.Query{Optimizer: sizing.OptimizerSGDMomentum, ZeROStage: new(3), Offload: sizing.OffloadNVMe, GradCheckpointing: new(true)},
			"sgd-momentum zero3 offload-nvme ckpt"},
		{sizing.Query{Method: sizing.MethodInference, Quant: sizing.QuantQ4_KM, KVPrecision: sizing.PrecisionINT8}, "inference q4_k_m kv-int8"},
		{sizing.Query{Quant: sizing.QuantNF4DQ, KVPrecision: sizing.PrecisionFP8}, "nf4-dq kv-fp8"},
	}
	for _, tt := range tests {
		got := sizing.Format(tt.q)
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
	var qs []sizing.Query
	for _, m := range sizing.Models() {
		qs = append(qs, sizing.Query{Model: m.ID, Method: sizing.MethodInference})
	}
	for _, g := range sizing.GPUs() {
		qs = append(qs, sizing.Query{GPU: g.ID}, sizing.Query{GPU: g.ID, GPUs: 4})
	}
	for _, qt := range []sizing.Quant{sizing.QuantINT8, sizing.QuantNF4, sizing.QuantNF4DQ, sizing.QuantGPTQ, sizing.QuantAWQ, sizing.QuantQ8_0, sizing.QuantQ6_K, sizing.QuantQ5_KM, sizing.QuantQ4_KM, sizing.QuantQ4_0, sizing.QuantQ3_KM, sizing.QuantQ2_K} {
		qs = append(qs, sizing.Query{Quant: qt})
	}
	for _, p := range []sizing.Precision{sizing.PrecisionFP32, sizing.PrecisionBF16, sizing.PrecisionFP16, sizing.PrecisionFP8} {
		qs = append(qs, sizing.Query{Precision: p})
	}
	for _, p := range []sizing.Precision{sizing.PrecisionFP32, sizing.PrecisionBF16, sizing.PrecisionFP16, sizing.PrecisionFP8, sizing.PrecisionINT8, sizing.PrecisionINT4} {
		qs = append(qs, sizing.Query{KVPrecision: p})
	}
	for _, o := range []sizing.Optimizer{sizing.OptimizerAdamW, sizing.OptimizerAdamW8bit, sizing.OptimizerSGD, sizing.OptimizerSGDMomentum, sizing.OptimizerAdafactor} {
		qs = append(qs, sizing.Query{Optimizer: o})
	}
	for _, m := range []sizing.Method{sizing.MethodFull, sizing.MethodLoRA, sizing.MethodQLoRA, sizing.MethodInference} {
		qs = append(qs, sizing.Query{Method: m})
	}
	for _, q := range qs {
		s := sizing.Format(q)
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
