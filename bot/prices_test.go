package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
)

// TestPricesMessageMarksStale: a price past its provider's limit is listed
// after the fresh ones for its GPU, with its age and marked stale.
func TestPricesMessageMarksStale(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	offers := []pricing.Offer{
		{Provider: "tensordock", GPU: "a100-80", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerHour: 0.85, USDPerGPUHour: 0.85, ObservedAt: now.AddDate(0, 0, -334)},
		{Provider: "runpod", Tier: "secure", GPU: "a100-80", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerHour: 1.79, USDPerGPUHour: 1.79, ObservedAt: now.Add(-2 * time.Hour)},
	}
	got := messageJSON(t, pricesMessage("Prices for every A100", offers, now))
	fresh, stale := strings.Index(got, "$1.79"), strings.Index(got, "$0.85")
	if fresh < 0 || stale < fresh {
		t.Errorf("the fresh $1.79 is not listed before the stale $0.85:\n%s", got)
	}
	if !strings.Contains(got, "334 days old _(stale)_") || strings.Contains(got, "2 h old _(stale)_") {
		t.Errorf("stale marks wrong:\n%s", got)
	}
}
