package answer

import (
	"context"
	"errors"
	"fmt"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// PriceBook lists current GPU prices; *store.DB is one.
type PriceBook interface {
	// CheapestOffers returns the cheapest current offer per GPU and market.
	CheapestOffers(ctx context.Context) ([]pricing.Offer, error)
	// OffersForGPU returns every current offer for one catalog GPU id.
	OffersForGPU(ctx context.Context, gpu string) ([]pricing.Offer, error)
}

// ErrNoPrices is the error of a price question on a Service without a
// PriceBook.
var ErrNoPrices = errors.New("prices are not available on this fitbot")

// PriceAnswer is the answer to a price question (KindPrices): every
// GPU's cheapest offers when the question names none, else each named
// GPU's offers, and for two named GPUs which is cheaper.
type PriceAnswer struct {
	// GPUs are the catalog ids named, in the order said; none: every GPU.
	GPUs []string
	// Week: the question asked about the week, which the weekly
	// digest's moves answer (these are today's prices).
	Week bool
	// Cheapest is the cheapest offer per GPU and market (no GPU named).
	Cheapest []pricing.Offer
	// Offers are each named GPU's offers, in the order of GPUs.
	Offers [][]pricing.Offer
	// Compare is set when two GPUs were named.
	Compare *Comparison
}

// Comparison is two GPUs' prices compared: each one's cheapest whole-GPU
// offer, on-demand where there is one.
type Comparison struct {
	GPUs [2]string
	// Best are the two offers compared; nil where no price is known.
	Best [2]*pricing.Offer
	// Cheaper is the index (0 or 1) of the cheaper GPU, or -1 when both
	// cost the same or are not both priced.
	Cheaper int
	// USDPerGPUHour is how much less the cheaper costs per GPU-hour, and
	// Pct that as a percentage of the dearer's price.
	USDPerGPUHour float64
	Pct           float64
}

// Prices answers a price question routed as r.
func (s *Service) Prices(ctx context.Context, r sizing.Routing) (PriceAnswer, error) {
	if s.PriceBook == nil {
		return PriceAnswer{}, ErrNoPrices
	}
	a := PriceAnswer{GPUs: r.GPUs, Week: r.Week}
	if len(r.GPUs) == 0 {
		offers, err := s.PriceBook.CheapestOffers(ctx)
		if err != nil {
			return PriceAnswer{}, fmt.Errorf("cheapest offers: %w", err)
		}
		a.Cheapest = offers
		return a, nil
	}
	for _, gpu := range r.GPUs {
		offers, err := s.PriceBook.OffersForGPU(ctx, gpu)
		if err != nil {
			return PriceAnswer{}, fmt.Errorf("offers for %s: %w", gpu, err)
		}
		a.Offers = append(a.Offers, offers)
	}
	if len(r.GPUs) >= 2 {
		c := Compare(r.GPUs[0], r.GPUs[1], a.Offers[0], a.Offers[1])
		a.Compare = &c
	}
	return a, nil
}

// Compare compares the cheapest whole-GPU offers (on-demand where there
// is one) of GPUs a and b.
func Compare(a, b string, offersA, offersB []pricing.Offer) Comparison {
	c := Comparison{GPUs: [2]string{a, b}, Cheaper: -1}
	for i, offers := range [][]pricing.Offer{offersA, offersB} {
		if o, ok := CheapestOnDemand(offers); ok {
			c.Best[i] = &o
		}
	}
	if c.Best[0] == nil || c.Best[1] == nil {
		return c
	}
	pa, pb := c.Best[0].USDPerGPUHour, c.Best[1].USDPerGPUHour
	switch {
	case pa < pb:
		c.Cheaper, c.USDPerGPUHour, c.Pct = 0, pb-pa, 100*(pb-pa)/pb
	case pb < pa:
		c.Cheaper, c.USDPerGPUHour, c.Pct = 1, pa-pb, 100*(pa-pb)/pa
	}
	return c
}

// CheapestOnDemand is the cheapest whole-GPU on-demand offer (any market
// when there is no on-demand one); ok is false when there is no offer.
func CheapestOnDemand(offers []pricing.Offer) (pricing.Offer, bool) {
	var best pricing.Offer
	found := false
	for _, onDemandOnly := range []bool{true, false} {
		for _, o := range offers {
			if o.Fractional() || (onDemandOnly && o.Market != pricing.MarketOnDemand) {
				continue
			}
			if !found || o.USDPerGPUHour < best.USDPerGPUHour {
				best, found = o, true
			}
		}
		if found {
			return best, true
		}
	}
	return best, false
}
