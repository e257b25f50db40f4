package pricing

import (
	"math"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

var _ sizing.PriceSource = (*Snapshot)(nil)
var _ sizing.PriceSource = Chain(nil)
var _ sizing.SpotPriceSource = (*Snapshot)(nil)
var _ sizing.SpotPriceSource = Chain(nil)

func TestDefaultSheet(t *testing.T) {
	s := DefaultSheet()
	if s.Len() < 50 {
		t.Fatalf("default sheet has %d offers, want the full sheet", s.Len())
	}
	for _, o := range s.Offers() {
		if err := checkOffer(o); err != nil {
			t.Errorf("default sheet: %v", err)
		}
		if len(o.Source) < len("default sheet: ")+10 {
			t.Errorf("default sheet row %s %s has no real source: %q", o.Provider, o.InstanceType, o.Source)
		}
	}
	// Every GPU a team commonly rents has an on-demand price.
	for _, gpu := range []string{"rtx-3090", "rtx-4090", "rtx-5090", "t4", "l4", "a10", "a10g", "l40s", "v100-16", "v100-32",
		"a100-40", "a100-80", "a100-80-pcie", "h100", "h100-pcie", "h100-nvl", "h200", "b200"} {
		if _, ok := s.GPUHourPrice(gpu); !ok {
			t.Errorf("default sheet has no on-demand price for %s", gpu)
		}
	}
	if got, want := s.Newest(), time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("newest row %v, want %v", got, want)
	}
}

func TestDefaultSheetPrices(t *testing.T) {
	// Expected figures are the reference's §6 price points, per GPU-hour.
	// The sheet ranks as of a fortnight after its newest row (2026-11-09),
	// so every row is stale and, within a quarter of age, the cheaper
	// wins: Vast's $2.40 H100 median of 2026-10-19 beats RunPod's $3.99 of
	// 2026-11-09; TensorDock's $0.33 RTX 4090 of January loses to RunPod
	// Community's $0.34 of September (three quarters older); Lambda's
	// $1.99 A100 40 GB of 2026-09-20 beats AWS's p4d ($2.745, 2026-11-09).
	tests := []struct {
		gpu  string
		want sizing.Price
	}{
		{"h100", sizing.Price{USDPerGPUHour: 2.40, Provider: "vast", Market: "on_demand", AsOf: time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC)}},
		{"rtx-4090", sizing.Price{USDPerGPUHour: 0.34, Provider: "runpod", Market: "on_demand", AsOf: time.Date(2026, 9, 25, 0, 0, 0, 0, time.UTC)}},
		{"a100-40", sizing.Price{USDPerGPUHour: 1.99, Provider: "lambda", Market: "on_demand", Region: "us-east-1", AsOf: time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC)}},
		{"a100-80", sizing.Price{USDPerGPUHour: 1.39, Provider: "runpod", Market: "on_demand", AsOf: time.Date(2026, 9, 25, 0, 0, 0, 0, time.UTC)}},
		{"h200", sizing.Price{USDPerGPUHour: 3.59, Provider: "runpod", Market: "on_demand", AsOf: time.Date(2026, 9, 25, 0, 0, 0, 0, time.UTC)}},
		{"a10g", sizing.Price{USDPerGPUHour: 1.006, Provider: "aws", Market: "on_demand", Region: "us-east-1", AsOf: time.Date(2026, 8, 17, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		got, ok := DefaultSheet().GPUHourPrice(tt.gpu)
		if !ok {
			t.Errorf("GPUHourPrice(%s): none", tt.gpu)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmpPrices); diff != "" {
			t.Errorf("GPUHourPrice(%s) (-want +got):\n%s", tt.gpu, diff)
		}
	}
	if _, ok := DefaultSheet().GPUHourPrice("no-such-gpu"); ok {
		t.Error("GPUHourPrice found a price for an unknown GPU")
	}
}

func TestSnapshotCheapest(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	offers := []Offer{
		{Provider: "azure", GPU: "a10", GPUCount: 1.0 / 6, Market: MarketOnDemand, USDPerHour: 0.1, USDPerGPUHour: 0.6, ObservedAt: at},
		{Provider: "azure", GPU: "a10", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 3.2, USDPerGPUHour: 3.2, ObservedAt: at},
		{Provider: "lambda", GPU: "a10", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 1.29, USDPerGPUHour: 1.29, ObservedAt: at},
		{Provider: "aaa", GPU: "a10", GPUCount: 1, Market: MarketSpot, USDPerHour: 0.5, USDPerGPUHour: 0.5, ObservedAt: at},
		{Provider: "bbb", GPU: "a10", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 1.29, USDPerGPUHour: 1.29, ObservedAt: at},
	}
	s := NewSnapshot(offers)
	got, ok := s.Cheapest("a10", MarketOnDemand)
	if !ok || got.Provider != "bbb" {
		t.Errorf("cheapest on-demand a10 = %s, want bbb (fractional slice excluded, tie broken by name)", got.Provider)
	}
	got, ok = s.Cheapest("a10", MarketSpot)
	if !ok || got.Provider != "aaa" {
		t.Errorf("cheapest spot a10 = %s, want aaa", got.Provider)
	}
	p, _ := s.GPUHourPrice("a10")
	if p.Market != "on_demand" || p.USDPerGPUHour != 1.29 {
		t.Errorf("GPUHourPrice(a10) = %+v, want the on-demand $1.29", p)
	}
}

func TestSnapshotSpotGPUHourPrice(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := NewSnapshot([]Offer{
		{Provider: "lambda", GPU: "a10", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 1.29, USDPerGPUHour: 1.29, ObservedAt: at},
		{Provider: "azure", GPU: "a10", GPUCount: 1.0 / 6, Market: MarketSpot, USDPerHour: 0.02, USDPerGPUHour: 0.12, ObservedAt: at},
		{Provider: "bbb", GPU: "a10", GPUCount: 1, Market: MarketSpot, USDPerHour: 0.5, USDPerGPUHour: 0.5, Region: "eu", ObservedAt: at},
		{Provider: "aaa", GPU: "a10", GPUCount: 1, Market: MarketSpot, USDPerHour: 0.5, USDPerGPUHour: 0.5, Region: "us", ObservedAt: at},
		{Provider: "gcp", GPU: "h100", GPUCount: 8, Market: MarketSpot, USDPerHour: 52.568, USDPerGPUHour: 6.571, ObservedAt: at},
		{Provider: "aws", GPU: "h100", GPUCount: 8, Market: MarketReserved, USDPerHour: 40, USDPerGPUHour: 5, ObservedAt: at},
		{Provider: "lambda", GPU: "l4", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 0.8, USDPerGPUHour: 0.8, ObservedAt: at},
	})
	tests := []struct {
		gpu    string
		want   sizing.Price
		wantOK bool
	}{
		// A fractional slice never wins; the tie at $0.50 goes to the first provider by name.
		{"a10", sizing.Price{USDPerGPUHour: 0.5, Provider: "aaa", Market: "spot", Region: "us", AsOf: at}, true},
		// Per GPU-hour of an 8-GPU machine; reserved is not spot.
		{"h100", sizing.Price{USDPerGPUHour: 6.571, Provider: "gcp", Market: "spot", AsOf: at}, true},
		// On demand only: no spot price.
		{"l4", sizing.Price{}, false},
		{"no-such-gpu", sizing.Price{}, false},
	}
	for _, tt := range tests {
		got, ok := s.SpotGPUHourPrice(tt.gpu)
		if ok != tt.wantOK {
			t.Errorf("SpotGPUHourPrice(%s) ok = %v, want %v", tt.gpu, ok, tt.wantOK)
		}
		if diff := cmp.Diff(tt.want, got, cmpPrices); diff != "" {
			t.Errorf("SpotGPUHourPrice(%s) (-want +got):\n%s", tt.gpu, diff)
		}
	}
}

// TestProviderGPUHourPrice: one provider's cheapest price of a whole
// GPU-hour in one market, from the snapshot and through a Chain; the
// default sheet prices the H100 at AWS from its p5 rows, and RunPod has
// no spot price for it.
func TestProviderGPUHourPrice(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := NewSnapshotAt([]Offer{
		{Provider: "runpod", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Tier: "secure", USDPerHour: 3.99, USDPerGPUHour: 3.99, ObservedAt: at},
		{Provider: "runpod", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Tier: "community", USDPerHour: 2.69, USDPerGPUHour: 2.69, ObservedAt: at},
		{Provider: "vast", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 2.40, USDPerGPUHour: 2.40, ObservedAt: at},
		{Provider: "gcp", GPU: "h100", GPUCount: 1, Market: MarketSpot, USDPerHour: 6.571, USDPerGPUHour: 6.571, ObservedAt: at},
	}, at)
	for _, tt := range []struct {
		src      sizing.ProviderPriceSource
		gpu      string
		provider string
		spot     bool
		want     float64 // 0: none
	}{
		{s, "h100", "runpod", false, 2.69},
		{s, "h100", "runpod", true, 0},
		{s, "h100", "gcp", true, 6.571},
		{s, "h100", "aws", false, 0},
		{Chain{s, DefaultSheet()}, "h100", "aws", false, 6.88},
		{Chain{s, DefaultSheet()}, "l4", "aws", false, 0.8048},
		{DefaultSheet(), "h100", "runpod", true, 0},
	} {
		p, ok := tt.src.ProviderGPUHourPrice(tt.gpu, tt.provider, tt.spot)
		if ok != (tt.want > 0) || p.USDPerGPUHour != tt.want || ok && p.Provider != tt.provider {
			t.Errorf("ProviderGPUHourPrice(%s, %s, spot %v) = %+v, %v; want $%g", tt.gpu, tt.provider, tt.spot, p, ok, tt.want)
		}
	}
}

func TestDefaultSheetSpot(t *testing.T) {
	// The sheet's interruptible rows: Vast.ai's RTX 4090 from $0.31 (its
	// source column), and GCP's a3-ultragpu-8g spot at $6.2607 per GPU.
	for _, tt := range []struct {
		gpu      string
		provider string
		usd      float64
	}{{"rtx-4090", "vast", 0.31}, {"h200", "gcp", 6.2607}} {
		p, ok := DefaultSheet().SpotGPUHourPrice(tt.gpu)
		if !ok || p.Market != "spot" || p.Provider != tt.provider || math.Abs(p.USDPerGPUHour-tt.usd) > 1e-9 {
			t.Errorf("default sheet spot %s = %+v, %v; want %s spot at $%g", tt.gpu, p, ok, tt.provider, tt.usd)
		}
	}
}

func TestChain(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	live := NewSnapshot([]Offer{{Provider: "aws", GPU: "h100", GPUCount: 8, Market: MarketOnDemand, USDPerHour: 55.04, USDPerGPUHour: 6.88, ObservedAt: at}})
	c := Chain{nil, live, DefaultSheet()}
	if p, _ := c.GPUHourPrice("h100"); p.Provider != "aws" {
		t.Errorf("chain h100 from %s, want the first source (aws)", p.Provider)
	}
	if p, _ := c.GPUHourPrice("l4"); p != mustPrice(t, DefaultSheet(), "l4") {
		t.Errorf("chain l4 = %+v, want the default sheet's", p)
	}
	if _, ok := (Chain{}).GPUHourPrice("h100"); ok {
		t.Error("empty chain found a price")
	}
}

// onDemandOnly is a price source that knows no spot prices.
type onDemandOnly struct{}

func (onDemandOnly) GPUHourPrice(string) (sizing.Price, bool) {
	return sizing.Price{USDPerGPUHour: 1, Provider: "od-only", Market: "on_demand"}, true
}

func TestChainSpot(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	live := NewSnapshot([]Offer{
		{Provider: "aws", GPU: "h100", GPUCount: 8, Market: MarketOnDemand, USDPerHour: 55.04, USDPerGPUHour: 6.88, ObservedAt: at},
		{Provider: "runpod", GPU: "rtx-4090", GPUCount: 1, Market: MarketSpot, USDPerHour: 0.29, USDPerGPUHour: 0.29, ObservedAt: at},
	})
	sheet := NewSnapshot([]Offer{
		{Provider: "vast", GPU: "rtx-4090", GPUCount: 1, Market: MarketSpot, USDPerHour: 0.31, USDPerGPUHour: 0.31, ObservedAt: at},
		{Provider: "gcp", GPU: "h100", GPUCount: 1, Market: MarketSpot, USDPerHour: 6.571, USDPerGPUHour: 6.571, ObservedAt: at},
	})
	c := Chain{nil, onDemandOnly{}, live, sheet}
	tests := []struct {
		gpu          string
		wantProvider string // "" for no price
	}{
		{"rtx-4090", "runpod"}, // the first source with a spot price, not the cheapest overall
		{"h100", "gcp"},        // live knows only on-demand: the next source's spot
		{"l4", ""},
	}
	for _, tt := range tests {
		p, ok := c.SpotGPUHourPrice(tt.gpu)
		if ok != (tt.wantProvider != "") || p.Provider != tt.wantProvider {
			t.Errorf("chain spot %s = %q, %v; want %q", tt.gpu, p.Provider, ok, tt.wantProvider)
		}
		if ok && p.Market != "spot" {
			t.Errorf("chain spot %s market %q, want spot", tt.gpu, p.Market)
		}
	}
	if _, ok := (Chain{}).SpotGPUHourPrice("h100"); ok {
		t.Error("empty chain found a spot price")
	}
}

func mustPrice(t *testing.T, s sizing.PriceSource, gpu string) sizing.Price {
	t.Helper()
	p, ok := s.GPUHourPrice(gpu)
	if !ok {
		t.Fatalf("no price for %s", gpu)
	}
	return p
}

// TestCheapestRanksFreshFirst: a stale price never beats a fresh one, and
// of two stale ones the more recent wins; the case is a 334-day
// old $0.85 A100 row against a 67-day old $1.39 one.
func TestCheapestRanksFreshFirst(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	o := func(provider string, usd float64, age time.Duration, m Market) Offer {
		return Offer{Provider: provider, InstanceType: provider, GPU: "a100-80", GPUCount: 1, Market: m,
			USDPerHour: usd, USDPerGPUHour: usd, ObservedAt: now.Add(-age), Samples: 1}
	}
	day := 24 * time.Hour
	tests := []struct {
		name   string
		offers []Offer
		market Market
		want   string
	}{
		{"334 days old loses to 67 days old", []Offer{o("tensordock", 0.85, 334*day, MarketOnDemand), o("runpod", 1.39, 67*day, MarketOnDemand)}, MarketOnDemand, "runpod"},
		{"fresh beats a cheaper stale one", []Offer{o("vast", 0.80, 9*time.Hour, MarketOnDemand), o("runpod", 1.39, 2*time.Hour, MarketOnDemand)}, MarketOnDemand, "runpod"},
		{"both fresh: the cheaper", []Offer{o("vast", 0.80, 5*time.Hour, MarketOnDemand), o("runpod", 1.39, 2*time.Hour, MarketOnDemand)}, MarketOnDemand, "vast"},
		{"list price fresh for days", []Offer{o("aws", 3.43, 10*day, MarketOnDemand), o("runpod", 1.39, 13*time.Hour, MarketOnDemand)}, MarketOnDemand, "aws"},
		{"spot stale after two days", []Offer{o("aws", 1.00, 3*day, MarketSpot), o("gcp", 1.50, day, MarketSpot)}, MarketSpot, "gcp"},
		{"stale in the same quarter: the cheaper", []Offer{o("lambda", 1.99, 30*day, MarketOnDemand), o("aws", 2.74, 29*day, MarketOnDemand)}, MarketOnDemand, "lambda"},
		{"a marketplace 67 days old beats a hyperscaler 49 days old at three times the price", []Offer{o("gcp", 10.44, 49*day, MarketOnDemand), o("runpod", 3.59, 67*day, MarketOnDemand)}, MarketOnDemand, "runpod"},
		{"a quarter older loses", []Offer{o("vast", 3.50, 214*day, MarketOnDemand), o("runpod", 3.59, 67*day, MarketOnDemand)}, MarketOnDemand, "runpod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NewSnapshotAt(tt.offers, now).Cheapest("a100-80", tt.market)
			if !ok || got.Provider != tt.want {
				t.Errorf("cheapest %s (%v), want %s", got.Provider, ok, tt.want)
			}
		})
	}
}

// TestPublishedAtAges: a price's age runs from its source's publication
// when that is earlier than the fetch.
func TestPublishedAtAges(t *testing.T) {
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	frozen := time.Date(2024, 5, 13, 0, 0, 0, 0, time.UTC)
	o := Offer{Provider: "aws", Market: MarketSpot, ObservedAt: now, PublishedAt: frozen}
	if !o.AsOf().Equal(frozen) || !o.Stale(now) {
		t.Errorf("AsOf %v, stale %v; want the publication date and stale", o.AsOf(), o.Stale(now))
	}
	o.PublishedAt = now.Add(time.Hour) // a clock ahead of ours: the observation bounds it
	if !o.AsOf().Equal(now) || o.Stale(now) {
		t.Errorf("AsOf %v, stale %v; want the observation time and fresh", o.AsOf(), o.Stale(now))
	}
}

// TestSnapshotSpotAboveOnDemand: a GCP H100 spot price above the same
// instance's on-demand price is flagged and never ranked cheapest, even
// when it is the only spot offer; a RunPod spot offer is matched with the
// on-demand offer of its own tier only.
func TestSnapshotSpotAboveOnDemand(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	mk := func(provider, tier string, m Market, usd float64) Offer {
		return Offer{Provider: provider, InstanceType: "a3-highgpu-1g", GPU: "h100", GPUCount: 1, Market: m, Tier: tier, Region: "us-central1",
			USDPerHour: usd, USDPerGPUHour: usd, ObservedAt: now.Add(-time.Hour)}
	}
	od, spot := mk("gcp", "", MarketOnDemand, 11.06), mk("gcp", "", MarketSpot, 12.10)
	secure, community := mk("runpod", "secure", MarketOnDemand, 3.99), mk("runpod", "community", MarketSpot, 2.99) // below secure, but community's own on-demand is 2.69
	communityOD := mk("runpod", "community", MarketOnDemand, 2.69)
	s := NewSnapshotAt([]Offer{od, spot, secure, community, communityOD}, now)
	if got, ok := s.SpotAbove(spot); !ok || got != od {
		t.Errorf("SpotAbove(gcp spot $12.10) = %+v, %v; want the $11.06 on-demand offer", got, ok)
	}
	if _, ok := s.SpotAbove(community); !ok {
		t.Error("RunPod community spot $2.99 above community on-demand $2.69 is not flagged")
	}
	if _, ok := s.SpotAbove(od); ok {
		t.Error("an on-demand offer is flagged")
	}
	if got, ok := s.Cheapest("h100", MarketSpot); ok {
		t.Errorf("Cheapest spot = %+v; every spot offer is above its own on-demand price, none may rank", got)
	}
	if _, ok := s.ProviderGPUHourPrice("h100", "gcp", true); ok {
		t.Error("gcp's flagged spot offer is quoted as its spot price")
	}
}

// TestSnapshotPassedOver: a cheaper offer past its freshness limit loses
// to a fresher one, and the snapshot says which it passed over.
func TestSnapshotPassedOver(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	vast := Offer{Provider: "vast", InstanceType: "H100 SXM", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Region: "all",
		USDPerHour: 2.40, USDPerGPUHour: 2.40, ObservedAt: now.Add(-2 * 24 * time.Hour)}
	runpod := Offer{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Tier: "secure", Region: "all",
		USDPerHour: 3.99, USDPerGPUHour: 3.99, ObservedAt: now.Add(-time.Hour)}
	s := NewSnapshotAt([]Offer{vast, runpod}, now)
	if got, _ := s.Cheapest("h100", MarketOnDemand); got != runpod {
		t.Errorf("cheapest = %+v, want RunPod's fresh $3.99", got)
	}
	if got, ok := s.PassedOver("h100", MarketOnDemand); !ok || got != vast {
		t.Errorf("PassedOver = %+v, %v; want Vast's stale $2.40", got, ok)
	}
	fresh := NewSnapshotAt([]Offer{vast, runpod}, now.Add(-2*24*time.Hour+time.Hour))
	if _, ok := fresh.PassedOver("h100", MarketOnDemand); ok {
		t.Error("a fresh cheapest offer passed nothing over")
	}
}
