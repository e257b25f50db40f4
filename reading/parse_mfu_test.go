package reading

import (
	"math"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestParseMFU reads an MFU said for the speed ("at 40% mfu") and a
// speed measured with its MFU asked, and checks
// that each canonical form reads back the same.
func TestParseMFU(t *testing.T) {
	for _, c := range []struct {
		in   string
		want sizing.Query
	}{
		{"pretrain a 1.3b model on 100B tokens on 64 h100s at 40% mfu, how many days?",
			sizing.Query{Params: 1.3e9, Method: sizing.MethodFull, GPU: "h100", GPUs: 64, Tokens: 100e9, MFU: 0.4, FromScratch: true}},
		{"7b full h100 40 % mfu", sizing.Query{Params: 7e9, Method: sizing.MethodFull, GPU: "h100", MFU: 0.4}},
		{"7b full h100 mfu 35%", sizing.Query{Params: 7e9, Method: sizing.MethodFull, GPU: "h100", MFU: 0.35}},
		{"7b full h100 mfu of 0.5", sizing.Query{Params: 7e9, Method: sizing.MethodFull, GPU: "h100", MFU: 0.5}},
		{"7b full h100 at 45 percent mfu", sizing.Query{Params: 7e9, Method: sizing.MethodFull, GPU: "h100", MFU: 0.45}},
		// A measured speed per GPU on a card with no count: the fewest that fit.
		{"whats the mfu if I get 3500 tok/s per gpu training llama 8b on h100",
			sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "h100", Fewest: true, MeasuredTokensPerSecond: 3500}},
		{"llama 8b full on 8x h100 we see 28k tokens/s, what mfu is that",
			sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "h100", GPUs: 8, MeasuredTokensPerSecond: 3500}},
		{"mfu for 3.5k tokens per second per h100 llama 8b full on 8 h100s",
			sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "h100", GPUs: 8, MeasuredTokensPerSecond: 3500}},
		// "mfu" with neither: the answer states its own; nothing else changes.
		{"what mfu does llama 8b full get on h100", sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "h100"}},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if d := cmp.Diff(c.want, p.Query); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", c.in, d)
			continue
		}
		back, err := Parse(sizing.Format(p.Query))
		if err != nil {
			t.Errorf("Parse(Format) %q: %v", sizing.Format(p.Query), err)
			continue
		}
		if d := cmp.Diff(p.Query, back.Query); d != "" {
			t.Errorf("%q does not read back (-first +again):\n%s", sizing.Format(p.Query), d)
		}
	}
	if _, err := Parse("7b full h100 mfu 400%"); err == nil {
		t.Errorf(`"mfu 400%%" parsed, want an error`)
	}
}

// TestAskedMFU: a training speed at the MFU the question said is that
// share of the cards' dense peak over the model FLOPs per token, and the
// answer says the MFU was the question's.
func TestAskedMFU(t *testing.T) {
	p, err := Parse("1.3b full 64xh100 100b tokens mfu 40%")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	tp := a.Throughput
	if tp.MFU == nil || math.Abs(*tp.MFU-0.4) > 1e-9 {
		t.Errorf("MFU = %v, want 0.4", tp.MFU)
	}
	want := 0.4 * 989e12 * 64 / *tp.FLOPsPerToken
	if tp.TokensPerSecond == nil || math.Abs(*tp.TokensPerSecond-want) > 1 {
		t.Errorf("tokens/s = %v, want %.0f", tp.TokensPerSecond, want)
	}
	if a.Request.MFU != 0.4 {
		t.Errorf("request mfu = %v, want 0.4", a.Request.MFU)
	}
	said := false
	for _, s := range a.Assumptions {
		said = said || strings.Contains(s, "40% MFU") && strings.Contains(s, "the MFU the question said")
	}
	if !said {
		t.Errorf("no assumption says the asked MFU: %q", a.Assumptions)
	}
}

// TestMeasuredMFU: 3,500 tokens/s per H100 training Llama 3.1 8B at 2k
// is 17.6% MFU (49.8 GFLOPs a token, causal attention counted, of 989
// TFLOPS dense BF16).
func TestMeasuredMFU(t *testing.T) {
	p, err := Parse("whats the mfu if I get 3500 tok/s per gpu training llama 8b on h100")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	m := a.Measured
	if m == nil {
		t.Fatal("no measured MFU")
	}
	if math.Abs(m.MFU-0.176) > 0.001 || math.Abs(m.FLOPsPerToken/1e9-49.8) > 0.05 || m.PeakFLOPS != 989e12 || m.Peak != "BF16" {
		t.Errorf("measured = %+v, want 17.6%% MFU at 49.8 GFLOPs of 989 TFLOPS BF16", *m)
	}
	if !a.Fits || a.Request.GPUs < 2 {
		t.Errorf("sized on %d GPUs (fits %v), want the fewest H100s that fit", a.Request.GPUs, a.Fits)
	}
}

// TestMeasuredSpeedStaysWithItsCard: a follow-up on another card does
// not carry the speed measured on the thread's card.
func TestMeasuredSpeedStaysWithItsCard(t *testing.T) {
	base, err := Parse("whats the mfu if I get 3500 tok/s per gpu training llama 8b on 8x h100")
	if err != nil {
		t.Fatal(err)
	}
	for reply, want := range map[string]float64{"and with 16 of them?": 3500, "what about on 8 a100s": 0} {
		p, ok := FollowUp(base, reply)
		if !ok || p.Query.MeasuredTokensPerSecond != want {
			t.Errorf("%q: ok %v, measured %v, want %v", reply, ok, p.Query.MeasuredTokensPerSecond, want)
		}
	}
}
