package pricing

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

//go:embed data/default_prices.csv
var defaultSheetCSV []byte

// DefaultSheetName is the name the embedded default sheet goes by in
// errors and in each offer's Source.
const DefaultSheetName = "default_prices.csv"

var defaultSheet = sync.OnceValue(func() *Snapshot {
	offers, err := ParseSheet(bytes.NewReader(defaultSheetCSV), SheetOptions{Name: DefaultSheetName})
	if err != nil {
		// The file is compiled in and checked by TestDefaultSheet; a bad
		// one is a build defect, not a runtime condition.
		panic(fmt.Sprintf("pricing: embedded %v", err))
	}
	newest := time.Time{}
	for i := range offers {
		offers[i].Source = "default sheet: " + offers[i].Source
		newest = maxTime(newest, offers[i].ObservedAt)
	}
	// The sheet ranks its rows as of one list-price period after its
	// newest row, so that its answers do not drift as the clock moves and
	// no row of a sheet of dated points counts as fresh: within a quarter
	// the cheaper wins. Its age is shown with every answer.
	return NewSnapshotAt(offers, newest.Add(ListPriceMaxAge+24*time.Hour))
})

// DefaultSheet returns the embedded default price sheet: dated, sourced
// prices that let a machine with no network and an empty store still
// answer with a cost, and say how old it is. The snapshot is shared and
// must not be modified.
func DefaultSheet() *Snapshot { return defaultSheet() }

// Snapshot is a fixed set of offers indexed for fast lookups. It
// implements sizing.PriceSource with the cheapest on-demand price of one
// full GPU-hour, and sizing.SpotPriceSource with the cheapest spot one;
// "cheapest" ranks fresh prices first (Offer.Stale at the snapshot's
// time), so a stale price never beats a fresh one. A Snapshot is safe for
// concurrent use.
type Snapshot struct {
	offers   []Offer
	cheapest map[cheapKey]Offer
	// spotAbove is, by spot offer (Offer.key), the on-demand offer of the
	// same instance that costs less: a spot price above its own on-demand
	// price is a source's mistake or a stale spot figure, flagged and never
	// ranked cheapest.
	spotAbove map[string]Offer
	// passedOver is, by GPU and market, the cheapest stale offer that is
	// cheaper than the fresher one ranked cheapest.
	passedOver map[cheapKey]Offer
	at         time.Time
}

type cheapKey struct {
	gpu    string
	market Market
}

// NewSnapshot indexes offers, judging freshness now. It keeps its own
// copy of the slice.
func NewSnapshot(offers []Offer) *Snapshot { return NewSnapshotAt(offers, time.Now()) }

// NewSnapshotAt indexes offers, judging their freshness at now. It keeps
// its own copy of the slice.
func NewSnapshotAt(offers []Offer, now time.Time) *Snapshot {
	s := &Snapshot{offers: slices.Clone(offers), cheapest: make(map[cheapKey]Offer), spotAbove: map[string]Offer{},
		passedOver: map[cheapKey]Offer{}, at: now}
	onDemand := map[string]Offer{}
	for _, o := range s.offers {
		if o.Market == MarketOnDemand {
			onDemand[o.instanceKey()] = o
		}
	}
	for _, o := range s.offers {
		if od, ok := onDemand[o.instanceKey()]; ok && o.Market == MarketSpot && o.USDPerGPUHour > od.USDPerGPUHour {
			s.spotAbove[o.key()] = od
		}
	}
	for _, o := range s.offers {
		if o.Fractional() || o.USDPerGPUHour <= 0 {
			continue
		}
		if _, flagged := s.spotAbove[o.key()]; flagged {
			continue
		}
		k := cheapKey{o.GPU, o.Market}
		if cur, ok := s.cheapest[k]; !ok || better(o, cur, now) {
			s.cheapest[k] = o
		}
	}
	for _, o := range s.offers {
		k := cheapKey{o.GPU, o.Market}
		win := s.cheapest[k]
		if o.Fractional() || !o.Stale(now) || win.Stale(now) || !cheaper(o, win) {
			continue
		}
		if _, flagged := s.spotAbove[o.key()]; flagged {
			continue
		}
		if cur, ok := s.passedOver[k]; !ok || cheaper(o, cur) {
			s.passedOver[k] = o
		}
	}
	return s
}

// instanceKey is the offer's identity less its market: a spot offer and
// the on-demand offer of the same instance share it.
func (o Offer) instanceKey() string {
	o.Market = ""
	return o.key()
}

// SpotAbove returns the on-demand offer of the same instance (provider,
// instance type, region, tier, GPUs) that the spot offer o costs more
// than; false when o is not such a spot offer. Such a spot offer is
// flagged wherever it is listed and never ranked cheapest.
func (s *Snapshot) SpotAbove(o Offer) (Offer, bool) {
	od, ok := s.spotAbove[o.key()]
	return od, ok
}

// PassedOver returns the cheapest stale offer of gpu in market m that is
// cheaper than the fresh offer ranked cheapest (Cheapest): the one
// freshness rule (Offer.Stale at the snapshot's time) made a fresher
// source win; false when no cheaper offer was passed over.
func (s *Snapshot) PassedOver(gpu string, m Market) (Offer, bool) {
	o, ok := s.passedOver[cheapKey{gpu, m}]
	return o, ok
}

// better ranks a above b: a fresh price above a stale one; of two stale
// prices the more recent by whole quarters (a year-old bargain is not a
// price: 334 days old loses to 67 days old, but a marketplace's 67-day-old
// $3.59 is not beaten by a hyperscaler's 49-day-old $10.44); otherwise the
// cheaper.
func better(a, b Offer, now time.Time) bool {
	ea, eb := staleness(a, now), staleness(b, now)
	if ea != eb {
		return ea < eb
	}
	return cheaper(a, b)
}

// CompareOffers orders two offers of one GPU the way "cheapest" ranks
// them at now: negative when a ranks first. Fresh before stale, stale by
// recency in whole quarters, then by price per GPU-hour (ties broken
// by provider, region and instance type).
func CompareOffers(a, b Offer, now time.Time) int {
	switch {
	case better(a, b, now):
		return -1
	case better(b, a, now):
		return 1
	}
	return 0
}

// staleQuarter is the yardstick of recency among stale prices: within one,
// the cheaper wins, since list prices change by the quarter and a price
// board of mixed ages should still name the cheap cloud.
const staleQuarter = 90 * 24 * time.Hour

// staleness is 0 for a fresh offer at now, else 1 plus its age in whole
// quarters: one yardstick for every stale price, whatever its provider's
// own limit.
func staleness(o Offer, now time.Time) int64 {
	if !o.Stale(now) {
		return 0
	}
	return 1 + int64(max(o.Age(now), 0)/staleQuarter)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// At is the time the snapshot judges freshness at.
func (s *Snapshot) At() time.Time { return s.at }

// cheaper orders offers by price per GPU-hour, breaking ties by provider,
// region and instance type so that answers are deterministic.
func cheaper(a, b Offer) bool {
	if a.USDPerGPUHour != b.USDPerGPUHour {
		return a.USDPerGPUHour < b.USDPerGPUHour
	}
	if a.Provider != b.Provider {
		return a.Provider < b.Provider
	}
	if a.Region != b.Region {
		return a.Region < b.Region
	}
	return a.InstanceType < b.InstanceType
}

// Offers returns every offer in the snapshot. The slice is shared and must
// not be modified.
func (s *Snapshot) Offers() []Offer { return s.offers }

// Len is the number of offers in the snapshot.
func (s *Snapshot) Len() int { return len(s.offers) }

// Cheapest returns the cheapest offer of whole GPUs of one kind in one
// market, by price per GPU-hour. Fractional GPUs never win.
func (s *Snapshot) Cheapest(gpu string, m Market) (Offer, bool) {
	o, ok := s.cheapest[cheapKey{gpu, m}]
	return o, ok
}

// GPUHourPrice implements sizing.PriceSource: the cheapest on-demand price
// of one full GPU-hour of gpu, and where it came from.
func (s *Snapshot) GPUHourPrice(gpu string) (sizing.Price, bool) {
	o, ok := s.Cheapest(gpu, MarketOnDemand)
	if !ok {
		return sizing.Price{}, false
	}
	return o.Price(), true
}

// SpotGPUHourPrice implements sizing.SpotPriceSource: the cheapest spot
// (interruptible) price of one full GPU-hour of gpu, and where it came
// from.
func (s *Snapshot) SpotGPUHourPrice(gpu string) (sizing.Price, bool) {
	o, ok := s.Cheapest(gpu, MarketSpot)
	if !ok {
		return sizing.Price{}, false
	}
	return o.Price(), true
}

// ProviderGPUHourPrice implements sizing.ProviderPriceSource: one
// provider's cheapest on-demand (or, when spot is true, spot) price of
// one full GPU-hour of gpu, ranked as Cheapest ranks.
func (s *Snapshot) ProviderGPUHourPrice(gpu, provider string, spot bool) (sizing.Price, bool) {
	market := MarketOnDemand
	if spot {
		market = MarketSpot
	}
	var best Offer
	found := false
	for _, o := range s.offers {
		if o.GPU != gpu || o.Provider != provider || o.Market != market || o.Fractional() || o.USDPerGPUHour <= 0 {
			continue
		}
		if _, flagged := s.spotAbove[o.key()]; flagged {
			continue
		}
		if !found || better(o, best, s.at) {
			best, found = o, true
		}
	}
	if !found {
		return sizing.Price{}, false
	}
	return best.Price(), true
}

// Oldest returns the as-of time (Offer.AsOf) of the oldest offer, the
// honest age of the snapshot as a whole; zero for an empty snapshot.
func (s *Snapshot) Oldest() time.Time {
	var t time.Time
	for _, o := range s.offers {
		if t.IsZero() || o.AsOf().Before(t) {
			t = o.AsOf()
		}
	}
	return t
}

// Newest returns the as-of time of the newest offer; zero for an empty
// snapshot.
func (s *Snapshot) Newest() time.Time {
	var t time.Time
	for _, o := range s.offers {
		if o.AsOf().After(t) {
			t = o.AsOf()
		}
	}
	return t
}

// Price is the offer as the estimator sees it: one GPU-hour and where it
// came from.
func (o Offer) Price() sizing.Price {
	return sizing.Price{
		USDPerGPUHour: o.USDPerGPUHour,
		Provider:      o.Provider,
		Market:        string(o.Market),
		Region:        o.Region,
		AsOf:          o.AsOf(),
	}
}

// Chain is a sizing.PriceSource that answers from the first of its sources
// that knows a price, e.g. the store's current prices, then the default
// sheet. It is a sizing.SpotPriceSource too, answering the same way from
// those of its sources that know spot prices.
type Chain []sizing.PriceSource

// GPUHourPrice implements sizing.PriceSource.
func (c Chain) GPUHourPrice(gpu string) (sizing.Price, bool) {
	for _, s := range c {
		if s == nil {
			continue
		}
		if p, ok := s.GPUHourPrice(gpu); ok {
			return p, true
		}
	}
	return sizing.Price{}, false
}

// SpotGPUHourPrice implements sizing.SpotPriceSource: the spot price of
// the first source that implements it and knows one for gpu.
func (c Chain) SpotGPUHourPrice(gpu string) (sizing.Price, bool) {
	for _, s := range c {
		sp, ok := s.(sizing.SpotPriceSource)
		if !ok {
			continue
		}
		if p, ok := sp.SpotGPUHourPrice(gpu); ok {
			return p, true
		}
	}
	return sizing.Price{}, false
}

// ProviderGPUHourPrice implements sizing.ProviderPriceSource: the price
// of the first source that implements it and knows one for gpu at
// provider.
func (c Chain) ProviderGPUHourPrice(gpu, provider string, spot bool) (sizing.Price, bool) {
	for _, s := range c {
		pp, ok := s.(sizing.ProviderPriceSource)
		if !ok {
			continue
		}
		if p, ok := pp.ProviderGPUHourPrice(gpu, provider, spot); ok {
			return p, true
		}
	}
	return sizing.Price{}, false
}

// CheapestPerGPU returns, for every GPU in the snapshot, its cheapest
// on-demand offer of whole GPUs and its cheapest spot offer (each where
// one exists), ordered by GPU id, on-demand first.
func (s *Snapshot) CheapestPerGPU() []Offer {
	out := make([]Offer, 0, len(s.cheapest))
	for k, o := range s.cheapest {
		if k.market == MarketOnDemand || k.market == MarketSpot {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b Offer) int {
		if c := strings.Compare(a.GPU, b.GPU); c != 0 {
			return c
		}
		return strings.Compare(string(a.Market), string(b.Market))
	})
	return out
}
