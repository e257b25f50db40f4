package main

import (
	"context"
	"fmt"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/bot"
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
	Kind   answer.Kind  `json:"kind"`
	Week   bool         `json:"week,omitempty"` // asked about the week: `fitbot digest --dry-run` shows its moves
	Prices []pricesJSON `json:"prices"`
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
	return a.writeJSON(out)
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
