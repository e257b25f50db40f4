package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// Asker answers the questions that run the other way round (largest
// model, longest context, which GPU, buy or rent) within ctx; Fixed is
// one. The Handler uses Config.Ask.
type Asker = answer.Asker

// askReply renders the result of a question that runs the other way
// round: the answer, the line that names its plan when it was kept, and
// a serving answer's picture.
func (h *Handler) askReply(r answer.Result) Message {
	q, a := r.Question, r.Ask
	msg := askMessageView(*a, h.now(), false)
	if msg.Outcome == OutcomeAnswered {
		if r.PlanID != 0 {
			msg.Blocks = append(msg.Blocks, slack.NewContextBlock("", mrkdwn(fmt.Sprintf(
				"Kept in the team's plans as plan %d: `/fit plan %d` asks it again, `/fit plans %s` lists them", r.PlanID, r.PlanID, r.Listed))))
		}
		if a.Serve != nil {
			msg = withPicture(msg, picture{serve: a, query: q.Parsed.Query})
		}
	}
	if msg.Outcome == OutcomeAnswered {
		h.results.put(queryRef(reading.FormatAsk(q.Parsed), q.Text), r)
	}
	return withAskButtons(msg, q.Parsed, q.Text)
}

// askFailure is failure for a question that runs the other way round,
// which this fitbot may not answer at all.
func (h *Handler) askFailure(text string, err error) Message {
	if errors.Is(err, answer.ErrCannotAsk) {
		h.log.Error("bot: the answerer cannot answer ask questions", "question", text)
		return errorMessage("This fitbot cannot answer that kind of question yet.", "13b lora rtx-4090")
	}
	return h.failure(text, err)
}

// reask answers an inverse plan again by asking its canonical question
// today, and says whether the answer changed (plan.Reask compares its
// figures; the lines shown are the plan's and today's). Its buttons
// re-ask the plan.
func (h *Handler) reask(ctx context.Context, saved store.Plan, details bool) Message {
	d := h.answers.Reask(ctx, saved.Summary)
	if d.Now == nil {
		return h.askFailure(saved.Canonical, d.Err)
	}
	msg := askMessageView(*d.Now, h.now(), details)
	if msg.Outcome != OutcomeAnswered {
		return msg
	}
	var note strings.Builder
	fmt.Fprintf(&note, "*Plan #%d* from %s", saved.ID, saved.CreatedAt.UTC().Format("2006-01-02"))
	if saved.User != "" {
		fmt.Fprintf(&note, " by <@%s>", saved.User)
	}
	note.WriteString(", asked again today. ")
	if d.Changed.Any() {
		fmt.Fprintf(&note, "Answer changed: then %s; now %s.", escape(saved.Answer), escape(display.AskSummary(*d.Now)))
	} else {
		note.WriteString("Answer unchanged.")
	}
	blocks := append([]slack.Block{msg.Blocks[0], slack.NewContextBlock("", mrkdwn(note.String()))}, msg.Blocks[1:]...)
	blocks = append(blocks, slack.NewActionBlock(answerActionsID,
		slack.NewButtonBlockElement(ActionShare, planRef(saved.ID), plain("Share in channel")).WithStyle(slack.StylePrimary),
		slack.NewButtonBlockElement(ActionDetails, planRef(saved.ID), plain("Show details")),
		slack.NewButtonBlockElement(ActionReprice, planRef(saved.ID), plain("Re-price")),
	))
	out := answered(fmt.Sprintf("Plan #%d today: %s", saved.ID, msg.Text), blocks...)
	out.question = reading.FormatAsk(d.Parsed)
	return out
}

// maxGPUOptions is how many cards a which-GPU answer lists.
const maxGPUOptions = 12

// askMessage renders an AskAnswer with the conventions of a `/fit`
// answer: a header with the outcome, the figures, the assumptions and
// prices in a context block, and a plain fallback text.
func askMessage(a sizing.AskAnswer, now time.Time) Message {
	return askMessageView(a, now, false)
}

// askMessageView is askMessage with every assumption when details is set.
func askMessageView(a sizing.AskAnswer, now time.Time, details bool) Message {
	var head string
	var body []slack.Block
	switch {
	case a.Largest != nil:
		head, body = largestBlocks(a)
	case a.MaxContext != nil:
		head, body = contextBlocks(a)
	case a.WhichGPU != nil:
		head, body = whichGPUBlocks(a)
	case a.BuyRent != nil:
		head, body = buyRentBlocks(a)
	case a.Serve != nil:
		head, body = serveBlocks(a, details)
	default:
		return apology()
	}
	blocks := []slack.Block{slack.NewHeaderBlock(plain(head))}
	for _, line := range a.Targets {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*"+line+"*"), nil, nil))
	}
	blocks = append(blocks, body...)
	blocks = append(blocks, slack.NewContextBlock("", askContext(a, now, details)...))
	return answered(head, blocks...)
}

func largestBlocks(a sizing.AskAnswer) (string, []slack.Block) {
	l := a.Largest
	where := display.Hardware(l.GPUs, l.GPUName)
	head := "🔎 Largest models that fit " + where
	for _, r := range l.Rows {
		if r.Asked && r.MaxParams == 0 && r.Note == "" {
			head = fmt.Sprintf("❌ No %s fits %s as asked", display.Method(r.Method), where)
		}
	}
	if l.FitsNothing {
		head = "❌ Nothing fits " + where + " as asked"
	}
	var b strings.Builder
	for i, r := range l.Rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		asked := ""
		if r.Asked {
			asked = " (asked)"
		}
		switch {
		case r.Note != "":
			fmt.Fprintf(&b, "➖ *%s*%s: %s", rowName(r), asked, r.Note)
			continue
		case r.MaxParams == 0:
			fmt.Fprintf(&b, "❌ *%s*%s: not even %s fits", rowName(r), asked, display.Params(sizing.MinBareParams))
			if n := r.Nearest; n != nil && n.MaxParams > sizing.MinBareParams {
				fmt.Fprintf(&b, "; %s: up to *%s*", n.Why, display.Params(n.MaxParams))
			} else if n != nil {
				fmt.Fprintf(&b, "; %s: only the smallest size, %s, fits", n.Why, display.Params(n.MaxParams))
			}
			continue
		}
		fmt.Fprintf(&b, "✅ *%s*%s: up to *%s*", rowName(r), asked, display.Params(r.MaxParams))
		if r.Method != sizing.MethodInference && r.ZeROStage > 0 {
			fmt.Fprintf(&b, " (ZeRO-%d)", r.ZeROStage)
		}
		if len(r.CatalogModels) > 0 {
			names := make([]string, len(r.CatalogModels))
			for i, m := range r.CatalogModels {
				names[i] = m.Name
			}
			fmt.Fprintf(&b, " — e.g. %s", strings.Join(names, ", "))
		}
	}
	return head, []slack.Block{slack.NewSectionBlock(mrkdwn(b.String()), nil, nil)}
}

// rowName is a largest-model row as people say it.
func rowName(r sizing.LargestRow) string {
	if r.Method == sizing.MethodFull {
		return "Full fine-tune"
	}
	if r.Method != sizing.MethodInference {
		return display.Method(r.Method)
	}
	switch {
	case r.Quant == sizing.QuantNone:
		return "Inference " + string(r.Precision)
	case r.Quant == sizing.QuantINT8 || r.Quant == sizing.QuantQ8_0:
		return "Inference int8"
	}
	return "Inference int4 (" + string(r.Quant) + ")"
}

func contextBlocks(a sizing.AskAnswer) (string, []slack.Block) {
	c := a.MaxContext
	r := a.Request
	word := "context"
	if r.Method != sizing.MethodInference {
		word = "sequence"
	}
	what := fmt.Sprintf("%s %s on %s", a.ModelName, display.Method(r.Method), display.Hardware(r.GPUs, a.GPUName))
	if c.MaxTokens == 0 {
		head := fmt.Sprintf("❌ No %s fits: %s", word, what)
		text := "Even one token does not fit: the model alone is larger than the card."
		if n := c.Nearest; n != nil {
			text += fmt.Sprintf("\nNearest: %s, up to *%s* tokens.", n.Why, display.Commas(int64(n.MaxTokens)))
		}
		return head, []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}
	}
	head := fmt.Sprintf("📏 Longest %s: %s tokens, %s", word, display.Commas(int64(c.MaxTokens)), what)
	var b strings.Builder
	switch {
	case c.Bound == sizing.BoundSearch:
		fmt.Fprintf(&b, "Bound by the search: the model has no position limit, and memory allows at least %s tokens.", display.Commas(int64(c.MemoryMaxTokens)))
	case c.Bound == sizing.BoundModel && c.MemoryMaxTokens >= sizing.MaxSeqLen:
		fmt.Fprintf(&b, "Bound by the *model*: it was trained for %s tokens; memory would allow over %s.", display.Commas(int64(c.ModelMaxTokens)), display.Commas(int64(c.MemoryMaxTokens)))
	case c.Bound == sizing.BoundModel:
		fmt.Fprintf(&b, "Bound by the *model*: it was trained for %s tokens; memory would allow %s.", display.Commas(int64(c.ModelMaxTokens)), display.Commas(int64(c.MemoryMaxTokens)))
	case c.ModelMaxTokens > 0:
		fmt.Fprintf(&b, "Bound by *memory*: the model itself allows %s tokens.", display.Commas(int64(c.ModelMaxTokens)))
	default:
		b.WriteString("Bound by *memory*.")
	}
	if c.KVBytesPerToken > 0 {
		fmt.Fprintf(&b, "\nKV cache: %s per token of context (%s, %d concurrent)", kib(c.KVBytesPerToken), r.KVPrecision, r.MicroBatch)
	}
	summary := "*" + memoryLine(c.PerGPU, c.VRAMBytes) + "* at the longest " + word + "\n```" + memoryBar(c.PerGPU, c.VRAMBytes) + "```"
	return head, []slack.Block{
		slack.NewSectionBlock(mrkdwn(b.String()), nil, nil),
		slack.NewSectionBlock(mrkdwn(summary), nil, nil),
	}
}

// kib writes a byte count per token in KiB ("128 KiB").
func kib(b float64) string { return fmt.Sprintf("%s KiB", display.Decimal(b/1024)) }

func whichGPUBlocks(a sizing.AskAnswer) (string, []slack.Block) {
	w := a.WhichGPU
	what := fmt.Sprintf("%s %s", a.ModelName, display.Method(a.Request.Method))
	var all string
	if line := display.WhichGPUJob(w); line != "" {
		all = "*" + line + "*\n" // the job's answer first: its cheapest card, time and cost
	}
	if w.OneGPUBytes > 0 {
		all += fmt.Sprintf("*Memory in all:* %s on one card, unsharded: %s.%s\n", display.GiBTotal(w.OneGPUBytes), display.Terms(w.OneGPU), display.KVPerToken(w.OneGPU, a.Request))
	}
	if w.FitsNothing {
		// "How much vram" is answered first, also when no machine holds
		// it (never gave DeepSeek-R1's total).
		head := "❌ No card fits " + what + " within one machine"
		if w.OneGPUBytes > 0 {
			head = fmt.Sprintf("❌ %s needs %s in all: no card fits it within one machine", what, display.GiBTotal(w.OneGPUBytes))
		}
		text := all + "Not even 8 of the largest card in one machine hold it."
		if n := w.Nearest; n != nil {
			text += "\nNearest: " + gpuOptionLine(*n, w.Tokens)
		}
		return head, []slack.Block{slack.NewSectionBlock(mrkdwn(text), nil, nil)}
	}
	head := fmt.Sprintf("🧮 %d cards fit %s", len(w.Options), what)
	if len(w.Options) == 1 {
		head = "🧮 One card fits " + what
	}
	var b strings.Builder
	b.WriteString(all)
	if w.Fastest {
		b.WriteString("*Fastest first*")
	} else {
		b.WriteString("*Cheapest first*")
	}
	if w.Tokens > 0 {
		fmt.Fprintf(&b, " (for the %s-token run)", display.Count(float64(w.Tokens)))
	}
	for i, o := range w.Options {
		if i == maxGPUOptions {
			fmt.Fprintf(&b, "\n_%d more not shown._", len(w.Options)-maxGPUOptions)
			break
		}
		fmt.Fprintf(&b, "\n%d. %s", i+1, gpuOptionLine(o, w.Tokens))
	}
	return head, []slack.Block{slack.NewSectionBlock(mrkdwn(b.String()), nil, nil)}
}

// gpuOptionLine is one card of a which-GPU answer.
func gpuOptionLine(o sizing.GPUOption, tokens int64) string {
	return "*" + display.Hardware(o.GPUs, o.GPUName) + "*" + display.GPUOption(o, tokens)
}

func buyRentBlocks(a sizing.AskAnswer) (string, []slack.Block) {
	r := a.BuyRent
	what := display.Hardware(r.GPUs, r.GPUName)
	if a.ModelName != "" {
		what = fmt.Sprintf("%s %s on %s", a.ModelName, display.Method(a.Request.Method), what)
	}
	head := "☁️ Rent: " + what
	if r.Verdict == "buy" {
		head = "🖥️ Buy: " + what
	}
	p := r.Purchase
	fields := []*slack.TextBlockObject{
		mrkdwn(fmt.Sprintf("*Use*\n%s h a month (%.0f%% of the time)", display.Decimal(r.HoursPerMonth), r.Utilisation*100)),
		mrkdwn(fmt.Sprintf("*Own*\n%s a month\n%s over %s years, %s a month of power", display.USD(r.OwnUSDPerMonth), display.USD(p.TotalUSD), display.Decimal(r.Workload.Years), display.USD(p.PowerUSDPerMonth))),
		mrkdwn("*Rent on demand*\n" + rentText(r.OnDemand, r.Workload.Years)),
		mrkdwn("*Rent spot*\n" + rentText(r.Spot, r.Workload.Years)),
	}
	blocks := []slack.Block{slack.NewSectionBlock(nil, fields, nil)}
	if r.FitsNote != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("⚠️ "+r.FitsNote), nil, nil))
	}
	if len(r.Caveats) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*Beyond the sums*\n• "+strings.Join(r.Caveats, "\n• ")), nil, nil))
	}
	return head, blocks
}

// rentText is a month of renting and when owning catches up with it.
func rentText(c *sizing.RentCost, years float64) string {
	if c == nil {
		return "no price known"
	}
	s := fmt.Sprintf("%s a month at %s/h", display.USD(c.USDPerMonth), display.USD(c.Price.USDPerGPUHour))
	switch {
	case c.BreakEvenMonth == nil:
		s += "\nowning never catches up"
	case float64(*c.BreakEvenMonth) > years*12:
		s += fmt.Sprintf("\nowning catches up in month %d, after the %s-year life", *c.BreakEvenMonth, display.Decimal(years))
	default:
		s += fmt.Sprintf("\nowning catches up in month %d", *c.BreakEvenMonth)
	}
	return s
}

// askContext is the context block of an ask answer: the assumptions
// (four, then a count, unless details) and, where one price was used,
// its age.
func askContext(a sizing.AskAnswer, now time.Time, details bool) []slack.MixedElement {
	var els []slack.MixedElement
	if len(a.Assumptions) > 0 {
		shown, more := a.Assumptions, ""
		if len(shown) > 4 && !details {
			more = fmt.Sprintf(" (+%d more: Show details)", len(shown)-4)
			shown = shown[:4]
		}
		els = append(els, mrkdwn("*Assumed:* "+escape(strings.Join(shown, "; "))+more))
	}
	if b := a.BuyRent; b != nil {
		p := b.Purchase
		els = append(els, mrkdwn(fmt.Sprintf("*Purchase:* %s a card (midpoint of %s–%s), seen %s (%s): %s",
			display.USD(p.CardUSD), display.USD(p.CardUSDLow), display.USD(p.CardUSDHigh), p.AsOf.Format(time.DateOnly), formatAge(p.AsOf, now), p.Source)))
	}
	if b := a.BuyRent; b != nil && b.OnDemand != nil {
		p := b.OnDemand.Price
		where := strings.TrimSpace(p.Provider + " " + strings.ReplaceAll(p.Market, "_", "-") + " " + p.Region)
		els = append(els, mrkdwn(fmt.Sprintf("*Price:* %s per GPU-hour, %s, %s", display.USD(p.USDPerGPUHour), where, formatAge(p.AsOf, now))))
	}
	return els
}
