package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// Weekly builds the price digest of the week ending at a time: the
// numbers a "this week" price question is answered with.
// *DigestPoster's Build is one.
type Weekly func(ctx context.Context, end time.Time) (pricing.Digest, error)

// routed answers a message that is not a sizing question (sizing.Route):
// a price question, small talk, a request for help. ok is false for a
// sizing question, which the caller answers.
func (h *Handler) routed(ctx context.Context, r sizing.Routing) (Message, bool) {
	switch r.Kind {
	case sizing.RouteChat:
		return chatMessage(r.Greeting), true
	case sizing.RouteHelp:
		return helpMessage(h.cfg.Interpreter != nil), true
	case sizing.RoutePrice:
		return h.priceAnswer(ctx, r), true
	}
	return Message{}, false
}

// chatMessage is the answer to small talk and thanks (a greeting is
// greeted back): short, friendly, and two questions to try.
func chatMessage(greeting bool) Message {
	lead := "Happy to help!"
	if greeting {
		lead = "Hello!"
	}
	return ephemeral(lead+" Try: /fit 13B lora 4090 or /fit llama-3.1-70b qlora 2xa100",
		slack.NewSectionBlock(mrkdwn(":wave: "+lead+" Ask me things like `/fit 13B lora 4090` or `/fit llama-3.1-70b qlora 2xa100`."), nil, nil))
}

// notASizingQuestion is the answer to text in which the parser found
// nothing to size: help with what it can do, never an error.
func notASizingQuestion() Message {
	help := helpMessage(false)
	lead := slack.NewSectionBlock(mrkdwn("I didn't find a sizing question in that. Name a model (or a size like `13B`), a method and GPUs — or ask for prices: `/fit how much is an H100 per hour?`"), nil, nil)
	help.Blocks = append([]slack.Block{lead}, help.Blocks...)
	help.Text = "I didn't find a sizing question in that. " + help.Text
	return help
}

// nothingToSize reports whether a parse read words but found nothing a
// sizing question is made of: no model, size, method or GPU at all.
func nothingToSize(p sizing.Parsed, err error) bool {
	var in *sizing.InputError
	if err == nil || !errors.As(err, &in) || len(p.Ignored) == 0 {
		return false
	}
	q := p.Query
	return q.Model == "" && q.Params == 0 && q.Method == "" && q.GPU == "" && q.GPUs == 0 && q.Arch == nil
}

// priceAnswer answers a price question: every GPU's cheapest offer, one
// GPU's offers, or two GPUs compared; "this week" adds the digest's
// moves for the GPUs asked about.
func (h *Handler) priceAnswer(ctx context.Context, r sizing.Routing) Message {
	if h.cfg.Prices == nil {
		return ephemeral("Prices are not available yet on this fitbot. Answers use the built-in price sheet where it has the GPU.")
	}
	var msg Message
	switch len(r.GPUs) {
	case 0:
		offers, err := h.cfg.Prices.CheapestOffers(ctx)
		if err != nil {
			h.log.Error("bot: reading prices failed", "err", err)
			return apology()
		}
		msg = pricesMessage("Cheapest GPU prices", offers, h.now())
	case 1:
		offers, err := h.cfg.Prices.OffersForGPU(ctx, r.GPUs[0])
		if err != nil {
			h.log.Error("bot: reading prices failed", "gpu", r.GPUs[0], "err", err)
			return apology()
		}
		msg = pricesMessage("Prices for "+display.GPUName(r.GPUs[0]), offers, h.now())
	default:
		m, err := h.compareMessage(ctx, r.GPUs[0], r.GPUs[1])
		if err != nil {
			h.log.Error("bot: reading prices failed", "gpus", r.GPUs, "err", err)
			return apology()
		}
		msg = m
	}
	if r.Week {
		msg = h.withWeek(ctx, msg, r.GPUs)
	}
	return msg
}

// cheapestOnDemand is the cheapest whole-GPU on-demand offer (any market
// when there is no on-demand one); ok is false when there is no offer.
func cheapestOnDemand(offers []pricing.Offer) (pricing.Offer, bool) {
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

// compareMessage compares the cheapest offers of two GPUs.
func (h *Handler) compareMessage(ctx context.Context, a, b string) (Message, error) {
	var lines []string
	var best [2]pricing.Offer
	var have [2]bool
	for i, id := range []string{a, b} {
		offers, err := h.cfg.Prices.OffersForGPU(ctx, id)
		if err != nil {
			return Message{}, fmt.Errorf("offers for %s: %w", id, err)
		}
		best[i], have[i] = cheapestOnDemand(offers)
		if !have[i] {
			lines = append(lines, fmt.Sprintf("*%s*: no price known yet", display.GPUName(id)))
			continue
		}
		o := best[i]
		lines = append(lines, fmt.Sprintf("*%s*: *%s*/GPU-h, %s %s, %s", display.GPUName(id), display.USD(o.USDPerGPUHour), o.Provider,
			strings.ReplaceAll(string(o.Market), "_", "-"), formatAge(o.ObservedAt, h.now())))
	}
	head := fmt.Sprintf("%s vs %s", display.GPUName(a), display.GPUName(b))
	verdict := "Not both priced yet, so no comparison."
	if have[0] && have[1] {
		pa, pb := best[0].USDPerGPUHour, best[1].USDPerGPUHour
		switch {
		case pa < pb:
			verdict = fmt.Sprintf("The %s is cheaper per GPU-hour, by %s (%.0f%%).", display.GPUName(a), display.USD(pb-pa), 100*(pb-pa)/pb)
		case pb < pa:
			verdict = fmt.Sprintf("The %s is cheaper per GPU-hour, by %s (%.0f%%); the %s costs more.", display.GPUName(b), display.USD(pa-pb), 100*(pa-pb)/pa, display.GPUName(a))
		default:
			verdict = "Both cost the same per GPU-hour."
		}
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("💵 " + head)),
		slack.NewSectionBlock(mrkdwn(verdict+"\n"+strings.Join(lines, "\n")), nil, nil),
		slack.NewContextBlock("", mrkdwn("Cheapest whole-GPU offer of each, on-demand where there is one. Per GPU-hour; a faster card can still cost less per job: ask `/fit which gpu 13b lora on 1B tokens`.")),
	}
	return ephemeral(head+": "+verdict, blocks...), nil
}

// withWeek adds the week's price moves for the GPUs (all when none) from
// the digest, or says the digest is not available here.
func (h *Handler) withWeek(ctx context.Context, msg Message, gpus []string) Message {
	line := "_This week:_ the weekly digest is not available on this fitbot; these are today's prices."
	if h.cfg.Weekly != nil {
		d, err := h.cfg.Weekly(ctx, h.now())
		if err != nil {
			h.log.Warn("bot: building the week's digest for a price question failed", "err", err)
		} else {
			line = weekLine(d, gpus)
		}
	}
	msg.Blocks = append(msg.Blocks, slack.NewSectionBlock(mrkdwn(line), nil, nil))
	return msg
}

// weekLine is the digest's moves for the GPUs, in a few lines.
func weekLine(d pricing.Digest, gpus []string) string {
	var moves []string
	for _, m := range d.Moves {
		if len(gpus) > 0 && !slices.Contains(gpus, m.GPU) {
			continue
		}
		moves = append(moves, fmt.Sprintf("`%s` %s %s: %s → %s (%s)", m.GPU, m.Provider, strings.ReplaceAll(string(m.Market), "_", "-"),
			display.USD(m.OldUSDPerGPUHour), display.USD(m.NewUSDPerGPUHour), signedPct(m.ChangePct)))
	}
	week := weekRange(d)
	if len(moves) == 0 {
		return fmt.Sprintf("*This week* (%s): no price moved.", week)
	}
	if len(moves) > 6 {
		moves = append(moves[:6], fmt.Sprintf("_%d more in the digest._", len(moves)-6))
	}
	return fmt.Sprintf("*This week* (%s):\n%s", week, strings.Join(moves, "\n"))
}
