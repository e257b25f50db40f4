package sizing

import (
	"fmt"
	"strconv"
)

// Cadence is how often a training run is repeated: Runs times a Per
// ("day", "week" or "month"); the zero Cadence is a single run.
type Cadence struct {
	Runs float64 `json:"runs,omitempty"`
	Per  string  `json:"per,omitempty"`
}

// periodsPerMonth is how many days, weeks and months a month holds.
var periodsPerMonth = map[string]float64{"day": 365.0 / 12, "week": weeksPerMonth, "month": 1}

// perMonth is the runs a month; 0 for a single run.
func (c Cadence) perMonth() float64 { return c.Runs * periodsPerMonth[c.Per] }

// String is the cadence as words readCadence reads back ("2 runs a week").
func (c Cadence) String() string {
	if c.Runs == 0 {
		return ""
	}
	runs := "runs"
	if c.Runs == 1 {
		runs = "run"
	}
	return fmt.Sprintf("%s %s a %s", strconv.FormatFloat(c.Runs, 'f', -1, 64), runs, c.Per)
}

// cadenceWords are the words that say a cadence on their own.
var cadenceWords = map[string]Cadence{
	"weekly": {1, "week"}, "daily": {1, "day"}, "nightly": {1, "day"}, "fortnightly": {0.5, "week"}, "biweekly": {0.5, "week"},
}

// runWords count the runs of a cadence: "3 times a week", "2 runs a day".
var runWords = map[string]bool{"times": true, "time": true, "runs": true, "run": true, "jobs": true, "job": true}

// cadencePeriods are the words a period is said with after "every",
// "each" or "a".
var cadencePeriods = map[string]string{"day": "day", "night": "day", "week": "week", "month": "month"}

// cadenceAt reads a cadence starting at token i of a question's lowered
// words w: "every week", "each night", "once a week", "twice a month",
// "3 times a week", "2 runs per week", "weekly", "nightly". It reports the
// cadence and the tokens it covered (0 when none starts there).
func CadenceAt(w func(int) string, i int) (Cadence, int) {
	k := w(i)
	if c, ok := cadenceWords[k]; ok {
		return c, 1
	}
	if (k == "every" || k == "each") && cadencePeriods[w(i+1)] != "" {
		return Cadence{1, cadencePeriods[w(i+1)]}, 2
	}
	if k == "every" && w(i+1) == "other" && cadencePeriods[w(i+2)] != "" {
		return Cadence{0.5, cadencePeriods[w(i+2)]}, 3
	}
	runs, n := 0.0, 0
	switch k {
	case "once":
		runs, n = 1, 1
	case "twice":
		runs, n = 2, 1
	default:
		if k == "" || (k[0] < '0' || k[0] > '9') && k[0] != '.' || !runWords[w(i+1)] {
			return Cadence{}, 0 // no count of runs: spares ParseFloat's error
		}
		v, err := strconv.ParseFloat(k, 64)
		if err != nil || v <= 0 || v > maxRunsPerDay*31 || !runWords[w(i+1)] {
			return Cadence{}, 0
		}
		runs, n = v, 2
	}
	if (w(i+n) == "a" || w(i+n) == "per" || w(i+n) == "each" || w(i+n) == "every") && cadencePeriods[w(i+n+1)] != "" {
		return Cadence{runs, cadencePeriods[w(i+n+1)]}, n + 2
	}
	return Cadence{}, 0
}

// maxRunsPerDay bounds a cadence: more runs a day than hours is not a
// cadence of training runs.
const maxRunsPerDay = 24

// monthOfRuns is a month of r's repeated runs at t's price: each the
// token budget's run, else a round run of RoundRunTokens; nil when the
// card is unpriced or the run untimed.
func monthOfRuns(r *Request, t Throughput) *float64 {
	run := t.USDTotal
	if run == nil && t.USDPerHour != nil && t.TokensPerSecond != nil && *t.TokensPerSecond > 0 {
		v := RunHours(RoundRunTokens, *t.TokensPerSecond) * *t.USDPerHour
		run = &v
	}
	if run == nil {
		return nil
	}
	month := *run * r.RunsPerMonth
	return &month
}

// cadenceNote is the assumption a cadence adds: the runs a month and
// what one run is.
func cadenceNote(r *Request) string {
	run := "a round run of 1B tokens (no dataset size said: say \"on 50M tokens\" for yours)"
	if r.Tokens > 0 {
		run = "the run asked"
	}
	return fmt.Sprintf("repeated %s times a month: the month's cost is that many times %s", strconv.FormatFloat(RoundTo(r.RunsPerMonth, 2), 'f', -1, 64), run)
}
