package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// replan is a saved plan next to today's answer to the same question:
// what `plans show --json` prints.
type replan struct {
	Plan       planOutput          `json:"plan"`
	Now        *sizing.Answer      `json:"now"`         // null when the plan cannot be answered today
	Problem    string              `json:"problem"`     // why not, "" when it can
	Changes    []string            `json:"changes"`     // what differs, in words; empty when nothing does
	CheaperFit *sizing.Alternative `json:"cheaper_fit"` // a fitting configuration cheaper than the plan's, or null
}

// planShow is `fitbot plans show ID`.
func (a *app) planShow(ctx context.Context, args []string) int {
	f, err := parsePlansArgs(args)
	if err != nil {
		return a.fail(exitUsage, err.Error(), "fitbot plans show 42")
	}
	if f.help {
		fmt.Fprint(a.stdout, plansUsage)
		return exitOK
	}
	if len(f.words) != 1 {
		return a.fail(exitUsage, "plans show needs one plan id", "fitbot plans show 42 (fitbot plans lists the ids)")
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(f.words[0], "#"), 10, 64)
	if err != nil || id < 1 {
		return a.fail(exitUsage, fmt.Sprintf("%q is not a plan id", f.words[0]), "fitbot plans show 42 (fitbot plans lists the ids)")
	}
	if !a.dbExists() {
		return a.fail(exitFailure, fmt.Sprintf("there is no plan %d: there is no database at %s", id, a.dbPath()), "FITBOT_DB=path/to/fitbot.db fitbot plans show "+strconv.FormatInt(id, 10))
	}
	db, code := a.openStore(ctx)
	if code != exitOK {
		return code
	}
	defer a.closeStore(db)
	p, err := db.Plan(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return a.fail(exitFailure, fmt.Sprintf("there is no plan %d", id), "fitbot plans lists the plans there are")
	}
	if err != nil {
		return a.fail(exitFailure, err.Error(), "")
	}
	prices, err := db.PriceSource(ctx)
	if err != nil {
		return a.fail(exitFailure, err.Error(), "")
	}
	parsed, perr := sizing.Parse(p.Canonical)
	parsed, perr = a.resolveHubWith(ctx, db, p.Canonical, parsed, perr)
	r := reanswerParsed(p, parsed, perr, prices)
	if f.json {
		return a.writeJSON(r)
	}
	writeReplan(a.stdout, p, r)
	return exitOK
}

// reanswerPlan answers a plan's canonical question again with today's
// catalog and prices (the store's current offers, the default sheet for
// GPUs it has none for) and lists what changed.
func reanswerPlan(p store.Plan, prices sizing.PriceSource) replan {
	parsed, err := sizing.Parse(p.Canonical)
	return reanswerParsed(p, parsed, err, prices)
}

// reanswerParsed is reanswerPlan from the plan's canonical question as
// parsed (and, for a Hub model, resolved) with its error.
func reanswerParsed(p store.Plan, parsed sizing.Parsed, err error, prices sizing.PriceSource) replan {
	r := replan{Plan: toOutput(p), Changes: []string{}}
	if strings.HasPrefix(p.ModelKey, "config:") {
		r.Problem = "this plan sized a model from a config.json, which is not kept; run fitbot fit --config FILE again"
		return r
	}
	var he *hub.Error
	if errors.As(err, &he) {
		r.Problem = fmt.Sprintf("the plan's Hugging Face model cannot be read now: %s", he.Problem)
		return r
	}
	if err != nil {
		r.Problem = fmt.Sprintf("today's parser no longer reads %q: %v", p.Canonical, err)
		return r
	}
	now, err := (&sizing.Estimator{Prices: prices}).Answer(parsed.Query)
	if err != nil {
		r.Problem = fmt.Sprintf("today's catalog cannot answer %q: %v", p.Canonical, err)
		return r
	}
	r.Now = &now

	if then, today := verdict(p.Fits, p.Headroom), verdict(now.Fits, string(now.Headroom)); then != today {
		r.Changes = append(r.Changes, fmt.Sprintf("verdict: %s then, %s now", then, today))
	}
	if p.GPU != now.Request.GPU || p.GPUs != now.Request.GPUs {
		r.Changes = append(r.Changes, fmt.Sprintf("hardware: %s then, %s now", hardware(p.GPUs, p.GPU), hardware(now.Request.GPUs, now.Request.GPU)))
	}
	if then, today := p.PerGPUBytes, now.PerGPU.TotalBytes; then > 0 && math.Abs(float64(today-then)) > 0.01*float64(then) {
		r.Changes = append(r.Changes, fmt.Sprintf("per-GPU memory: %s then, %s now (the memory model changed)", gib(then), gib(today)))
	}
	then, today := p.USDPerHour, now.Throughput.USDPerHour
	switch {
	case then != nil && today != nil && math.Abs(*today-*then) >= 0.005:
		r.Changes = append(r.Changes, fmt.Sprintf("cost per hour: %s then, %s now (%+.0f%%)", usd(then), usd(today), 100*(*today-*then) / *then))
	case then == nil && today != nil:
		r.Changes = append(r.Changes, fmt.Sprintf("cost per hour: no price then, %s now", usd(today)))
	case then != nil && today == nil:
		r.Changes = append(r.Changes, fmt.Sprintf("cost per hour: %s then, no price now", usd(then)))
	}

	r.CheaperFit = now.CheaperFit(then, nil)
	return r
}

// writeReplan prints a plan then and now, side by side.
func writeReplan(w io.Writer, p store.Plan, r replan) {
	fmt.Fprintf(w, "Plan %d, %s UTC, asked by %s\n", p.ID, p.CreatedAt.Format("2006-01-02 15:04"), who(p))
	fmt.Fprintf(w, "  asked:     %s\n", p.Question)
	fmt.Fprintf(w, "  canonical: fit %s\n", p.Canonical)
	if r.Now == nil {
		fmt.Fprintf(w, "Then: %s on %s, %s per GPU, %s\n", verdict(p.Fits, p.Headroom), hardware(p.GPUs, p.GPU), gib(p.PerGPUBytes), priceThen(p))
		fmt.Fprintf(w, "Not re-answered: %s.\n", r.Problem)
		return
	}
	now := r.Now
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tTHEN\tNOW")
	fmt.Fprintf(tw, "verdict\t%s\t%s\n", verdict(p.Fits, p.Headroom), verdict(now.Fits, string(now.Headroom)))
	fmt.Fprintf(tw, "hardware\t%s\t%s\n", hardware(p.GPUs, p.GPU), hardware(now.Request.GPUs, now.Request.GPU))
	fmt.Fprintf(tw, "per-GPU total\t%s\t%s\n", gib(p.PerGPUBytes), gib(now.PerGPU.TotalBytes))
	fmt.Fprintf(tw, "cost per hour\t%s\t%s\n", priceThen(p), priceNow(*now))
	tw.Flush()
	fmt.Fprintln(w)
	if len(r.Changes) == 0 {
		fmt.Fprintln(w, "Nothing changed: the same verdict and hardware at the same price.")
	} else {
		fmt.Fprintln(w, "Changed:")
		for _, c := range r.Changes {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	if alt := r.CheaperFit; alt != nil {
		fmt.Fprintf(w, "Cheaper fit now: %s %s at %s/h", hardware(alt.GPUs, alt.GPU), alt.Method, usd(alt.USDPerHour))
		if alt.USDTotal != nil {
			fmt.Fprintf(w, ", %s for the run", usd(alt.USDTotal))
		}
		if alt.Why != "" {
			fmt.Fprintf(w, " (%s)", alt.Why)
		}
		fmt.Fprintln(w)
	}
}

// priceThen is the plan's price with its source and date.
func priceThen(p store.Plan) string {
	if p.USDPerHour == nil {
		return "no price"
	}
	return usd(p.USDPerHour) + "/h" + priceSource(p.PriceProvider, p.PriceAsOf)
}

// priceNow is today's price with its source and date.
func priceNow(a sizing.Answer) string {
	if a.Throughput.USDPerHour == nil {
		return "no price"
	}
	s := usd(a.Throughput.USDPerHour) + "/h"
	if a.Price != nil {
		asOf := a.Price.AsOf
		s += priceSource(a.Price.Provider, &asOf)
	}
	return s
}

// priceSource says where a price came from and when, " (runpod, 2026-11-29)".
func priceSource(provider string, asOf *time.Time) string {
	var parts []string
	if provider != "" {
		parts = append(parts, provider)
	}
	if asOf != nil && !asOf.IsZero() {
		parts = append(parts, asOf.UTC().Format("2006-01-02"))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
