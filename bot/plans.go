package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// noStore is the reply to plan commands when no plan store is configured.
func noStore() Message {
	return ephemeral("Plans are not kept on this fitbot (no database configured), so there is nothing to look up.")
}

// plansCommand lists the newest plans for a model: `/fit plans mistral 7b`.
func (h *Handler) plansCommand(ctx context.Context, scope store.Scope, words string) Message {
	if h.cfg.Plans == nil {
		return noStore()
	}
	if words == "" {
		return errorMessage("`/fit plans` needs a model.", "plans mistral-7b")
	}
	if key, ok := answer.InversePlanKey(words); ok {
		plans, err := h.cfg.Plans.PlansForModel(ctx, scope, key, maxPlansListed)
		if err != nil {
			h.log.Error("bot: listing plans failed", "model", key, "err", err)
			return apology()
		}
		if len(plans) == 0 {
			return ephemeral(fmt.Sprintf("No %s plans yet.", words), slack.NewSectionBlock(mrkdwn(fmt.Sprintf(
				"No *%s* plans yet that name no model. Ask one (`/fit what 2x4090 lora`, `/fit which gpu 13b lora`) and the answer is kept.", escape(words))), nil, nil))
		}
		return plansMessage(words+" questions", plans, h.now())
	}
	if msg, ok := h.familyPlans(ctx, scope, words); ok {
		return msg
	}
	key, err := h.answers.PlanKey(ctx, words)
	if in := (*sizing.InputError)(nil); errors.As(err, &in) {
		return errorMessage(in.Problem, "plans mistral-7b")
	} else if err != nil {
		h.log.Error("bot: reading a model name failed", "err", err)
		return apology()
	}
	return h.listPlans(ctx, scope, words, key)
}

// listPlans lists the newest plans filed under one key that scope reads.
func (h *Handler) listPlans(ctx context.Context, scope store.Scope, words, key string) Message {
	plans, err := h.cfg.Plans.PlansForModel(ctx, scope, key, maxPlansListed)
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
	if p.Kind != answer.PlanFit && p.Kind != "" {
		return inversePlanLine(p)
	}
	mark := "✅ fits"
	if !p.Fits {
		mark = "❌ does not fit"
	}
	price := "no price"
	if p.USDPerHour != nil {
		price = display.USD(*p.USDPerHour) + "/h then"
	}
	by := "cli"
	if p.User != "" {
		by = "<@" + p.User + ">"
	}
	return fmt.Sprintf("*#%d*  %s by %s\n`%s`\n%s on %s, %s per GPU, %s",
		p.ID, p.CreatedAt.UTC().Format("2006-01-02"), by, escape(display.Truncate(p.Question, 300)),
		mark, display.Hardware(p.GPUs, p.GPU), display.GiB(p.PerGPUBytes), price)
}

// inversePlanLine is one inverse plan in a list: id, when, who, the
// question and its answer then, in one line.
func inversePlanLine(p store.Plan) string {
	by := "cli"
	if p.User != "" {
		by = "<@" + p.User + ">"
	}
	return fmt.Sprintf("*#%d*  %s by %s, %s question\n`%s`\n%s",
		p.ID, p.CreatedAt.UTC().Format("2006-01-02"), by, p.Kind, escape(display.Truncate(p.Question, 300)), escape(p.Answer))
}

// planCommand re-answers a saved plan with today's catalog and prices: `/fit plan 42`.
func (h *Handler) planCommand(ctx context.Context, scope store.Scope, arg string) Message {
	if h.cfg.Plans == nil {
		return noStore()
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		return errorMessage(fmt.Sprintf("“%s” is not a plan number.", arg), "plan 42")
	}
	return h.replan(ctx, scope, id, false)
}

// replan loads a plan that scope reads, re-parses its canonical question
// and answers it again, saying what changed since. A plan scope does not
// read is answered as one that does not exist.
func (h *Handler) replan(ctx context.Context, scope store.Scope, id int64, details bool) Message {
	saved, err := h.cfg.Plans.Plan(ctx, scope, id)
	if errors.Is(err, store.ErrNotFound) {
		// The hint names nothing: a plan this asker may not read must not
		// show its model, even as an example.
		return errorMessage(fmt.Sprintf("There is no plan #%d.", id), "plans <model>")
	}
	if err != nil {
		h.log.Error("bot: loading a plan failed", "id", id, "err", err)
		return apology()
	}
	if saved.Kind != answer.PlanFit && saved.Kind != "" {
		return h.reask(ctx, saved, details)
	}
	d := h.answers.Reanswer(ctx, saved.Summary)
	if d.Now == nil {
		if d.Err == nil {
			return errorMessage(fmt.Sprintf("Plan #%d cannot be re-answered: %s.", id, d.Problem), "plans mistral-7b")
		}
		return h.failure(saved.Summary.Text(), d.Err)
	}
	a := *d.Now
	view := answerView{ref: planRef(id), details: details, now: h.now(), note: replanNote(saved, d)}
	return answered(fmt.Sprintf("Plan #%d today: %s", id, answerText(a)), answerBlocks(a, view)...)
}

// replanNote says when a plan was made and how its verdict, hardware and
// price moved.
func replanNote(p store.Plan, d answer.PlanDiff) string {
	now := d.Now
	var b strings.Builder
	fmt.Fprintf(&b, "*Plan #%d* from %s", p.ID, p.CreatedAt.UTC().Format("2006-01-02"))
	if p.User != "" {
		fmt.Fprintf(&b, " by <@%s>", p.User)
	}
	b.WriteString(", re-answered today.")
	if d.Changed.Verdict {
		fmt.Fprintf(&b, " Verdict changed: then %s, now %s.", answer.PlanVerdict(p.Fits, p.Headroom), answer.PlanVerdict(now.Fits, string(now.Headroom)))
	}
	if d.Changed.Hardware {
		fmt.Fprintf(&b, " Hardware changed: then %s, now %s.", display.Hardware(p.GPUs, p.GPU), display.Hardware(now.Request.GPUs, now.Request.GPU))
	}
	switch then, today := p.USDPerHour, d.NowUSDPerHour(); {
	case then != nil && today != nil:
		fmt.Fprintf(&b, " Price: then %s/h, now %s/h", display.USD(*then), display.USD(*today))
		if pct := d.PriceChangePct(); pct != nil {
			fmt.Fprintf(&b, " (%+.0f%%)", *pct)
		}
		b.WriteString(".")
	case today != nil:
		fmt.Fprintf(&b, " Price now %s/h (none was known then).", display.USD(*today))
	case then != nil:
		fmt.Fprintf(&b, " Price then %s/h; none is known now.", display.USD(*then))
	}
	return b.String()
}
