package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// Answerer answers a query; *sizing.Estimator is one.
type Answerer interface {
	Answer(sizing.Query) (sizing.Answer, error)
}

// AnswerFunc is a function that answers a query, as an Answerer (a
// caller's answerer bound to its request's context).
type AnswerFunc func(sizing.Query) (sizing.Answer, error)

// Answer implements Answerer.
func (f AnswerFunc) Answer(q sizing.Query) (sizing.Answer, error) { return f(q) }

// Changed says which parts of a plan's answer differ today.
type Changed struct {
	Verdict  bool // fits or headroom
	Hardware bool // GPU model or count
	Memory   bool // per-GPU total by more than 1% (the memory model changed)
	Price    bool // the price per hour moved by half a cent or more, appeared or went away
}

// Any reports whether anything changed.
func (c Changed) Any() bool { return c.Verdict || c.Hardware || c.Memory || c.Price }

// Diff is a saved plan next to today's answer to the same question.
type Diff struct {
	Then Summary
	// Now is today's answer; nil when the plan cannot be answered today,
	// and then Problem says why and Err is the cause.
	Now     *sizing.Answer
	Problem string
	Err     error
	Changed Changed
	// CheaperFit is a fitting configuration cheaper than the plan's price
	// then (and today's), or nil.
	CheaperFit *sizing.Alternative
}

// Text is the text a plan is re-answered from: its canonical form, or
// the question as typed for a plan saved before canonical forms were kept.
func (s Summary) Text() string {
	if s.Canonical != "" {
		return s.Canonical
	}
	return s.Question
}

// Parser reads a question the way reading.Parse does.
type Parser func(string) (reading.Request, error)

// Reanswer answers a saved plan's question again with today's parser
// (parse, reading.Parse when nil) and answerer, and says what changed. A
// plan sized from a config.json (which is not kept) or one today's parser
// or catalog cannot answer comes back with Now nil and the problem in
// words. The cheaper fit is the cheapest fitting alternative below the
// plan's price then for which offered is true (any, when offered is nil).
func Reanswer(then Summary, parse Parser, ans Answerer, offered func(sizing.Alternative) bool) Diff {
	d := Diff{Then: then}
	if strings.HasPrefix(then.ModelKey, configPrefix) {
		d.Problem = "this plan sized a model from a config.json, which is not kept; run fitbot fit --config FILE again"
		return d
	}
	if parse == nil {
		parse = reading.Parse
	}
	text := then.Text()
	parsed, err := parse(text)
	if err != nil {
		d.Problem, d.Err = fmt.Sprintf("today's parser no longer reads %q: %v", text, err), err
		return d
	}
	now, err := ans.Answer(parsed.Query)
	if err != nil {
		d.Problem, d.Err = fmt.Sprintf("today's catalog cannot answer %q: %v", text, err), err
		return d
	}
	d.Now = &now
	d.Changed = Changed{
		Verdict:  Verdict(then.Fits, then.Headroom) != Verdict(now.Fits, string(now.Headroom)),
		Hardware: then.GPU != now.Request.GPU || then.GPUs != now.Request.GPUs,
		Memory:   then.PerGPUBytes > 0 && math.Abs(float64(now.PerGPU.TotalBytes-then.PerGPUBytes)) > 0.01*float64(then.PerGPUBytes),
		Price:    PriceMoved(then.USDPerHour, now.Throughput.USDPerHour) || (then.USDPerHour == nil) != (now.Throughput.USDPerHour == nil),
	}
	d.CheaperFit = now.CheaperFit(then.USDPerHour, offered)
	return d
}

// PriceMoved reports whether a price per hour known then and now moved by
// half a cent or more (a cent, rounded).
func PriceMoved(then, now *float64) bool {
	return then != nil && now != nil && math.Abs(*now-*then) >= 0.005
}

// NowUSDPerHour is today's price of the configuration, nil when there is
// none (or no answer today).
func (d Diff) NowUSDPerHour() *float64 {
	if d.Now == nil {
		return nil
	}
	return d.Now.Throughput.USDPerHour
}

// PriceChangePct is the price's change from then to now in percent, nil
// unless both prices are known and the old one is positive.
func (d Diff) PriceChangePct() *float64 {
	then, now := d.Then.USDPerHour, d.NowUSDPerHour()
	if then == nil || now == nil || *then <= 0 {
		return nil
	}
	pct := 100 * (*now - *then) / *then
	return &pct
}
