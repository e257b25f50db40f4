package pricing

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// The economics behind the sanity bounds (docs/prices.md has the rule and
// its figures per card).
const (
	// OwnLifeYears is the life a card's purchase is spread over for the
	// floor: longer than the three years of the usual depreciation, so
	// the floor is what the cheapest owner pays.
	OwnLifeYears = 5
	// OwnUSDPerKWh is the power price for the floor: cheap industrial
	// electricity, as a large data centre buys it.
	OwnUSDPerKWh = 0.05
	// FloorShare is the share of the cost of owning a card that a renter
	// may still charge: a provider selling off a paid-off card or filling
	// idle capacity sells at a loss, but not at less than half its cost.
	FloorShare = 0.5
	// CeilingFactor is how far above the dearest on-demand list price of
	// a card an offer may be: three times.
	CeilingFactor = 3.0
	// PaybackHours bounds a card no list prices: an hour's rent of more
	// than its purchase price over a month (720 hours) is not a price.
	PaybackHours = 720
	// SpreadProviders is how many providers must price a card in a market
	// before their spread narrows its bounds.
	SpreadProviders = 4
	// SpreadFactor is how far outside the providers' spread an offer may
	// be, either way: three times below the cheapest, above the dearest.
	SpreadFactor = 3.0
)

// hoursPerYear is 365 days of 24 hours.
const hoursPerYear = 365 * 24

// Bounds are the plausible prices per GPU-hour of one card in one market,
// each with the reason an offer outside it is held, in words that follow
// "$0.06/GPU-h is ".
type Bounds struct {
	Floor, Ceiling       float64
	FloorWhy, CeilingWhy string
	// Median is the median of the providers' prices (one per provider),
	// and Voices their number; zero when none prices the card.
	Median float64
	Voices int
}

// OwnCost is what owning one card of gpu costs per hour at the floor's
// figures (its lowest purchase price over OwnLifeYears, its board power
// at OwnUSDPerKWh), and those figures in words; ok is false for a GPU the
// catalog does not know. A card without a purchase price costs its power
// alone.
func OwnCost(gpu string) (usd float64, words string, ok bool) {
	g, _, err := sizing.LookupGPU(gpu)
	if err != nil || g.ID != gpu {
		return 0, "", false
	}
	power := float64(g.BoardPowerWatts) / 1000 * OwnUSDPerKWh
	words = fmt.Sprintf("%.0f W at $%.2f/kWh", float64(g.BoardPowerWatts), OwnUSDPerKWh)
	if p, ok := sizing.LookupPurchasePrice(gpu); ok {
		return p.USDLow/(OwnLifeYears*hoursPerYear) + power,
			fmt.Sprintf("%s over %d years plus %s", dollars(p.USDLow), OwnLifeYears, words), true
	}
	return power, words + " (no purchase price known)", true
}

// dollars is whole dollars grouped in thousands: "$25,000".
func dollars(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return "$" + s
}

// Bounds is the plausible range of prices per GPU-hour of gpu in market
// m. A GPU the catalog does not know has only the flat bounds
// (MinUSDPerGPUHour, MaxUSDPerGPUHour).
func (r Reference) Bounds(gpu string, m Market) Bounds {
	b := Bounds{Floor: MinUSDPerGPUHour, Ceiling: MaxUSDPerGPUHour,
		FloorWhy:   fmt.Sprintf("below $%.2f/GPU-h, the least any GPU rents for", MinUSDPerGPUHour),
		CeilingWhy: fmt.Sprintf("above $%.0f/GPU-h, the most any GPU rents for", MaxUSDPerGPUHour)}
	vs := r.voices[gpuMarket{gpu, m}]
	if len(vs) > 0 {
		b.Median, b.Voices = Median(vs), len(vs)
	}
	name := gpu
	if g, _, err := sizing.LookupGPU(gpu); err == nil && g.ID == gpu {
		name = g.Name
	}
	aName := article(name) + " " + name
	if own, words, ok := OwnCost(gpu); ok && own*FloorShare > b.Floor {
		b.Floor = own * FloorShare
		b.FloorWhy = fmt.Sprintf("below what %s costs to own ($%.2f/GPU-h: half of %s)", aName, b.Floor, words)
	}
	if list := r.list[gpu]; list > 0 && list*CeilingFactor < b.Ceiling {
		b.Ceiling = list * CeilingFactor
		b.CeilingWhy = fmt.Sprintf("above %g times the dearest list price of %s ($%.2f/GPU-h)", CeilingFactor, aName, list)
	} else if p, ok := sizing.LookupPurchasePrice(gpu); ok && list == 0 && p.USDHigh/PaybackHours < b.Ceiling {
		b.Ceiling = p.USDHigh / PaybackHours
		b.CeilingWhy = fmt.Sprintf("above %s's purchase price (%s) over a month of rent ($%.2f/GPU-h)", aName, dollars(p.USDHigh), b.Ceiling)
	}
	if len(vs) >= SpreadProviders {
		lo, hi := vs[0], vs[len(vs)-1]
		if lo/SpreadFactor > b.Floor {
			b.Floor = lo / SpreadFactor
			b.FloorWhy = fmt.Sprintf("below a third of the cheapest of %d providers' %s %s prices ($%.2f/GPU-h)", len(vs), name, marketWords(m), lo)
		}
		if hi*SpreadFactor < b.Ceiling {
			b.Ceiling = hi * SpreadFactor
			b.CeilingWhy = fmt.Sprintf("above three times the dearest of %d providers' %s %s prices ($%.2f/GPU-h)", len(vs), name, marketWords(m), hi)
		}
	}
	if b.Ceiling < b.Floor { // contradictory figures: judge by the economics alone
		b.Ceiling = math.Max(b.Floor, MaxUSDPerGPUHour)
	}
	return b
}

// marketWords is a market as a sentence says it: "on-demand", "spot".
func marketWords(m Market) string {
	if m == MarketOnDemand {
		return "on-demand"
	}
	return string(m)
}

// article is "an" before a name read with a vowel sound first ("an H100",
// "an RTX 4090", "an A100"), else "a" ("a T4", "a B200").
func article(name string) string {
	if name != "" && strings.ContainsRune("AEFHILMNORSXaeio8", rune(name[0])) {
		return "an"
	}
	return "a"
}

// Median is the middle of xs (the mean of the two middle ones for an even
// count); xs is not changed.
func Median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
