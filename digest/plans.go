package digest

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/fitbot/fitbot/pricing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
)

// repricePlans answers every plan saved in the window again with the
// week's prices (fallback for a GPU nobody priced this week), the same
// question asked again merged into its newest ask, then orders the plans
// whose price changed first, by the size of the change per hour, and
// keeps the first cfg.MaxPlans of them, with the tally of all.
func repricePlans(plans []Plan, end time.Time, cfg Config, week *pricing.Snapshot, fallback sizing.PriceSource, parse plan.Parser) (out []PlanRepricing, tally PlanTally) {
	since := end.Add(-cfg.PlanWindow)
	var recent []Plan
	for _, p := range plans {
		if !p.CreatedAt.Before(since) && p.CreatedAt.Before(end) {
			recent = append(recent, p)
		}
	}
	slices.SortStableFunc(recent, func(a, b Plan) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	prices := pricing.Chain{week}
	if fallback != nil {
		prices = append(prices, fallback)
	}
	est := &sizing.Estimator{Prices: prices}
	out = []PlanRepricing{}
	seen := map[string]int{}
	for _, p := range recent {
		asked := max(p.Asked, 1)
		tally.PlansSaved += asked
		key := p.Text()
		if i, ok := seen[key]; ok {
			out[i].Asked += asked
			continue
		}
		seen[key] = len(out)
		r := reprice(p, est, week, parse)
		r.Asked = asked
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b PlanRepricing) int {
		return cmp.Or(boolFirst(a.Changed(), b.Changed()), cmp.Compare(planDelta(b), planDelta(a)))
	})
	tally.PlansRepriced = len(out)
	for _, r := range out {
		if r.Changed() {
			tally.PlansChanged++
		}
	}
	if cfg.MaxPlans > 0 && len(out) > cfg.MaxPlans {
		out = out[:cfg.MaxPlans]
	}
	return out, tally
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
func reprice(p Plan, est *sizing.Estimator, week *pricing.Snapshot, parse plan.Parser) PlanRepricing {
	r := PlanRepricing{ID: p.ID, CreatedAt: p.CreatedAt.UTC(), Question: p.Question, Asked: 1,
		GPU: p.GPU, GPUs: p.GPUs, Fits: p.Fits, ThenUSDPerHour: p.USDPerHour}
	d := plan.Reanswer(p.Summary, parse, est, func(alt sizing.Alternative) bool {
		_, priced := week.Cheapest(alt.GPU, pricing.MarketOnDemand)
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
		r.ChangePct = new(round(*pct, 1))
	}
	if p.USDPerHour != nil && r.Hours != nil {
		r.ThenUSDTotal = roundPtr(new(*p.USDPerHour**now.Throughput.Hours), 2)
	}
	r.CheaperFit = d.CheaperFit
	return r
}
