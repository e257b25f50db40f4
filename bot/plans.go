package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// noStore is the reply to plan commands when no plan store is configured.
func noStore() Message {
	return ephemeral("Plans are not kept on this fitbot (no database configured), so there is nothing to look up.")
}

// plansCommand lists the newest plans for a model: `/fit plans mistral 7b`.
func (h *Handler) plansCommand(ctx context.Context, words string) Message {
	if h.cfg.Plans == nil {
		return noStore()
	}
	if words == "" {
		return errorMessage("`/fit plans` needs a model.", "plans mistral-7b")
	}
	if msg, ok := h.familyPlans(ctx, words); ok {
		return msg
	}
	key, err := store.ModelKeyFor(words)
	if in := (*sizing.InputError)(nil); errors.As(err, &in) {
		return errorMessage(in.Problem, "plans mistral-7b")
	} else if err != nil {
		h.log.Error("bot: reading a model name failed", "err", err)
		return apology()
	}
	plans, err := h.cfg.Plans.PlansForModel(ctx, key, maxPlansListed)
	if err != nil {
		h.log.Error("bot: listing plans failed", "model", key, "err", err)
		return apology()
	}
	return plansMessage(words, plans, h.now())
}

// plansMessage renders a list of plans, newest first.
func plansMessage(asked string, plans []store.Plan, now time.Time) Message {
	if len(plans) == 0 {
		return ephemeral(fmt.Sprintf("No plans yet for %s.", asked),
			slack.NewSectionBlock(mrkdwn(fmt.Sprintf("No plans yet for *%s*. Ask a question about it (`/fit %s lora 4090`) and the answer is kept.", escape(asked), escape(asked))), nil, nil))
	}
	blocks := []slack.Block{slack.NewHeaderBlock(plain(fmt.Sprintf("Plans for %s (newest first)", asked)))}
	for _, p := range plans {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(planLine(p, now)), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn("`/fit plan ID` re-answers a plan with today's catalog and prices.")))
	return ephemeral(fmt.Sprintf("%d plans for %s", len(plans), asked), blocks...)
}

// planLine is one plan in a list: id, when, who, the question, the verdict and the price then.
func planLine(p store.Plan, now time.Time) string {
	mark := "✅ fits"
	if !p.Fits {
		mark = "❌ does not fit"
	}
	price := "no price"
	if p.USDPerHour != nil {
		price = formatUSD(*p.USDPerHour) + "/h then"
	}
	by := "cli"
	if p.User != "" {
		by = "<@" + p.User + ">"
	}
	return fmt.Sprintf("*#%d*  %s by %s\n`%s`\n%s on %s, %s per GPU, %s",
		p.ID, p.CreatedAt.UTC().Format("2006-01-02"), by, escape(truncate(p.Question, 300)),
		mark, hardware(p.GPUs, p.GPU), formatGiB(p.PerGPUBytes), price)
}

// planCommand re-answers a saved plan with today's catalog and prices: `/fit plan 42`.
func (h *Handler) planCommand(ctx context.Context, arg string) Message {
	if h.cfg.Plans == nil {
		return noStore()
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		return errorMessage(fmt.Sprintf("“%s” is not a plan number.", arg), "plan 42")
	}
	return h.replan(ctx, id, false)
}

// replan loads a plan, re-parses its canonical question and answers it
// again, saying what changed since.
func (h *Handler) replan(ctx context.Context, id int64, details bool) Message {
	plan, err := h.cfg.Plans.Plan(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return errorMessage(fmt.Sprintf("There is no plan #%d.", id), "plans mistral-7b")
	}
	if err != nil {
		h.log.Error("bot: loading a plan failed", "id", id, "err", err)
		return apology()
	}
	question := plan.Canonical
	if question == "" {
		question = plan.Question
	}
	p, err := h.cfg.Parse(question)
	if err != nil {
		return h.failure(question, err)
	}
	a, err := h.cfg.Answer.Answer(p.Query)
	if err != nil {
		return h.failure(question, err)
	}
	view := answerView{ref: planRef(id), details: details, now: h.now(), note: replanNote(plan, a.Fits, a.Throughput.USDPerHour)}
	return ephemeral(fmt.Sprintf("Plan #%d today: %s", id, answerText(a)), answerBlocks(a, view)...)
}

// replanNote says when a plan was made and how its verdict and price moved.
func replanNote(p store.Plan, fitsNow bool, nowUSD *float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*Plan #%d* from %s", p.ID, p.CreatedAt.UTC().Format("2006-01-02"))
	if p.User != "" {
		fmt.Fprintf(&b, " by <@%s>", p.User)
	}
	b.WriteString(", re-answered today.")
	if p.Fits != fitsNow {
		fmt.Fprintf(&b, " Verdict changed: then %s, now %s.", fitsWord(p.Fits), fitsWord(fitsNow))
	}
	switch {
	case p.USDPerHour != nil && nowUSD != nil:
		fmt.Fprintf(&b, " Price: then %s/h, now %s/h (%+.0f%%).", formatUSD(*p.USDPerHour), formatUSD(*nowUSD), pctChange(*p.USDPerHour, *nowUSD))
	case nowUSD != nil:
		fmt.Fprintf(&b, " Price now %s/h (none was known then).", formatUSD(*nowUSD))
	}
	return b.String()
}

func fitsWord(f bool) string {
	if f {
		return "fits"
	}
	return "does not fit"
}

func pctChange(then, now float64) float64 {
	if then == 0 {
		return 0
	}
	return 100 * (now - then) / then
}
