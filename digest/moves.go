package digest

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/pricing"
)

// offerID is an offer's identity across observations.
type offerID struct {
	provider, instance, gpu string
	count                   float64
	region                  string
	market                  pricing.Market
	tier                    string
}

// figure is one offer's price in one week.
type figure struct {
	offer pricing.Offer // the observation the figure stands for; its prices are the week's
	thin  bool          // a marketplace row with too few offers: not compared
}

// week is every offer's figure in one week, and the providers observed.
type week struct {
	figures   map[offerID]figure
	providers map[string]bool
}

// latest is the newest observation among the week's figures: the time
// the week's prices are judged fresh or stale at.
func (w week) latest() time.Time {
	var t time.Time
	for _, f := range w.figures {
		if f.offer.ObservedAt.After(t) {
			t = f.offer.ObservedAt
		}
	}
	return t
}

// offers are the week's figures that are compared (thin ones left out),
// in a fixed order: the prices plans are re-priced with, so that the
// plans agree with the moves and the cheapest table beside them.
func (w week) offers() []pricing.Offer {
	var out []pricing.Offer
	for _, f := range w.figures {
		if !f.thin {
			out = append(out, f.offer)
		}
	}
	slices.SortFunc(out, func(a, b pricing.Offer) int { return compareIDs(idOf(a), idOf(b)) })
	return out
}

// weekFigures reduces the observations to one figure per offer and week:
// the latest observation for a list price, the median of the week's
// observations for a marketplace row, thin when none of them had enough
// offers behind it. A marketplace's minimum rows (vast "verified-min")
// are not compared: the cheapest single host is noise week to week.
func weekFigures(obs []pricing.Offer, prevStart, start, end time.Time, cfg Config) (prev, cur week) {
	prev = week{figures: map[offerID]figure{}, providers: map[string]bool{}}
	cur = week{figures: map[offerID]figure{}, providers: map[string]bool{}}
	type series struct {
		latest pricing.Offer
		prices []float64
		perHr  []float64
		n      []int
	}
	acc := [2]map[offerID]*series{{}, {}}
	weeks := [2]*week{&prev, &cur}
	for _, o := range obs {
		i := 0
		switch {
		case o.ObservedAt.Before(prevStart) || !o.ObservedAt.Before(end):
			continue
		case !o.ObservedAt.Before(start):
			i = 1
		}
		weeks[i].providers[o.Provider] = true
		id := idOf(o)
		s := acc[i][id]
		if s == nil {
			s = &series{}
			acc[i][id] = s
		}
		if s.latest.ObservedAt.IsZero() || !o.ObservedAt.Before(s.latest.ObservedAt) {
			s.latest = o
		}
		if o.Samples >= cfg.MinSamples {
			s.prices = append(s.prices, o.USDPerGPUHour)
			s.perHr = append(s.perHr, o.USDPerHour)
			s.n = append(s.n, o.Samples)
		}
	}
	for i, w := range weeks {
		for id, s := range acc[i] {
			switch {
			case !slices.Contains(cfg.Marketplaces, id.provider):
				w.figures[id] = figure{offer: s.latest}
			case strings.HasSuffix(id.instance, "-min"):
			case len(s.prices) == 0:
				w.figures[id] = figure{offer: s.latest, thin: true}
			default:
				o := s.latest
				o.USDPerGPUHour, o.USDPerHour, o.Samples = pricing.Median(s.prices), pricing.Median(s.perHr), int(pricing.Median(intsToFloats(s.n)))
				w.figures[id] = figure{offer: o}
			}
		}
	}
	return prev, cur
}

func idOf(o pricing.Offer) offerID {
	return offerID{o.Provider, o.InstanceType, o.GPU, o.GPUCount, o.Region, o.Market, o.Tier}
}

func compareIDs(a, b offerID) int {
	return cmp.Or(cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.provider, b.provider), cmp.Compare(a.market, b.market),
		cmp.Compare(a.tier, b.tier), cmp.Compare(a.instance, b.instance), cmp.Compare(a.count, b.count), cmp.Compare(a.region, b.region))
}

func intsToFloats(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
}

// compare fills the moves, new and removed offers and new sources.
func (d *Digest) compare(prev, cur week, cfg Config) {
	var moves []Move
	var added, removed []OfferChange
	newSources := map[string]bool{}
	for _, id := range sortedIDs(cur.figures, prev.figures) {
		p, inPrev := prev.figures[id]
		c, inCur := cur.figures[id]
		switch {
		case inPrev && inCur && (p.thin || c.thin):
			d.ThinSkipped++
		case p.thin || c.thin:
			// A thin row that appears or goes away says nothing.
		case inPrev && inCur:
			if m, ok := move(p.offer, c.offer, cfg); ok {
				moves = append(moves, m)
			}
		case inCur && !prev.providers[id.provider]:
			newSources[id.provider] = true
		case inCur:
			added = append(added, change(c.offer))
		case cur.providers[id.provider]:
			removed = append(removed, change(p.offer))
		}
	}
	d.Moves = collapseMoves(moves)
	d.NewOffers = collapseChanges(added)
	d.RemovedOffers = collapseChanges(removed)
	d.NewSources = slices.Sorted(func(yield func(string) bool) {
		for p := range newSources {
			if !yield(p) {
				return
			}
		}
	})
}

func sortedIDs(ms ...map[offerID]figure) []offerID {
	seen := map[offerID]bool{}
	var ids []offerID
	for _, m := range ms {
		for id := range m {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

// move compares an offer's two weekly figures against the thresholds.
func move(old, new pricing.Offer, cfg Config) (Move, bool) {
	diff := new.USDPerGPUHour - old.USDPerGPUHour
	pct := 100 * diff / old.USDPerGPUHour
	if math.Abs(pct) < cfg.MinChangePct || math.Abs(diff) < cfg.MinChangeUSD-1e-9 {
		return Move{}, false
	}
	return Move{
		GPU: new.GPU, Provider: new.Provider, Market: new.Market, Tier: new.Tier,
		InstanceType: new.InstanceType, GPUCount: new.GPUCount, Regions: []string{new.Region},
		OldUSDPerGPUHour: old.USDPerGPUHour, NewUSDPerGPUHour: new.USDPerGPUHour,
		ChangeUSD: round(diff, 4), ChangePct: round(pct, 1),
		OldUSDPerHour: old.USDPerHour, NewUSDPerHour: new.USDPerHour,
		OldSamples: old.Samples, NewSamples: new.Samples,
	}, true
}

func change(o pricing.Offer) OfferChange {
	return OfferChange{GPU: o.GPU, Provider: o.Provider, Market: o.Market, Tier: o.Tier, InstanceType: o.InstanceType,
		GPUCount: o.GPUCount, Regions: []string{o.Region}, USDPerGPUHour: o.USDPerGPUHour, USDPerHour: o.USDPerHour}
}

// roundPtr rounds *p to places decimals in a new pointer; nil stays nil.
func roundPtr(p *float64, places int) *float64 {
	if p == nil {
		return nil
	}
	return new(round(*p, places))
}

// round rounds x to places decimals.
func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// collapseMoves merges moves that differ only by region and sorts them by
// the size of the change per GPU-hour, then its percentage.
func collapseMoves(ms []Move) []Move {
	type key struct {
		gpu, provider, tier, instance string
		market                        pricing.Market
		count, old, new               float64
	}
	idx := map[key]int{}
	out := []Move{}
	for _, m := range ms {
		k := key{m.GPU, m.Provider, m.Tier, m.InstanceType, m.Market, m.GPUCount, m.OldUSDPerGPUHour, m.NewUSDPerGPUHour}
		if i, ok := idx[k]; ok {
			out[i].Regions = append(out[i].Regions, m.Regions...)
			continue
		}
		idx[k] = len(out)
		out = append(out, m)
	}
	for i := range out {
		slices.Sort(out[i].Regions)
	}
	slices.SortStableFunc(out, func(a, b Move) int {
		return cmp.Or(cmp.Compare(math.Abs(b.ChangeUSD), math.Abs(a.ChangeUSD)), cmp.Compare(math.Abs(b.ChangePct), math.Abs(a.ChangePct)),
			cmp.Compare(a.GPU, b.GPU), cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Market, b.Market),
			cmp.Compare(a.Tier, b.Tier), cmp.Compare(a.InstanceType, b.InstanceType))
	})
	return out
}

// collapseChanges merges offer changes that differ only by region, in GPU
// order, cheapest first.
func collapseChanges(cs []OfferChange) []OfferChange {
	type key struct {
		gpu, provider, tier, instance string
		market                        pricing.Market
		count, price                  float64
	}
	idx := map[key]int{}
	out := []OfferChange{}
	for _, c := range cs {
		k := key{c.GPU, c.Provider, c.Tier, c.InstanceType, c.Market, c.GPUCount, c.USDPerGPUHour}
		if i, ok := idx[k]; ok {
			out[i].Regions = append(out[i].Regions, c.Regions...)
			continue
		}
		idx[k] = len(out)
		out = append(out, c)
	}
	for i := range out {
		slices.Sort(out[i].Regions)
	}
	slices.SortStableFunc(out, func(a, b OfferChange) int {
		return cmp.Or(cmp.Compare(a.GPU, b.GPU), cmp.Compare(a.USDPerGPUHour, b.USDPerGPUHour), cmp.Compare(a.Provider, b.Provider),
			cmp.Compare(a.Market, b.Market), cmp.Compare(a.Tier, b.Tier), cmp.Compare(a.InstanceType, b.InstanceType))
	})
	return out
}

// cheapestPerGPU is the cheapest whole-GPU on-demand and spot figure per
// GPU this week and the week before, by GPU id, on-demand first, judging
// freshness at each week's latest observation (a figure stale by then
// never beats a fresh one). Thin marketplace rows do not count.
func cheapestPerGPU(prev, cur week) []Cheapest {
	type key struct {
		gpu    string
		market pricing.Market
	}
	best := [2]map[key]pricing.Offer{{}, {}}
	at := [2]time.Time{prev.latest(), cur.latest()}
	for i, w := range [2]week{prev, cur} {
		for _, f := range w.figures {
			o := f.offer
			if f.thin || o.Fractional() || (o.Market != pricing.MarketOnDemand && o.Market != pricing.MarketSpot) {
				continue
			}
			k := key{o.GPU, o.Market}
			if b, ok := best[i][k]; !ok || pricing.CompareOffers(o, b, at[i]) < 0 {
				best[i][k] = o
			}
		}
	}
	var keys []key
	for _, m := range best {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.market, b.market)) })
	out := make([]Cheapest, 0, len(keys))
	for _, k := range keys {
		c := Cheapest{GPU: k.gpu, Market: k.market}
		if o, ok := best[0][k]; ok {
			c.WeekAgo = point(o)
		}
		if o, ok := best[1][k]; ok {
			c.Now = point(o)
		}
		if c.Now != nil && c.WeekAgo != nil {
			pct := round(100*(c.Now.USDPerGPUHour-c.WeekAgo.USDPerGPUHour)/c.WeekAgo.USDPerGPUHour, 1)
			c.ChangePct = &pct
		}
		out = append(out, c)
	}
	return out
}

func point(o pricing.Offer) *PricePoint {
	return &PricePoint{USDPerGPUHour: o.USDPerGPUHour, Provider: o.Provider, Tier: o.Tier, InstanceType: o.InstanceType, Region: o.Region}
}
