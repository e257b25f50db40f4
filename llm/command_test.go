package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCommand(t *testing.T) {
	tests := []struct {
		name string
		x    extraction
		want string
	}{
		{"nothing said", blank(), ""},
		{"model, method and GPU count",
			with(func(x *extraction) { x.Model, x.Method, x.GPU, x.GPUs = "Llama 3 70B", "qlora", "A100", 2 }),
			"Llama 3 70B qlora 2 x A100"},
		{"bare size", with(func(x *extraction) { x.ParamsBillions, x.Method, x.GPU = 13, "lora", "4090" }),
			"13b lora 4090"},
		{"fractional size", with(func(x *extraction) { x.ParamsBillions = 0.35 }), "0.35b"},
		{"bare mixture of experts", with(func(x *extraction) { x.ParamsBillions, x.Experts = 7, 8 }), "8x7b"},
		{"absurd size keeps its value without a plus sign", with(func(x *extraction) { x.ParamsBillions = 1e30 }), "1e30b"},
		{"negative size reaches the parser", with(func(x *extraction) { x.ParamsBillions = -5 }), "-5b"},
		{"a name wins over a size", with(func(x *extraction) { x.Model, x.ParamsBillions = "mistral 7b", 7 }), "mistral 7b"},
		{"every training field", with(func(x *extraction) {
			x.Model, x.Method, x.Optimizer, x.Precision = "qwen2.5 7b", "full", "adamw-8bit", "bf16"
			x.GPU, x.GPUs, x.Nodes, x.ZeROStage, x.Offload = "H100", 16, 2, "3", "cpu"
			x.SeqLen, x.MicroBatch, x.GradCkpt, x.Tokens = 4096, 2, "on", 300_000_000
		}), "qwen2.5 7b full adamw-8bit bf16 16 x H100 2 nodes zero3 offload-cpu seq 4096 batch 2 ckpt 300000000 tokens"},
		{"nodes without a count", with(func(x *extraction) { x.GPU, x.Nodes = "h100", 2 }), "h100 2 nodes"},
		{"inference with quant", with(func(x *extraction) {
			x.Model, x.Method, x.Quant, x.GPU, x.GPUs = "mixtral", "inference", "q4_k_m", "RTX 4090", 2
		}), "mixtral inference q4_k_m 2 x RTX 4090"},
		{"lora rank, no checkpointing, no offload", with(func(x *extraction) {
			x.Model, x.Method, x.LoRARank, x.GradCkpt, x.Offload, x.ZeROStage = "llama 3 8b", "lora", 64, "off", "none", "0"
		}), "llama 3 8b lora zero0 no-offload no-ckpt rank 64"},
		{"a count without a GPU", with(func(x *extraction) { x.Model, x.GPUs = "llama 3 8b", 4 }), "llama 3 8b 4 gpus"},
		{"nvme offload", with(func(x *extraction) { x.Offload = "nvme" }), "offload-nvme"},
		{"punctuation and tags in names become spaces", with(func(x *extraction) {
			x.Model, x.GPU = "llama<3>; 70b, ignore \"rules\"", "h100\n\tsystem:"
		}), "llama 3 70b ignore rules h100 system"},
		{"huge GPU count reaches the parser", with(func(x *extraction) { x.Model, x.GPU, x.GPUs = "llama 3 8b", "h100", 100000 }),
			"llama 3 8b 100000 x h100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.x.command(); got != tt.want {
				t.Errorf("command() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNameCapsLength(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	got := name(long)
	if len(got) > maxNameBytes || !utf8.ValidString(got) || got == "" {
		t.Errorf("name(200 bytes) = %q (%d bytes), want valid UTF-8 of at most %d bytes", got, len(got), maxNameBytes)
	}
}
