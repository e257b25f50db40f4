package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
)

// routed answers the words of `fitbot fit` that are not a sizing
// question, as Slack does (reading.Route): price questions print prices,
// small talk a short answer with two examples, a request for help the
// usage. With --json each is one JSON object with its kind.
func (a *app) routed(ctx context.Context, f fitArgs, q answer.Question) error {
	kind := q.Kind()
	var text string
	switch kind {
	case answer.KindGreeting:
		text = "Hello! Ask me things like: fitbot fit 13B lora 4090, or fitbot fit llama-3.1-70b qlora 2xa100\n"
	case answer.KindChat:
		text = "Happy to help! Try: fitbot fit 13B lora 4090, or fitbot fit llama-3.1-70b qlora 2xa100\n"
	case answer.KindHelp:
		text = fitUsage
		if q.Route.Topic == string(answer.KindHardware) {
			text = hardwareUsage
		}
	case answer.KindPlan:
		if id, words, ok := answer.MeasuredWords(q.Route.Args); ok {
			return a.measuredWords(ctx, id, words, f.json)
		}
		return a.plans(ctx, jsonFirst(f.json, "show", q.Route.Args))
	case answer.KindHardware:
		return a.hardware(ctx, jsonFirst(f.json, strings.Fields(q.Route.Args)...))
	case answer.KindModels:
		return a.models(ctx, jsonFirst(f.json))
	case answer.KindGPUs:
		return a.gpus(f.json)
	case answer.KindPrices:
		return a.routedPrices(ctx, f, q.Route)
	case answer.KindPlans:
		return a.fitPlans(ctx, f.json, q.Route.Plans)
	}
	if f.json {
		return a.writeJSON(routedJSON{Kind: kind, Text: text})
	}
	fmt.Fprint(a.stdout, text)
	return nil
}

// jsonFirst is a subcommand's arguments, with --json first when asked.
func jsonFirst(asJSON bool, args ...string) []string {
	if asJSON {
		return append([]string{"--json"}, args...)
	}
	return args
}

// writeHistory answers a price history question before today's prices:
// how each named GPU's price moved over the last answer.HistoryDays, from
// the observations the database keeps, or that there is no history (no
// database: the built-in price sheet holds no observations over time).
func (a *app) writeHistory(ctx context.Context, r reading.Routing, now time.Time) error {
	obs, err := a.observations(ctx, answer.HistoryDays, now)
	if err != nil {
		return err
	}
	if len(r.GPUs) == 0 {
		fmt.Fprintf(a.stdout, "Name a GPU for its price history (fitbot fit h100 price trend); today's prices below.\n")
		return nil
	}
	for i, gpu := range r.GPUs {
		name := display.GPUName(gpu)
		if ids := answer.Variants(r, i); len(ids) > 1 {
			name = strings.ToUpper(r.Said[i])
		}
		trends := answer.Trends(obs, answer.Variants(r, i), r.Providers, now.AddDate(0, 0, -answer.HistoryDays), now)
		if len(trends) == 0 && !a.dbExists() {
			fmt.Fprintf(a.stdout, "No price history for the %s here: there is no database at %s, and the built-in price sheet holds one price per offer, not prices over time. "+
				"fitbot prices refresh records them (the bot does on a schedule); fitbot prices --chart %s.png %s then draws the last %d days. Today's prices:\n",
				name, a.dbPath(), gpu, gpu, answer.HistoryDays)
			continue
		}
		for _, line := range answer.HistoryLines(name, trends) {
			fmt.Fprintln(a.stdout, line)
		}
	}
	return nil
}

// routedJSON is `fitbot fit --json` for small talk and help: the kind
// and the text a person would read.
type routedJSON struct {
	Kind answer.Kind `json:"kind"`
	Text string      `json:"text"`
}

// fitPricesJSON is `fitbot fit --json` for a price question: the prices
// of each GPU named (of every GPU when none is), as `fitbot prices --json`
// prints them.
type fitPricesJSON struct {
	Kind    answer.Kind  `json:"kind"`
	Week    bool         `json:"week,omitempty"` // asked about the week: `fitbot digest --dry-run` shows its moves
	Spot    bool         `json:"spot,omitempty"` // asked for spot prices: each GPU's offers are its spot offers, unless no_spot_offer
	Prices  []pricesJSON `json:"prices"`
	Compare *compareJSON `json:"compare,omitempty"` // two GPUs named
	Month   []monthJSON  `json:"month,omitempty"`   // a month asked: each named GPU's month around the clock
}

// monthJSON is answer.MonthCost: a GPU's cost for a month around the
// clock at its cheapest whole-GPU offer.
type monthJSON struct {
	GPU         string    `json:"gpu"`
	GPUs        int       `json:"gpus"` // the count asked ("8x h100"), 1 when none was
	Hours       float64   `json:"hours"`
	USDPerGPU   float64   `json:"usd_per_gpu"`
	USDInstance float64   `json:"usd_instance"`
	Offer       offerJSON `json:"offer"`
	// Period, PeriodHours and USDPeriod are the rental period asked ("for
	// a week": 168 hours) and the GPUs' cost for it; absent when none was.
	Period      string   `json:"period,omitempty"`
	PeriodHours float64  `json:"period_hours,omitempty"`
	USDPeriod   *float64 `json:"usd_period,omitempty"`
}

// compareJSON is answer.Comparison: each GPU's cheapest whole-GPU offer
// (on-demand where there is one; null when none is known) and the cheaper
// one ("" when they cost the same or are not both priced).
type compareJSON struct {
	GPUs              [2]string     `json:"gpus"`
	Best              [2]*offerJSON `json:"best"`
	Cheaper           string        `json:"cheaper"`
	USDPerGPUHourLess float64       `json:"usd_per_gpu_hour_less"`
	PctLess           float64       `json:"pct_less"`
}

// routedPrices answers a price question as `fitbot prices` does, once
// for each GPU named (every variant of a family named alone: "a100s");
// spot asked lists spot offers, or says first that a GPU has none.
func (a *app) routedPrices(ctx context.Context, f fitArgs, r reading.Routing) error {
	if r.History && !f.json {
		if err := a.writeHistory(ctx, r, time.Now().UTC()); err != nil {
			return err
		}
	} else if r.Week {
		fmt.Fprintln(a.stderr, "fitbot: prices as of now; `fitbot digest --dry-run` shows this week's moves")
	}
	view, err := a.loadPrices(ctx)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	// Which offers each named GPU lists (its variants, the providers
	// named, spot when asked) is the answer service's reading, as in Slack.
	var pa answer.PriceAnswer
	if len(r.GPUs) > 0 {
		svc, _ := a.answers()
		svc.PriceBook = offerBook{view}
		if pa, err = svc.Prices(ctx, r); err != nil {
			return err
		}
		if r.Spot {
			for _, offers := range pa.Offers {
				// Cheapest first across the variants: spot rows are few.
				slices.SortStableFunc(offers, func(a, b pricing.Offer) int { return pricing.CompareOffers(a, b, view.snap.At()) })
			}
		}
	}
	listed, noSpot, noProvider, c := pa.Offers, pa.NoSpot, pa.NoProvider, pa.Compare
	if f.json {
		out := routedPricesJSON(view, r, listed, noSpot, c, now)
		for _, m := range pa.Month {
			mj := monthJSON{GPU: m.GPU, GPUs: m.GPUs, Hours: answer.HoursPerMonth, USDPerGPU: m.USDPerGPU, USDInstance: m.USDInstance, Offer: toOfferJSON(m.Offer, now)}
			if pa.Hours > 0 {
				v := m.Offer.USDPerGPUHour * float64(m.GPUs) * pa.Hours
				mj.Period, mj.PeriodHours, mj.USDPeriod = pa.Period, pa.Hours, &v
			}
			out.Month = append(out.Month, mj)
		}
		return a.writeJSON(out)
	}
	if len(r.GPUs) == 0 {
		writeCheapest(a.stdout, view.snap, now)
		view.writeFooter(a.stdout, now)
		return nil
	}
	// The month asked is the answer: first, as Slack puts it, then the
	// offers it comes from.
	if line := answer.PowerLine(r, pa.Hours, pa.Period); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	if line := answer.MonthLine(pa); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	if line := answer.NoReservedLine(pa); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	if line := answer.RunLine(r); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	if line := answer.NoSpotLine(r, noSpot); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	for _, line := range slices.Concat(pa.Elsewhere, noProvider) {
		fmt.Fprintln(a.stdout, line)
	}
	for i, gpu := range r.GPUs {
		if len(listed[i]) == 0 && len(noProvider) > 0 {
			continue // the provider line already said there is none there
		}
		if ids := answer.Variants(r, i); len(ids) > 1 {
			writeFamilyOffers(a.stdout, r.Said[i], listed[i], view.snap, now)
		} else {
			writeOffers(a.stdout, gpu, listed[i], view.snap, now)
		}
	}
	view.writeFooter(a.stdout, now)
	if c != nil {
		fmt.Fprintln(a.stdout, compareLine(*c, r.Spot))
	}
	return nil
}

// routedPricesJSON is fitPricesJSON for a routed price question.
func routedPricesJSON(view priceView, r reading.Routing, listed [][]pricing.Offer, noSpot []string, c *answer.Comparison, now time.Time) fitPricesJSON {
	out := fitPricesJSON{Kind: answer.KindPrices, Week: r.Week, Spot: r.Spot}
	if len(r.GPUs) == 0 {
		out.Prices = append(out.Prices, view.output("", nil, now))
	}
	for i, gpu := range r.GPUs {
		var p pricesJSON
		if ids := answer.Variants(r, i); len(ids) > 1 {
			p = view.output(strings.ToLower(r.Said[i]), ids, now)
		} else {
			p = view.output(gpu, nil, now)
		}
		p.Offers = p.Offers[:0]
		for _, o := range listed[i] {
			p.Offers = append(p.Offers, toOfferJSON(o, now))
		}
		p.NoSpotOffer = slices.Contains(noSpot, gpu)
		out.Prices = append(out.Prices, p)
	}
	if c != nil {
		j := &compareJSON{GPUs: c.GPUs, USDPerGPUHourLess: c.USDPerGPUHour, PctLess: c.Pct}
		for i, o := range c.Best {
			if o != nil {
				oj := toOfferJSON(*o, now)
				j.Best[i] = &oj
			}
		}
		if c.Cheaper >= 0 {
			j.Cheaper = c.GPUs[c.Cheaper]
		}
		out.Compare = j
	}
	return out
}

// compareLine is a comparison in one line, after the two price tables:
// of spot offers when spot was asked.
func compareLine(c answer.Comparison, spot bool) string {
	a, b := display.GPUName(c.GPUs[0]), display.GPUName(c.GPUs[1])
	basis := "cheapest whole-GPU offer, on-demand where there is one"
	if spot {
		basis = "cheapest whole-GPU spot offer, on-demand for a card without one"
	}
	switch {
	case c.Best[0] == nil || c.Best[1] == nil:
		return fmt.Sprintf("%s vs %s: not both priced, so no comparison.", a, b)
	case c.Cheaper < 0:
		return fmt.Sprintf("%s vs %s: both cost the same per GPU-hour (%s).", a, b, basis)
	}
	cheaper, dearer := a, b
	if c.Cheaper == 1 {
		cheaper, dearer = b, a
	}
	return fmt.Sprintf("%s vs %s: the %s is cheaper per GPU-hour than the %s, by %s (%.0f%%; %s).",
		a, b, cheaper, dearer, display.USD(c.USDPerGPUHour), c.Pct, basis)
}

// weeklyDigest builds the digest of the week ending at a time from the
// store, for the bot's "this week" price questions.
func weeklyDigest(db *store.DB) bot.Weekly {
	return func(ctx context.Context, end time.Time) (digest.Digest, error) {
		c := digest.DefaultConfig()
		// A price question reads the week's moves only: no plan.
		in, err := db.DigestInput(ctx, store.Scope{}, end, c.PlanWindow)
		if err != nil {
			return digest.Digest{}, fmt.Errorf("the week's digest: %w", err)
		}
		return digest.Build(in, c), nil
	}
}

// offerBook is the loaded price view as the answer service's PriceBook.
type offerBook struct{ view priceView }

// OffersForGPU implements answer.PriceBook.
func (b offerBook) OffersForGPU(_ context.Context, gpu string) ([]pricing.Offer, error) {
	return b.view.offersFor(gpu), nil
}

// CheapestOffers implements answer.PriceBook.
func (b offerBook) CheapestOffers(context.Context) ([]pricing.Offer, error) {
	return b.view.snap.CheapestPerGPU(), nil
}
