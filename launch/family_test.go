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
