package pricing

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// peerH100s are on-demand H100 prices per GPU-hour as the providers list
// them (testdata/SOURCES.md and the default sheet's citations): AWS
// p5.48xlarge $55.04/8, Azure ND96isr H100 v5 $98.32/8, GCP a3-highgpu-8g
// $88.25/8, Lambda gpu_8x_h100_sxm5 $23.92/8, RunPod secure $3.99.
func peerH100s() []Offer {
	mk := func(provider, instance string, count, usd float64) Offer {
		return Offer{Provider: provider, InstanceType: instance, GPU: "h100", GPUCount: count, Market: MarketOnDemand,
			Region: "us-east-1", USDPerHour: usd, USDPerGPUHour: usd / count, ObservedAt: refreshAt.Add(-6 * time.Hour), Samples: 1}
	}
	return []Offer{
		mk("aws", "p5.48xlarge", 8, 55.04),
		mk("azure", "Standard_ND96isr_H100_v5", 8, 98.32),
		mk("gcp", "a3-highgpu-8g", 8, 88.25),
		mk("lambda", "gpu_8x_h100_sxm5", 8, 23.92),
		mk("runpod", "NVIDIA H100 80GB HBM3", 1, 3.99),
	}
}

// TestBounds: the floor is what owning the card costs (its lowest
// purchase price over 5 years plus its board power at $0.05/kWh, halved),
// the ceiling three times its dearest list price; five providers that
// agree narrow the band to a third below the cheapest and three times
// the dearest. Worked by hand for the H100 ($25,000, 700 W): 25000/43800
// + 0.7 x 0.05 = $0.6058/h, floor $0.3029; the dearest on-demand price,
// Azure's $12.29, makes the ceiling $36.87 before the spread, and the
// spread of the five (2.99 .. 12.29) $0.997 .. $36.87.
func TestBounds(t *testing.T) {
	alone := NewReference(nil, nil)
	b := alone.Bounds("h100", MarketOnDemand)
	if math.Abs(b.Floor-0.3029) > 0.0005 || !strings.Contains(b.FloorWhy, "below what an H100 SXM 80 GB costs to own ($0.30/GPU-h: half of $25,000 over 5 years plus 700 W at $0.05/kWh)") {
		t.Errorf("floor %.4f, %q", b.Floor, b.FloorWhy)
	}
	// No list price: a month of rent at most buys the card ($30,000 / 720 h).
	if math.Abs(b.Ceiling-41.67) > 0.01 || !strings.Contains(b.CeilingWhy, "over a month of rent") {
		t.Errorf("ceiling without a list price %.2f, %q", b.Ceiling, b.CeilingWhy)
	}
	ref := NewReference(peerH100s(), nil)
	b = ref.Bounds("h100", MarketOnDemand)
	if b.Voices != 5 || math.Abs(b.Median-6.88) > 0.005 || math.Abs(b.Floor-2.99/3) > 0.001 || math.Abs(b.Ceiling-12.29*3) > 0.01 {
		t.Errorf("five providers: %+v, want floor $0.997 (a third of Lambda's $2.99), ceiling $36.87", b)
	}
	// A card without a purchase price: its power alone, halved (V100, 300 W).
	v := alone.Bounds("v100-16", MarketOnDemand)
	if v.Floor != MinUSDPerGPUHour || v.Ceiling != MaxUSDPerGPUHour {
		t.Errorf("V100 with nothing known: %+v, want the flat bounds", v)
	}
	// Nothing else priced: the $0.06 H100 is held for the economics alone.
	cheap := Offer{Provider: "nebius", InstanceType: "gpu-h100-sxm", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Region: "eu-north1",
		USDPerHour: 0.06, USDPerGPUHour: 0.06, ObservedAt: refreshAt}
	if _, holds, _ := alone.Judge("gpuhunt:nebius", []Offer{cheap}, nil, refreshAt); len(holds) != 1 ||
		holds[0].Reason() != "h100 gpu-h100-sxm eu-north1: $0.06/GPU-h is below what an H100 SXM 80 GB costs to own ($0.30/GPU-h: half of $25,000 over 5 years plus 700 W at $0.05/kWh)" {
		t.Errorf("the $0.06 H100 alone: holds %+v", holds)
	}
	if own, words, ok := OwnCost("v100-16"); !ok || math.Abs(own-0.015) > 1e-9 || !strings.Contains(words, "no purchase price") {
		t.Errorf("OwnCost(v100-16) = %v, %q, %v", own, words, ok)
	}
}

// TestJudge: the $0.06 H100 of the fault report is held (below the
// spread of the five providers that price it); ordinary prices
// pass; a second refresh at the same price (within 25%) lets it in; one
// at yet another absurd price stays held, since the first hold.
func TestJudge(t *testing.T) {
	ref := NewReference(peerH100s(), DefaultSheet().Offers())
	cheap := Offer{Provider: "vast", InstanceType: "H100 SXM", GPU: "h100", GPUCount: 1, Market: MarketOnDemand,
		USDPerHour: 0.06, USDPerGPUHour: 0.06, ObservedAt: refreshAt}
	fair := cheap
	fair.InstanceType, fair.USDPerHour, fair.USDPerGPUHour = "H100 PCIe", 2.40, 2.40
	spot := cheap
	spot.Market, spot.InstanceType, spot.USDPerHour, spot.USDPerGPUHour = MarketSpot, "H100 interruptible", 1.65, 1.65 // against the sheet's spot price
	unknownGPU := cheap
	unknownGPU.GPU = "b300"

	keep, holds, confirmed := ref.Judge("vast", []Offer{cheap, fair, spot, unknownGPU}, nil, refreshAt)
	if len(keep) != 3 || len(holds) != 1 || confirmed != 0 || holds[0].Offer != cheap {
		t.Fatalf("first refresh: kept %d, held %+v, confirmed %d; want the $0.06 H100 held", len(keep), holds, confirmed)
	}
	h := holds[0]
	if h.Refresh != "vast" || !h.HeldAt.Equal(refreshAt) || !strings.Contains(h.Reason(), "h100 H100 SXM : $0.06/GPU-h is below a third of the cheapest of 5 providers' H100 SXM 80 GB on-demand prices ($2.99/GPU-h)") {
		t.Errorf("hold = %+v, reason %q", h, h.Reason())
	}

	later := refreshAt.Add(6 * time.Hour)
	again := cheap
	again.USDPerHour, again.USDPerGPUHour = 0.07, 0.07 // +17%: the same price, confirmed
	keep, holds2, confirmed := ref.Judge("vast", []Offer{again, fair}, holds, later)
	if len(keep) != 2 || len(holds2) != 0 || confirmed != 1 {
		t.Errorf("second refresh at $0.07: kept %d, held %d, confirmed %d; want it let in", len(keep), len(holds2), confirmed)
	}

	other := cheap
	other.USDPerHour, other.USDPerGPUHour = 0.02, 0.02 // -67%: not a confirmation
	_, holds3, confirmed := ref.Judge("vast", []Offer{other}, holds, later)
	if len(holds3) != 1 || confirmed != 0 || !holds3[0].HeldAt.Equal(refreshAt) || !holds3[0].LastHeldAt.Equal(later) {
		t.Errorf("second refresh at $0.02: held %+v, confirmed %d; want still held since the first hold", holds3, confirmed)
	}

	// Far above is held too: $500 per H100-hour.
	dear := fair
	dear.USDPerHour, dear.USDPerGPUHour = 500, 500
	if _, holds, _ := ref.Judge("vast", []Offer{dear}, nil, refreshAt); len(holds) != 1 || !strings.Contains(holds[0].Reason(), "above") {
		t.Errorf("$500/GPU-h: holds %+v", holds)
	}
}

// holdingSink is a memorySink that is a HoldStore too.
type holdingSink struct {
	memorySink
	hmu     sync.Mutex
	current []Offer
	holds   map[string][]Hold
}

func (s *holdingSink) CurrentOffers(context.Context) ([]Offer, error) { return s.current, nil }

func (s *holdingSink) PriceHolds(_ context.Context, provider string) ([]Hold, error) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	return s.holds[provider], nil
}

func (s *holdingSink) ReplacePriceHolds(_ context.Context, provider string, _ int64, holds []Hold) error {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if s.holds == nil {
		s.holds = map[string][]Hold{}
	}
	s.holds[provider] = holds
	return nil
}

// TestRefreshHoldsImplausibleOffers: through the Refresher, the held
// offer is not stored, the report names it; a run whose every offer is
// held is rejected (the provider's previous prices stay); the next
// refresh at the same price stores it.
func TestRefreshHoldsImplausibleOffers(t *testing.T) {
	sink := &holdingSink{current: peerH100s()}
	good := h100Offers("vast", 2, 19.2) // $2.40 per GPU-hour
	bad := h100Offers("vast", 1, 0.48)  // $0.06 per GPU-hour
	bad[0].InstanceType = "node-z"
	f := &fakeFetcher{name: "vast", offers: append(append([]Offer{}, good...), bad...)}
	r := &Refresher{Fetchers: []Fetcher{f}, Sink: sink, Clock: func() time.Time { return refreshAt }}
	reports, err := r.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep := reports[0]
	if rep.Run.Status != RunOK || len(rep.Held) != 1 || rep.Held[0].Offer.InstanceType != "node-z" || len(sink.offers[rep.Run.ID]) != 2 {
		t.Fatalf("first refresh: %+v, %d held, %d stored; want the $0.06 offer held and 2 stored", rep.Run, len(rep.Held), len(sink.offers[rep.Run.ID]))
	}
	if len(sink.holds["vast"]) != 1 {
		t.Errorf("holds recorded: %+v", sink.holds)
	}

	bad[0].USDPerHour, bad[0].USDPerGPUHour = 0.52, 0.065
	f.offers = append(append([]Offer{}, good...), bad...)
	reports, _ = r.Refresh(context.Background())
	if rep := reports[0]; rep.Run.Status != RunOK || rep.Confirmed != 1 || len(sink.offers[rep.Run.ID]) != 3 {
		t.Errorf("second refresh at about the same price: %+v, confirmed %d; want it stored", rep.Run, rep.Confirmed)
	}

	sink.holds = nil
	other := &fakeFetcher{name: "cheapo", offers: h100Offers("cheapo", 2, 0.4)}
	r.Fetchers = []Fetcher{other}
	reports, err = r.Refresh(context.Background())
	if rep := reports[0]; rep.Run.Status != RunRejected || len(rep.Held) != 2 || !strings.Contains(rep.Run.Error, "all 2 offers held aside as implausible") || err == nil {
		t.Errorf("every offer held: %+v, %d held, %v; want a rejected run", rep.Run, len(rep.Held), err)
	}
	if len(sink.holds["cheapo"]) != 2 {
		t.Errorf("a rejected run's holds are not kept for the confirmation: %+v", sink.holds)
	}
}
