package pricing

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// The price sanity check (docs/prices.md): an offer whose price per
// GPU-hour no one renting the card can sustain, or no one would pay, is
// held aside instead of quoted, until a second refresh sees it again at
// about the same price. The bounds come from the card's economics, not
// from whatever else is current, so a new provider's real prices are not
// held for being far from the first provider's:
//
//   - the floor is what owning the card costs per hour (bounds.go): its
//     lowest purchase price amortised over OwnLifeYears plus its board
//     power at OwnUSDPerKWh, times FloorShare;
//   - the ceiling is CeilingFactor times the dearest on-demand list price
//     of the card (the default sheet and every current offer), or without
//     one, the purchase price over PaybackHours;
//   - where SpreadProviders or more providers price the card in the
//     market, the band narrows to SpreadFactor below the cheapest and above
//     the dearest of them.
const (
	// SanityConfirmTolerance is how close (as a ratio) a second refresh's
	// price must be to the held one to confirm it: within 25%.
	SanityConfirmTolerance = 0.25
)

// Hold is an offer held aside by the sanity check: not stored as a
// price, named in the refresh's report and the digest.
//
// A Hold read back from the store carries what the store keeps: the
// offer's GPU, market, instance type, region and price per GPU-hour, its
// key, the median and the reason in words; the band and the other offer
// fields are zero.
type Hold struct {
	Refresh string // the provider refresh (fetcher name) that held it
	Offer   Offer
	// OfferKey is the offer's identity, the same from run to run.
	OfferKey string
	// MedianUSDPerGPUHour is the median of the providers' prices of the
	// card, or where none prices it the bound the offer crossed; [LowUSD,
	// HighUSD] are the bounds it fell outside (bounds.go).
	MedianUSDPerGPUHour, LowUSD, HighUSD float64
	Voices                               int       // providers the median is over (one price each)
	Why                                  string    // the reason in one line (Reason)
	HeldAt                               time.Time // when a refresh first held the offer
	LastHeldAt                           time.Time // the latest refresh that held it
}

// newHold is the hold of o, which fell outside b.
func newHold(provider string, o Offer, b Bounds, now time.Time) Hold {
	why, ref := b.FloorWhy, b.Floor
	if o.USDPerGPUHour > b.Ceiling {
		why, ref = b.CeilingWhy, b.Ceiling
	}
	if b.Voices > 0 {
		ref = b.Median
	}
	return Hold{Refresh: provider, Offer: o, OfferKey: o.key(), MedianUSDPerGPUHour: ref, LowUSD: b.Floor, HighUSD: b.Ceiling, Voices: b.Voices,
		Why:    fmt.Sprintf("%s %s %s: $%.4g/GPU-h is %s", o.GPU, o.InstanceType, o.Region, o.USDPerGPUHour, why),
		HeldAt: now, LastHeldAt: now}
}

// Reason says in one line why the offer is held.
func (h Hold) Reason() string { return h.Why }

// Key is the held offer's identity: the same offer from run to run.
func (h Hold) Key() string { return h.OfferKey }

// HoldStore is a Sink that keeps held offers and gives the reference
// prices; the store is one. A Refresher whose Sink is not one checks no
// price beyond the flat per-GPU bounds.
type HoldStore interface {
	// CurrentOffers returns every provider's current offers.
	CurrentOffers(ctx context.Context) ([]Offer, error)
	// PriceHolds returns the provider's held offers.
	PriceHolds(ctx context.Context, provider string) ([]Hold, error)
	// ReplacePriceHolds makes holds the provider's held offers, as of run.
	ReplacePriceHolds(ctx context.Context, provider string, runID int64, holds []Hold) error
}

// gpuMarket is one GPU in one market.
type gpuMarket struct {
	gpu    string
	market Market
}

// Reference is what the bounds of every GPU and market are drawn from:
// the providers' current prices and the list prices.
type Reference struct {
	voices map[gpuMarket][]float64 // one price per provider (its median)
	list   map[string]float64      // the dearest on-demand price per GPU, the default sheet's included
}

// NewReference builds the reference from the current offers and the
// fallback sheet's offers (nil for none). Fractional offers (part of a
// GPU) are priced per whole GPU-hour like any other. The sheet gives list
// prices, not a provider's voice: its rows are dated points.
func NewReference(current, fallback []Offer) Reference {
	byProvider := map[gpuMarket]map[string][]float64{}
	ref := Reference{voices: map[gpuMarket][]float64{}, list: map[string]float64{}}
	for _, o := range current {
		k := gpuMarket{o.GPU, o.Market}
		if byProvider[k] == nil {
			byProvider[k] = map[string][]float64{}
		}
		byProvider[k][o.Provider] = append(byProvider[k][o.Provider], o.USDPerGPUHour)
	}
	for _, o := range slices.Concat(current, fallback) {
		if o.Market == MarketOnDemand {
			ref.list[o.GPU] = max(ref.list[o.GPU], o.USDPerGPUHour)
		}
	}
	for k, providers := range byProvider {
		for _, prices := range providers {
			ref.voices[k] = append(ref.voices[k], Median(prices))
		}
		slices.Sort(ref.voices[k])
	}
	return ref
}

// Judge splits the offers a provider's refresh fetched into those to store and those
// to hold aside. held are the provider's offers held by earlier
// refreshes: one seen again within SanityConfirmTolerance of its held
// price is confirmed and stored. Offers inside their bounds are stored.
func (r Reference) Judge(provider string, offers []Offer, held []Hold, now time.Time) (keep []Offer, holds []Hold, confirmed int) {
	before := make(map[string]Hold, len(held))
	for _, h := range held {
		before[h.Key()] = h
	}
	for _, o := range offers {
		b := r.Bounds(o.GPU, o.Market)
		if o.USDPerGPUHour >= b.Floor && o.USDPerGPUHour <= b.Ceiling {
			keep = append(keep, o)
			continue
		}
		h, was := before[o.key()]
		if was && math.Abs(o.USDPerGPUHour/h.Offer.USDPerGPUHour-1) <= SanityConfirmTolerance {
			keep = append(keep, o)
			confirmed++
			continue
		}
		hold := newHold(provider, o, b, now)
		if was {
			hold.HeldAt = h.HeldAt // held before at another price: still held, since then
		}
		holds = append(holds, hold)
	}
	slices.SortFunc(holds, func(a, b Hold) int {
		return cmp.Or(cmp.Compare(a.Offer.GPU, b.Offer.GPU), cmp.Compare(a.Offer.USDPerGPUHour, b.Offer.USDPerGPUHour), cmp.Compare(a.Key(), b.Key()))
	})
	return keep, holds, confirmed
}
