package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// TestPriceSaidIsUsed: a price per GPU-hour in the question costs the
// run (trial H7 Q44: "at 2.5$/hr" was not used and the run was costed at
// the market's $2.40), and the assumption says whose price it is.
func TestPriceSaidIsUsed(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	f, err := s.Fit(context.Background(), s.Read("pretrain a 3b model on 300b tokens on h100s at 2.5$/hr"))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Answer
	if a.Price == nil || a.Price.USDPerGPUHour != 2.5 || !a.Price.AsOf.IsZero() {
		t.Fatalf("price %+v, want the asker's $2.50 with no date", a.Price)
	}
	h, total := a.Throughput.Hours, a.Throughput.USDTotal
	if h == nil || total == nil || *total != *h*2.5 {
		t.Errorf("total %v over %v h, want the hours at $2.50", total, h)
	}
	joined := strings.Join(a.Assumptions, "\n")
	if !strings.Contains(joined, `price $2.50 per GPU-hour as asked ("at 2.5$/hr")`) || strings.Contains(joined, "not used") {
		t.Errorf("assumptions %q, want the asker's price said and nothing not used", a.Assumptions)
	}
	if f.Estimate.Price == nil || f.Estimate.Price.USDPerGPUHour == 2.5 {
		t.Errorf("the estimate's price %+v was changed, want the market's kept for the cache", f.Estimate.Price)
	}
}
