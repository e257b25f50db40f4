//go:build cgo

package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
)

var _ pricing.HoldStore = (*DB)(nil)

// fixedFetcher returns fixed offers.
type fixedFetcher struct {
	name   string
	offers []pricing.Offer
}

func (f *fixedFetcher) Name() string { return f.name }

func (f *fixedFetcher) Fetch(context.Context) (pricing.FetchResult, error) {
	return pricing.FetchResult{Offers: f.offers}, nil
}

// TestImplausiblePriceHeld reproduces the fault report's $0.06 H100 on a
// real database: with the other providers' H100 prices stored, a refresh
// whose catalog lists one H100 at $0.06 per GPU-hour stores the rest,
// holds that one (not current, not quoted: the answer's H100 price stays
// a real one), keeps the hold and names it in the week's digest; the next
// refresh that lists it again at the same price lets it in.
func TestImplausiblePriceHeld(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	start := testNow.Add(-6 * time.Hour)
	peers := map[string]pricing.Offer{
		"aws":    offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, start),
		"azure":  offer("azure", "h100", 8, pricing.MarketOnDemand, "eastus", "Standard_ND96isr_H100_v5", 98.32, start),
		"lambda": offer("lambda", "h100", 8, pricing.MarketOnDemand, "us-east-1", "gpu_8x_h100_sxm5", 23.92, start),
	}
	for p, o := range peers {
		saveRun(t, db, okRun(p, start, []pricing.Offer{o}), []pricing.Offer{o})
	}
	now := testNow
	fair := offer("runpod", "h100", 1, pricing.MarketOnDemand, "", "NVIDIA H100 80GB HBM3 secure", 3.99, now)
	absurd := offer("runpod", "h100", 1, pricing.MarketOnDemand, "", "NVIDIA H100 80GB HBM3 community", 0.06, now)
	f := &fixedFetcher{name: "runpod", offers: []pricing.Offer{fair, absurd}}
	r := &pricing.Refresher{Fetchers: []pricing.Fetcher{f}, Sink: db, Clock: func() time.Time { return now }}
	reports, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep := reports[0]
	if rep.Run.Status != pricing.RunOK || len(rep.Held) != 1 || rep.Held[0].Offer.USDPerGPUHour != 0.06 {
		t.Fatalf("refresh: %+v, held %+v; want ok with the $0.06 offer held", rep.Run, rep.Held)
	}
	current, err := db.OffersForGPU(ctx, "h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range current {
		if o.USDPerGPUHour < 1 {
			t.Errorf("the held offer is current: %+v", o)
		}
	}
	if len(current) != 4 {
		t.Errorf("%d current H100 offers, want the 3 peers and RunPod's fair one", len(current))
	}
	src, err := db.PriceSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := src.GPUHourPrice("h100"); !ok || p.USDPerGPUHour < 1 {
		t.Errorf("answers price the H100 at %+v, want a real price (>$1)", p)
	}
	holds, err := db.PriceHolds(ctx, "runpod")
	if err != nil || len(holds) != 1 || holds[0].Key() != rep.Held[0].Key() || holds[0].Refresh != "runpod" || !holds[0].HeldAt.Equal(now) {
		t.Fatalf("kept holds = %+v, %v", holds, err)
	}
	in, err := db.DigestInput(ctx, Scope{}, now.Add(time.Hour), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	d := digest.Build(in, digest.DefaultConfig())
	named := false
	for _, h := range d.StaleSources {
		named = named || (h.Provider == "runpod" && h.HeldOffers == 1 && strings.Contains(h.Reason, "1 offer held aside") && strings.Contains(strings.Join(h.Held, ""), "$0.06/GPU-h"))
	}
	if !named {
		t.Errorf("the digest's source health does not name the held offer: %+v", d.StaleSources)
	}

	// The next refresh lists it again at the same price: let in.
	now = now.Add(6 * time.Hour)
	f.offers[0].ObservedAt, f.offers[1].ObservedAt = now, now
	reports, err = r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep := reports[0]; rep.Confirmed != 1 || len(rep.Held) != 0 {
		t.Errorf("second refresh: confirmed %d, held %d; want it let in", rep.Confirmed, len(rep.Held))
	}
	if holds, _ := db.PriceHolds(ctx, "runpod"); len(holds) != 0 {
		t.Errorf("holds after the confirmation: %+v", holds)
	}
	current, _ = db.OffersForGPU(ctx, "h100")
	if len(current) != 5 || current[0].USDPerGPUHour != 0.06 {
		t.Errorf("after the confirmation the offer is not current: %d offers, cheapest %+v", len(current), current[0])
	}
}
