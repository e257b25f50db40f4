package sizing

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed data/gpu_prices.csv
var gpuPricesCSV []byte

// Buy-or-rent defaults, each configurable per question.
const (
	// DefaultUSDPerKWh is the electricity price when none is said: about
	// the US residential average (EIA, 2024: 16-17 ¢/kWh), rounded down.
	DefaultUSDPerKWh = 0.15
	// DefaultYears is the life a purchase is amortised over when none is
	// said: the usual three-year depreciation of IT equipment.
	DefaultYears = 3
	// weeksPerMonth is 52 weeks over 12 months.
	weeksPerMonth = 52.0 / 12
	// hoursPerMonth is 365 × 24 / 12, for utilisation.
	HoursPerMonth = 730.0
)

// Workload is how much a team would use the hardware, for buy-or-rent.
// A zero field is "not said": JobsPerWeek and HoursPerJob must be given;
// USDPerKWh and Years fall back to DefaultUSDPerKWh and DefaultYears.
type Workload struct {
	JobsPerWeek float64 `json:"jobs_per_week"`
	HoursPerJob float64 `json:"hours_per_job"`
	USDPerKWh   float64 `json:"usd_per_kwh"`
	Years       float64 `json:"years"`
}

// WithDefaults is w with an unsaid electricity price and purchase life
// set to DefaultUSDPerKWh and DefaultYears, and those defaults in words,
// as an answer lists them among its assumptions.
func (w Workload) WithDefaults() (Workload, []string) {
	var assumed []string
	if w.USDPerKWh == 0 {
		w.USDPerKWh = DefaultUSDPerKWh
		assumed = append(assumed, fmt.Sprintf("electricity $%.2f per kWh (say e.g. $0.30/kWh)", w.USDPerKWh))
	}
	if w.Years == 0 {
		w.Years = DefaultYears
		assumed = append(assumed, fmt.Sprintf("purchase amortised over %g years (say e.g. over 5 years)", w.Years))
	}
	return w, assumed
}

// SpotPriceSource looks up the cheapest spot (interruptible) price of one
// GPU-hour. An Estimator's Prices may implement it as well as PriceSource;
// buy-or-rent then compares owning with spot too.
type SpotPriceSource interface {
	SpotGPUHourPrice(gpu string) (Price, bool)
}

// PurchasePrice is what one card costs to buy, from the dated, sourced
// table in data/gpu_prices.csv.
type PurchasePrice struct {
	GPU     string    `json:"gpu"`
	USDLow  float64   `json:"usd_low"`
	USDHigh float64   `json:"usd_high"`
	HostUSD float64   `json:"host_usd"` // the machine around the cards, per machine
	AsOf    time.Time `json:"as_of"`
	Source  string    `json:"source"`
}

// purchaseWords says what the card asked costs to buy, for a buy-or-rent
// question that gave no use ("price of a 4090 to buy"):
// "an RTX 4090 24 GB costs $1,600-$2,000 to buy (as of 2026-01); "; ""
// when no card or no purchase price is known.
func purchaseWords(q Query) string {
	p, ok := LookupPurchasePrice(q.GPU)
	if !ok {
		return ""
	}
	g, _, err := LookupGPU(q.GPU)
	if err != nil {
		return ""
	}
	n := max(q.GPUs, 1)
	what := fmt.Sprintf("%s costs", g.Name)
	if n > 1 {
		what = fmt.Sprintf("%d× %s cost", n, g.Name)
	}
	return fmt.Sprintf("%s %s-%s to buy (as of %s), plus about %s for the machine around them; ", what,
		usdWhole(p.USDLow*float64(n)), usdWhole(p.USDHigh*float64(n)), p.AsOf.Format("2006-01"), usdWhole(p.HostUSD))
}

// usdWhole is whole dollars grouped in thousands: "$1,600".
func usdWhole(v float64) string { return "$" + Commas(int64(v+0.5)) }

// USD is the price buy-or-rent uses: the midpoint of the range.
func (p PurchasePrice) USD() float64 { return (p.USDLow + p.USDHigh) / 2 }

var purchaseTable = sync.OnceValues(func() (map[string]PurchasePrice, error) {
	return parsePurchasePrices(gpuPricesCSV)
})

// PurchasePrices returns the purchase-price table, ordered by GPU id.
func PurchasePrices() []PurchasePrice {
	t, _ := purchaseTable()
	out := make([]PurchasePrice, 0, len(t))
	for _, p := range t {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b PurchasePrice) int { return strings.Compare(a.GPU, b.GPU) })
	return out
}

// LookupPurchasePrice finds the purchase price of a catalog GPU id.
func LookupPurchasePrice(gpu string) (PurchasePrice, bool) {
	t, _ := purchaseTable()
	p, ok := t[gpu]
	return p, ok
}

// parsePurchasePrices reads the table: a header, then one row per catalog
// GPU with a positive range, a host cost, a date and a source.
func parsePurchasePrices(data []byte) (map[string]PurchasePrice, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = 6
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("gpu_prices.csv: %w", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "gpu,usd_low,usd_high,host_usd,as_of,source" {
		return nil, errors.New("gpu_prices.csv: missing or wrong header")
	}
	out := make(map[string]PurchasePrice, len(rows)-1)
	var errs []error
	for i, row := range rows[1:] {
		line := i + 2
		p := PurchasePrice{GPU: row[0], Source: row[5]}
		nums := [3]*float64{&p.USDLow, &p.USDHigh, &p.HostUSD}
		for k, ptr := range nums {
			v, err := strconv.ParseFloat(row[1+k], 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				errs = append(errs, fmt.Errorf("gpu_prices.csv row %d: bad amount %q", line, row[1+k]))
			}
			*ptr = v
		}
		if p.USDLow <= 0 || p.USDHigh < p.USDLow {
			errs = append(errs, fmt.Errorf("gpu_prices.csv row %d: range %v-%v is not a price", line, p.USDLow, p.USDHigh))
		}
		if p.AsOf, err = time.Parse(time.DateOnly, row[4]); err != nil {
			errs = append(errs, fmt.Errorf("gpu_prices.csv row %d: as_of: %w", line, err))
		}
		if strings.TrimSpace(p.Source) == "" {
			errs = append(errs, fmt.Errorf("gpu_prices.csv row %d: no source", line))
		}
		if _, dup := out[p.GPU]; dup {
			errs = append(errs, fmt.Errorf("gpu_prices.csv row %d: %s twice", line, p.GPU))
		}
		out[p.GPU] = p
	}
	return out, errors.Join(errs...)
}

// BuyRentResult compares renting the hardware a workload needs with
// owning it, month by month.
type BuyRentResult struct {
	GPU      string   `json:"gpu"`
	GPUName  string   `json:"gpu_name"`
	GPUs     int      `json:"gpus"`
	Workload Workload `json:"workload"` // with the defaults applied
	// HoursPerMonth is the hours the hardware runs jobs in a month:
	// jobs/week × hours/job × 52/12. Utilisation is that over 730 hours.
	HoursPerMonth float64 `json:"hours_per_month"`
	Utilisation   float64 `json:"utilisation"`

	OnDemand *RentCost `json:"on_demand"` // nil when no price is known
	Spot     *RentCost `json:"spot"`      // nil when no spot price is known

	Purchase PurchaseCost `json:"purchase"`
	// OwnUSDPerMonth is the purchase amortised over the years plus power.
	OwnUSDPerMonth float64 `json:"own_usd_per_month"`
	// Verdict is "rent" or "buy": which is cheaper per month over the
	// amortisation period against on-demand prices ("rent" when none is known).
	Verdict  string   `json:"verdict"`
	Caveats  []string `json:"caveats"`
	Fits     bool     `json:"fits"`      // the workload fits this hardware as asked
	FitsNote string   `json:"fits_note"` // what was compared when it did not, or ""
}

// RentCost is renting for a month at one market's cheapest price.
type RentCost struct {
	Price       PriceRef `json:"price"`
	USDPerMonth float64  `json:"usd_per_month"`
	// BreakEvenMonth is the first month by whose end owning has cost no
	// more than renting (purchase + power × m ≤ rent × m); nil when it
	// never does (power alone costs as much as renting).
	BreakEvenMonth *int `json:"break_even_month"`
}

// PurchaseCost is owning the hardware.
type PurchaseCost struct {
	CardUSD              float64   `json:"card_usd"` // one card, the table's midpoint
	CardUSDLow           float64   `json:"card_usd_low"`
	CardUSDHigh          float64   `json:"card_usd_high"`
	Cards                int       `json:"cards"`
	Machines             int       `json:"machines"`
	HostUSD              float64   `json:"host_usd"` // per machine
	TotalUSD             float64   `json:"total_usd"`
	AmortisedUSDPerMonth float64   `json:"amortised_usd_per_month"`
	BoardPowerWatts      int       `json:"board_power_watts"` // one card
	PowerUSDPerMonth     float64   `json:"power_usd_per_month"`
	AsOf                 time.Time `json:"as_of"`
	Source               string    `json:"source"`
}

// BuyRent answers "should we buy the hardware or rent it?" for a question
// and a workload: the monthly cost of renting at the cheapest on-demand
// (and, when the Estimator's Prices implement SpotPriceSource, spot)
// price against owning (cards from the purchase table plus the machine
// around them, amortised over the years, and the cards' board power at
// the price per kWh for the hours jobs run), the break-even month, and
// the seeds' caveats. When the question does not fit the named card as
// asked, the comparison is for the smallest change on that card that
// fits. Missing workload numbers, no hardware, or a card without a
// purchase price return an *InputError with an example.
func (e *Estimator) BuyRent(q Query, w Workload) (AskAnswer, error) {
	// The Try keeps what was asked, the card and its count too (was tried on a 4090 for "an a100 80gb").
	hint := "fit 13B lora rtx-4090 buy-vs-rent 3 jobs/week 5h"
	if q.Model != "" || q.Params > 0 || q.Arch != nil || q.GPU != "" {
		hint = "fit " + Format(q) + " buy-vs-rent 3 jobs/week 5h"
	}
	if w.JobsPerWeek <= 0 || w.HoursPerJob <= 0 {
		return AskAnswer{}, &InputError{
			Problem: purchaseWords(q) + "buy or rent depends on how much you would use it: say how many jobs a week and how long each runs, \"24/7\", \"at 60%\" or \"for a year\"",
			Hint:    hint,
		}
	}
	if w.USDPerKWh < 0 || w.Years < 0 || w.JobsPerWeek*w.HoursPerJob > 7*24 {
		return AskAnswer{}, &InputError{Problem: "the workload does not fit in a week (or a price or period is negative)", Hint: hint}
	}
	var asm assumptionSet
	w, defaulted := w.WithDefaults()
	asm.add(defaulted...)
	res := &BuyRentResult{Workload: w, Fits: true}
	var req Request
	modelName := ""
	switch {
	case q.Model == "" && q.Params == 0 && q.Arch == nil:
		if q.GPU == "" {
			return AskAnswer{}, inputErr(hint, "buy or rent what? Name the card, or the model and method to size it")
		}
		g, note, err := LookupGPU(q.GPU)
		if err != nil {
			return AskAnswer{}, notFound(err, q)
		}
		if note != "" {
			asm.add(note)
		}
		req = Request{GPU: g.ID, GPUs: max(q.GPUs, 1), Nodes: max(q.Nodes, 1)}
		asm.add("no model named: the hardware as asked, without checking what fits on it")
	default:
		if q.GPU == "" {
			gpu, n, err := e.buyableCard(q)
			if err != nil {
				return AskAnswer{}, err
			}
			q.GPU, q.GPUs, q.Nodes = gpu.ID, n, 1
			asm.add(fmt.Sprintf("no GPU named: compared for the cheapest configuration that fits and that fitbot has a purchase price for, %d× %s", n, gpu.Name))
		}
		a, err := e.Answer(q)
		if err != nil {
			return AskAnswer{}, err
		}
		asm.add(a.Assumptions...)
		req, modelName = a.Request, a.ModelName
		res.Fits = a.Fits
		if !a.Fits {
			alt, ok := firstSameCard(a)
			if !ok {
				return AskAnswer{}, inputErr(fmt.Sprintf("fit %s %s buy-vs-rent 3 jobs/week 5h", a.Request.Model, referenceGPU),
					"%s does not fit %d× %s in any way fitbot tries: there is nothing to buy there", a.ModelName, a.Request.GPUs, a.GPUName)
			}
			req.Method, req.GPUs, req.ZeROStage, req.Offload, req.Optimizer = alt.Method, alt.GPUs, alt.ZeROStage, alt.Offload, alt.Optimizer
			if g, _, err := LookupGPU(alt.GPU); err == nil {
				req.Nodes = (alt.GPUs + MaxPerNode(g) - 1) / MaxPerNode(g)
			}
			if alt.Method == MethodQLoRA && req.Quant == QuantNone {
				req.Quant, req.GradCheckpointing = QuantNF4DQ, true
			}
			res.FitsNote = fmt.Sprintf("as asked it does not fit %d× %s; compared for the smallest change that does: %s", a.Request.GPUs, a.GPUName, alt.Why)
		}
	}
	g, _, err := LookupGPU(req.GPU)
	if err != nil {
		return AskAnswer{}, err
	}
	pp, ok := LookupPurchasePrice(g.ID)
	if !ok {
		ids := make([]string, 0, 16)
		for _, p := range PurchasePrices() {
			ids = append(ids, p.GPU)
		}
		return AskAnswer{}, inputErr(strings.Replace(hint, ifEmpty(q.GPU, "rtx-4090"), "rtx-4090", 1),
			"fitbot has no purchase price for %s; it knows %s", g.Name, strings.Join(ids, ", "))
	}
	res.GPU, res.GPUName, res.GPUs = g.ID, g.Name, req.GPUs
	res.HoursPerMonth = w.JobsPerWeek * w.HoursPerJob * weeksPerMonth
	res.Utilisation = res.HoursPerMonth / HoursPerMonth
	per := MaxPerNode(g)
	machines := (req.GPUs + per - 1) / per
	buy := PurchaseCost{
		CardUSD: pp.USD(), CardUSDLow: pp.USDLow, CardUSDHigh: pp.USDHigh, Cards: req.GPUs, Machines: machines, HostUSD: pp.HostUSD,
		BoardPowerWatts: g.BoardPowerWatts, AsOf: pp.AsOf, Source: pp.Source,
	}
	buy.TotalUSD = buy.CardUSD*float64(buy.Cards) + buy.HostUSD*float64(machines)
	buy.AmortisedUSDPerMonth = buy.TotalUSD / (w.Years * 12)
	buy.PowerUSDPerMonth = float64(g.BoardPowerWatts) / 1000 * float64(req.GPUs) * res.HoursPerMonth * w.USDPerKWh
	res.Purchase = buy
	res.OwnUSDPerMonth = buy.AmortisedUSDPerMonth + buy.PowerUSDPerMonth
	if p := e.price(g.ID); p != nil {
		res.OnDemand = rentCost(*p, req.GPUs, res.HoursPerMonth, buy)
	}
	if sp, ok := e.Prices.(SpotPriceSource); ok {
		if p, ok := sp.SpotGPUHourPrice(g.ID); ok {
			res.Spot = rentCost(p, req.GPUs, res.HoursPerMonth, buy)
		}
	}
	res.Verdict = "rent"
	if res.OnDemand != nil && res.OwnUSDPerMonth < res.OnDemand.USDPerMonth {
		res.Verdict = "buy"
	}
	res.Caveats = buyRentCaveats(g, req.GPUs, w)
	asm.add(
		fmt.Sprintf("%g jobs a week of %g h each: %.1f h a month (%.0f%% of the month)", w.JobsPerWeek, w.HoursPerJob, res.HoursPerMonth, res.Utilisation*100),
		"hours per job taken as measured on this hardware",
		fmt.Sprintf("purchase at the midpoint of $%s-%s per card (%s, seen %s) plus $%s per machine for the computer around the cards",
			thousands(pp.USDLow), thousands(pp.USDHigh), pp.GPU, pp.AsOf.Format(time.DateOnly), thousands(pp.HostUSD)),
		"power: the cards at full board power while jobs run; idle draw, the rest of the machine, cooling and resale value are not counted",
		"renting: GPU-hours only; storage, egress and start-up time are not counted",
	)
	return AskAnswer{Kind: IntentBuyRent, Request: req, Assumptions: asm.list(e.costAssumptions(nil, nil, Throughput{}, nil)), ModelName: modelName, GPUName: g.Name, BuyRent: res}, nil
}

// buyableCard is the cheapest configuration within one machine that fits
// the question as asked, on a card with a purchase price.
func (e *Estimator) buyableCard(q Query) (GPU, int, error) {
	rs, err := resolve(q)
	if err != nil {
		return GPU{}, 0, err
	}
	var buf [64]fitOption
	for _, o := range e.cheapest(buf[:0], rs) {
		c := o.altCandidate(rs)
		if _, ok := LookupPurchasePrice(c.gpu.ID); ok && c.req.Nodes == 1 {
			return *c.gpu, c.req.GPUs, nil
		}
	}
	return GPU{}, 0, inputErr(fmt.Sprintf("fit %s %s rtx-4090 buy-vs-rent 3 jobs/week 5h", ifEmpty(rs.req.Model, "13b"), rs.req.Method),
		"no card fitbot has a purchase price for holds %s within one machine; name the card to compare", rs.model.Name)
}

// firstSameCard is the first alternative that fits on the asked card.
func firstSameCard(a Answer) (Alternative, bool) {
	for _, alt := range a.Alternatives {
		if alt.Fits && alt.GPU == a.Request.GPU {
			return alt, true
		}
	}
	return Alternative{}, false
}

// rentCost is a month of renting gpus cards for hours at p, and the
// month owning catches up with it.
func rentCost(p Price, gpus int, hours float64, buy PurchaseCost) *RentCost {
	rc := &RentCost{Price: *priceRef(&p), USDPerMonth: p.USDPerGPUHour * float64(gpus) * hours}
	if margin := rc.USDPerMonth - buy.PowerUSDPerMonth; margin > 0 {
		m := int(math.Ceil(buy.TotalUSD / margin))
		rc.BreakEvenMonth = &m
	}
	return rc
}

// buyRentCaveats are the seeds' qualitative points ("When Local GPU Makes
// Sense"), one line each, where they apply.
func buyRentCaveats(g GPU, gpus int, w Workload) []string {
	consumer := g.Link == LinkPCIe && strings.HasPrefix(g.ID, "rtx-")
	var out []string
	if consumer && gpus > 1 {
		out = append(out, fmt.Sprintf("%d consumer cards in one box is fragile: no NVLink, PCIe-only ZeRO, %d W of cards to power and cool (the seeds: multi-GPU consumer setups are fragile)", gpus, gpus*g.BoardPowerWatts))
	}
	if w.JobsPerWeek*weeksPerMonth < 8 {
		out = append(out, "a few runs a month favour renting: owned hardware sits idle between them")
	}
	if w.JobsPerWeek >= 5 {
		out = append(out, "many small experiments a day favour owning: no per-hour meter, no start-up wait")
	}
	out = append(out,
		"if you do not yet know what you will run, rent: a purchase fixes the VRAM you can use for years",
		"data that may not leave your premises favours owning, whatever the sums say",
	)
	return out
}

// thousands writes dollars with thousands separators and no cents.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
