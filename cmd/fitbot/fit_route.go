package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// routed answers the words of `fitbot fit` that are not a sizing
// question, as Slack does (sizing.Route): price questions print prices,
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
	case answer.KindPrices:
		return a.routedPrices(ctx, f, q.Route)
	case answer.KindPlans:
		args := strings.Fields(q.Route.Plans)
		if f.json {
			args = append([]string{"--json"}, args...)
		}
		return a.plans(ctx, args)
	}
	if f.json {
		return a.writeJSON(routedJSON{Kind: kind, Text: text})
	}
	fmt.Fprint(a.stdout, text)
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
	Prices  []pricesJSON `json:"prices"`
	Compare *compareJSON `json:"compare,omitempty"` // two GPUs named
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

// routedPrices answers a price question with `fitbot prices`, once for
// each GPU named.
func (a *app) routedPrices(ctx context.Context, f fitArgs, r sizing.Routing) error {
	if r.Week {
		fmt.Fprintln(a.stderr, "fitbot: prices as of now; `fitbot digest --dry-run` shows this week's moves")
	}
	gpus := r.GPUs
	if len(gpus) == 0 {
		gpus = []string{""}
	}
	if !f.json {
		for _, gpu := range gpus {
			var args []string
			if gpu != "" {
				args = []string{gpu}
			}
			if err := a.prices(ctx, args); err != nil {
				return err
			}
		}
		if len(r.GPUs) < 2 {
			return nil
		}
		view, err := a.loadPrices(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, compareLine(answer.Compare(r.GPUs[0], r.GPUs[1], view.offersFor(r.GPUs[0]), view.offersFor(r.GPUs[1]))))
		return nil
	}
	view, err := a.loadPrices(ctx)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	out := fitPricesJSON{Kind: answer.KindPrices, Week: r.Week}
	for _, gpu := range gpus {
		out.Prices = append(out.Prices, view.output(gpu, pricing.GPUFamily(gpu), now))
	}
	if len(r.GPUs) >= 2 {
		c := answer.Compare(r.GPUs[0], r.GPUs[1], view.offersFor(r.GPUs[0]), view.offersFor(r.GPUs[1]))
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
	return a.writeJSON(out)
}

// compareLine is a comparison in one line, after the two price tables.
func compareLine(c answer.Comparison) string {
	a, b := display.GPUName(c.GPUs[0]), display.GPUName(c.GPUs[1])
	switch {
	case c.Best[0] == nil || c.Best[1] == nil:
		return fmt.Sprintf("%s vs %s: not both priced, so no comparison.", a, b)
	case c.Cheaper < 0:
		return fmt.Sprintf("%s vs %s: both cost the same per GPU-hour (cheapest whole-GPU offer, on-demand where there is one).", a, b)
	}
	cheaper, dearer := a, b
	if c.Cheaper == 1 {
		cheaper, dearer = b, a
	}
	return fmt.Sprintf("%s vs %s: the %s is cheaper per GPU-hour than the %s, by %s (%.0f%%; cheapest whole-GPU offer, on-demand where there is one).",
		a, b, cheaper, dearer, display.USD(c.USDPerGPUHour), c.Pct)
}

// weeklyDigest builds the digest of the week ending at a time from the
// store, for the bot's "this week" price questions.
func weeklyDigest(db *store.DB) bot.Weekly {
	return func(ctx context.Context, end time.Time) (pricing.Digest, error) {
		c := pricing.DefaultDigestConfig()
		// A price question reads the week's moves only: no plan.
		in, err := db.DigestInput(ctx, store.Scope{}, end, c.PlanWindow)
		if err != nil {
			return pricing.Digest{}, fmt.Errorf("the week's digest: %w", err)
		}
		return pricing.BuildDigest(in, c), nil
	}
}
