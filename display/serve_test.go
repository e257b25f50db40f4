package display

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestOneRequestIsSingular: a card that holds one request at a time, a
// replica serving one user and one asked user read in the singular,
// never "1 requests".
func TestOneRequestIsSingular(t *testing.T) {
	sv := sizing.Serving{Fits: true, Engine: "vllm", GPUMemoryUtilization: 0.9, KVCacheTokens: 226528, MaxConcurrency: 1, Concurrency: 1,
		PromptTokens: 131000, OutputTokens: 72, TTFTSeconds: 30.9, TokensPerSecondPerUser: 23.3}
	got := ServingLine(&sv)
	if !strings.Contains(got, "1 request of 131,072 tokens at once") {
		t.Errorf("ServingLine = %q, want \"1 request of 131,072 tokens at once\"", got)
	}
	opt := optionWords(sizing.ServeOption{Serving: sv, GPUName: "H100 SXM 80 GB"})
	if !strings.Contains(opt, "1 user each") {
		t.Errorf("optionWords = %q, want \"1 user each\"", opt)
	}
	if got := loadWords(&sizing.ServeResult{Users: 1}); got != "1 user" {
		t.Errorf("loadWords = %q, want \"1 user\"", got)
	}
	for _, n := range []int{0, 2, 17} {
		if got := Counted(n, "request", "requests"); !strings.HasSuffix(got, " requests") {
			t.Errorf("Counted(%d) = %q, want the plural", n, got)
		}
	}
}
