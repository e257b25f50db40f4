package bot

import (
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// The action ids of the answer's buttons; the interactions handler routes on them.
const (
	ActionShare   = "fit_share"
	ActionDetails = "fit_details"
	ActionReprice = "fit_reprice"

	answerActionsID = "fit_actions" // the block id of the answer's buttons
)

// maxAlternatives is how many alternatives an answer shows.
const maxAlternatives = 5

// verdict is the one-line outcome of an answer, for the header and the fallback text.
func verdict(a sizing.Answer) string {
	method := strings.TrimSpace(sizing.AlignmentLabel(a.Request) + " " + display.RequestMethod(a.Request))
	what := fmt.Sprintf("%s %s on %s", a.ModelName, method, display.Hardware(a.Request.GPUs, a.GPUName))
	if l := sizing.Layout(a.Request); l != "" {
		what += " (" + l + ")"
	}
	switch {
	case !a.Fits && display.SameCardWay(a) != "":
		return "❌ Does not fit as asked: " + what + notPriced(a) + "; " + display.SameCardWay(a)
	case !a.Fits:
		return "❌ Does not fit: " + what + notPriced(a)
	case display.NotServable(a):
		return "⚠️ Fits, but a serving engine has no room for one request: " + what + notPriced(a)
	case a.Headroom == sizing.HeadroomTight:
		return "⚠️ Fits, but tight: " + what + notPriced(a)
	default:
		return "✅ Fits: " + what + notPriced(a)
	}
}

// notPriced is the header's word that a monthly cost was asked and the
// card has no price.
func notPriced(a sizing.Answer) string {
	if s := display.MonthNotPriced(a); s != "" {
		return " (" + s + ")"
	}
	return ""
}

// answerView is what an answer message shows besides the answer itself.
type answerView struct {
	ref     string    // the button value: a plan reference or a canonical query
	kept    string    // the model words for `/fit plans` when the answer is kept as a plan, "" when not
	planID  int64     // the kept plan's id
	note    string    // a line above the assumptions, e.g. "interpreted from ..." or "plan #7 from ..."
	details bool      // show every assumption and the full request
	now     time.Time // for the price's age
}

// answerBlocks renders an answer as Block Kit: the verdict, the memory
// bar, the breakdown, speed and cost, up to five alternatives, the
// assumptions and the price's age, and the buttons.
func answerBlocks(a sizing.Answer, v answerView) []slack.Block {
	blocks := []slack.Block{slack.NewHeaderBlock(plain(verdict(a)))}
	if line := display.Job(a); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*"+line+"*"), nil, nil))
	}
	if line := display.LargestBatch(a); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*"+line+"*"), nil, nil))
	}
	if line := display.Fewest(a); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*"+line+"*"), nil, nil))
	}
	for _, line := range a.Targets {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*"+line+"*"), nil, nil))
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn(memorySummary(a)), nil, nil))
	if v.details { // the legend has the terms; the full breakdown is a detail
		blocks = append(blocks, slack.NewSectionBlock(nil, breakdownFields(a), nil))
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn(costLine(a)), nil, nil))
	if len(a.Warnings) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("⚠️ "+escape(strings.Join(a.Warnings, "\n⚠️ "))), nil, nil))
	}
	if alts := alternativesText(a); alts != "" {
		blocks = append(blocks, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(alts), nil, nil))
	}
	if v.details {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(requestText(a.Request)), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", contextElements(a, v)...))
	if v.ref != "" {
		blocks = append(blocks, slack.NewActionBlock(answerActionsID,
			slack.NewButtonBlockElement(ActionShare, v.ref, plain("Share in channel")).WithStyle(slack.StylePrimary),
			slack.NewButtonBlockElement(ActionDetails, v.ref, plain("Show details")),
			slack.NewButtonBlockElement(ActionReprice, v.ref, plain("Re-price")),
		))
		if a.Fits {
			withLaunch(blocks[len(blocks)-1], v.ref)
		}
	}
	return blocks
}

func memorySummary(a sizing.Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s*", memoryLine(a.PerGPU, a.VRAMBytes))
	if a.BindingTerm != "" {
		fmt.Fprintf(&b, ", mostly %s", termName(a.BindingTerm))
	}
	b.WriteString("\n```")
	b.WriteString(memoryBar(a.PerGPU, a.VRAMBytes))
	b.WriteString("```")
	if a.Headroom != "" && a.Headroom != sizing.HeadroomOver { // the header already says it does not fit
		fmt.Fprintf(&b, "\nHeadroom: *%s*.", a.Headroom)
	}
	if o := a.Request.Offload; o != "" && o != sizing.OffloadNone && a.HostRAMBytes > 0 {
		fmt.Fprintf(&b, "\nHost RAM: *%s per machine* for the %s offload.", display.GiB(a.HostRAMBytes), o)
	}
	return b.String()
}

func breakdownFields(a sizing.Answer) []*slack.TextBlockObject {
	m := a.PerGPU
	rows := []struct {
		name  string
		bytes int64
	}{
		{"Weights", m.WeightsBytes},
		{"Gradients", m.GradientsBytes},
		{"Optimizer states", m.OptimizerBytes},
		{"Activations", m.ActivationsBytes},
		{"QLoRA working memory", m.QLoRAWorkBytes},
		{"Gathered layers (ZeRO-3)", m.GatheredBytes},
		{"KV cache", m.KVCacheBytes},
		{"Overhead", m.OverheadBytes},
	}
	var fields []*slack.TextBlockObject
	for _, r := range rows {
		if r.bytes > 0 {
			fields = append(fields, mrkdwn(fmt.Sprintf("*%s*\n%s", r.name, display.GiB(r.bytes))))
		}
	}
	fields = append(fields, mrkdwn(fmt.Sprintf("*Total per GPU*\n%s of %s", display.GiB(m.TotalBytes), display.GiB(a.VRAMBytes))))
	if a.HostRAMBytes > 0 {
		fields = append(fields, mrkdwn("*Host RAM*\n"+display.GiB(a.HostRAMBytes)))
	}
	if a.DiskBytes > 0 {
		fields = append(fields, mrkdwn("*Disk*\n"+display.GiB(a.DiskBytes)))
	}
	return fields
}

// costLine is throughput, time and cost, saying which part is unknown and why.
func costLine(a sizing.Answer) string {
	t := a.Throughput
	var parts []string
	if t.TokensPerSecond != nil {
		speed := fmt.Sprintf("*Speed* ~%s tokens/s", display.Commas(int64(*t.TokensPerSecond)))
		if way, tps := display.SameCardSpeed(a); way != "" {
			speed += fmt.Sprintf(" as asked, ~%s tokens/s with %s", display.Commas(int64(tps)), way)
		}
		parts = append(parts, speed)
	}
	if t.SequencesPerSecond != nil {
		parts = append(parts, fmt.Sprintf("*Speed* ~%s sequences/s", display.Count(*t.SequencesPerSecond)))
	}
	if w := display.FirstTokenWords(a); w != "" {
		parts = append(parts, "*First token* "+strings.TrimPrefix(w, "first token "))
	}
	run, with := display.RunTiming(a)
	if run.Hours != nil {
		parts = append(parts, fmt.Sprintf("*Time* %s for %s tokens%s", display.Hours(*run.Hours), display.Count(float64(a.Request.Tokens)), with))
	} else if a.Request.Method != sizing.MethodInference {
		parts = append(parts, "*Time* unknown (say a token budget, e.g. `on 1B tokens`)")
	}
	switch {
	case t.USDPerHour == nil:
		parts = append(parts, "*Cost* unknown (no price for this GPU yet)")
	case run.USDTotal != nil:
		parts = append(parts, fmt.Sprintf("*Cost* %s/h, %s for the run", display.USD(*t.USDPerHour), display.USD(*run.USDTotal)))
	default:
		parts = append(parts, fmt.Sprintf("*Cost* %s/h", display.USD(*t.USDPerHour)))
	}
	if t.USDPerMonth != nil {
		parts = append(parts, fmt.Sprintf("*Per month* %s running 24/7", display.PerMonth(*t.USDPerMonth)))
	}
	if s := display.MonthOfRuns(a); s != "" {
		parts = append(parts, "*Per month* "+s)
	}
	line := strings.Join(parts, "  ·  ")
	if s := display.ServingLine(a.Serving); s != "" {
		line += "\n" + s
	}
	return line
}

// alternativesText lists up to five alternatives, each with its per-GPU
// memory, its price per hour, run time and run cost as far as they are
// known ("$0.33/h · 35.5 days · $281"), and the estimator's reason (up
// to its own restatement of the figures, after a colon).
func alternativesText(a sizing.Answer) string {
	if len(a.Alternatives) == 0 {
		return ""
	}
	var b strings.Builder
	switch {
	case display.NotServable(a):
		b.WriteString("*Ways that serve it*")
	case a.Fits && a.Request.Fastest:
		b.WriteString("*Faster ways that fit*")
	case a.Fits:
		b.WriteString("*Other ways that fit*")
	case a.Request.Fastest:
		b.WriteString("*Ways that fit, fastest first*")
	default:
		b.WriteString("*Ways that fit*")
	}
	for i, alt := range a.Alternatives {
		if i == maxAlternatives {
			fmt.Fprintf(&b, "\n_%d more not shown._", len(a.Alternatives)-maxAlternatives)
			break
		}
		mark := "✅"
		if !alt.Fits {
			mark = "❌"
		}
		fmt.Fprintf(&b, "\n%s *%s* on %s", mark, display.Method(alt.Method), display.Hardware(alt.GPUs, display.GPUName(alt.GPU)))
		if alt.ZeROStage > 0 {
			fmt.Fprintf(&b, ", ZeRO-%d", alt.ZeROStage)
		}
		if alt.Offload != "" && alt.Offload != sizing.OffloadNone {
			fmt.Fprintf(&b, ", %s offload", alt.Offload)
		}
		fmt.Fprintf(&b, ": %s per GPU", display.GiB(alt.TotalBytes))
		if alt.Fits && alt.Headroom == sizing.HeadroomTight {
			b.WriteString(" (tight: under 20% headroom)")
		}
		sep := ", "
		if alt.USDPerHour != nil {
			fmt.Fprintf(&b, "%s%s/h", sep, display.USD(*alt.USDPerHour))
			sep = " · "
		}
		if alt.Hours != nil {
			fmt.Fprintf(&b, "%s%s", sep, display.Hours(*alt.Hours))
			sep = " · "
		}
		if alt.USDTotal != nil {
			fmt.Fprintf(&b, "%s%s", sep, display.USD(*alt.USDTotal))
			sep = " · "
		}
		if alt.USDPerMonth != nil {
			fmt.Fprintf(&b, "%s%s", sep, display.PerMonth(*alt.USDPerMonth))
		}
		if why, _, _ := strings.Cut(alt.Why, ": "); why != "" {
			fmt.Fprintf(&b, " — %s", why)
		}
	}
	return b.String()
}

func contextElements(a sizing.Answer, v answerView) []slack.MixedElement {
	var els []slack.MixedElement
	if v.note != "" {
		els = append(els, mrkdwn(v.note))
	}
	if len(a.Assumptions) > 0 {
		shown := a.Assumptions
		more := ""
		if !v.details && len(shown) > 4 {
			more = fmt.Sprintf(" (+%d more: Show details)", len(shown)-4)
			shown = shown[:4]
		}
		els = append(els, mrkdwn("*Assumed:* "+escape(strings.Join(shown, "; "))+more))
	}
	if p := a.Price; p != nil && p.AsOf.IsZero() {
		els = append(els, mrkdwn(fmt.Sprintf("*Price:* %s per GPU-hour, as asked", display.USD(p.USDPerGPUHour))))
	} else if p != nil {
		where := strings.TrimSpace(p.Provider + " " + strings.ReplaceAll(p.Market, "_", "-") + " " + p.Region)
		els = append(els, mrkdwn(fmt.Sprintf("*Price:* %s per GPU-hour, %s, %s", display.USD(p.USDPerGPUHour), where, formatAge(p.AsOf, v.now))))
	} else {
		els = append(els, mrkdwn("*Price:* none known for this GPU"))
	}
	if v.kept != "" {
		els = append(els, mrkdwn(fmt.Sprintf("Kept in the team's plans as plan %d: `/fit plan %d` re-prices it, `/fit plans %s` lists them", v.planID, v.planID, v.kept)))
	}
	return els
}

// requestText is the fully resolved request, for "Show details".
func requestText(r sizing.Request) string {
	var b strings.Builder
	b.WriteString("*Request as resolved*\n")
	fmt.Fprintf(&b, "model `%s` (%s params", r.Model, display.Commas(r.Params))
	if r.ActiveParams > 0 && r.ActiveParams != r.Params {
		fmt.Fprintf(&b, ", %s active", display.Commas(r.ActiveParams))
	}
	fmt.Fprintf(&b, "), method `%s`, optimizer `%s`, precision `%s`", r.Method, r.Optimizer, r.Precision)
	if r.Quant != "" {
		fmt.Fprintf(&b, ", quant `%s`", r.Quant)
	}
	fmt.Fprintf(&b, "\nhardware %d× `%s` on %d node(s), ZeRO-%d, offload `%s`", r.GPUs, r.GPU, r.Nodes, r.ZeROStage, r.Offload)
	fmt.Fprintf(&b, "\nseq %d, micro-batch %d, gradient checkpointing %t", r.SeqLen, r.MicroBatch, r.GradCheckpointing)
	if r.LoRARank > 0 {
		fmt.Fprintf(&b, ", LoRA rank %d", r.LoRARank)
	}
	if r.Tokens > 0 {
		fmt.Fprintf(&b, ", %s tokens", display.Count(float64(r.Tokens)))
	}
	if r.KVPrecision != "" {
		fmt.Fprintf(&b, ", KV cache `%s`", r.KVPrecision)
	}
	return b.String()
}

// answerText is the plain fallback for an answer: the verdict and the per-GPU total.
func answerText(a sizing.Answer) string {
	return fmt.Sprintf("%s (%s of %s per GPU)", verdict(a), display.GiB(a.PerGPU.TotalBytes), display.GiB(a.VRAMBytes))
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

// mrkdwn is a mrkdwn text object; whatever s holds, it mentions no one
// and links nowhere that fitbot did not write (inert).
func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, inert(s, true), false, false)
}
