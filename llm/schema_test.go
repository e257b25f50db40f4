package llm

import "testing"

// TestDecodeUnwraps checks the wrappings local models put around JSON
// when a server ignores response_format, and that nothing else passes.
func TestDecodeUnwraps(t *testing.T) {
	schema, err := newSchema()
	if err != nil {
		t.Fatal(err)
	}
	const obj = `{"understood":true,"question_back":"","model":"llama 3 8b","params_billions":0,"experts":0,"method":"lora","optimizer":"unspecified","precision":"unspecified","quant":"unspecified","gpu":"","gpus":0,"nodes":0,"zero_stage":"unspecified","offload":"unspecified","seq_len":0,"micro_batch":0,"grad_checkpointing":"unspecified","lora_rank":0,"tokens":0}`
	tests := []struct {
		name    string
		content string
		ok      bool
	}{
		{"bare", obj, true},
		{"surrounding space", "\n  " + obj + "\n", true},
		{"markdown fence", "```json\n" + obj + "\n```", true},
		{"plain fence", "```\n" + obj + "\n```", true},
		{"think block", "<think>The user wants LoRA.</think>\n" + obj, true},
		{"think block opened by the prompt", "The user wants LoRA.\n</think>\n\n" + obj, true},
		{"think block then a fence", "<think>\nok\n</think>\n```json\n" + obj + "\n```", true},
		{"unclosed think block", "<think>The user wants " + obj, false},
		{"prose before", "Here is the JSON: " + obj, false},
		{"enum outside the list", `{"understood":true,"method":"dpo"}`, false},
		{"wrong type", `{"understood":"yes"}`, false},
		{"array", "[" + obj + "]", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := decode(schema, tt.content)
			if (err == nil) != tt.ok {
				t.Fatalf("decode error = %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && (x.Model != "llama 3 8b" || x.Method != "lora") {
				t.Errorf("decoded %+v, want llama 3 8b lora", x)
			}
		})
	}
	bad := `{"understood":true,"question_back":"","model":"x","params_billions":0,"experts":0,"method":"dpo","optimizer":"unspecified","precision":"unspecified","quant":"unspecified","gpu":"","gpus":0,"nodes":0,"zero_stage":"unspecified","offload":"unspecified","seq_len":0,"micro_batch":0,"grad_checkpointing":"unspecified","lora_rank":0,"tokens":0}`
	if _, err := decode(schema, bad); err == nil {
		t.Error("decode accepted a method outside the enum")
	}
}
