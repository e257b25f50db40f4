package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// saved answers question with prices and keeps its summary, the way a
// plan is saved.
func saved(t *testing.T, question string, prices sheet) Summary {
	t.Helper()
	parsed, err := reading.Parse(question)
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{Prices: prices}).Answer(parsed.Query)
	if err != nil {
		t.Fatal(err)
	}
	return FromAnswer(question, parsed.Query, a)
}

// TestReanswer: one rule for what changed, whatever re-answers the plan.
func TestReanswer(t *testing.T) {
	const q = "mistral 7b lora a100-80gb"
	base := saved(t, q, sheet{"a100-80": 1.19})
	for _, tc := range []struct {
		name    string
		then    func(Summary) Summary
		prices  sheet
		want    Changed
		problem string
		pct     *float64
	}{
		{name: "nothing changed", prices: sheet{"a100-80": 1.19}, pct: new(0.0)},
		{name: "price up", prices: sheet{"a100-80": 1.50}, want: Changed{Price: true}, pct: new(100 * (1.50 - 1.19) / 1.19)},
		{name: "under half a cent is no change", prices: sheet{"a100-80": 1.194}, pct: new(100 * (1.194 - 1.19) / 1.19)},
		{name: "price gone", prices: sheet{}, want: Changed{Price: true}},
		{name: "price appeared", then: func(s Summary) Summary { s.USDPerHour = nil; return s },
			prices: sheet{"a100-80": 1.19}, want: Changed{Price: true}},
		{name: "verdict and memory", then: func(s Summary) Summary { s.Fits, s.PerGPUBytes = false, 2*s.PerGPUBytes; return s },
			prices: sheet{"a100-80": 1.19}, want: Changed{Verdict: true, Memory: true}, pct: new(0.0)},
		{name: "headroom is part of the verdict", then: func(s Summary) Summary { s.Headroom = string(sizing.HeadroomTight); return s },
			prices: sheet{"a100-80": 1.19}, want: Changed{Verdict: true}, pct: new(0.0)},
		{name: "hardware", then: func(s Summary) Summary { s.GPUs = 2; return s },
			prices: sheet{"a100-80": 1.19}, want: Changed{Hardware: true}, pct: new(0.0)},
		{name: "no canonical text falls back to the question", then: func(s Summary) Summary { s.Canonical = ""; return s },
			prices: sheet{"a100-80": 1.19}, pct: new(0.0)},
		{name: "config plans are not kept", then: func(s Summary) Summary { s.ModelKey = "config:my-model"; return s },
			problem: "config.json"},
		{name: "unanswerable", then: func(s Summary) Summary { s.Canonical = "lora on a toaster"; return s },
			problem: "today's catalog cannot answer \"lora on a toaster\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			then := base
			if tc.then != nil {
				then = tc.then(then)
			}
			d := Reanswer(then, nil, &sizing.Estimator{Prices: tc.prices}, nil)
			if tc.problem != "" {
				if d.Now != nil || !strings.Contains(d.Problem, tc.problem) {
					t.Fatalf("Reanswer = now %v, problem %q; want no answer and a problem mentioning %q", d.Now != nil, d.Problem, tc.problem)
				}
				return
			}
			if d.Now == nil {
				t.Fatalf("Reanswer: %s", d.Problem)
			}
			if d.Changed != tc.want || d.Changed.Any() != (tc.want != Changed{}) {
				t.Errorf("Changed = %+v, want %+v", d.Changed, tc.want)
			}
			got := d.PriceChangePct()
			if (got == nil) != (tc.pct == nil) || got != nil && abs(*got-*tc.pct) > 1e-9 {
				t.Errorf("PriceChangePct = %v, want %v", deref(got), deref(tc.pct))
			}
		})
	}
}

// TestReanswerCheaperFit: the cheaper fit is below the price then and
// passes the caller's filter.
func TestReanswerCheaperFit(t *testing.T) {
	then := saved(t, "mistral 7b lora a100-80gb", sheet{"a100-80": 3.00})
	prices := sheet{"a100-80": 3.00, "l40s": 0.80, "rtx-a6000": 0.70}
	d := Reanswer(then, nil, &sizing.Estimator{Prices: prices}, nil)
	if d.CheaperFit == nil || d.CheaperFit.GPU != "rtx-a6000" {
		t.Fatalf("CheaperFit = %+v, want the rtx-a6000", d.CheaperFit)
	}
	d = Reanswer(then, nil, &sizing.Estimator{Prices: prices}, func(a sizing.Alternative) bool { return a.GPU != "rtx-a6000" })
	if d.CheaperFit == nil || d.CheaperFit.GPU == "rtx-a6000" {
		t.Fatalf("CheaperFit = %+v, want one the filter keeps", d.CheaperFit)
	}
}

// TestReanswerUsesTheGivenParser: Slack's configured parser, not sizing's,
// reads the plan, and its error comes back as the cause.
func TestReanswerUsesTheGivenParser(t *testing.T) {
	then := saved(t, "mistral 7b lora a100-80gb", sheet{"a100-80": 1.19})
	boom := errors.New("parser down")
	d := Reanswer(then, func(string) (reading.Request, error) { return reading.Request{}, boom }, &sizing.Estimator{}, nil)
	if !errors.Is(d.Err, boom) || d.Now != nil {
		t.Fatalf("Reanswer = %+v, want the parser's error", d)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
