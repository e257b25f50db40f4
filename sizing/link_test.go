package sizing

import (
	"strings"
	"testing"
)

// TestLinkAsked: "do we need nvlink" is answered with the card's link
// and what the speed counts over it (left "nvlink" unused
// and answered only whether it fits).
func TestLinkAsked(t *testing.T) {
	var e Estimator
	for _, c := range []struct{ q, want string }{
		{"do we need nvlink for llama 3 70b serving on 4 l40s", "L40S 48 GB has no NVLink"},
		{"do we need nvlink for llama 3 70b serving on 4 l40s", "NVLink is not needed to serve this"},
		{"nvlink needed for llama 3 8b lora on 2 rtx 3090s", "takes a 2-card NVLink bridge"},
		{"llama 3 70b on 8 h100 nvlink?", "H100 SXM 80 GB has NVLink"},
		{"llama 3 8b on one h100, do we need nvlink", "on one card no link is used"},
		// InfiniBand across machines is read, never left unused.
		{"do we need infiniband for full finetuning 70b on 16 h100 across 2 nodes", "InfiniBand is not needed"},
		{"do we need infiniband for llama 3 8b full finetune on 2 nodes of 8 h100 zero 3", "InfiniBand or RoCE (200-400 Gb/s per GPU) is what keeps the speed"},
	} {
		p, err := Parse(c.q)
		if err != nil || !p.Query.LinkAsked {
			t.Fatalf("Parse(%q): link asked %v, %v", c.q, p.Query.LinkAsked, err)
		}
		if back, err := Parse(Format(p.Query)); err != nil || !back.Query.LinkAsked {
			t.Errorf("%q: %q does not read back the link asked (%v)", c.q, Format(p.Query), err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("Answer(%q): %v", c.q, err)
		}
		if len(a.Warnings) == 0 || !strings.Contains(a.Warnings[0], c.want) {
			t.Errorf("%q: first warning %q, want it to say %q", c.q, a.Warnings, c.want)
		}
	}
}
