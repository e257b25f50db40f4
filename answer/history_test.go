package answer

import (
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
)

// TestTrends: each provider's cheapest on-demand whole-GPU price on its
// first and last day observed, of the GPUs and providers asked, cheapest
// last first; nothing observed says there is no history.
func TestTrends(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	day := func(d int) time.Time { return now.AddDate(0, 0, -d) }
	offer := func(provider, gpu string, m pricing.Market, usd float64, at time.Time) pricing.Offer {
		return pricing.Offer{Provider: provider, GPU: gpu, GPUCount: 1, Market: m, USDPerHour: usd, USDPerGPUHour: usd, ObservedAt: at}
	}
	obs := []pricing.Offer{
		offer("vast", "h100", pricing.MarketOnDemand, 2.80, day(80)),
		offer("vast", "h100", pricing.MarketOnDemand, 2.60, day(80)), // the day's cheapest
		offer("vast", "h100", pricing.MarketOnDemand, 2.40, day(2)),
		offer("vast", "h100", pricing.MarketSpot, 1.00, day(2)), // spot: not the on-demand trend
		offer("runpod secure", "h100", pricing.MarketOnDemand, 3.99, day(30)),
		offer("runpod secure", "h100", pricing.MarketOnDemand, 3.99, day(1)),
		offer("aws", "h100", pricing.MarketOnDemand, 7.00, day(200)), // before the window
		offer("vast", "a100-80", pricing.MarketOnDemand, 1.20, day(3)),
	}
	got := Trends(obs, []string{"h100"}, nil, now.AddDate(0, 0, -HistoryDays), now)
	if len(got) != 2 || got[0].Provider != "vast" || got[0].First != 2.60 || got[0].Last != 2.40 || got[0].DaysObserved != 2 ||
		got[1].Provider != "runpod secure" || got[1].First != 3.99 || got[1].Last != 3.99 {
		t.Fatalf("Trends = %+v", got)
	}
	lines := strings.Join(HistoryLines("H100", got), "\n")
	for _, want := range []string{"over the last 90 days", "vast: $2.60 on 2026-09-18 → $2.40 on 2026-12-05 (-8%)", "runpod secure: $3.99", "(no change)"} {
		if !strings.Contains(lines, want) {
			t.Errorf("HistoryLines lacks %q:\n%s", want, lines)
		}
	}
	if only := Trends(obs, []string{"h100"}, []string{"runpod"}, now.AddDate(0, 0, -HistoryDays), now); len(only) != 1 || only[0].Provider != "runpod secure" {
		t.Errorf("Trends on runpod = %+v, want runpod's only", only)
	}
	if none := HistoryLines("H200", nil); len(none) != 1 || !strings.Contains(none[0], "No price history for the H200") {
		t.Errorf("HistoryLines with nothing observed = %q", none)
	}
}
