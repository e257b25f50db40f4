package sizing

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// cloudPrices is a ProviderPriceSource: on-demand prices per provider and
// GPU, the cheapest of any provider for PriceSource.
type cloudPrices map[string]map[string]float64

func (c cloudPrices) GPUHourPrice(gpu string) (Price, bool) {
	var best Price
	found := false
	for _, provider := range []string{"aws", "runpod", "vast"} {
		if p, ok := c.ProviderGPUHourPrice(gpu, provider, false); ok && (!found || p.USDPerGPUHour < best.USDPerGPUHour) {
			best, found = p, true
		}
	}
	return best, found
}

func (c cloudPrices) ProviderGPUHourPrice(gpu, provider string, spot bool) (Price, bool) {
	v, ok := c[provider][gpu]
	if !ok || spot {
		return Price{}, false
	}
	return Price{USDPerGPUHour: v, Provider: provider, Market: "on_demand", AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, true
}

// sheetClouds are the sheet's prices a question naming a cloud turns on:
// the consumer cards at the marketplaces, AWS's own cards at AWS.
var sheetClouds = cloudPrices{
	"vast":   {"rtx-3090": 0.25, "rtx-4090": 0.45},
	"runpod": {"rtx-3090": 0.22, "rtx-4090": 0.34, "h100": 2.69},
	"aws":    {"l4": 0.8048, "a10g": 1.006, "l40s": 1.861, "h100": 6.88},
}

// TestAnswerAtProvider: "whats the monthly cost to serve qwen3 32b 24/7
// on aws" was answered on 4× RTX 3090 at a marketplace
// with "aws" not used. Named, the provider prices the answer and its
// alternatives, among the cards it offers.
func TestAnswerAtProvider(t *testing.T) {
	p, err := Parse("whats the monthly cost to serve qwen3 32b 24/7 on aws")
	if err != nil {
		t.Fatal(err)
	}
	if p.Query.Provider != "aws" || slices.Contains(p.Ignored, "aws") {
		t.Fatalf("Provider = %q, ignored %q; want aws, used", p.Query.Provider, p.Ignored)
	}
	e := &Estimator{Prices: sheetClouds}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.GPU != "l4" || a.Price == nil || a.Price.Provider != "aws" {
		t.Errorf("answered on %d× %s at %+v, want 4× L4 at aws", a.Request.GPUs, a.Request.GPU, a.Price)
	}
	for _, alt := range a.Alternatives {
		if _, ok := sheetClouds["aws"][alt.GPU]; !ok || alt.USDPerHour == nil {
			t.Errorf("alternative %d× %s is not priced at aws", alt.GPUs, alt.GPU)
		}
	}
	if !slices.ContainsFunc(a.Assumptions, func(s string) bool { return strings.HasPrefix(s, "priced at aws only") }) {
		t.Errorf("assumptions %q do not say the answer is priced at aws", a.Assumptions)
	}
	if len(a.Warnings) > 0 && strings.Contains(a.Warnings[0], "no price known") {
		t.Errorf("warning %q on an answer priced at aws", a.Warnings[0])
	}
}

// TestAnswerAtProviderWithoutOffer: a provider with no price for a card
// that fits, or for the card named, is said first, and the answer is
// priced at any provider as a question naming none would be.
func TestAnswerAtProviderWithoutOffer(t *testing.T) {
	e := &Estimator{Prices: sheetClouds}
	for _, c := range []struct{ q, want, provider string }{
		{"llama 3.1 8b on coreweave", "coreweave has no price known for a card that fits this: the cheapest card at any provider is shown, priced at runpod instead", "runpod"},
		{"llama 3.1 8b on a 4090 on aws", "aws has no price known for the RTX 4090 24 GB: priced at runpod instead", "runpod"},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Warnings) == 0 || a.Warnings[0] != c.want {
			t.Errorf("%q: warnings %q, want first %q", c.q, a.Warnings, c.want)
		}
		if a.Price == nil || a.Price.Provider != c.provider {
			t.Errorf("%q: priced at %+v, want %s", c.q, a.Price, c.provider)
		}
	}
}

// TestAnswerAtProviderUnknownToPrices: prices that cannot be told apart by
// provider answer as before, saying the provider has no price known.
func TestAnswerAtProviderUnknownToPrices(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-3090": 0.25}}
	p, err := Parse("llama 3.1 8b on aws")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.GPU != "rtx-3090" || len(a.Warnings) == 0 || !strings.HasPrefix(a.Warnings[0], "aws has no price known") {
		t.Errorf("answered on %s with warnings %q", a.Request.GPU, a.Warnings)
	}
}

// TestFormatProvider: a provider is written back as "on NAME", which
// reads back to the same query.
func TestFormatProvider(t *testing.T) {
	p, err := Parse("qlora llama 3.3 70b on runpod")
	if err != nil {
		t.Fatal(err)
	}
	got := Format(p.Query)
	if !strings.HasSuffix(got, " on runpod") {
		t.Fatalf("Format = %q, want it to end in \" on runpod\"", got)
	}
	back, err := Parse(got)
	if err != nil || back.Query.Provider != "runpod" {
		t.Errorf("Parse(%q): provider %q, err %v", got, back.Query.Provider, err)
	}
}
