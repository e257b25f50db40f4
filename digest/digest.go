// Package digest builds the weekly price digest: from a week's price
// observations, refresh runs, held offers and saved plans it says what
// moved, what is cheapest now, what is new or gone, how the sources fared
// and what the team's plans would cost today (DESIGN.md's digest JSON
// contract). The faces render it: bot for Slack, cmd/fitbot for the
// terminal; the store keeps each posted digest.
package digest

import (
	"github.com/fitbot/fitbot/measure"

	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/pricing"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
)

// Week is the length of a digest's week.
const Week = 7 * 24 * time.Hour

// Config holds the digest's noise controls (pricing.md §5.2).
type Config struct {
	MinChangePct float64       `json:"min_change_pct"`              // a move is reported only when |change| is at least this many percent...
	MinChangeUSD float64       `json:"min_change_usd_per_gpu_hour"` // ...and at least this many dollars per GPU-hour
	MinSamples   int           `json:"min_samples"`                 // offers a marketplace median needs in both weeks
	Marketplaces []string      `json:"marketplaces"`                // providers whose rows aggregate many hosts' offers
	PlanWindow   time.Duration `json:"-"`                           // how far back "your plans" looks
	StaleAfter   time.Duration `json:"-"`                           // a source whose last good refresh is older at the week's end is stale
	MaxPlans     int           `json:"-"`                           // plans re-priced, newest first, after duplicates are merged
}

// DefaultConfig is the digest's configuration unless the operator
// changes it: moves of at least 5% and $0.05 per GPU-hour, Vast.ai
// medians of at least 5 offers, plans of the last 90 days.
//
// Vast.ai is the one marketplace: its rows are the minimum and median of
// many hosts' asks (Offer.Samples). RunPod's community prices look like a
// marketplace but are one list price per GPU type that RunPod publishes
// (Samples is 1), so they are compared as list prices.
func DefaultConfig() Config {
	return Config{
		MinChangePct: 5,
		MinChangeUSD: 0.05,
		MinSamples:   5,
		Marketplaces: []string{"vast"},
		PlanWindow:   90 * 24 * time.Hour,
		StaleAfter:   pricing.SourceMaxAge,
		MaxPlans:     50,
	}
}

// Plan is a saved plan as the digest re-prices it.
type Plan struct {
	ID        int64
	CreatedAt time.Time
	plan.Summary
	// Asked is how many times the same question was saved in the window,
	// this plan (the newest) included; 0 reads as 1.
	Asked int
}

// Input is everything the digest is computed from. It is read from
// the store; the digest itself does no I/O.
type Input struct {
	WeekEnd time.Time
	// Observations are every price observed by a good run in the two
	// weeks before WeekEnd, [WeekEnd-2*Week, WeekEnd).
	Observations []pricing.Offer
	// Runs are the refresh runs started in the same two weeks.
	Runs []pricing.Run
	// Plans are the plans saved in [WeekEnd-PlanWindow, WeekEnd).
	Plans []Plan
	// Held are the offers a refresh held aside in the week (sanity.go).
	Held []pricing.Hold
	// Measured are the runs of plans recorded in the week, beside
	// fitbot's figures for them.
	Measured []measure.Pair
	// Fallback prices a plan's GPU that no provider priced this week (the
	// default sheet); nil for none.
	Fallback sizing.PriceSource
	// Parse reads a plan's question again; nil is reading.Parse. A plan
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
	Plans         []PlanRepricing `json:"plans"` // changed first, biggest change first; at most Thresholds.MaxPlans
	PlanTally
	StaleSources []SourceHealth `json:"stale_sources"`
	// MeasuredOff are the runs recorded in the week more than
	// MeasuredOffBy from fitbot's memory or speed figure for their plan.
	MeasuredOff []measure.Pair `json:"measured_off"`
	Sources     int            `json:"sources"`              // providers that ran in the two weeks
	ThinSkipped int            `json:"thin_samples_skipped"` // marketplace comparisons left out for too few offers
	Method      string         `json:"method"`
	Thresholds  Config         `json:"thresholds"`
}

// PlanTally counts the plans of a digest's window: every distinct
// question is answered again, and Digest.Plans lists the first MaxPlans
// of them.
type PlanTally struct {
	PlansRepriced int `json:"plans_repriced"` // distinct questions answered again
	PlansChanged  int `json:"plans_changed"`  // of those, the ones whose price moved or that have a cheaper fit
	PlansSaved    int `json:"plans_saved"`    // plans saved in the window, repeated questions included
}

// Move is one offer's price change from one week to the next, the same
// change in several regions collapsed into one.
type Move struct {
	GPU              string         `json:"gpu"`
	Provider         string         `json:"provider"`
	Market           pricing.Market `json:"market"`
	Tier             string         `json:"tier"`
	InstanceType     string         `json:"instance_type"`
	GPUCount         float64        `json:"gpu_count"`
	Regions          []string       `json:"regions"`
	OldUSDPerGPUHour float64        `json:"old_usd_per_gpu_hour"`
	NewUSDPerGPUHour float64        `json:"new_usd_per_gpu_hour"`
	ChangeUSD        float64        `json:"change_usd_per_gpu_hour"`
	ChangePct        float64        `json:"change_pct"` // one decimal
	OldUSDPerHour    float64        `json:"old_usd_per_hour"`
	NewUSDPerHour    float64        `json:"new_usd_per_hour"`
	OldSamples       int            `json:"old_samples"` // offers behind a marketplace median; 1 for a list price
	NewSamples       int            `json:"new_samples"`
}

// OfferChange is an offer that appeared or went away, collapsed across
// regions at the same price.
type OfferChange struct {
	GPU           string         `json:"gpu"`
	Provider      string         `json:"provider"`
	Market        pricing.Market `json:"market"`
	Tier          string         `json:"tier"`
	InstanceType  string         `json:"instance_type"`
	GPUCount      float64        `json:"gpu_count"`
	Regions       []string       `json:"regions"`
	USDPerGPUHour float64        `json:"usd_per_gpu_hour"`
	USDPerHour    float64        `json:"usd_per_hour"`
}

// Cheapest is the cheapest offer of whole GPUs of one kind in one market,
// this week and the week before.
type Cheapest struct {
	GPU       string         `json:"gpu"`
	Market    pricing.Market `json:"market"`
	Now       *PricePoint    `json:"now"`        // nil when nobody offered it this week
	WeekAgo   *PricePoint    `json:"week_ago"`   // nil when nobody offered it the week before
	ChangePct *float64       `json:"change_pct"` // nil unless both are known
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
	Provider   string            `json:"provider"`
	LastGood   *time.Time        `json:"last_good"` // nil when no refresh succeeded in the two weeks
	Runs       int               `json:"runs"`      // refreshes this week
	FailedRuns int               `json:"failed_runs"`
	LastStatus pricing.RunStatus `json:"last_status"`
	LastError  string            `json:"last_error"`
	Reason     string            `json:"reason"`
	// HeldOffers counts the offers held aside as implausible this week
	// (sanity.go), and Held names them, most recent hold first.
	HeldOffers int      `json:"held_offers,omitempty"`
	Held       []string `json:"held,omitempty"`
}

// maxErrorText caps a run's error quoted in the digest.
const maxErrorText = 200

// MeasuredOffBy is how far a measured run must be from fitbot's figure
// to be listed: 15%, as calibration lists them.
const MeasuredOffBy = measure.OffBy

// Build computes the digest of the week ending at in.WeekEnd from
// in, with cfg's thresholds. It is pure: the same input gives the same
// digest.
func Build(in Input, cfg Config) Digest {
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
		MeasuredOff:   []measure.Pair{},
		Thresholds:    cfg,
		Method:        digestMethod(cfg),
	}
	prev, cur := weekFigures(in.Observations, start.Add(-Week), start, end, cfg)
	d.compare(prev, cur, cfg)
	d.Cheapest = cheapestPerGPU(prev, cur)
	d.StaleSources, d.Sources = sourceHealth(in.Runs, in.Held, start, end, cfg.StaleAfter)
	d.Plans, d.PlanTally = repricePlans(in.Plans, end, cfg, pricing.NewSnapshotAt(cur.offers(), cur.latest()), in.Fallback, in.Parse)
	for _, p := range in.Measured {
		if p.Off(MeasuredOffBy) {
			d.MeasuredOff = append(d.MeasuredOff, p)
		}
	}
	d.Quiet = len(d.Moves) == 0 && len(d.NewOffers) == 0 && len(d.RemovedOffers) == 0 && len(d.MeasuredOff) == 0
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
func digestMethod(cfg Config) string {
	market := ""
	if len(cfg.Marketplaces) > 0 {
		market = fmt.Sprintf("; marketplaces (%s): median over the week of ≥%d offers", strings.Join(cfg.Marketplaces, ", "), cfg.MinSamples)
	}
	return fmt.Sprintf("Per GPU-hour = instance price ÷ GPUs, USD; list prices: the latest of each week%s; moves of ≥%g%% and ≥$%.2f/GPU-h",
		market, cfg.MinChangePct, cfg.MinChangeUSD)
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
		if c.Market != pricing.MarketOnDemand || c.Now == nil {
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
