package sizing

import (
	"strings"
	"testing"
)

// TestSpotAsked: "spot" (or "preemptible") in a question sets the
// request's spot, survives Format, and costs the answer at the spot
// price when one is known, at the on-demand price with a warning when not.
func TestSpotAsked(t *testing.T) {
	prices := marketPrices{
		onDemand: map[string]float64{"h100": 2.50, "a100-80": 1.80},
		spot:     map[string]float64{"h100": 1.20},
	}
	for _, tt := range []struct {
		words  string
		spot   bool
		usd    float64
		market string
		warn   string
	}{
		{"llama 3.1 8b full on 8 h100 spot", true, 1.20, "spot", ""},
		{"llama 3.1 8b lora on a preemptible h100", true, 1.20, "spot", ""},
		{"llama 3.1 8b full on 8 a100 80gb on spot instances", true, 1.80, "on_demand", "no spot price is known for the A100 SXM 80 GB: the cost is at the on-demand price"},
		{"llama 3.1 8b full on 8 h100", false, 2.50, "on_demand", ""},
	} {
		p, err := Parse(tt.words)
		if err != nil {
			t.Fatalf("%q: %v", tt.words, err)
		}
		if p.Query.Spot != tt.spot {
			t.Errorf("%q: spot %v, want %v", tt.words, p.Query.Spot, tt.spot)
		}
		again, err := Parse(Format(p.Query))
		if err != nil || again.Query.Spot != tt.spot {
			t.Errorf("%q: Format %q parses to spot %v (%v)", tt.words, Format(p.Query), again.Query.Spot, err)
		}
		a, err := (&Estimator{Prices: prices}).Answer(p.Query)
		if err != nil {
			t.Fatalf("%q: %v", tt.words, err)
		}
		if a.Request.Spot != tt.spot || a.Price == nil || a.Price.USDPerGPUHour != tt.usd || a.Price.Market != tt.market {
			t.Errorf("%q: request spot %v, price %+v; want %v at $%.2f %s", tt.words, a.Request.Spot, a.Price, tt.spot, tt.usd, tt.market)
		}
		warned := strings.Contains(strings.Join(a.Warnings, "\n"), "no spot price")
		if warned != (tt.warn != "") || tt.warn != "" && !strings.Contains(strings.Join(a.Warnings, "\n"), tt.warn) {
			t.Errorf("%q: warnings %q, want %q", tt.words, a.Warnings, tt.warn)
		}
	}
}
