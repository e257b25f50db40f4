package main

import (
	"context"
	"fmt"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// routed answers the words of `fitbot fit` that are not a sizing
// question, as Slack does (sizing.Route): price questions print prices,
// small talk a short answer with two examples, a request for help the
// usage. handled is false for a sizing question.
func (a *app) routed(ctx context.Context, f fitArgs, r sizing.Routing) (bool, error) {
	switch r.Kind {
	case sizing.RouteChat:
		fmt.Fprintln(a.stdout, "Happy to help! Try: fitbot fit 13B lora 4090, or fitbot fit llama-3.1-70b qlora 2xa100")
		return true, nil
	case sizing.RouteHelp:
		fmt.Fprint(a.stdout, fitUsage)
		return true, nil
	case sizing.RoutePrice:
	default:
		return false, nil
	}
	if r.Week {
		fmt.Fprintln(a.stderr, "fitbot: prices as of now; `fitbot digest --dry-run` shows this week's moves")
	}
	var flags []string
	if f.json {
		flags = []string{"--json"}
	}
	if len(r.GPUs) == 0 {
		return true, a.prices(ctx, flags)
	}
	for _, gpu := range r.GPUs {
		if err := a.prices(ctx, append(flags, gpu)); err != nil {
			return true, err
		}
	}
	return true, nil
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
