package launch

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestFamilyLaunch: kinds with no config for a model family say so by
// name instead of emitting a decoder's command line.
func TestFamilyLaunch(t *testing.T) {
	tests := []struct {
		kind Kind
		arch string
		want string
	}{
		{KindAccelerate, sizing.ArchDiffusion, "diffusion"},
		{KindDeepSpeed, sizing.ArchDiffusion, "diffusion"},
		{KindVLLM, sizing.ArchEncoder, "pooling runner"},
		{KindLlamaCpp, sizing.ArchEncoderDecoder, "encoder-decoder"},
		{KindSGLang, sizing.ArchEncoder, "--is-embedding"},
		{KindSGLang, sizing.ArchEncoderDecoder, "encoder-decoder"},
	}
	for _, tt := range tests {
		_, err := Emit(tt.kind, Plan{Request: sizing.Request{Architecture: tt.arch, Method: sizing.MethodInference}, HubID: "org/model"})
		var u *Unsupported
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Emit(%s, %s) = %v, want an Unsupported naming %q", tt.kind, tt.arch, err, tt.want)
		}
	}
}

// TestFamilyTryEmits: a refusal's Try names a kind that emits the same
// plan, or none. An encoder's serving answer refused by DeepSpeed or
// Megatron said "try --emit vllm", which refuses encoders too; a
// Whisper fine-tune refused by SGLang said "try --emit vllm", which
// refuses training.
func TestFamilyTryEmits(t *testing.T) {
	tests := []struct {
		kind    Kind
		arch    string
		method  sizing.Method
		wantTry Kind
	}{
		{KindDeepSpeed, sizing.ArchEncoder, sizing.MethodInference, ""},
		{KindMegatron, sizing.ArchEncoder, sizing.MethodInference, ""},
		{KindSGLang, sizing.ArchEncoderDecoder, sizing.MethodFull, KindDeepSpeed},
		{KindSGLang, sizing.ArchEncoderDecoder, sizing.MethodInference, KindVLLM},
	}
	for _, tt := range tests {
		r := sizing.Request{Model: "org/model", Architecture: tt.arch, Method: tt.method, GPU: "h100", GPUs: 1, Precision: sizing.PrecisionBF16, Optimizer: sizing.OptimizerAdamW, MicroBatch: 1, SeqLen: 448}
		_, err := Emit(tt.kind, Plan{Request: r, HubID: "org/model", VRAMBytes: 80 << 30})
		var u *Unsupported
		if !errors.As(err, &u) {
			t.Fatalf("Emit(%s, %s %s) = %v, want an Unsupported", tt.kind, tt.arch, tt.method, err)
		}
		if u.Try != tt.wantTry {
			t.Errorf("Emit(%s, %s %s).Try = %q, want %q", tt.kind, tt.arch, tt.method, u.Try, tt.wantTry)
		}
		if u.Try != "" {
			if _, err := Emit(u.Try, Plan{Request: r, HubID: "org/model", VRAMBytes: 80 << 30}); err != nil {
				t.Errorf("the Try %s of Emit(%s, %s %s) refuses too: %v", u.Try, tt.kind, tt.arch, tt.method, err)
			}
		}
	}
}
