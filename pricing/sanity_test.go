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

// TestBand: the band around the median of the providers' prices, in log
// space, MAD-wide with a floor of a factor of 4. The figures are worked
// by hand: the five prices per GPU-hour 6.88, 12.29, 11.03, 2.99, 3.99
// have the median 6.88; |ln p - ln 6.88| are 0, 0.580, 0.472, 0.833,
// 0.545, whose median (the MAD) is 0.545; 3 x 1.4826 x 0.545 = 2.424 >
// ln 4, so the band is 6.88 x e^±2.424 = [0.609, 77.7] (tolerance 0.5%).
func TestBand(t *testing.T) {
	ref := NewReference(peerH100s(), nil)
	low, high, med, voices, ok := ref.Band("h100", MarketOnDemand)
	if !ok || voices != 5 {
		t.Fatalf("Band = ok %v, %d voices", ok, voices)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"median", med, 6.88}, {"low", low, 0.609}, {"high", high, 77.7}} {
		if math.Abs(c.got/c.want-1) > 0.005 {
			t.Errorf("%s = %.4g, want %.4g", c.name, c.got, c.want)
		}
	}
	// Voices that agree: the floor, a factor of 4 either way.
	agree := NewReference([]Offer{
		{Provider: "a", GPU: "a100-80", Market: MarketOnDemand, USDPerGPUHour: 1.89},
		{Provider: "b", GPU: "a100-80", Market: MarketOnDemand, USDPerGPUHour: 1.89},
		{Provider: "b", GPU: "a100-80", Market: MarketOnDemand, USDPerGPUHour: 1.99}, // one provider, one voice (its median)
	}, nil)
	low, high, med, voices, _ = agree.Band("a100-80", MarketOnDemand)
	if voices != 2 || math.Abs(med-1.915) > 1e-3 || math.Abs(low-med/4) > 1e-9 || math.Abs(high-med*4) > 1e-9 {
		t.Errorf("agreeing voices: band [%v, %v] around %v over %d, want [median/4, median*4] around 1.915 over 2", low, high, med, voices)
	}
	if _, _, _, _, ok := agree.Band("h100", MarketSpot); ok {
		t.Error("a GPU and market nobody prices has a band")
	}
}

// TestJudge: the $0.06 H100 of the fault report is held; ordinary prices
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
	if h.Refresh != "vast" || !h.HeldAt.Equal(refreshAt) || !strings.Contains(h.Reason(), "h100 H100 SXM : $0.06/GPU-h is below the $") {
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
