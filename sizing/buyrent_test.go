package sizing

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// marketPrices is a PriceSource with on-demand and spot prices per GPU.
type marketPrices struct{ onDemand, spot map[string]float64 }

func (m marketPrices) GPUHourPrice(gpu string) (Price, bool) {
	return m.lookup(m.onDemand, gpu, "on_demand")
}

func (m marketPrices) SpotGPUHourPrice(gpu string) (Price, bool) {
	return m.lookup(m.spot, gpu, "spot")
}

func (marketPrices) lookup(t map[string]float64, gpu, market string) (Price, bool) {
	v, ok := t[gpu]
	return Price{USDPerGPUHour: v, Provider: "fake", Market: market, AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, ok
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }

// TestBuyRentSoloResearcher reproduces the seeds' exercise by hand: a solo
// researcher runs 2-3 training jobs a week of 4-6 hours each on an A100
// (taken at the midpoints, 2.5 jobs of 5 h). Renting an A100 80 GB PCIe at
// $1.90/h on demand (the seeds' RunPod figure) and $1.05/h spot, against
// buying one: $11,500 (midpoint of $8,000-15,000 in the purchase table)
// plus an $8,000 server, over 3 years, 300 W at $0.15/kWh.
func TestBuyRentSoloResearcher(t *testing.T) {
	e := &Estimator{Prices: marketPrices{
		onDemand: map[string]float64{"a100-80-pcie": 1.90},
		spot:     map[string]float64{"a100-80-pcie": 1.05},
	}}
	a, err := e.BuyRent(Query{Params: 7e9, Method: MethodLoRA, GPU: "a100-80-pcie"}, Workload{JobsPerWeek: 2.5, HoursPerJob: 5})
	if err != nil {
		t.Fatal(err)
	}
	r := a.BuyRent
	const (
		hours     = 2.5 * 5 * 52.0 / 12 // 54.1667 h a month
		rent      = hours * 1.90        // $102.92
		spot      = hours * 1.05        // $56.88
		purchase  = 11500 + 8000.0      // $19,500
		amortised = purchase / 36       // $541.67
		power     = 0.300 * hours * 0.15
		own       = amortised + power // $544.10
	)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"hours a month", r.HoursPerMonth, hours},
		{"utilisation", r.Utilisation, hours / 730},
		{"on-demand a month", r.OnDemand.USDPerMonth, rent},
		{"spot a month", r.Spot.USDPerMonth, spot},
		{"purchase", r.Purchase.TotalUSD, purchase},
		{"amortised a month", r.Purchase.AmortisedUSDPerMonth, amortised},
		{"power a month", r.Purchase.PowerUSDPerMonth, power},
		{"own a month", r.OwnUSDPerMonth, own},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
	// Owning catches up when 19,500 + power·m <= rent·m.
	wantOnDemand := int(math.Ceil(purchase / (rent - power))) // 195 months
	wantSpot := int(math.Ceil(purchase / (spot - power)))     // 359 months
	if r.OnDemand.BreakEvenMonth == nil || *r.OnDemand.BreakEvenMonth != wantOnDemand || wantOnDemand != 195 {
		t.Errorf("on-demand break-even %v, want %d", r.OnDemand.BreakEvenMonth, wantOnDemand)
	}
	if r.Spot.BreakEvenMonth == nil || *r.Spot.BreakEvenMonth != wantSpot || wantSpot != 359 {
		t.Errorf("spot break-even %v, want %d", r.Spot.BreakEvenMonth, wantSpot)
	}
	if r.Verdict != "rent" || !r.Fits || r.GPUs != 1 {
		t.Errorf("verdict %q, fits %v, gpus %d; want rent on one card", r.Verdict, r.Fits, r.GPUs)
	}
	if !hasPrefix(r.Caveats, "if you do not yet know") || hasPrefix(r.Caveats, "many small experiments") {
		t.Errorf("caveats %q", r.Caveats)
	}
}

// TestBuyRentHeavyUse: a 4090 busy 8 h a day, 5 days a week, at $0.69/h
// pays for itself within the year.
func TestBuyRentHeavyUse(t *testing.T) {
	e := &Estimator{Prices: marketPrices{onDemand: map[string]float64{"rtx-4090": 0.69}}}
	a, err := e.BuyRent(Query{GPU: "rtx-4090"}, Workload{JobsPerWeek: 5, HoursPerJob: 8, USDPerKWh: 0.30, Years: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := a.BuyRent
	const (
		hours    = 5 * 8 * 52.0 / 12 // 173.33 h
		rent     = hours * 0.69      // $119.60
		purchase = 1800 + 2500.0     // card midpoint + desktop
		power    = 0.450 * hours * 0.30
		own      = purchase/24 + power
	)
	if !near(r.OwnUSDPerMonth, own) || !near(r.OnDemand.USDPerMonth, rent) || r.Spot != nil {
		t.Errorf("own %.2f rent %.2f spot %v; want %.2f, %.2f, none", r.OwnUSDPerMonth, r.OnDemand.USDPerMonth, r.Spot, own, rent)
	}
	want := int(math.Ceil(purchase / (rent - power))) // 48 months
	if got := r.OnDemand.BreakEvenMonth; got == nil || *got != want {
		t.Errorf("break-even %v, want %d", got, want)
	}
	if r.Verdict != "rent" {
		t.Errorf("verdict %q: $%.0f a month to own against $%.0f to rent", r.Verdict, own, rent)
	}
	if !hasPrefix(r.Caveats, "many small experiments") {
		t.Errorf("caveats %q, want the daily-experiments line", r.Caveats)
	}
	a, err = e.BuyRent(Query{GPU: "rtx-4090", GPUs: 4}, Workload{JobsPerWeek: 14, HoursPerJob: 12})
	if err != nil {
		t.Fatal(err)
	}
	if a.BuyRent.Verdict != "buy" || !hasPrefix(a.BuyRent.Caveats, "4 consumer cards in one box is fragile") {
		t.Errorf("4× 4090 round the clock: verdict %q, caveats %q", a.BuyRent.Verdict, a.BuyRent.Caveats)
	}
}

// TestBuyRentDoesNotFit compares the smallest change on the asked card
// that fits, and says so.
func TestBuyRentDoesNotFit(t *testing.T) {
	e := &Estimator{Prices: marketPrices{onDemand: map[string]float64{"rtx-4090": 0.69}}}
	a, err := e.BuyRent(Query{Params: 13e9, Method: MethodLoRA, GPU: "rtx-4090"}, Workload{JobsPerWeek: 3, HoursPerJob: 5})
	if err != nil {
		t.Fatal(err)
	}
	r := a.BuyRent
	if r.Fits || !strings.Contains(r.FitsNote, "does not fit") || a.Request.GPU != "rtx-4090" {
		t.Errorf("fits %v, note %q, gpu %s", r.Fits, r.FitsNote, a.Request.GPU)
	}
	check, err := e.Answer(Query{Params: 13e9, Method: a.Request.Method, GPU: "rtx-4090", GPUs: a.Request.GPUs})
	if err != nil || !check.Fits {
		t.Errorf("the compared configuration (%s on %d cards) does not fit: %v", a.Request.Method, a.Request.GPUs, err)
	}
}

func TestBuyRentBadInput(t *testing.T) {
	e := &Estimator{}
	for _, tt := range []struct {
		name string
		q    Query
		w    Workload
		want string // in the problem
		hint string // in the hint
	}{
		{"no workload", Query{Params: 13e9, Method: MethodLoRA, GPU: "rtx-4090"}, Workload{}, "how many jobs a week", "fit 13b lora rtx-4090 buy-vs-rent 3 jobs/week 5h"},
		// The Try keeps the card and the model.
		{"no workload, no model", Query{GPU: "a100-80"}, Workload{}, "how many jobs a week", "fit a100-80 buy-vs-rent 3 jobs/week 5h"},
		{"no hours", Query{GPU: "rtx-4090"}, Workload{JobsPerWeek: 3}, "how long each runs", "jobs/week"},
		{"more than a week", Query{GPU: "rtx-4090"}, Workload{JobsPerWeek: 30, HoursPerJob: 6}, "does not fit in a week", "jobs/week"},
		{"no hardware", Query{}, Workload{JobsPerWeek: 3, HoursPerJob: 5}, "buy or rent what", "rtx-4090"},
		{"no purchase price", Query{GPU: "t4"}, Workload{JobsPerWeek: 3, HoursPerJob: 5}, "no purchase price for T4", "rtx-4090"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.BuyRent(tt.q, tt.w)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err %v, want an InputError", err)
			}
			if !strings.Contains(ie.Problem, tt.want) || !strings.Contains(ie.Hint, tt.hint) {
				t.Errorf("problem %q hint %q; want %q and %q", ie.Problem, ie.Hint, tt.want, tt.hint)
			}
		})
	}
}

// TestPurchaseTable: every row names a catalog GPU, with a dated, sourced,
// positive range; the parser refuses broken tables.
func TestPurchaseTable(t *testing.T) {
	if _, err := purchaseTable(); err != nil {
		t.Fatal(err)
	}
	rows := PurchasePrices()
	if len(rows) < 5 {
		t.Fatalf("%d purchase prices", len(rows))
	}
	for _, p := range rows {
		if _, _, err := LookupGPU(p.GPU); err != nil {
			t.Errorf("%s: %v", p.GPU, err)
		}
		if p.AsOf.IsZero() || p.Source == "" || p.USD() <= 0 {
			t.Errorf("%s: %+v", p.GPU, p)
		}
	}
	if p, ok := LookupPurchasePrice("rtx-4090"); !ok || p.USDLow != 1600 || p.USDHigh != 2000 {
		t.Errorf("rtx-4090: %+v (~$1,600-2,000 street)", p)
	}
	const header = "gpu,usd_low,usd_high,host_usd,as_of,source\n"
	for _, tt := range []struct{ name, csv, want string }{
		{"no header", "rtx-4090,1,2,3,2026-01-01,x\n", "header"},
		{"bad amount", header + "rtx-4090,abc,2,3,2026-01-01,x\n", "bad amount"},
		{"inverted range", header + "rtx-4090,5,2,3,2026-01-01,x\n", "not a price"},
		{"bad date", header + "rtx-4090,1,2,3,soon,x\n", "as_of"},
		{"no source", header + "rtx-4090,1,2,3,2026-01-01, \n", "no source"},
		{"twice", header + "rtx-4090,1,2,3,2026-01-01,x\nrtx-4090,1,2,3,2026-01-01,x\n", "twice"},
		{"short row", header + "rtx-4090,1,2\n", "wrong number of fields"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsePurchasePrices([]byte(tt.csv))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func hasPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func BenchmarkBuyRent(b *testing.B) {
	e := &Estimator{Prices: marketPrices{onDemand: map[string]float64{"rtx-4090": 0.69}, spot: map[string]float64{"rtx-4090": 0.35}}}
	q := Query{Params: 13e9, Method: MethodLoRA, GPU: "rtx-4090"}
	w := Workload{JobsPerWeek: 3, HoursPerJob: 5}
	for b.Loop() {
		if _, err := e.BuyRent(q, w); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuyRentPicksABuyableCard: with no card named, the comparison is for
// the cheapest configuration that fits on a card with a purchase price.
func TestBuyRentPicksABuyableCard(t *testing.T) {
	e := &Estimator{Prices: marketPrices{onDemand: map[string]float64{"l4": 0.40, "rtx-4090": 0.69, "a100-80": 1.89}}}
	a, err := e.BuyRent(Query{Params: 7e9, Method: MethodQLoRA}, Workload{JobsPerWeek: 3, HoursPerJob: 5})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.GPU != "rtx-4090" || !a.BuyRent.Fits {
		t.Errorf("compared on %s (fits %v), want the 4090: the L4 is cheaper to rent but has no purchase price", a.Request.GPU, a.BuyRent.Fits)
	}
}

// TestBuyRentPeriodOfUse: a use said as a period only ("8 h100s about 6
// months") is use around the clock for it, and answered (was refused with a Try on a 13B LoRA on a 4090).
func TestBuyRentPeriodOfUse(t *testing.T) {
	p, err := Parse("rent or buy? we'd use 8 h100s about 6 months for finetuning experiments")
	if err != nil || p.Intent != IntentBuyRent || p.Query.GPU != "h100" || p.Query.GPUs != 8 {
		t.Fatalf("Parse = %+v, %v", p, err)
	}
	if want := (Workload{JobsPerWeek: 7, HoursPerJob: 24, Years: 0.5}); p.Workload != want {
		t.Errorf("workload %+v, want %+v", p.Workload, want)
	}
	e := &Estimator{Prices: marketPrices{onDemand: map[string]float64{"h100": 2.40}}}
	a, err := e.BuyRent(p.Query, p.Workload)
	if err != nil || a.BuyRent == nil || a.BuyRent.GPUs != 8 || a.BuyRent.Verdict != "rent" || !near(a.BuyRent.HoursPerMonth, 7*24*weeksPerMonth) {
		t.Fatalf("BuyRent = %+v, %v; want renting 8 H100s around the clock", a.BuyRent, err)
	}
}

// TestBuyRentUseSaid: a use said without jobs is read (were asked for jobs a week again): "24/7", "for a year" (around the
// clock, the purchase over that year), "about 60% of the time".
func TestBuyRentUseSaid(t *testing.T) {
	for _, c := range []struct {
		q    string
		want Workload
	}{
		{"buy vs rent: is it cheaper to buy 8 h100s or just rent them for a year", Workload{JobsPerWeek: 7, HoursPerJob: 24, Years: 1}},
		{"should we buy a dgx h100 or keep renting, we use ~4 gpus about 60% of the time", Workload{JobsPerWeek: 7, HoursPerJob: 24 * 0.6}},
		{"7b lora rtx-4090 buy-vs-rent 24/7", Workload{JobsPerWeek: 7, HoursPerJob: 24}},
		{"rent or buy 8 h100s for lora of llama 3 8b, we'd use them full time", Workload{JobsPerWeek: 7, HoursPerJob: 24}},
	} {
		p, err := Parse(c.q)
		if err != nil || p.Intent != IntentBuyRent {
			t.Fatalf("Parse(%q) = %s, %v", c.q, p.Intent, err)
		}
		if !near(p.Workload.JobsPerWeek, c.want.JobsPerWeek) || !near(p.Workload.HoursPerJob, c.want.HoursPerJob) || !near(p.Workload.Years, c.want.Years) {
			t.Errorf("%q: workload %+v, want %+v", c.q, p.Workload, c.want)
		}
	}
}

// TestBuyRentNoUseSaysThePrice: a buy question with no use says what the
// card costs to buy before asking for the use.
func TestBuyRentNoUseSaysThePrice(t *testing.T) {
	p, err := Parse("price of a 4090 to buy")
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&Estimator{}).BuyRent(p.Query, p.Workload)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.HasPrefix(ie.Problem, "RTX 4090 24 GB costs $1,600-$2,000 to buy") {
		t.Errorf("BuyRent: %v; want the purchase price first", err)
	}
}
