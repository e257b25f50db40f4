package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
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
	// NowAsk is today's answer to an inverse plan (kind other than fit),
	// whose now is null; only its one-line summary is compared.
	NowAsk *sizing.AskAnswer `json:"now_ask,omitempty"`
}

// planShow is `fitbot plans show ID`.
func (a *app) planShow(ctx context.Context, args []string) error {
	f, err := parsePlansArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot plans show 42")
	}
	if f.help {
		fmt.Fprint(a.stdout, plansUsage)
		return nil
	}
	if len(f.words) != 1 {
		return usageError("plans show needs one plan id", "fitbot plans show 42 (fitbot plans lists the ids)")
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(f.words[0], "#"), 10, 64)
	if err != nil || id < 1 {
		return usageError(fmt.Sprintf("%q is not a plan id", f.words[0]), "fitbot plans show 42 (fitbot plans lists the ids)")
	}
	if !a.dbExists() {
		return failure(fmt.Sprintf("there is no plan %d: there is no database at %s", id, a.dbPath()), "FITBOT_DB=path/to/fitbot.db fitbot plans show "+strconv.FormatInt(id, 10))
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)
	p, err := db.Plan(ctx, f.scope(), id)
	if errors.Is(err, store.ErrNotFound) {
		return failure(fmt.Sprintf("there is no plan %d", id), "fitbot plans lists the plans there are")
	}
	if err != nil {
		return failure(err.Error(), "")
	}
	prices, err := db.PriceSource(ctx)
	if err != nil {
		return failure(err.Error(), "")
	}
	// A Hub model's plan is read with the database's cache, else the Hub.
	svc := plansService(prices)
	svc.Models = cliHub{a: a, cache: db}
	if p.Kind != answer.PlanFit && p.Kind != "" {
		r := reaskPlan(ctx, svc, p)
		if f.json {
			return a.writeJSON(r)
		}
		writeReask(a.stdout, p, r)
		return nil
	}
	r := reanswerPlan(ctx, svc, p)
	if f.json {
		return a.writeJSON(r)
	}
	writeReplan(a.stdout, p, r)
	return nil
}

// plansService answers kept plans again at prices (the store's current
// offers, the default sheet for GPUs it has none for).
func plansService(prices sizing.PriceSource) *answer.Service {
	est := answer.Fixed{Estimator: &sizing.Estimator{Prices: prices}}
	return &answer.Service{Estimator: est, Asker: est}
}

// reanswerPlan answers a plan's question again with svc (today's catalog
// and prices) and lists what changed, in words.
func reanswerPlan(ctx context.Context, svc *answer.Service, p store.Plan) replan {
	d := svc.Reanswer(ctx, p.Summary)
	r := replan{Plan: toOutput(p), Now: d.Now, Problem: d.Problem, Changes: []string{}, CheaperFit: d.CheaperFit}
	if d.Now == nil {
		return r
	}
	now := d.Now
	if d.Changed.Verdict {
		r.Changes = append(r.Changes, fmt.Sprintf("verdict: %s then, %s now", answer.PlanVerdict(p.Fits, p.Headroom), answer.PlanVerdict(now.Fits, string(now.Headroom))))
	}
	if d.Changed.Hardware {
		r.Changes = append(r.Changes, fmt.Sprintf("hardware: %s then, %s now", display.Hardware(p.GPUs, p.GPU), display.Hardware(now.Request.GPUs, now.Request.GPU)))
	}
	if d.Changed.Memory {
		r.Changes = append(r.Changes, fmt.Sprintf("per-GPU memory: %s then, %s now (the memory model changed)", display.GiB(p.PerGPUBytes), display.GiB(now.PerGPU.TotalBytes)))
	}
	if d.Changed.Price {
		then, today := p.USDPerHour, now.Throughput.USDPerHour
		switch {
		case then == nil:
			r.Changes = append(r.Changes, fmt.Sprintf("cost per hour: no price then, %s now", usd(today)))
		case today == nil:
			r.Changes = append(r.Changes, fmt.Sprintf("cost per hour: %s then, no price now", usd(then)))
		default:
			c := fmt.Sprintf("cost per hour: %s then, %s now", usd(then), usd(today))
			if pct := d.PriceChangePct(); pct != nil {
				c += fmt.Sprintf(" (%+.0f%%)", *pct)
			}
			r.Changes = append(r.Changes, c)
		}
	}
	return r
}

// reaskPlan answers an inverse plan again by asking its canonical
// question today (answer.Service.Reask), listing what changed in words.
func reaskPlan(ctx context.Context, svc *answer.Service, p store.Plan) replan {
	r := replan{Plan: toOutput(p), Changes: []string{}}
	d := svc.Reask(ctx, p.Summary)
	if d.Now == nil {
		r.Problem = d.Problem
		return r
	}
	now := d.Now
	r.NowAsk = now
	if d.Changed.Figure {
		r.Changes = append(r.Changes, fmt.Sprintf("%s: %s then, %s now", askFigureName[p.Kind], askFigure(p.Kind, p.Request), askFigure(p.Kind, now.Request)))
	}
	if d.Changed.Hardware {
		r.Changes = append(r.Changes, fmt.Sprintf("hardware: %s then, %s now", display.Hardware(p.GPUs, p.GPU), display.Hardware(now.Request.GPUs, now.Request.GPU)))
	}
	if d.Changed.Verdict {
		r.Changes = append(r.Changes, fmt.Sprintf("verdict: %s then, %s now", p.Headroom, now.BuyRent.Verdict))
	}
	if d.Changed.Any() {
		r.Changes = append(r.Changes, fmt.Sprintf("answer: %s then; %s now", p.Answer, display.AskSummary(*now)))
	}
	return r
}

// askFigureName names the figure an inverse plan's question asks for.
var askFigureName = map[answer.PlanKind]string{answer.PlanLargest: "largest model", answer.PlanContext: "longest context"}

// askFigure is that figure as a request carries it.
func askFigure(k answer.PlanKind, r sizing.Request) string {
	if k == answer.PlanContext {
		return display.Commas(int64(r.SeqLen)) + " tokens"
	}
	return display.Params(r.Params)
}

// writeReask prints an inverse plan then (its answer in one line) and
// today's full answer to its question.
func writeReask(w io.Writer, p store.Plan, r replan) {
	fmt.Fprintf(w, "Plan %d (%s question), %s UTC, asked by %s\n", p.ID, p.Kind, p.CreatedAt.Format("2006-01-02 15:04"), who(p))
	fmt.Fprintf(w, "  asked:     %s\n", p.Question)
	fmt.Fprintf(w, "  canonical: fit %s\n", p.Canonical)
	fmt.Fprintf(w, "  then:      %s\n", p.Answer)
	if r.NowAsk == nil {
		fmt.Fprintf(w, "Not re-answered: %s.\n", r.Problem)
		return
	}
	fmt.Fprintln(w, "\nAsked again today:")
	writeAsk(w, *r.NowAsk)
	fmt.Fprintln(w)
	if len(r.Changes) == 0 {
		fmt.Fprintln(w, "Answer unchanged.")
		return
	}
	fmt.Fprintln(w, "Answer changed:")
	for _, c := range r.Changes {
		fmt.Fprintf(w, "  - %s\n", c)
	}
}

// writeReplan prints a plan then and now, side by side.
func writeReplan(w io.Writer, p store.Plan, r replan) {
	fmt.Fprintf(w, "Plan %d, %s UTC, asked by %s\n", p.ID, p.CreatedAt.Format("2006-01-02 15:04"), who(p))
	fmt.Fprintf(w, "  asked:     %s\n", p.Question)
	fmt.Fprintf(w, "  canonical: fit %s\n", p.Canonical)
	if r.Now == nil {
		fmt.Fprintf(w, "Then: %s on %s, %s per GPU, %s\n", answer.PlanVerdict(p.Fits, p.Headroom), display.Hardware(p.GPUs, p.GPU), display.GiB(p.PerGPUBytes), priceThen(p))
		fmt.Fprintf(w, "Not re-answered: %s.\n", r.Problem)
		return
	}
	now := r.Now
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tTHEN\tNOW")
	fmt.Fprintf(tw, "verdict\t%s\t%s\n", answer.PlanVerdict(p.Fits, p.Headroom), answer.PlanVerdict(now.Fits, string(now.Headroom)))
	fmt.Fprintf(tw, "hardware\t%s\t%s\n", display.Hardware(p.GPUs, p.GPU), display.Hardware(now.Request.GPUs, now.Request.GPU))
	fmt.Fprintf(tw, "per-GPU total\t%s\t%s\n", display.GiB(p.PerGPUBytes), display.GiB(now.PerGPU.TotalBytes))
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
		fmt.Fprintf(w, "Cheaper fit now: %s %s at %s/h", display.Hardware(alt.GPUs, alt.GPU), alt.Method, usd(alt.USDPerHour))
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
