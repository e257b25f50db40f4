package pricing

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
)

// Week is the length of a digest's week.
const Week = 7 * 24 * time.Hour

// DigestConfig holds the digest's noise controls (pricing.md §5.2).
type DigestConfig struct {
	MinChangePct float64       `json:"min_change_pct"`              // a move is reported only when |change| is at least this many percent...
	MinChangeUSD float64       `json:"min_change_usd_per_gpu_hour"` // ...and at least this many dollars per GPU-hour
	MinSamples   int           `json:"min_samples"`                 // offers a marketplace median needs in both weeks
	Marketplaces []string      `json:"marketplaces"`                // providers whose rows aggregate many hosts' offers
	PlanWindow   time.Duration `json:"-"`                           // how far back "your plans" looks
	StaleAfter   time.Duration `json:"-"`                           // a source whose last good refresh is older at the week's end is stale
	MaxPlans     int           `json:"-"`                           // plans re-priced, newest first, after duplicates are merged
}

// DefaultDigestConfig is the digest's configuration unless the operator
// changes it: moves of at least 5% and $0.05 per GPU-hour, Vast.ai
// medians of at least 5 offers, plans of the last 90 days.
//
// Vast.ai is the one marketplace: its rows are the minimum and median of
// many hosts' asks (Offer.Samples). RunPod's community prices look like a
// marketplace but are one list price per GPU type that RunPod publishes
// (Samples is 1), so they are compared as list prices.
func DefaultDigestConfig() DigestConfig {
	return DigestConfig{
		MinChangePct: 5,
		MinChangeUSD: 0.05,
		MinSamples:   5,
		Marketplaces: []string{"vast"},
		PlanWindow:   90 * 24 * time.Hour,
		StaleAfter:   24 * time.Hour,
		MaxPlans:     50,
	}
}

// DigestPlan is a saved plan as the digest re-prices it.
type DigestPlan struct {
	ID        int64
	CreatedAt time.Time
	plan.Summary
}

// DigestInput is everything the digest is computed from. It is read from
// the store; the digest itself does no I/O.
type DigestInput struct {
	WeekEnd time.Time
	// Observations are every price observed by a good run in the two
	// weeks before WeekEnd, [WeekEnd-2*Week, WeekEnd).
	Observations []Offer
	// Runs are the refresh runs started in the same two weeks.
	Runs []Run
	// Plans are the plans saved in [WeekEnd-PlanWindow, WeekEnd).
	Plans []DigestPlan
	// Fallback prices a plan's GPU that no provider priced this week (the
	// default sheet); nil for none.
	Fallback sizing.PriceSource
	// Parse reads a plan's question again; nil is sizing.Parse. A plan
	// for a Hugging Face Hub model needs one that resolves the repo.
	Parse plan.Parser
}

// Digest is one week's price-change digest. Its JSON is what `fitbot
// digest --json` prints; week_start, week_end, moves, new_offers,
// removed_offers, cheapest, plans and stale_sources are the contract
// (DESIGN.md), the other keys documented extensions.
type Digest struct {
	WeekStart     time.Time       `json:"week_start"`
	WeekEnd       time.Time       `json:"week_end"`
	Headline      string          `json:"headline"`
	Quiet         bool            `json:"quiet"` // no move, new or removed offer passed the thresholds
	Moves         []Move          `json:"moves"` // biggest |change per GPU-hour| first
	NewOffers     []OfferChange   `json:"new_offers"`
	RemovedOffers []OfferChange   `json:"removed_offers"`
	NewSources    []string        `json:"new_sources"` // providers first seen this week; their offers are not listed as new
	Cheapest      []Cheapest      `json:"cheapest"`
	Plans         []PlanRepricing `json:"plans"`
	StaleSources  []SourceHealth  `json:"stale_sources"`
	Sources       int             `json:"sources"`              // providers that ran in the two weeks
	ThinSkipped   int             `json:"thin_samples_skipped"` // marketplace comparisons left out for too few offers
	Method        string          `json:"method"`
	Thresholds    DigestConfig    `json:"thresholds"`
}

// Move is one offer's price change from one week to the next, the same
// change in several regions collapsed into one.
type Move struct {
	GPU              string   `json:"gpu"`
	Provider         string   `json:"provider"`
	Market           Market   `json:"market"`
	Tier             string   `json:"tier"`
	InstanceType     string   `json:"instance_type"`
	GPUCount         float64  `json:"gpu_count"`
	Regions          []string `json:"regions"`
	OldUSDPerGPUHour float64  `json:"old_usd_per_gpu_hour"`
	NewUSDPerGPUHour float64  `json:"new_usd_per_gpu_hour"`
	ChangeUSD        float64  `json:"change_usd_per_gpu_hour"`
	ChangePct        float64  `json:"change_pct"` // one decimal
	OldUSDPerHour    float64  `json:"old_usd_per_hour"`
	NewUSDPerHour    float64  `json:"new_usd_per_hour"`
	OldSamples       int      `json:"old_samples"` // offers behind a marketplace median; 1 for a list price
	NewSamples       int      `json:"new_samples"`
}

// OfferChange is an offer that appeared or went away, collapsed across
// regions at the same price.
type OfferChange struct {
	GPU           string   `json:"gpu"`
	Provider      string   `json:"provider"`
	Market        Market   `json:"market"`
	Tier          string   `json:"tier"`
	InstanceType  string   `json:"instance_type"`
	GPUCount      float64  `json:"gpu_count"`
	Regions       []string `json:"regions"`
	USDPerGPUHour float64  `json:"usd_per_gpu_hour"`
	USDPerHour    float64  `json:"usd_per_hour"`
}

// Cheapest is the cheapest offer of whole GPUs of one kind in one market,
// this week and the week before.
type Cheapest struct {
	GPU       string      `json:"gpu"`
	Market    Market      `json:"market"`
	Now       *PricePoint `json:"now"`        // nil when nobody offered it this week
	WeekAgo   *PricePoint `json:"week_ago"`   // nil when nobody offered it the week before
	ChangePct *float64    `json:"change_pct"` // nil unless both are known
}

// PricePoint is one offer's price per GPU-hour and who sells it.
type PricePoint struct {
	USDPerGPUHour float64 `json:"usd_per_gpu_hour"`
	Provider      string  `json:"provider"`
	Tier          string  `json:"tier"`
	InstanceType  string  `json:"instance_type"`
	Region        string  `json:"region"`
}

// PlanRepricing is a saved plan priced then and with this week's prices.
type PlanRepricing struct {
	ID             int64               `json:"id"`
	CreatedAt      time.Time           `json:"created_at"`
	Question       string              `json:"question"`
	Asked          int                 `json:"asked"` // times the same question was saved in the window
	GPU            string              `json:"gpu"`
	GPUs           int                 `json:"gpus"`
	Fits           bool                `json:"fits"` // today's verdict
	ThenUSDPerHour *float64            `json:"then_usd_per_hour"`
	NowUSDPerHour  *float64            `json:"now_usd_per_hour"`
	ChangePct      *float64            `json:"change_pct"`
	NowProvider    string              `json:"now_provider"` // where today's GPU-hour price comes from
	Hours          *float64            `json:"hours"`        // the run's length, when a token budget was given
	ThenUSDTotal   *float64            `json:"then_usd_total"`
	NowUSDTotal    *float64            `json:"now_usd_total"`
	CheaperFit     *sizing.Alternative `json:"cheaper_fit"` // a fitting configuration cheaper than then and now
	Problem        string              `json:"problem,omitempty"`
}

// Changed reports whether the plan's price moved by a cent an hour
// (rounded) or more, or a cheaper configuration appeared.
func (p PlanRepricing) Changed() bool {
	if p.CheaperFit != nil {
		return true
	}
	return plan.PriceMoved(p.ThenUSDPerHour, p.NowUSDPerHour)
}

// SourceHealth is a provider whose prices were stale or whose refreshes
// failed during the week.
type SourceHealth struct {
	Provider   string     `json:"provider"`
	LastGood   *time.Time `json:"last_good"` // nil when no refresh succeeded in the two weeks
	Runs       int        `json:"runs"`      // refreshes this week
	FailedRuns int        `json:"failed_runs"`
	LastStatus RunStatus  `json:"last_status"`
	LastError  string     `json:"last_error"`
	Reason     string     `json:"reason"`
}

// maxErrorText caps a run's error quoted in the digest.
const maxErrorText = 200

// BuildDigest computes the digest of the week ending at in.WeekEnd from
// in, with cfg's thresholds. It is pure: the same input gives the same
// digest.
func BuildDigest(in DigestInput, cfg DigestConfig) Digest {
	end := in.WeekEnd.UTC()
	start := end.Add(-Week)
	d := Digest{
		WeekStart:     start,
		WeekEnd:       end,
		Moves:         []Move{},
		NewOffers:     []OfferChange{},
		RemovedOffers: []OfferChange{},
		NewSources:    []string{},
		Cheapest:      []Cheapest{},
		Plans:         []PlanRepricing{},
		StaleSources:  []SourceHealth{},
		Thresholds:    cfg,
		Method:        digestMethod(cfg),
	}
	prev, cur := weekFigures(in.Observations, start.Add(-Week), start, end, cfg)
	d.compare(prev, cur, cfg)
	d.Cheapest = cheapestPerGPU(prev, cur)
	d.StaleSources, d.Sources = sourceHealth(in.Runs, start, end, cfg.StaleAfter)
	d.Plans = repricePlans(in.Plans, end, cfg, NewSnapshotAt(cur.offers(), cur.latest()), in.Fallback, in.Parse)
	d.Quiet = len(d.Moves) == 0 && len(d.NewOffers) == 0 && len(d.RemovedOffers) == 0
	d.Headline = d.headline()
	return d
}

// HasPrices reports whether any price was observed in the digest's week;
// a digest without is not worth posting.
func (d Digest) HasPrices() bool {
	for _, c := range d.Cheapest {
		if c.Now != nil {
			return true
		}
	}
	return len(d.Moves) > 0 || len(d.NewOffers) > 0 || len(d.NewSources) > 0
}

// digestMethod is the footer's one-line method.
func digestMethod(cfg DigestConfig) string {
	market := ""
	if len(cfg.Marketplaces) > 0 {
		market = fmt.Sprintf("; marketplaces (%s): median over the week of ≥%d offers", strings.Join(cfg.Marketplaces, ", "), cfg.MinSamples)
	}
	return fmt.Sprintf("Per GPU-hour = instance price ÷ GPUs, USD; list prices: the latest of each week%s; moves of ≥%g%% and ≥$%.2f/GPU-h",
		market, cfg.MinChangePct, cfg.MinChangeUSD)
}

// offerID is an offer's identity across observations.
type offerID struct {
	provider, instance, gpu string
	count                   float64
	region                  string
	market                  Market
	tier                    string
}

// figure is one offer's price in one week.
type figure struct {
	offer Offer // the observation the figure stands for; its prices are the week's
	thin  bool  // a marketplace row with too few offers: not compared
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
		t = maxTime(t, f.offer.ObservedAt)
	}
	return t
}

// offers are the week's figures that are compared (thin ones left out),
// in a fixed order: the prices plans are re-priced with, so that the
// plans agree with the moves and the cheapest table beside them.
func (w week) offers() []Offer {
	var out []Offer
	for _, f := range w.figures {
		if !f.thin {
			out = append(out, f.offer)
		}
	}
	slices.SortFunc(out, func(a, b Offer) int { return compareIDs(idOf(a), idOf(b)) })
	return out
}

// weekFigures reduces the observations to one figure per offer and week:
// the latest observation for a list price, the median of the week's
// observations for a marketplace row, thin when none of them had enough
// offers behind it. A marketplace's minimum rows (vast "verified-min")
// are not compared: the cheapest single host is noise week to week.
func weekFigures(obs []Offer, prevStart, start, end time.Time, cfg DigestConfig) (prev, cur week) {
	prev = week{figures: map[offerID]figure{}, providers: map[string]bool{}}
	cur = week{figures: map[offerID]figure{}, providers: map[string]bool{}}
	type series struct {
		latest Offer
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
				o.USDPerGPUHour, o.USDPerHour, o.Samples = median(s.prices), median(s.perHr), int(median(intsToFloats(s.n)))
				w.figures[id] = figure{offer: o}
			}
		}
	}
	return prev, cur
}

func idOf(o Offer) offerID {
	return offerID{o.Provider, o.InstanceType, o.GPU, o.GPUCount, o.Region, o.Market, o.Tier}
}

func compareIDs(a, b offerID) int {
	return cmp.Or(cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.provider, b.provider), cmp.Compare(a.market, b.market),
		cmp.Compare(a.tier, b.tier), cmp.Compare(a.instance, b.instance), cmp.Compare(a.count, b.count), cmp.Compare(a.region, b.region))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func intsToFloats(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
}

// compare fills the moves, new and removed offers and new sources.
func (d *Digest) compare(prev, cur week, cfg DigestConfig) {
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
func move(old, new Offer, cfg DigestConfig) (Move, bool) {
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

func change(o Offer) OfferChange {
	return OfferChange{GPU: o.GPU, Provider: o.Provider, Market: o.Market, Tier: o.Tier, InstanceType: o.InstanceType,
		GPUCount: o.GPUCount, Regions: []string{o.Region}, USDPerGPUHour: o.USDPerGPUHour, USDPerHour: o.USDPerHour}
}

func ptr(v float64) *float64 { return &v }

// roundPtr rounds *p to places decimals in a new pointer; nil stays nil.
func roundPtr(p *float64, places int) *float64 {
	if p == nil {
		return nil
	}
	return ptr(round(*p, places))
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
		market                        Market
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
		market                        Market
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
		market Market
	}
	best := [2]map[key]Offer{{}, {}}
	at := [2]time.Time{prev.latest(), cur.latest()}
	for i, w := range [2]week{prev, cur} {
		for _, f := range w.figures {
			o := f.offer
			if f.thin || o.Fractional() || (o.Market != MarketOnDemand && o.Market != MarketSpot) {
				continue
			}
			k := key{o.GPU, o.Market}
			if b, ok := best[i][k]; !ok || better(o, b, at[i]) {
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

func point(o Offer) *PricePoint {
	return &PricePoint{USDPerGPUHour: o.USDPerGPUHour, Provider: o.Provider, Tier: o.Tier, InstanceType: o.InstanceType, Region: o.Region}
}

// sourceHealth lists the providers whose prices were stale at the week's
// end or whose refreshes failed during the week, and counts the providers
// that ran. Imported sheets are one-off runs, not sources, and are left
// out.
func sourceHealth(runs []Run, start, end time.Time, staleAfter time.Duration) ([]SourceHealth, int) {
	byProvider := map[string][]Run{}
	for _, r := range runs {
		if strings.HasPrefix(r.Provider, ImportProvider("")) || !r.Started.Before(end) {
			continue
		}
		byProvider[r.Provider] = append(byProvider[r.Provider], r)
	}
	out := []SourceHealth{}
	for _, p := range slices.Sorted(mapKeys(byProvider)) {
		rs := byProvider[p]
		slices.SortStableFunc(rs, func(a, b Run) int { return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID)) })
		h := SourceHealth{Provider: p, LastStatus: rs[len(rs)-1].Status}
		for _, r := range rs {
			if r.Status == RunOK && (h.LastGood == nil || r.AsOf.After(*h.LastGood)) {
				asOf := r.AsOf.UTC()
				h.LastGood = &asOf
			}
			if r.Started.Before(start) {
				continue
			}
			h.Runs++
			if r.Status != RunOK {
				h.FailedRuns++
				h.LastError = display.Truncate(r.Error, maxErrorText)
			}
		}
		last := rs[len(rs)-1]
		switch {
		case h.LastGood == nil:
			h.Reason = "no good refresh in two weeks"
		case last.Status != RunOK:
			h.Reason = fmt.Sprintf("last refresh %s; prices from %s", last.Status, h.LastGood.Format("Jan 2 15:04 MST"))
			h.LastError = display.Truncate(last.Error, maxErrorText)
		case last.FeedStale(end):
			h.Reason = fmt.Sprintf("refreshes, but the source has published nothing new since %s", last.PublishedAt.UTC().Format("Jan 2 2006"))
		case end.Sub(*h.LastGood) > staleAfter:
			h.Reason = fmt.Sprintf("no refresh since %s", h.LastGood.Format("Jan 2 15:04 MST"))
		case h.FailedRuns > 0:
			h.Reason = fmt.Sprintf("%d of %d refreshes failed this week", h.FailedRuns, h.Runs)
		default:
			continue
		}
		out = append(out, h)
	}
	return out, len(byProvider)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// repricePlans answers the plans saved in the window again with the
// week's prices (fallback for a GPU nobody priced this week), newest
// first with the same question asked again merged into the newest ask,
// then orders the plans whose price changed first, by the size of the
// change per hour.
func repricePlans(plans []DigestPlan, end time.Time, cfg DigestConfig, week *Snapshot, fallback sizing.PriceSource, parse plan.Parser) []PlanRepricing {
	since := end.Add(-cfg.PlanWindow)
	var recent []DigestPlan
	for _, p := range plans {
		if !p.CreatedAt.Before(since) && p.CreatedAt.Before(end) {
			recent = append(recent, p)
		}
	}
	slices.SortStableFunc(recent, func(a, b DigestPlan) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	prices := Chain{week}
	if fallback != nil {
		prices = append(prices, fallback)
	}
	est := &sizing.Estimator{Prices: prices}
	out := []PlanRepricing{}
	seen := map[string]int{}
	for _, p := range recent {
		key := p.Text()
		if i, ok := seen[key]; ok {
			out[i].Asked++
			continue
		}
		if cfg.MaxPlans > 0 && len(out) == cfg.MaxPlans {
			continue
		}
		seen[key] = len(out)
		out = append(out, reprice(p, est, week, parse))
	}
	slices.SortStableFunc(out, func(a, b PlanRepricing) int {
		return cmp.Or(boolFirst(a.Changed(), b.Changed()), cmp.Compare(planDelta(b), planDelta(a)))
	})
	return out
}

func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// planDelta is the size of a plan's change per hour, 0 when unknown.
func planDelta(p PlanRepricing) float64 {
	if p.ThenUSDPerHour == nil || p.NowUSDPerHour == nil {
		return 0
	}
	return math.Abs(*p.NowUSDPerHour - *p.ThenUSDPerHour)
}

// reprice answers one plan again with est (plan.Reanswer). A plan that
// cannot be answered today keeps its problem, in words. A cheaper fit is
// offered only on a GPU some provider priced this week (week), not on a
// fallback price that did not move.
func reprice(p DigestPlan, est *sizing.Estimator, week *Snapshot, parse plan.Parser) PlanRepricing {
	r := PlanRepricing{ID: p.ID, CreatedAt: p.CreatedAt.UTC(), Question: p.Question, Asked: 1,
		GPU: p.GPU, GPUs: p.GPUs, Fits: p.Fits, ThenUSDPerHour: p.USDPerHour}
	d := plan.Reanswer(p.Summary, parse, est, func(alt sizing.Alternative) bool {
		_, priced := week.Cheapest(alt.GPU, MarketOnDemand)
		return priced
	})
	if d.Now == nil {
		r.Problem = d.Problem
		return r
	}
	now := d.Now
	r.GPU, r.GPUs, r.Fits = now.Request.GPU, now.Request.GPUs, now.Fits
	r.NowUSDPerHour, r.Hours, r.NowUSDTotal = roundPtr(now.Throughput.USDPerHour, 4), roundPtr(now.Throughput.Hours, 2), roundPtr(now.Throughput.USDTotal, 2)
	if now.Price != nil {
		r.NowProvider = now.Price.Provider
	}
	if pct := d.PriceChangePct(); pct != nil {
		r.ChangePct = ptr(round(*pct, 1))
	}
	if p.USDPerHour != nil && r.Hours != nil {
		r.ThenUSDTotal = roundPtr(ptr(*p.USDPerHour**now.Throughput.Hours), 2)
	}
	r.CheaperFit = d.CheaperFit
	return r
}

// headline is the digest's one-line verdict: how many moves, the
// cheapest on-demand price of the GPU the team plans on most (an H100
// when no plan names one), and how many sources are stale.
func (d *Digest) headline() string {
	var parts []string
	if d.Quiet {
		parts = append(parts, "No notable GPU price changes this week")
	} else {
		s := "GPU prices this week: " + plural(len(d.Moves), "notable move")
		if n := len(d.NewOffers) + len(d.RemovedOffers); n > 0 {
			s += fmt.Sprintf(", %d new and %d removed offers", len(d.NewOffers), len(d.RemovedOffers))
		}
		parts = append(parts, s)
	}
	if c, ok := d.headlineGPU(); ok {
		who := c.Now.Provider
		if c.Now.Tier != "" {
			who += " " + c.Now.Tier
		}
		parts = append(parts, fmt.Sprintf("cheapest %s now $%.2f/GPU-h (%s)", display.GPUName(c.GPU), c.Now.USDPerGPUHour, who))
	}
	if n := len(d.StaleSources); n > 0 {
		parts = append(parts, plural(n, "source")+" stale or failing")
	}
	return strings.Join(parts, " · ")
}

// headlineGPU picks the on-demand row the headline quotes.
func (d *Digest) headlineGPU() (Cheapest, bool) {
	counts := map[string]int{}
	for _, p := range d.Plans {
		counts[p.GPU] += p.Asked
	}
	best, ok := Cheapest{}, false
	score := func(gpu string) int {
		if gpu == "h100" {
			return 2*counts[gpu] + 1
		}
		return 2 * counts[gpu]
	}
	for _, c := range d.Cheapest {
		if c.Market != MarketOnDemand || c.Now == nil {
			continue
		}
		if !ok || score(c.GPU) > score(best.GPU) {
			best, ok = c, true
		}
	}
	return best, ok
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
