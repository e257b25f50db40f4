package sizing

import (
	"math"
	"testing"
)

// TestCadence reads how often a training run is repeated and prices a
// month of them ("finetune mistral 7b every week ... what
// does that cost per month" was priced as the card rented 24/7).
func TestCadence(t *testing.T) {
	for _, c := range []struct {
		q        string
		cadence  Cadence
		perMonth float64
	}{
		{"we need to finetune mistral 7b every week on new support tickets, what does that cost per month", Cadence{1, "week"}, 52.0 / 12},
		{"llama 3 8b lora on a 4090, 3 times a week on 50M tokens", Cadence{3, "week"}, 3 * 52.0 / 12},
		{"nightly finetune of qwen2.5 7b with qlora on an l4", Cadence{1, "day"}, 365.0 / 12},
		{"qlora llama 3 8b twice a month on an a100", Cadence{2, "month"}, 2},
		{"full finetune phi-3 mini every other week", Cadence{0.5, "week"}, 26.0 / 12},
		{"serve llama 3 8b every day on an l4", Cadence{}, 0},
		{"llama 3 8b lora 4090", Cadence{}, 0},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.q, err)
			continue
		}
		if p.Query.Cadence != c.cadence {
			t.Errorf("%q: cadence %+v, want %+v", c.q, p.Query.Cadence, c.cadence)
			continue
		}
		if c.cadence.Runs > 0 && p.Query.PerMonth {
			t.Errorf("%q: the month asked is of the runs, not the cards all month", c.q)
		}
		back, err := Parse(Format(p.Query))
		if err != nil || back.Query.Cadence != c.cadence {
			t.Errorf("%q: %q reads back as %+v (%v)", c.q, Format(p.Query), back.Query.Cadence, err)
		}
		a, err := (&Estimator{Prices: stubPrices{"rtx-4090": 0.34, "l4": 0.8, "a100-80": 1.2, "h100": 2.4, "mi300x": 1.85}}).Answer(p.Query)
		if err != nil {
			t.Errorf("Answer(%q): %v", c.q, err)
			continue
		}
		if math.Abs(a.Request.RunsPerMonth-c.perMonth) > 1e-9 {
			t.Errorf("%q: %v runs a month, want %v", c.q, a.Request.RunsPerMonth, c.perMonth)
		}
		th := a.Throughput
		if c.perMonth == 0 {
			if th.USDPerMonthOfRuns != nil {
				t.Errorf("%q: a month of runs %v with no cadence", c.q, *th.USDPerMonthOfRuns)
			}
			continue
		}
		if th.USDPerMonthOfRuns == nil || th.USDPerHour == nil || th.TokensPerSecond == nil {
			t.Errorf("%q: no month of runs: %+v", c.q, th)
			continue
		}
		run := RunHours(RoundRunTokens, *th.TokensPerSecond) * *th.USDPerHour
		if th.USDTotal != nil {
			run = *th.USDTotal
		}
		if want := run * c.perMonth; math.Abs(*th.USDPerMonthOfRuns-want) > 1e-6*want {
			t.Errorf("%q: $%.2f a month of runs, want %v runs × $%.2f = $%.2f", c.q, *th.USDPerMonthOfRuns, c.perMonth, run, want)
		}
	}
}
