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
// GPU-hour is far from what its GPU costs in its market elsewhere and
// lately is held aside instead of quoted, until a second refresh sees it
// again at about the same price.
//
// The reference for a GPU in a market is one price per provider: the
// median of that provider's current offers (every provider's latest good
// run, which for the refreshing provider is its previous refresh), and
// the default sheet's price as one more voice. Over those, in log space
// (prices are compared by ratio): m = median, MAD = median |ln p - m|;
// an offer is held when |ln price - m| > max(ln SanityMinFactor,
// SanityMADs × 1.4826 × MAD). 1.4826 × MAD estimates the standard
// deviation of normal data; the floor keeps a market where every voice
// agrees from holding ordinary moves.
const (
	// SanityMinFactor is the smallest band: an offer within a factor of
	// 4 of the median is never held.
	SanityMinFactor = 4.0
	// SanityMADs is the band's width in robust standard deviations.
	SanityMADs = 3.0
	// SanityConfirmTolerance is how close (as a ratio) a second refresh's
	// price must be to the held one to confirm it: within 25%.
	SanityConfirmTolerance = 0.25
)

// madScale turns a median absolute deviation into an estimate of the
// standard deviation of normal data (1/Φ⁻¹(3/4)).
const madScale = 1.4826

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
	// MedianUSDPerGPUHour is the reference the offer was judged against,
	// and [LowUSD, HighUSD] the band it fell outside.
	MedianUSDPerGPUHour, LowUSD, HighUSD float64
	Voices                               int       // prices the median is over (one per provider, the default sheet)
	Why                                  string    // the reason in one line (Reason)
	HeldAt                               time.Time // when a refresh first held the offer
	LastHeldAt                           time.Time // the latest refresh that held it
}

// newHold is the hold of o, judged against the band [low, high] around
// med over voices prices.
func newHold(provider string, o Offer, med, low, high float64, voices int, now time.Time) Hold {
	side := "below"
	if o.USDPerGPUHour > high {
		side = "above"
	}
	return Hold{Refresh: provider, Offer: o, OfferKey: o.key(), MedianUSDPerGPUHour: med, LowUSD: low, HighUSD: high, Voices: voices,
		Why: fmt.Sprintf("%s %s %s: $%.4g/GPU-h is %s the $%.4g-$%.4g band around the median $%.4g of %d sources",
			o.GPU, o.InstanceType, o.Region, o.USDPerGPUHour, side, low, high, med, voices),
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

// Reference is the reference prices of every GPU and market.
type Reference struct {
	voices map[gpuMarket][]float64 // one price per provider, and the default sheet's
}

// NewReference builds the reference from the current offers and the
// fallback sheet's offers (nil for none). Fractional offers (part of a
// GPU) are priced per whole GPU-hour like any other.
func NewReference(current, fallback []Offer) Reference {
	byProvider := map[gpuMarket]map[string][]float64{}
	add := func(o Offer) {
		k := gpuMarket{o.GPU, o.Market}
		if byProvider[k] == nil {
			byProvider[k] = map[string][]float64{}
		}
		byProvider[k][o.Provider] = append(byProvider[k][o.Provider], o.USDPerGPUHour)
	}
	for _, o := range current {
		add(o)
	}
	for _, o := range fallback {
		o.Provider = "\x00sheet" // one voice, whatever the sheet calls its sources
		add(o)
	}
	ref := Reference{voices: map[gpuMarket][]float64{}}
	for k, providers := range byProvider {
		for _, prices := range providers {
			ref.voices[k] = append(ref.voices[k], median(prices))
		}
	}
	return ref
}

// Band is the range of plausible prices per GPU-hour for a GPU in a
// market, around median, over voices prices; ok is false when nothing
// prices it yet (no judgement: the flat bounds alone apply).
func (r Reference) Band(gpu string, m Market) (low, high, med float64, voices int, ok bool) {
	vs := r.voices[gpuMarket{gpu, m}]
	if len(vs) == 0 {
		return 0, 0, 0, 0, false
	}
	logs := make([]float64, len(vs))
	for i, v := range vs {
		logs[i] = math.Log(v)
	}
	mid := median(logs)
	devs := make([]float64, len(logs))
	for i, l := range logs {
		devs[i] = math.Abs(l - mid)
	}
	width := max(math.Log(SanityMinFactor), SanityMADs*madScale*median(devs))
	return math.Exp(mid - width), math.Exp(mid + width), math.Exp(mid), len(vs), true
}

// Judge splits the offers a provider's refresh fetched into those to store and those
// to hold aside. held are the provider's offers held by earlier
// refreshes: one seen again within SanityConfirmTolerance of its held
// price is confirmed and stored. Offers inside their band are stored.
func (r Reference) Judge(provider string, offers []Offer, held []Hold, now time.Time) (keep []Offer, holds []Hold, confirmed int) {
	before := make(map[string]Hold, len(held))
	for _, h := range held {
		before[h.Key()] = h
	}
	for _, o := range offers {
		low, high, med, voices, ok := r.Band(o.GPU, o.Market)
		if !ok || (o.USDPerGPUHour >= low && o.USDPerGPUHour <= high) {
			keep = append(keep, o)
			continue
		}
		h, was := before[o.key()]
		if was && math.Abs(o.USDPerGPUHour/h.Offer.USDPerGPUHour-1) <= SanityConfirmTolerance {
			keep = append(keep, o)
			confirmed++
			continue
		}
		hold := newHold(provider, o, med, low, high, voices, now)
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
