package reading

import (
	"slices"
	"testing"
)

// TestEmitAsked: a launch config asked in words is read as the kind of
// config, beside the question; a launch word alone asks for none.
func TestEmitAsked(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"give me a deepspeed config for llama 3.1 70b full finetune on 4 nodes of 8 h100", "deepspeed"},
		{"vllm command to serve qwen2.5 32b awq on 1 L40S?", "vllm"},
		{"config for deepspeed: llama 3.1 8b full on 8 a100", "deepspeed"},
		{"sglang launch command for llama 3.1 8b on 1 h100", "sglang"},
		{"llama 3.1 8b inference with vllm on 1 h100", ""},
		{"llama 3.1 70b full on 8 h100 with deepspeed zero 3", ""},
		{"13b lora 4090", ""},
	} {
		r, _ := Parse(c.text)
		if r.Emit != c.want {
			t.Errorf("Parse(%q).Emit = %q, want %q", c.text, r.Emit, c.want)
		}
	}
	if !slices.ContainsFunc(emitKinds, func(k emitKind) bool { return k.name == "llama.cpp" }) || len(emitKinds) != 7 {
		t.Errorf("emitKinds = %v, want the seven launch kinds", emitKinds)
	}
	if _, err := Validate(Request{Emit: "terraform"}); err == nil {
		t.Error("Validate accepted an unknown launch config")
	}
}
