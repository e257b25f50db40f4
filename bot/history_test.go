package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// TestPriceHistoryAsked: a price question about how prices moved is
// answered with the observed history first, or says there is none,
// beside today's prices.
func TestPriceHistoryAsked(t *testing.T) {
	obs := fakeHistory{
		{Provider: "vast", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerHour: 2.80, USDPerGPUHour: 2.80, ObservedAt: testNow.AddDate(0, 0, -60)},
		{Provider: "vast", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerHour: 2.40, USDPerGPUHour: 2.40, ObservedAt: testNow.AddDate(0, 0, -1)},
	}
	const q = "have h100 prices gone down in the last few months?"
	for _, c := range []struct {
		name    string
		history PriceHistory
		want    []string
	}{
		{"kept", obs, []string{"How the H100's price moved over the last 90 days", "vast: $2.80", "$2.40", "(-14%)", "Prices for every H100"}},
		{"none kept", fakeHistory{}, []string{"No price history for the H100:", "Prices for every H100"}},
		{"no database", nil, []string{"No price history on this fitbot", "Prices for every H100"}},
	} {
		h := newTestHandler(t, func(cfg *Config) {
			cfg.Parse, cfg.Answer = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}
			cfg.Prices, cfg.History = fakePrices{offers: testOffers}, c.history
		})
		got := messageJSON(t, h.Command(context.Background(), slash(q)))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: reply lacks %q:\n%s", c.name, w, got)
			}
		}
	}
}
