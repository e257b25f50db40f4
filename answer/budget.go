package answer

import (
	"fmt"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// checkBudget says what the budget the question gave ("$2000", "$5k a
// month") buys on the answered configuration, as the first target: for
// training, the hours and tokens it pays for and whether the run (the
// tokens said, else the 1B-token reference run) fits in it; for serving,
// how many replicas a monthly budget keeps running and the requests
// they hold at once, or how long a budget keeps one running.
func checkBudget(a *sizing.Answer, m reading.Money) {
	if m.BudgetUSD <= 0 {
		return
	}
	budget := display.USD(m.BudgetUSD)
	if m.PerMonth {
		budget = display.PerMonth(m.BudgetUSD)
	}
	on := display.Hardware(a.Request.GPUs, a.GPUName)
	t := a.Throughput
	if t.USDPerHour == nil || *t.USDPerHour <= 0 {
		a.Targets = append(a.Targets, fmt.Sprintf("Budget %s not checked: no price known for %s (say one, e.g. \"at $2/hr\")", budget, on))
		return
	}
	perHour := *t.USDPerHour
	hours := m.BudgetUSD / perHour
	if a.Request.Method == sizing.MethodInference {
		a.Targets = append(a.Targets, servingBudget(a, m, budget, on, perHour))
		return
	}
	tps := t.TokensPerSecond
	if m.PerMonth && perHour*hoursPerMonth <= m.BudgetUSD {
		line := fmt.Sprintf("Within the %s budget: %s costs %s running 24/7", budget, on, display.PerMonth(perHour*hoursPerMonth))
		if t.USDTotal != nil && t.Hours != nil {
			line += fmt.Sprintf("; the run costs %s (%s)", display.USD(*t.USDTotal), display.Hours(*t.Hours))
		}
		a.Targets = append(a.Targets, line)
		return
	}
	buys := fmt.Sprintf("%s buys about %s on %s at %s/h", budget, display.Hours(hours), on, display.USD(perHour))
	if m.PerMonth {
		buys = fmt.Sprintf("it buys about %s a month on %s at %s/h", display.Hours(hours), on, display.USD(perHour))
	}
	if tps == nil || *tps <= 0 {
		a.Targets = append(a.Targets, "Budget "+budget+": "+buys)
		return
	}
	tokens := hours / sizing.RunHours(1, *tps)
	buys += " = about " + display.Count(tokens) + " tokens"
	runTokens, runUSD, what := float64(a.Request.Tokens), 0.0, "the run"
	if t.USDTotal != nil {
		runUSD = *t.USDTotal
	} else {
		runTokens, what = sizing.RoundRunTokens, "a 1B-token run (no token count said)"
		runUSD = sizing.RunHours(runTokens, *tps) * perHour
	}
	switch {
	case m.PerMonth:
		a.Targets = append(a.Targets, fmt.Sprintf("Budget %s: %s a month; %s costs %s, %s months of the budget",
			budget, buys, what, display.USD(runUSD), display.Decimal(runUSD/m.BudgetUSD)))
	case runUSD <= m.BudgetUSD:
		a.Targets = append(a.Targets, fmt.Sprintf("Within the %s budget: %s costs %s; %s", budget, what, display.USD(runUSD), buys))
	default:
		a.Targets = append(a.Targets, fmt.Sprintf("Over the %s budget: %s costs %s (%s tokens); %s, %.0f%% of them",
			budget, what, display.USD(runUSD), display.Count(runTokens), buys, 100*tokens/runTokens))
	}
}

// servingBudget is what a budget buys of a serving deployment: with a
// monthly budget, how many replicas of the answer's configuration run
// around the clock and how many requests they hold at once; with a
// budget in all, how long one replica runs on it.
func servingBudget(a *sizing.Answer, m reading.Money, budget, on string, perHour float64) string {
	month := perHour * hoursPerMonth
	if !m.PerMonth {
		return fmt.Sprintf("Budget %s: about %s of %s running at %s/h (%s running 24/7)", budget, display.Hours(m.BudgetUSD/perHour), on, display.USD(perHour), display.PerMonth(month))
	}
	replicas := int(m.BudgetUSD / month)
	if replicas < 1 {
		return fmt.Sprintf("Over the %s budget: %s costs %s running 24/7", budget, on, display.PerMonth(month))
	}
	fleet := display.Hardware(replicas, a.GPUName)
	if a.Request.GPUs > 1 {
		fleet = fmt.Sprintf("%d replicas of %s", replicas, on)
	}
	line := fmt.Sprintf("Budget %s: %s running 24/7 (%s each, %s in all)", budget, fleet, display.PerMonth(month), display.PerMonth(float64(replicas)*month))
	if sv := a.Serving; sv != nil && sv.Concurrency > 0 {
		line += fmt.Sprintf(", about %s requests at once at %s tok/s each (%d per replica, %d-token requests)",
			display.Commas(int64(replicas*sv.Concurrency)), display.Decimal(sv.TokensPerSecondPerUser), sv.Concurrency, sv.PromptTokens+sv.OutputTokens)
	}
	return line
}
