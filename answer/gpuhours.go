package answer

import (
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// checkGPUHours says what the question's GPU-hours are, first among the
// targets: a budget ("2000 a100 gpu-hours") against the run's GPU-hours
// (its hours × its GPUs, timed as display.RunTiming tells the run), or,
// with no token count, the tokens it trains at the run's speed; the
// run's GPU-hours when they were asked ("how many gpu hours"). A
// serving answer says what the budget keeps running, never dropping it.
// The figures go in the answer's gpu_hours (sizing.CountGPUHours).
func checkGPUHours(a *sizing.Answer) {
	r := a.Request
	if r.GPUHours <= 0 && !r.GPUHoursAsked {
		return
	}
	t, way := display.RunTiming(*a)
	g := sizing.CountGPUHours(r, t)
	g.Way = strings.TrimPrefix(strings.SplitN(way, " on the same ", 2)[0], " with ")
	a.GPUHours = &g
	tps := 0.0
	if t.TokensPerSecond != nil {
		tps = *t.TokensPerSecond
	}
	a.Targets = append(a.Targets, gpuHoursLine(a, g, way, tps))
}

// gpuHoursLine is checkGPUHours's words: "✅ 2,000 A100-hours cover it:
// the run of 20B tokens takes about 240 A100-hours (1× A100 SXM 80 GB
// for 10.0 days), 12% of the budget".
func gpuHoursLine(a *sizing.Answer, g sizing.GPUHours, way string, tps float64) string {
	r := a.Request
	on := display.Hardware(g.GPUs, a.GPUName)
	unit := display.CardHours(a.GPUName)
	budget := ""
	if g.Budget > 0 {
		// The budget in the asker's unit: the card's hours when a card
		// was named, else GPU-hours (the card fitbot chose is said beside).
		budgetUnit := unit
		if a.GPUChosen {
			budgetUnit = "GPU-hours"
		}
		budget = hoursCount(g.Budget) + " " + budgetUnit
	}
	if r.Method == sizing.MethodInference {
		if g.Budget > 0 {
			return fmt.Sprintf("%s are not used to size serving: they keep %s running for %s", budget, on, display.Hours(*g.BudgetHours))
		}
		return fmt.Sprintf("GPU-hours are not counted for serving: %s use %s %s each hour they run (%s a month)",
			on, hoursCount(float64(g.GPUs)), unit, hoursCount(float64(g.GPUs)*hoursPerMonth))
	}
	notFit := !a.Fits && way == ""
	subject := "GPU-hours"
	if budget != "" {
		subject = budget
	}
	switch {
	case notFit:
		return fmt.Sprintf("%s not counted: it does not fit as asked on %s (the ways below do, each with its own time)", subject, on)
	case tps <= 0:
		return fmt.Sprintf("%s not counted: no training speed is known for %s", subject, on)
	}
	run := ""
	if g.Run != nil {
		run = fmt.Sprintf("the run of %s tokens takes about %s %s (%s for %s%s)",
			display.Count(float64(r.Tokens)), hoursCount(*g.Run), unit, on, display.Hours(*g.RunHours), way)
	}
	switch {
	case g.Budget > 0 && g.Covers != nil && *g.Covers:
		return fmt.Sprintf("✅ %s cover it: %s, %s of the budget", budget, run, share(*g.Run/g.Budget))
	case g.Budget > 0 && g.Covers != nil:
		return fmt.Sprintf("❌ %s do not cover it: %s; the budget trains about %s of the %s tokens (%s)",
			budget, run, display.Count(*g.Tokens), display.Count(float64(r.Tokens)), share(*g.Tokens/float64(r.Tokens)))
	case g.Budget > 0:
		return fmt.Sprintf("%s train about %s tokens: %s for %s%s at %s tokens/s",
			budget, display.Count(*g.Tokens), on, display.Hours(*g.BudgetHours), way, display.Count(tps))
	case g.Run != nil:
		return upperFirst(run)
	default:
		at1B := sizing.RunHours(sizing.RoundRunTokens, tps) * float64(g.GPUs)
		return fmt.Sprintf("GPU-hours not counted: no token count said (1B tokens take about %s %s on %s; say e.g. \"on 1B tokens\")", hoursCount(at1B), unit, on)
	}
}

// askGPUHours says that an answer to a question that runs the other way
// round (which GPU, largest model, serving capacity) does not count the
// question's GPU-hours, so that they are never dropped unsaid; "" when
// it gave none.
func askGPUHours(q sizing.Query) string {
	switch {
	case q.GPUHours > 0 && (q.Method == "" || q.Method == sizing.MethodInference):
		return fmt.Sprintf("%s GPU-hours are not used to size serving: a serving answer counts cards and what they cost a month", hoursCount(q.GPUHours))
	case q.GPUHours > 0:
		return fmt.Sprintf("%s GPU-hours not checked: this answer compares what fits, not what a GPU-hours budget buys (ask about one configuration, e.g. with \"on 8 h100\" and a token count)", hoursCount(q.GPUHours))
	case q.GPUHoursAsked:
		return "GPU-hours not counted: this answer compares what fits (ask about one configuration, e.g. with \"on 8 h100\" and a token count)"
	}
	return ""
}

// compareGPUHours is what a comparison says of the question's GPU-hours,
// first among its assumptions: each option's run in GPU-hours (its
// hours × its GPUs) and whether the budget covers it; "" when the
// question gave none and asked none.
func compareGPUHours(opts []CompareOption) string {
	if len(opts) == 0 {
		return ""
	}
	r := opts[0].Request
	if r.GPUHours <= 0 && !r.GPUHoursAsked {
		return ""
	}
	if r.Method == sizing.MethodInference {
		if r.GPUHours > 0 {
			return fmt.Sprintf("%s GPU-hours are not used to size serving: each option is compared by what it serves", hoursCount(r.GPUHours))
		}
		return "GPU-hours are not counted for serving: each option is compared by what it serves"
	}
	parts := make([]string, 0, len(opts))
	for _, o := range opts {
		if o.Throughput.Hours == nil {
			parts = append(parts, hardwareLabel(o.Request, o.gpuName)+" not timed")
			continue
		}
		run := *o.Throughput.Hours * float64(max(o.Request.GPUs, 1))
		part := fmt.Sprintf("%s %s %s", hardwareLabel(o.Request, o.gpuName), hoursCount(run), display.CardHours(o.gpuName))
		if r.GPUHours > 0 {
			if run <= r.GPUHours {
				part += " (covered)"
			} else {
				part += " (not covered)"
			}
		}
		parts = append(parts, part)
	}
	line := fmt.Sprintf("GPU-hours of the run of %s tokens (hours × GPUs): %s", display.Count(float64(r.Tokens)), strings.Join(parts, ", "))
	if r.GPUHours > 0 {
		line += fmt.Sprintf("; the budget is %s GPU-hours", hoursCount(r.GPUHours))
	}
	return line
}

// hoursCount is a count of hours as a person says one: whole hours with
// commas ("2,000"), tenths under ten ("2.5").
func hoursCount(h float64) string {
	if h < 10 {
		return display.Decimal(h)
	}
	return display.Commas(int64(h + 0.5))
}

// share is a fraction as a whole percentage, "under 1%" below one.
func share(f float64) string {
	if f < 0.01 {
		return "under 1%"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}
