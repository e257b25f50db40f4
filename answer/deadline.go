package answer

import (
	"fmt"
	"math"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// checkHostRAM checks the host RAM an offload answer counts per machine
// against the machine's memory the question gave ("with 64gb ram"): a
// shortfall is the first warning, since an offload run holds its states
// there; the GPU verdict stands. Without offload the checkpoint can be
// streamed to the GPU shard by shard, so nothing is said; nothing either
// when no memory was given.
func checkHostRAM(a *sizing.Answer, have int64) {
	if o := a.Request.Offload; have <= 0 || a.HostRAMBytes <= have || o == "" || o == sizing.OffloadNone {
		return
	}
	// Right under the verdict: the GPUs hold it, the machine does not
	// (read "✅ Fits" with 1,760 GiB needed and 512 GB said).
	a.Targets = append([]string{fmt.Sprintf("❌ Host RAM: the %s offload needs %s per machine (the larger of the checkpoint as it loads and the offloaded states with a 1.5× margin), more than the %d GB said, so the GPUs fit it but the machine does not",
		a.Request.Offload, display.GiB(a.HostRAMBytes), have>>30)}, a.Targets...)
}

// checkDeadline checks the run's time against the time the question
// asked for ("in a week", "by friday") and says so right under the
// verdict (Targets): done in time, not done (and how many times the
// GPUs would make it), or not checked (no tokens said, no run time). A
// run's length said without a token budget ("for 10 hours") is what
// that time costs and trains instead (runFor).
func checkDeadline(a *sizing.Answer, d reading.Deadline) {
	if d.Within <= 0 {
		return
	}
	if d.Run && a.Request.Tokens <= 0 {
		a.Targets = append(a.Targets, runFor(a, d))
		return
	}
	within := d.Within.Hours()
	h := a.Throughput.Hours
	d.Words = deadlineWords(d)
	switch {
	case (h == nil || *h <= 0) && a.Request.Method != sizing.MethodInference && a.Throughput.TokensPerSecond != nil && *a.Throughput.TokensPerSecond > 0:
		at1B := sizing.RunHours(sizing.RoundRunTokens, *a.Throughput.TokensPerSecond)
		a.Targets = append(a.Targets, fmt.Sprintf("%q not checked: no token count said (1B tokens would take about %s; say e.g. \"on 1B tokens\")", d.Words, display.Hours(at1B)))
	case h == nil || *h <= 0:
		a.Targets = append(a.Targets, fmt.Sprintf("%q not checked: this answer has no run time to compare it with", d.Words))
	case *h > within:
		more := int(math.Ceil(*h / within))
		a.Targets = append(a.Targets, fmt.Sprintf("Not done %s: about %s on %s; at best %d× as many GPUs (or that many fewer tokens) would make it",
			d.Words, display.Hours(*h), display.Hardware(a.Request.GPUs, a.GPUName), more))
	default:
		a.Targets = append(a.Targets, fmt.Sprintf("Done %s: about %s on %s", d.Words, display.Hours(*h), display.Hardware(a.Request.GPUs, a.GPUName)))
	}
}

// deadlineWords are a deadline's words as the answer's lines say them:
// "in a week" as asked, a run's length "for ~10 hours" as "in the ~10
// hours said".
func deadlineWords(d reading.Deadline) string {
	if !d.Run {
		return d.Words
	}
	_, rest, _ := strings.Cut(d.Words, " ")
	return "in the " + rest + " said"
}

// runFor is what a run's length said without a token budget ("for ~10
// hours") costs on the answered configuration and how many tokens it
// trains there: "For ~10 hours: $13.90 on 1× A100 SXM
// 80 GB at $1.39/h, training about 25M tokens". When the answer does not
// fit as asked, the tokens are those of its way on the same card, or
// none when it has no such way.
func runFor(a *sizing.Answer, d reading.Deadline) string {
	hours := d.Within.Hours()
	on := display.Hardware(a.Request.GPUs, a.GPUName)
	t := a.Throughput
	line := upperFirst(d.Words) + ": "
	if t.USDPerHour != nil && *t.USDPerHour > 0 {
		line += fmt.Sprintf("%s on %s at %s/h", display.USD(hours**t.USDPerHour), on, display.USD(*t.USDPerHour))
	} else {
		line += fmt.Sprintf("no price known for %s (say one, e.g. \"at $2/hr\")", on)
	}
	if a.Request.Method == sizing.MethodInference {
		return line
	}
	trains := func(tps float64) string { return display.Count(hours/sizing.RunHours(1, tps)) + " tokens" }
	way, tps := display.SameCardSpeed(*a)
	switch {
	case a.Fits && t.TokensPerSecond != nil && *t.TokensPerSecond > 0:
		line += ", training about " + trains(*t.TokensPerSecond)
	case !a.Fits && way != "":
		line += fmt.Sprintf("; it does not fit as asked, and with %s it trains about %s in that time", way, trains(tps))
	case !a.Fits:
		line += ", but it does not fit as asked (the ways below do)"
	}
	return line
}

// upperFirst is s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// askTargets say what an answer to a question that runs the other way
// round makes of the asker's deadline, budget and price, first: a
// which-GPU list with a token count keeps the cards done in time; without
// one it says what the first card trains in that time. What the search
// cannot use is named as not checked, never dropped.
func askTargets(a *sizing.AskAnswer, d reading.Deadline, m reading.Money) []string {
	var out []string
	if d.Within > 0 {
		out = append(out, askDeadline(a, d))
	}
	if m.BudgetUSD > 0 {
		budget := display.USD(m.BudgetUSD)
		if m.PerMonth {
			budget = display.PerMonth(m.BudgetUSD)
		}
		if line := planBudget(a, m, budget); line != "" {
			out = append(out, line)
		} else {
			out = append(out, fmt.Sprintf("Budget %s not checked: this answer compares what fits, not what a budget buys (ask about one configuration, e.g. with \"on 2 h100\")", budget))
		}
	}
	if m.USDPerGPUHour > 0 {
		out = append(out, fmt.Sprintf("%q not used: this answer counts every card at its market price", m.PriceWords))
	}
	return out
}

// planBudget is what a monthly budget buys of a serving plan: of its
// configurations, the one whose replicas, run around the clock within the
// budget, hold the most users at once; "" when the answer is no serving
// plan or the budget is not a month's.
func planBudget(a *sizing.AskAnswer, m reading.Money, budget string) string {
	if !m.PerMonth || a.Serve == nil {
		return ""
	}
	best, bestUsers, bestReplicas := -1, 0, 0
	for i, o := range a.Serve.Options {
		sv := o.Serving
		if sv.USDPerMonth == nil || *sv.USDPerMonth <= 0 || sv.Concurrency <= 0 {
			continue
		}
		perReplica := *sv.USDPerMonth / float64(max(sv.Replicas, 1))
		replicas := int(m.BudgetUSD / perReplica)
		if users := replicas * sv.Concurrency; users > bestUsers {
			best, bestUsers, bestReplicas = i, users, replicas
		}
	}
	if best < 0 {
		return fmt.Sprintf("Over the %s budget: no configuration below runs one replica within it", budget)
	}
	o := a.Serve.Options[best]
	perReplica := *o.Serving.USDPerMonth / float64(max(o.Serving.Replicas, 1))
	return fmt.Sprintf("Budget %s: %d replicas of %s (%s) running 24/7 (%s each, %s in all), about %s users at once at %s tok/s each: the most users of the configurations below",
		budget, bestReplicas, display.Hardware(o.Serving.GPUsPerReplica, o.GPUName), weightsWord(o), display.PerMonth(perReplica),
		display.PerMonth(perReplica*float64(bestReplicas)), display.Commas(int64(bestUsers)), display.Decimal(o.Serving.TokensPerSecondPerUser))
}

// weightsWord is a plan option's weight format: its quantisation, or its
// precision when unquantised.
func weightsWord(o sizing.ServeOption) string {
	if o.Quant != sizing.QuantNone {
		return string(o.Quant)
	}
	return string(o.Precision)
}

// askDeadline is what a deadline makes of a which-GPU list: with a token
// count, only the cards done in time are kept (all of them when none
// is); without one, it says what the first card trains in that time.
func askDeadline(a *sizing.AskAnswer, d reading.Deadline) string {
	w := a.WhichGPU
	if w == nil || len(w.Options) == 0 {
		return fmt.Sprintf("%q not checked: this answer has no run time to compare it with", d.Words)
	}
	within := d.Within.Hours()
	if w.Tokens <= 0 {
		o := w.Options[0]
		if o.TokensPerSecond == nil || *o.TokensPerSecond <= 0 || a.Request.Method == sizing.MethodInference {
			return fmt.Sprintf("%q not checked: this answer has no run time to compare it with", d.Words)
		}
		tokens := within / sizing.RunHours(1, *o.TokensPerSecond)
		if d.Run {
			line := fmt.Sprintf("%s: %s trains about %s tokens", upperFirst(d.Words), display.Hardware(o.GPUs, o.GPUName), display.Count(tokens))
			if o.USDPerHour != nil && *o.USDPerHour > 0 {
				line += fmt.Sprintf(" for %s at %s/h", display.USD(within**o.USDPerHour), display.USD(*o.USDPerHour))
			}
			return line
		}
		return fmt.Sprintf("%q not checked: no token count said; %s trains about %s tokens %s (say e.g. \"on 100M tokens\")",
			d.Words, display.Hardware(o.GPUs, o.GPUName), display.Count(tokens), d.Words)
	}
	d.Words = deadlineWords(d)
	kept := w.Options[:0:0]
	for _, o := range w.Options {
		if o.Hours != nil && *o.Hours <= within {
			kept = append(kept, o)
		}
	}
	if len(kept) == 0 {
		line := fmt.Sprintf("None done %s: every card below takes longer for %s tokens", d.Words, display.Count(float64(w.Tokens)))
		var fastest *sizing.GPUOption
		for i, o := range w.Options {
			if o.Hours != nil && (fastest == nil || *o.Hours < *fastest.Hours) {
				fastest = &w.Options[i]
			}
		}
		if fastest != nil {
			line += fmt.Sprintf("; the fastest, %s, takes %s", display.Hardware(fastest.GPUs, fastest.GPUName), display.Hours(*fastest.Hours))
		}
		return line
	}
	c := *w // the search's result may be shared: the list is cut in a copy
	c.Options = kept
	a.WhichGPU = &c
	return fmt.Sprintf("Done %s: the %s below (of %d that fit)", d.Words, display.Counted(len(kept), "configuration", "configurations"), len(w.Options))
}
