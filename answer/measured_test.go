package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestMeasuredMFUFirst: a speed the asker measured, with "mfu" asked, is
// answered first under the verdict with the MFU it is,
// never dropped.
func TestMeasuredMFUFirst(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{}}}
	for text, want := range map[string]string{
		"whats the mfu if I get 3500 tok/s per gpu training llama 8b on h100 in a week": "3,500 tokens/s per GPU is 17.6% MFU on the H100 SXM 80 GB (49.8 GFLOPs a token, 989 TFLOPS dense BF16); fitbot's own estimate is",
		"llama 8b full on 8x h100 we see 28k tokens/s, what mfu is that":                "3,500 tokens/s per GPU is 17.6% MFU",
		"llama 8b full on an h100 we see 28k tokens/s, what mfu is that":                "more than the card's peak",
	} {
		f, err := s.Fit(context.Background(), s.Read(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(f.Answer.Targets) == 0 || !strings.Contains(f.Answer.Targets[0], want) {
			t.Errorf("%q: targets %q, want the first to contain %q", text, f.Answer.Targets, want)
		}
	}
}
