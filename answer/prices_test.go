package answer

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
)

func offer(gpu string, m pricing.Market, usd float64) pricing.Offer {
	return pricing.Offer{Provider: "test", GPU: gpu, GPUCount: 1, Market: m, USDPerHour: usd, USDPerGPUHour: usd}
}

// TestCompare: each GPU's cheapest whole-GPU offer, on-demand first, and
// the cheaper by how much.
func TestCompare(t *testing.T) {
	h100 := []pricing.Offer{offer("h100", pricing.MarketOnDemand, 2.0), offer("h100", pricing.MarketSpot, 1.0)}
	h200 := []pricing.Offer{offer("h200", pricing.MarketOnDemand, 2.5)}
	c := Compare("h200", "h100", h200, h100)
	if c.Cheaper != 1 || c.USDPerGPUHour != 0.5 || c.Pct != 20 || c.Best[1].Market != pricing.MarketOnDemand {
		t.Errorf("h200 vs h100 = %+v, want the h100 cheaper by $0.50 (20%%), on demand", c)
	}
	if c := Compare("h100", "h100", h100, h100); c.Cheaper != -1 || c.Best[0] == nil {
		t.Errorf("the same prices: %+v, want no cheaper", c)
	}
	spotOnly := []pricing.Offer{offer("l4", pricing.MarketSpot, 0.3)}
	if c := Compare("l4", "b200", spotOnly, nil); c.Cheaper != -1 || c.Best[0] == nil || c.Best[0].USDPerGPUHour != 0.3 || c.Best[1] != nil {
		t.Errorf("spot only against none: %+v, want the spot offer and no comparison", c)
	}
}

type book struct{ offers []pricing.Offer }

func (b book) CheapestOffers(context.Context) ([]pricing.Offer, error) { return b.offers, nil }
func (b book) OffersForGPU(_ context.Context, gpu string) ([]pricing.Offer, error) {
	var out []pricing.Offer
	for _, o := range b.offers {
		if o.GPU == gpu {
			out = append(out, o)
		}
	}
	return out, nil
}

func TestPrices(t *testing.T) {
	ctx := context.Background()
	s := &Service{}
	if _, err := s.Prices(ctx, reading.Routing{Kind: reading.RoutePrice}); !errors.Is(err, ErrNoPrices) {
		t.Errorf("no price book: %v, want ErrNoPrices", err)
	}
	s.PriceBook = book{[]pricing.Offer{offer("h100", pricing.MarketOnDemand, 2), offer("h200", pricing.MarketOnDemand, 3)}}
	q := s.Read("is the h200 cheaper than the h100 this week?")
	a, err := s.Prices(ctx, q.Route)
	if err != nil || q.Kind() != KindPrices || !a.Week || len(a.Offers) != 2 || a.Compare == nil || a.Compare.Cheaper != 1 {
		t.Errorf("h200 vs h100 this week = %+v, %v", a, err)
	}
	if a, err := s.Prices(ctx, s.Read("gpu prices").Route); err != nil || len(a.Cheapest) != 2 || a.Compare != nil {
		t.Errorf("every GPU = %+v, %v", a, err)
	}
}

// TestSpotPrices: a spot question lists spot offers of every variant of a
// family named alone, and names the GPUs that have none (#31).
func TestSpotPrices(t *testing.T) {
	ctx := context.Background()
	s := &Service{PriceBook: book{[]pricing.Offer{offer("a100-80", pricing.MarketOnDemand, 1.8), offer("a100-40", pricing.MarketSpot, 0.4),
		offer("a100-40", pricing.MarketOnDemand, 1.3), offer("l40s", pricing.MarketOnDemand, 0.8)}}}
	a, err := s.Prices(ctx, s.Read("spot price for a100s").Route)
	if err != nil || !a.Spot || len(a.Offers) != 1 || len(a.Offers[0]) != 1 || a.Offers[0][0].GPU != "a100-40" || len(a.NoSpot) != 0 || len(a.Variants[0]) != 4 {
		t.Errorf("spot a100s = %+v, %v; want the A100 40 GB's spot offer of the family's four variants", a, err)
	}
	q := s.Read("spot price for an l40s")
	a, err = s.Prices(ctx, q.Route)
	if err != nil || len(a.Offers[0]) != 1 || a.Offers[0][0].Market != pricing.MarketOnDemand || len(a.NoSpot) != 1 {
		t.Errorf("spot l40s = %+v, %v; want the on-demand offer and the L40S named", a, err)
	}
	if got, want := NoSpotLine(q.Route, a.NoSpot), "I can't price spot for the L40S 48 GB: no spot offer known; on-demand shown."; got != want {
		t.Errorf("NoSpotLine = %q, want %q", got, want)
	}
	if a, _ := s.Prices(ctx, s.Read("how much is an a100 80gb per hour").Route); len(a.Variants[0]) != 1 || a.Spot {
		t.Errorf("a100 80gb = %+v, want the one variant, on any market", a)
	}
}

// TestProviderPrices: a price question that names providers lists their
// offers only, and says which of them has none for the GPU and who does
// price it (#31: "price of h100 on lambda vs runpod").
func TestProviderPrices(t *testing.T) {
	ctx := context.Background()
	at := func(provider string, o pricing.Offer) pricing.Offer { o.Provider = provider; return o }
	s := &Service{PriceBook: book{[]pricing.Offer{at("runpod", offer("h100", pricing.MarketOnDemand, 2.7)),
		at("aws", offer("h100", pricing.MarketOnDemand, 6.9)), at("lambda", offer("h100", pricing.MarketOnDemand, 4.3)),
		at("aws", offer("t4", pricing.MarketOnDemand, 0.5))}}}
	a, err := s.Prices(ctx, s.Read("price of h100 on lambda vs runpod").Route)
	if err != nil || len(a.Offers) != 1 || len(a.Offers[0]) != 2 || a.Offers[0][0].Provider != "runpod" || a.Offers[0][1].Provider != "lambda" || len(a.NoProvider) != 0 {
		t.Errorf("h100 on lambda vs runpod = %+v, %v; want the runpod and lambda offers only", a, err)
	}
	a, err = s.Prices(ctx, s.Read("t4 price on lambda").Route)
	want := "lambda has no price known for the T4 16 GB (aws prices it: ask without naming a provider)."
	if err != nil || len(a.Offers[0]) != 0 || len(a.NoProvider) != 1 || a.NoProvider[0] != want {
		t.Errorf("t4 on lambda = %+v, %v; want no offer and %q", a, err, want)
	}
}

// at is an on-demand or spot offer of one GPU at a provider.
func at(provider, gpu string, m pricing.Market, usd float64, n float64) pricing.Offer {
	return pricing.Offer{Provider: provider, GPU: gpu, GPUCount: n, Market: m, USDPerHour: usd * n, USDPerGPUHour: usd}
}

// TestPricesAtProviders, on the sheet's H100 rows: spot at a provider
// with none lists its on-demand offers and says who has spot; two
// providers for one card are priced a month each, cheaper first;
// reserved asked with none known is said first.
func TestPricesAtProviders(t *testing.T) {
	ctx := context.Background()
	s := &Service{PriceBook: book{[]pricing.Offer{
		at("runpod", "h100", pricing.MarketOnDemand, 2.69, 1), at("runpod", "h100", pricing.MarketOnDemand, 3.99, 1),
		at("lambda", "h100", pricing.MarketOnDemand, 3.99, 8), at("gcp", "h100", pricing.MarketSpot, 6.571, 1),
	}}}
	q := s.Read("h100 spot on runpod for 10 hours how much")
	a, err := s.Prices(ctx, q.Route)
	if err != nil || len(a.NoProvider) != 0 || len(a.Offers[0]) != 2 || a.Offers[0][0].Provider != "runpod" {
		t.Fatalf("h100 spot on runpod = %+v, %v; want RunPod's two on-demand offers", a, err)
	}
	if got, want := NoSpotLine(q.Route, a.NoSpot), "I can't price spot for any H100: no spot offer known at runpod; on-demand shown."; got != want {
		t.Errorf("NoSpotLine = %q, want %q", got, want)
	}
	if want := []string{"gcp has spot for any H100: $6.57/GPU-h, $65.71 for 10 hours (ask without naming a provider)."}; !slices.Equal(a.Elsewhere, want) {
		t.Errorf("Elsewhere = %q, want %q", a.Elsewhere, want)
	}
	if got := MonthLine(a); !strings.HasPrefix(got, "For 10 hours: 1× H100 SXM 80 GB $26.90 at runpod.") {
		t.Errorf("MonthLine = %q, want RunPod's 10 hours at $2.69", got)
	}

	q = s.Read("how much does 8x h100 cost per month on lambda vs runpod")
	if a, err = s.Prices(ctx, q.Route); err != nil || len(a.Month) != 2 || a.Month[0].Offer.Provider != "runpod" || a.Month[1].Offer.Provider != "lambda" {
		t.Fatalf("8x h100 on lambda vs runpod: months %+v, %v; want runpod then lambda", a.Month, err)
	}
	if got, want := MonthLine(a), "runpod is cheaper: $7,592 a month less than lambda (33%)."; !strings.HasSuffix(got, want) {
		t.Errorf("MonthLine = %q, want it to end %q", got, want)
	}

	q = s.Read("reserved vs on demand h100 pricing, which is cheaper for 3 months")
	if a, err = s.Prices(ctx, q.Route); err != nil || !a.NoReserved || len(a.Month) != 1 {
		t.Fatalf("reserved vs on demand = %+v, %v", a, err)
	}
	if got := NoReservedLine(a); !strings.HasPrefix(got, "No reserved or committed-use price known: on-demand shown") {
		t.Errorf("NoReservedLine = %q", got)
	}
}

// TestPowerLine: "electricity cost of running 8 h100s for a month" is
// the cards' power, not their rent: 8 × 700 W for 730 h
// is 4,088 kWh, $613 at $0.15/kWh; no power asked, no line.
func TestPowerLine(t *testing.T) {
	r := reading.Route("electricity cost of running 8 h100s for a month")
	if r.Kind != reading.RoutePrice || !r.Power {
		t.Fatalf("routed %v, power %v; want a price question about power", r.Kind, r.Power)
	}
	got := PowerLine(r, 0, "")
	for _, want := range []string{"8× H100 SXM 80 GB draw up to 5.6 kW", "4,088 kWh over a month around the clock", "$613 at $0.15/kWh"} {
		if !strings.Contains(got, want) {
			t.Errorf("PowerLine = %q, want %q in it", got, want)
		}
	}
	if line := PowerLine(reading.Route("monthly cost of 8x h100"), 0, ""); line != "" {
		t.Errorf("rent asked: %q, want no power line", line)
	}
}
