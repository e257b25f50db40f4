package answer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
)

// HistoryDays is how far back a price history question looks, as far as
// the price picture draws.
const HistoryDays = 90

// Trend is how one provider's price for a GPU moved over the days it was
// observed: its cheapest on-demand whole-GPU price per GPU-hour on the
// first and the last of them.
type Trend struct {
	Provider     string
	FirstDay     time.Time
	LastDay      time.Time
	First, Last  float64
	DaysObserved int
}

// Trends are the moves of the offers for the GPU ids observed in
// [from, to), of the providers named (every provider when none is),
// cheapest last price first.
func Trends(obs []pricing.Offer, ids, providers []string, from, to time.Time) []Trend {
	daily := map[string]map[time.Time]float64{}
	for _, o := range obs {
		if !slices.Contains(ids, o.GPU) || o.Market != pricing.MarketOnDemand || o.Fractional() ||
			o.ObservedAt.Before(from) || !o.ObservedAt.Before(to) || len(providers) > 0 && !slices.Contains(providers, providerName(o.Provider)) {
			continue
		}
		day := o.ObservedAt.UTC().Truncate(24 * time.Hour)
		if daily[o.Provider] == nil {
			daily[o.Provider] = map[time.Time]float64{}
		}
		if cur, ok := daily[o.Provider][day]; !ok || o.USDPerGPUHour < cur {
			daily[o.Provider][day] = o.USDPerGPUHour
		}
	}
	var out []Trend
	for provider, days := range daily {
		keys := slices.SortedFunc(mapKeys(days), func(a, b time.Time) int { return a.Compare(b) })
		first, last := keys[0], keys[len(keys)-1]
		out = append(out, Trend{Provider: provider, FirstDay: first, LastDay: last, First: days[first], Last: days[last], DaysObserved: len(keys)})
	}
	slices.SortFunc(out, func(a, b Trend) int { return cmp.Or(cmp.Compare(a.Last, b.Last), cmp.Compare(a.Provider, b.Provider)) })
	return out
}

// mapKeys are a map's keys, in no order.
func mapKeys(m map[time.Time]float64) func(func(time.Time) bool) {
	return func(yield func(time.Time) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// providerName is the name a price question files a provider's offers
// under: "runpod" for "runpod secure".
func providerName(p string) string {
	name, _, _ := strings.Cut(p, " ")
	return name
}

// HistoryLines answer a price history question about one GPU (its name
// and its trends): one line per provider, its price on the first and the
// last day observed and the change; a line saying there is no history
// when nothing was observed (a price sheet only, or no refresh yet).
func HistoryLines(name string, trends []Trend) []string {
	if len(trends) == 0 {
		return []string{fmt.Sprintf("No price history for the %s: no prices of it were observed in the last %d days, so I can't say how they moved. "+
			"Prices are recorded each time they are refreshed (fitbot prices refresh, which the bot runs on a schedule); today's prices below.", name, HistoryDays)}
	}
	out := []string{fmt.Sprintf("How the %s's price moved over the last %d days (cheapest on-demand price per GPU-hour, first and last day observed):", name, HistoryDays)}
	for _, t := range trends {
		change := "no change"
		if t.First > 0 && t.Last != t.First {
			change = fmt.Sprintf("%+.0f%%", (t.Last-t.First)/t.First*100)
		}
		if t.DaysObserved == 1 {
			change = "observed on one day only"
		}
		out = append(out, fmt.Sprintf("  %s: %s on %s → %s on %s (%s)", t.Provider, display.USD(t.First), t.FirstDay.Format(time.DateOnly),
			display.USD(t.Last), t.LastDay.Format(time.DateOnly), change))
	}
	return out
}
