package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// Weekly builds the price digest of the week ending at a time: the
// numbers a "this week" price question is answered with.
// *DigestPoster's Build is one.
type Weekly func(ctx context.Context, end time.Time) (digest.Digest, error)

// routed answers a message that is not a sizing question (reading.Route):
// a price question, a plans question, small talk, a request for help. ok
// is false for a sizing question, which the caller answers.
func (h *Handler) routed(ctx context.Context, asker who, r reading.Routing) (Message, bool) {
	switch r.Kind {
	case reading.RoutePlans:
		return h.plansCommand(ctx, asker.scope(), r.Plans), true
	case reading.RouteChat:
		return chatMessage(r.Greeting), true
	case reading.RouteHelp:
		if r.Topic == string(reading.RouteHardware) {
			return hardwareHelp, true
		}
		return helpMessage(h.cfg.ModelReader != nil), true
	case reading.RoutePrice:
		return h.priceAnswer(ctx, r), true
	// fitbot's own commands, said in words or through a face that has no
	// subcommands of its own, answered as /fit answers them.
	case reading.RouteCluster:
		return h.clusterCommand(ctx, asker.team), true
	case reading.RoutePlan:
		if id, measured, ok := answer.MeasuredWords(r.Args); ok {
			return h.measuredCommand(ctx, asker, id, measured), true
		}
		return h.planCommand(ctx, asker.scope(), r.Args), true
	case reading.RouteHardware:
		return h.hardwareCommand(ctx, asker.team, r.Args), true
	case reading.RouteGPUs:
		return h.static().gpus, true
	case reading.RouteModels:
		return h.modelsMessage(ctx), true
	}
	return Message{}, false
}

// hardwareHelp is how to tell fitbot about the team's machines: the
// answer to "how do i add our hardware".
var hardwareHelp = ephemeral("Tell fitbot about a machine: /fit hardware add NAME: HARDWARE, e.g. /fit hardware add our dgx: 8x h100, 2 TB RAM",
	slack.NewSectionBlock(mrkdwn("*The team's own machines*\n"+
		"`/fit hardware add our dgx: 8x h100, 2 TB RAM`  name a machine and what it has\n"+
		"`/fit hardware add the cluster: 4 nodes of 8 h100`  several nodes\n"+
		"`/fit hardware`  the machines named  ·  `/fit hardware remove our dgx`  forget one\n"+
		"A question about one (`/fit 13b lora on our dgx`), or one that names no GPU, is sized on them."), nil, nil))

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
// nothing to size: help with what it can do, never an error. interpreter
// says whether a language model is configured, so that the help never
// asks for what is already set.
func notASizingQuestion(interpreter bool) Message {
	help := helpMessage(interpreter)
	lead := slack.NewSectionBlock(mrkdwn("I didn't find a sizing question in that. Name a model (or a size like `13B`), a method and GPUs — or ask for prices: `/fit how much is an H100 per hour?`"), nil, nil)
	help.Blocks = append([]slack.Block{lead}, help.Blocks...)
	help.Text = "I didn't find a sizing question in that. " + help.Text
	return help
}

// nothingToSize reports whether a parse read words but found nothing a
// sizing question is made of: no model, size, method or GPU at all.
func nothingToSize(p reading.Request, err error) bool {
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
func (h *Handler) priceAnswer(ctx context.Context, r reading.Routing) Message {
	if h.cfg.Prices == nil {
		return ephemeral("Prices are not available yet on this fitbot. Answers use the built-in price sheet where it has the GPU.")
	}
	a, err := h.answers.Prices(ctx, r)
	if err != nil {
		h.log.Error("bot: reading prices failed", "gpus", r.GPUs, "err", err)
		return apology()
	}
	if len(a.NoProvider) > 0 && a.Compare == nil && len(a.GPUs) == 1 && len(a.Offers[0]) == 0 {
		return ephemeral(strings.Join(a.NoProvider, " ")) // no offer there: the line says so, and where there are
	}
	var msg Message
	switch {
	case a.Compare != nil:
		msg = h.compareMessage(*a.Compare, a.Spot)
	case len(a.GPUs) == 1:
		title := "Prices for " + display.GPUName(a.GPUs[0])
		if len(a.Variants[0]) > 1 {
			title = "Prices for every " + strings.ToUpper(r.Said[0])
		}
		if a.Spot && len(a.NoSpot) == 0 {
			title = "Spot p" + title[1:]
		}
		msg = onePricesGPU(pricesMessage(title, a.Offers[0], h.now()), pictureGPU(a.Variants[0], a.Offers[0]))
	case a.Spot && len(a.NoSpot) == 0:
		msg = pricesMessage("Cheapest spot GPU prices", a.Cheapest, h.now())
	default:
		msg = pricesMessage("Cheapest GPU prices", a.Cheapest, h.now())
	}
	if line := answer.MonthLine(a); line != "" {
		msg = withFirstLine(msg, line)
	}
	if line := answer.PowerLine(r, a.Hours, a.Period); line != "" {
		msg = withFirstLine(msg, line)
	}
	for _, line := range slices.Backward(a.Elsewhere) {
		msg = withFirstLine(msg, line)
	}
	if line := answer.NoSpotLine(r, a.NoSpot); line != "" {
		msg = withFirstLine(msg, line)
	}
	if line := answer.NoReservedLine(a); line != "" {
		msg = withFirstLine(msg, line)
	}
	if line := answer.RunLine(r); line != "" {
		msg = withFirstLine(msg, line)
	}
	for _, line := range slices.Backward(a.NoProvider) {
		msg = withFirstLine(msg, line)
	}
	if r.History {
		msg = h.withHistory(ctx, msg, r, a)
	} else if a.Week {
		msg = h.withWeek(ctx, msg, slices.Concat(a.Variants...))
	}
	return msg
}

// withHistory puts first in a price answer how each GPU asked about
// moved over the last answer.HistoryDays (answer.HistoryLines), from the
// observations the store keeps; the one-GPU listing's picture draws them.
func (h *Handler) withHistory(ctx context.Context, msg Message, r reading.Routing, a answer.PriceAnswer) Message {
	if h.cfg.History == nil {
		return withFirstLine(msg, "No price history on this fitbot (no database of observed prices): today's prices below.")
	}
	now := h.now().UTC()
	obs, err := h.cfg.History.ObservationsBetween(ctx, now.AddDate(0, 0, -answer.HistoryDays), now)
	if err != nil {
		h.log.Error("bot: reading the price history failed", "gpus", r.GPUs, "err", err)
		return withFirstLine(msg, "The price history could not be read just now: today's prices below.")
	}
	for i := range slices.Backward(a.GPUs) {
		name := display.GPUName(a.GPUs[i])
		if len(a.Variants[i]) > 1 && i < len(r.Said) {
			name = strings.ToUpper(r.Said[i])
		}
		lines := answer.HistoryLines(name, answer.Trends(obs, a.Variants[i], r.Providers, now.AddDate(0, 0, -answer.HistoryDays), now))
		msg = withFirstLine(msg, strings.Join(lines, "\n"))
	}
	return msg
}

// withFirstLine puts line before msg's blocks and text: what the answer
// could not do, said before what it shows.
func withFirstLine(msg Message, line string) Message {
	msg.Blocks = append([]slack.Block{slack.NewSectionBlock(mrkdwn(line), nil, nil)}, msg.Blocks...)
	msg.Text = line + " " + msg.Text
	return msg
}

// compareMessage shows two GPUs' cheapest offers compared: spot offers
// when spot was asked (and the GPU has one).
func (h *Handler) compareMessage(c answer.Comparison, spot bool) Message {
	a, b := c.GPUs[0], c.GPUs[1]
	var lines []string
	for i, id := range c.GPUs {
		o := c.Best[i]
		if o == nil {
			lines = append(lines, fmt.Sprintf("*%s*: no price known yet", display.GPUName(id)))
			continue
		}
		lines = append(lines, fmt.Sprintf("*%s*: *%s*/GPU-h, %s %s, %s", display.GPUName(id), display.USD(o.USDPerGPUHour), o.Provider,
			strings.ReplaceAll(string(o.Market), "_", "-"), formatAge(o.ObservedAt, h.now())))
	}
	head := fmt.Sprintf("%s vs %s", display.GPUName(a), display.GPUName(b))
	var verdict string
	switch {
	case c.Best[0] == nil || c.Best[1] == nil:
		verdict = "Not both priced yet, so no comparison."
	case c.Cheaper == 0:
		verdict = fmt.Sprintf("The %s is cheaper per GPU-hour, by %s (%.0f%%).", display.GPUName(a), display.USD(c.USDPerGPUHour), c.Pct)
	case c.Cheaper == 1:
		verdict = fmt.Sprintf("The %s is cheaper per GPU-hour, by %s (%.0f%%); the %s costs more.", display.GPUName(b), display.USD(c.USDPerGPUHour), c.Pct, display.GPUName(a))
	default:
		verdict = "Both cost the same per GPU-hour."
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("💵 " + head)),
		slack.NewSectionBlock(mrkdwn(verdict+"\n"+strings.Join(lines, "\n")), nil, nil),
		slack.NewContextBlock("", mrkdwn(compareBasis(spot)+" Per GPU-hour; a faster card can still cost less per job: ask `/fit which gpu 13b lora on 1B tokens`.")),
	}
	return ephemeral(head+": "+verdict, blocks...)
}

// compareBasis says which offers a comparison compares.
func compareBasis(spot bool) string {
	if spot {
		return "Cheapest whole-GPU spot offer of each (on-demand for a card without one)."
	}
	return "Cheapest whole-GPU offer of each, on-demand where there is one."
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
func weekLine(d digest.Digest, gpus []string) string {
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
