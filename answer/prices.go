package answer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// PriceBook lists current GPU prices; *store.DB is one.
type PriceBook interface {
	// CheapestOffers returns the cheapest current offer per GPU and market.
	CheapestOffers(ctx context.Context) ([]pricing.Offer, error)
	// OffersForGPU returns every current offer for one catalog GPU id.
	OffersForGPU(ctx context.Context, gpu string) ([]pricing.Offer, error)
}

// ErrNoPrices is the error of a price question on a Service without a
// PriceBook.
var ErrNoPrices = errors.New("prices are not available on this fitbot")

// PriceAnswer is the answer to a price question (KindPrices): every
// GPU's cheapest offers when the question names none, else each named
// GPU's offers (every variant's when a family is named: "a100s"), and
// for two named GPUs which is cheaper. A question that asks for spot
// gets spot offers only, or is told first that there are none.
type PriceAnswer struct {
	// GPUs are the catalog ids named, in the order said; none: every GPU.
	GPUs []string
	// Variants are the catalog ids each of GPUs lists, in its order:
	// every variant of the family when a family was named and only one
	// GPU was ("spot price for a100s": the 80 and 40 GB cards), else the
	// GPU alone.
	Variants [][]string
	// Week: the question asked about the week, which the weekly
	// digest's moves answer (these are today's prices).
	Week bool
	// Spot: the question asked for spot prices; the offers listed are
	// spot offers, except for the GPUs in NoSpot.
	Spot bool
	// NoSpot are the GPUs named (of GPUs) that have no spot offer: their
	// offers in the other markets are listed instead, which the answer
	// says first. With no GPU named it is [""] when no GPU has one.
	NoSpot []string
	// Cheapest is the cheapest offer per GPU and market (no GPU named).
	Cheapest []pricing.Offer
	// Offers are each named GPU's offers, in the order of GPUs.
	Offers [][]pricing.Offer
	// NoProvider are the lines saying which providers named have no offer
	// for a GPU named ("lambda has no price known for the H100"), in the
	// order of GPUs.
	NoProvider []string
	// Elsewhere are lines saying, for a spot question at a provider with
	// no spot offer, which other provider has the cheapest spot offer
	// ("gcp has spot for any H100: $6.57/GPU-h."), in the order of GPUs.
	Elsewhere []string
	// NoReserved: the question asked for reserved or committed-use
	// prices and none is known for the GPUs named; the other markets'
	// offers are listed, which the answer says first (NoReservedLine).
	NoReserved bool
	// Compare is set when two GPUs were named.
	Compare *Comparison
	// Month are the named GPUs' costs by the hour and around the clock
	// for a month, when the question asked for a month ("monthly cost of
	// an h100") or a count ("three a100s"), in the order of GPUs; a GPU
	// with no offer is left out.
	Month []MonthCost
	// Hours and Period are the rental period asked ("for a week": 168
	// hours): each of Month is priced for it too.
	Hours  float64
	Period string
}

// RunLine says that a price answer is per GPU-hour when the question
// named a training run but no model ("a100 80gb vs h100 per hour, which
// is cheaper for a training run"), and how to ask the cost
// per run; "" otherwise.
func RunLine(r reading.Routing) string {
	if !r.RunAsked {
		return ""
	}
	example := "a100 vs h100 for lora llama 3.1 8b"
	if len(r.GPUs) == 2 {
		example = fmt.Sprintf("%s vs %s for lora llama 3.1 8b", r.GPUs[0], r.GPUs[1])
	}
	return fmt.Sprintf("These are prices per GPU-hour. A training run's cost also depends on how fast each card trains, and a faster card can cost less per run: name the model to compare per run (\"%s\").", example)
}

// HoursPerMonth is a month around the clock: 365 × 24 / 12.
const HoursPerMonth = 730.0

// MonthCost is one GPU's cost for a month around the clock at its
// cheapest whole-GPU offer listed (on-demand where there is one, spot
// when only spot was asked).
type MonthCost struct {
	// GPU is the GPU named; Offer.GPU the card priced (of a family named,
	// "h100", the variant with the cheapest offer when the card itself has
	// none). GPUs is the count asked ("8x h100"), 1 when none was.
	GPU   string
	GPUs  int
	Offer pricing.Offer
	// USDPerGPU is the offer's GPU-hour price for HoursPerMonth hours,
	// and USDInstance that of the whole instance the offer rents.
	USDPerGPU, USDInstance float64
}

// MonthLine says a's month costs: "A month around the clock (730 h):
// H100 SXM 80 GB $2,913 per GPU (lambda on-demand, $3.99/GPU-h; the
// 8-GPU instance $23,302)."; "" when the question did not ask for one.
func MonthLine(a PriceAnswer) string {
	if len(a.Month) == 0 {
		return ""
	}
	var parts, periods []string
	for _, m := range a.Month {
		name := m.Offer.GPU // of a family's variants, the one priced
		if g, ok := sizing.MatchGPU(m.Offer.GPU); ok {
			name = g.Name
		}
		market := strings.ReplaceAll(string(m.Offer.Market), "_", "-")
		var part string
		if m.GPUs > 1 {
			n := float64(m.GPUs)
			part = fmt.Sprintf("%d× %s %s/h, %s a month (%s per GPU-h; %s %s", m.GPUs, name, display.USD(m.Offer.USDPerGPUHour*n),
				display.USD(m.USDPerGPU*n), display.USD(m.Offer.USDPerGPUHour), m.Offer.Provider, market)
		} else {
			part = fmt.Sprintf("%s %s per GPU (%s %s, %s/GPU-h", name, display.USD(m.USDPerGPU), m.Offer.Provider, market, display.USD(m.Offer.USDPerGPUHour))
		}
		if a.Hours > 0 {
			periods = append(periods, fmt.Sprintf("%s %s at %s", display.Hardware(max(m.GPUs, 1), name), display.USD(m.Offer.USDPerGPUHour*float64(max(m.GPUs, 1))*a.Hours), m.Offer.Provider))
		}
		if m.Offer.GPUCount > 1 && int(m.Offer.GPUCount) != m.GPUs {
			part += fmt.Sprintf("; the %g-GPU instance %s a month", m.Offer.GPUCount, display.USD(m.USDInstance))
		}
		parts = append(parts, part+")")
	}
	line := fmt.Sprintf("Around the clock (a month is %.0f h): %s.", HoursPerMonth, strings.Join(parts, "; "))
	if len(periods) > 0 {
		// The period asked first (read the month first).
		line = fmt.Sprintf("For %s: %s. %s", a.Period, strings.Join(periods, "; "), line)
	}
	return line + providerVerdict(a.Month)
}

// providerVerdict says which provider is cheaper when month costs are
// one GPU's at several providers, cheapest first (providerMonths): "
// runpod is cheaper: $7,592 a month less than lambda (33%)."; "" else.
func providerVerdict(months []MonthCost) string {
	if len(months) < 2 || months[0].GPU != months[1].GPU || months[0].Offer.Provider == months[1].Offer.Provider {
		return ""
	}
	a, b := months[0], months[1]
	less := (b.USDPerGPU - a.USDPerGPU) * float64(a.GPUs)
	if less <= 0 {
		return fmt.Sprintf(" %s and %s cost the same.", a.Offer.Provider, b.Offer.Provider)
	}
	return fmt.Sprintf(" %s is cheaper: %s a month less than %s (%.0f%%).", a.Offer.Provider, display.USD(less), b.Offer.Provider, 100*(b.USDPerGPU-a.USDPerGPU)/b.USDPerGPU)
}

// Comparison is two GPUs' prices compared: each one's cheapest whole-GPU
// offer, on-demand where there is one.
type Comparison struct {
	GPUs [2]string
	// Best are the two offers compared; nil where no price is known.
	Best [2]*pricing.Offer
	// Cheaper is the index (0 or 1) of the cheaper GPU, or -1 when both
	// cost the same or are not both priced.
	Cheaper int
	// USDPerGPUHour is how much less the cheaper costs per GPU-hour, and
	// Pct that as a percentage of the dearer's price.
	USDPerGPUHour float64
	Pct           float64
}

// Prices answers a price question routed as r.
func (s *Service) Prices(ctx context.Context, r reading.Routing) (PriceAnswer, error) {
	if s.PriceBook == nil {
		return PriceAnswer{}, ErrNoPrices
	}
	a := PriceAnswer{GPUs: r.GPUs, Week: r.Week, Spot: r.Spot, Hours: r.Hours, Period: r.Period}
	if len(r.GPUs) == 0 {
		offers, err := s.PriceBook.CheapestOffers(ctx)
		if err != nil {
			return PriceAnswer{}, fmt.Errorf("cheapest offers: %w", err)
		}
		a.Cheapest = offers
		if r.Spot {
			var ok bool
			if a.Cheapest, ok = SpotOffers(offers); !ok {
				a.Cheapest, a.NoSpot = offers, []string{""}
			}
		}
		return a, nil
	}
	for i, gpu := range r.GPUs {
		ids := Variants(r, i)
		var offers []pricing.Offer
		for _, id := range ids {
			o, err := s.PriceBook.OffersForGPU(ctx, id)
			if err != nil {
				return PriceAnswer{}, fmt.Errorf("offers for %s: %w", id, err)
			}
			offers = append(offers, o...)
		}
		all := offers
		providers := r.Providers
		if len(r.GPUProviders) == len(r.GPUs) {
			providers = r.GPUProviders[i : i+1] // "8x a100 on gcp or 8x h100 on lambda"
		}
		offers, none := ProviderOffers(offers, providers)
		if line := NoProviderLine(r, i, none, all); line != "" {
			a.NoProvider = append(a.NoProvider, line)
		}
		// Spot at the providers named: "h100 spot on runpod" is RunPod's
		// H100 prices, on demand when RunPod has no spot offer.
		if r.Spot && len(offers) > 0 {
			if spot, ok := SpotOffers(offers); ok {
				offers = spot
			} else {
				a.NoSpot = append(a.NoSpot, gpu)
				if line := spotElsewhere(r, i, all); line != "" {
					a.Elsewhere = append(a.Elsewhere, line)
				}
			}
		}
		if r.Reserved && !slices.ContainsFunc(offers, func(o pricing.Offer) bool { return o.Market == pricing.MarketReserved }) {
			a.NoReserved = true
		}
		a.Variants = append(a.Variants, ids)
		a.Offers = append(a.Offers, offers)
	}
	if len(r.GPUs) >= 2 {
		c := Compare(r.GPUs[0], r.GPUs[1], a.Offers[0], a.Offers[1])
		a.Compare = &c
	}
	for i, gpu := range r.GPUs {
		n := 0
		if i < len(r.Counts) {
			n = r.Counts[i]
		}
		if !r.Month && n < 2 && r.Hours == 0 {
			continue
		}
		if len(r.GPUs) == 1 && len(r.Providers) > 1 {
			a.Month = providerMonths(gpu, n, a.Offers[i], r.Providers)
			continue
		}
		if m, ok := monthCost(gpu, n, a.Offers[i]); ok {
			a.Month = append(a.Month, m)
		}
	}
	return a, nil
}

// providerMonths are one GPU's month costs at each of the providers
// named that price it ("8x h100 per month on lambda vs runpod"),
// cheapest first.
func providerMonths(gpu string, n int, offers []pricing.Offer, providers []string) []MonthCost {
	var out []MonthCost
	for _, p := range providers {
		own, _ := ProviderOffers(offers, []string{p})
		if m, ok := monthCost(gpu, n, own); ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b MonthCost) int { return cmp.Compare(a.USDPerGPU, b.USDPerGPU) })
	return out
}

// spotElsewhere says which provider other than those named has the
// cheapest spot offer for the i-th GPU of a spot question r, and what
// the period asked costs there; "" when none has one.
func spotElsewhere(r reading.Routing, i int, all []pricing.Offer) string {
	var others []pricing.Offer
	for _, o := range all {
		if !slices.Contains(r.Providers, o.Provider) {
			others = append(others, o)
		}
	}
	spot, ok := SpotOffers(others)
	if !ok {
		return ""
	}
	best, _ := CheapestOnDemand(spot)
	line := fmt.Sprintf("%s has spot for %s: %s/GPU-h", best.Provider, gpuWords(r, i), display.USD(best.USDPerGPUHour))
	if r.Hours > 0 {
		n := 1
		if i < len(r.Counts) && r.Counts[i] > 1 {
			n = r.Counts[i]
		}
		line += fmt.Sprintf(", %s for %s", display.USD(best.USDPerGPUHour*float64(n)*r.Hours), r.Period)
	}
	return line + " (ask without naming a provider)."
}

// gpuWords names the i-th GPU of a price question in a sentence: "any
// H100" for a family named alone, else "the H100 SXM 80 GB".
func gpuWords(r reading.Routing, i int) string {
	if len(Variants(r, i)) > 1 {
		return "any " + strings.ToUpper(r.Said[i])
	}
	if g, ok := sizing.MatchGPU(r.GPUs[i]); ok {
		return "the " + g.Name
	}
	return r.GPUs[i]
}

// NoReservedLine is the first line of the answer to a question that
// asked for reserved prices where none is known ("reserved vs on demand
// h100 pricing"); "" otherwise.
func NoReservedLine(a PriceAnswer) string {
	if !a.NoReserved {
		return ""
	}
	return "No reserved or committed-use price known: on-demand shown, so I can't say which is cheaper."
}

// monthCost is a month around the clock of n GPUs (one when n is 0) of
// gpu at its cheapest on-demand offer: the card named itself when it has
// offers ("h100" is the SXM card, not the cheapest variant of the
// family), and an instance of exactly n GPUs when one is offered ("8x
// h100": the 8-GPU instance).
func monthCost(gpu string, n int, offers []pricing.Offer) (MonthCost, bool) {
	if own := slices.DeleteFunc(slices.Clone(offers), func(o pricing.Offer) bool { return o.GPU != gpu }); len(own) > 0 {
		offers = own
	}
	if n > 1 {
		if whole := slices.DeleteFunc(slices.Clone(offers), func(o pricing.Offer) bool { return int(o.GPUCount) != n }); len(whole) > 0 {
			offers = whole
		}
	}
	o, ok := CheapestOnDemand(offers)
	if !ok {
		return MonthCost{}, false
	}
	m := MonthCost{GPU: gpu, GPUs: max(n, 1), Offer: o, USDPerGPU: o.USDPerGPUHour * HoursPerMonth, USDInstance: o.USDPerHour * HoursPerMonth}
	return m, true
}

// Variants are the catalog ids the listing of a price question's i-th
// GPU covers: every variant of the family its words name when it is the
// only GPU named ("spot price for a100s"; a comparison is of the cards
// themselves), else the GPU alone.
func Variants(r reading.Routing, i int) []string {
	if len(r.GPUs) == 1 && i < len(r.Said) {
		if ids := pricing.GPUFamily(r.Said[i]); ids != nil {
			return ids
		}
	}
	return []string{r.GPUs[i]}
}

// ProviderOffers are the offers of the providers named, in their order
// (all of them when none is named), and the providers named that have
// none among them.
func ProviderOffers(offers []pricing.Offer, providers []string) (kept []pricing.Offer, none []string) {
	if len(providers) == 0 {
		return offers, nil
	}
	for _, o := range offers {
		if slices.Contains(providers, o.Provider) {
			kept = append(kept, o)
		}
	}
	for _, p := range providers {
		if !slices.ContainsFunc(kept, func(o pricing.Offer) bool { return o.Provider == p }) {
			none = append(none, p)
		}
	}
	return kept, none
}

// NoProviderLine says which providers named have no offer for the i-th
// GPU of a price question, and which providers of all (its offers from
// every provider) do; "" when every provider named has one.
func NoProviderLine(r reading.Routing, i int, none []string, all []pricing.Offer) string {
	if len(none) == 0 {
		return ""
	}
	name := r.GPUs[i]
	if len(Variants(r, i)) > 1 {
		name = "any " + strings.ToUpper(r.Said[i])
	} else if g, ok := sizing.MatchGPU(name); ok {
		name = "the " + g.Name
	}
	verb := "has"
	if len(none) > 1 {
		verb = "have"
	}
	line := fmt.Sprintf("%s %s no price known for %s", strings.Join(none, " and "), verb, name)
	var others []string
	for _, o := range all {
		if !slices.Contains(r.Providers, o.Provider) && !slices.Contains(others, o.Provider) {
			others = append(others, o.Provider)
		}
	}
	switch len(others) {
	case 0:
	case 1:
		line += " (" + others[0] + " prices it: ask without naming a provider)"
	default:
		line += " (" + strings.Join(others, ", ") + " price it: ask without naming a provider)"
	}
	return line + "."
}

// SpotOffers are the spot offers among offers, in their order; ok is
// false when there is none, and a spot question then lists the other
// markets' offers, saying so first.
func SpotOffers(offers []pricing.Offer) (spot []pricing.Offer, ok bool) {
	for _, o := range offers {
		if o.Market == pricing.MarketSpot {
			spot = append(spot, o)
		}
	}
	return spot, len(spot) > 0
}

// NoSpotLine is the first line of the answer to a spot price question r
// where the GPUs in noSpot (PriceAnswer.NoSpot) have no spot offer:
// "I can't price spot for the L40S 48 GB: no spot offer known; on-demand
// shown."; "" when nothing is missing.
func NoSpotLine(r reading.Routing, noSpot []string) string {
	if !r.Spot || len(noSpot) == 0 {
		return ""
	}
	var names []string
	for _, gpu := range noSpot {
		i := slices.Index(r.GPUs, gpu)
		switch {
		case gpu == "":
			return "I can't price spot: no GPU has a spot offer known yet; on-demand shown."
		case i >= 0 && len(Variants(r, i)) > 1:
			names = append(names, "any "+strings.ToUpper(r.Said[i]))
		default:
			name := gpu
			if g, ok := sizing.MatchGPU(gpu); ok {
				name = g.Name
			}
			names = append(names, "the "+name)
		}
	}
	known := "no spot offer known"
	if len(r.Providers) > 0 {
		known = "no spot offer known at " + strings.Join(r.Providers, " or ")
	}
	return fmt.Sprintf("I can't price spot for %s: %s; on-demand shown.", strings.Join(names, " or "), known)
}

// Compare compares the cheapest whole-GPU offers (on-demand where there
// is one) of GPUs a and b.
func Compare(a, b string, offersA, offersB []pricing.Offer) Comparison {
	c := Comparison{GPUs: [2]string{a, b}, Cheaper: -1}
	for i, offers := range [][]pricing.Offer{offersA, offersB} {
		if o, ok := CheapestOnDemand(offers); ok {
			c.Best[i] = &o
		}
	}
	if c.Best[0] == nil || c.Best[1] == nil {
		return c
	}
	pa, pb := c.Best[0].USDPerGPUHour, c.Best[1].USDPerGPUHour
	switch {
	case pa < pb:
		c.Cheaper, c.USDPerGPUHour, c.Pct = 0, pb-pa, 100*(pb-pa)/pb
	case pb < pa:
		c.Cheaper, c.USDPerGPUHour, c.Pct = 1, pa-pb, 100*(pa-pb)/pa
	}
	return c
}

// CheapestOnDemand is the cheapest whole-GPU on-demand offer (any market
// when there is no on-demand one); ok is false when there is no offer.
func CheapestOnDemand(offers []pricing.Offer) (pricing.Offer, bool) {
	var best pricing.Offer
	found := false
	for _, onDemandOnly := range []bool{true, false} {
		for _, o := range offers {
			if o.Fractional() || (onDemandOnly && o.Market != pricing.MarketOnDemand) {
				continue
			}
			if !found || o.USDPerGPUHour < best.USDPerGPUHour {
				best, found = o, true
			}
		}
		if found {
			return best, true
		}
	}
	return best, false
}

// PowerLine answers a price question that asks the electricity (Routing
// .Power): each named card's board power at its count, the energy over
// the rental period asked (a month around the clock when none) and its
// cost at sizing.DefaultUSDPerKWh, with what a server adds beyond the
// cards; "" when power was not asked or no card was named (answered the rental price instead).
func PowerLine(r reading.Routing, hours float64, period string) string {
	if !r.Power || len(r.GPUs) == 0 {
		return ""
	}
	if hours <= 0 {
		hours, period = HoursPerMonth, "a month around the clock"
	}
	var parts []string
	for i, id := range r.GPUs {
		g, ok := sizing.MatchGPU(id)
		if !ok || g.BoardPowerWatts <= 0 {
			continue
		}
		n := 1
		if i < len(r.Counts) && r.Counts[i] > 0 {
			n = r.Counts[i]
		}
		kw := float64(g.BoardPowerWatts*n) / 1000
		kwh := kw * hours
		parts = append(parts, fmt.Sprintf("%d× %s draw up to %s kW (%d W board power each): %s kWh over %s, %s at $%.2f/kWh",
			n, g.Name, display.Decimal(kw), g.BoardPowerWatts, display.Commas(int64(kwh+0.5)), period, display.USD(kwh*sizing.DefaultUSDPerKWh), sizing.DefaultUSDPerKWh))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Power: " + strings.Join(parts, "; ") + ". The cards alone at full load: a server's CPUs, fans and memory add about half again, and cooling (a PUE of 1.2-1.5) more; a cloud price includes all of it."
}
