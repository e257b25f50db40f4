package bot

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// apology is the reply when something failed that is not the asker's doing.
func apology() Message {
	return ephemeral("Sorry, something went wrong on fitbot's side answering that. It has been logged; please try again.").withOutcome(OutcomeError)
}

// errorMessage says what was not understood and shows an example that works.
func errorMessage(problem, hint string) Message {
	hint = strings.TrimPrefix(hint, "fit ") // the parser's hints are CLI commands: "fit 13b lora rtx-4090"
	text := "I couldn't use that: " + problem
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(":warning: *I couldn't use that.* "+escape(problem)), nil, nil)}
	if hint != "" {
		text += " Try: /fit " + hint
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*Try:* `/fit "+escape(hint)+"`"), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn("`/fit help` shows what fitbot understands.")))
	return ephemeral(text, blocks...).withOutcome(OutcomeNotUnderstood)
}

// helpGroup is a set of examples for one task.
type helpGroup struct {
	title    string
	examples []string
}

// helpGroups are the examples `/fit help` shows, grouped by task. Each
// is a question the parser reads (help_test.go checks them).
var helpGroups = []helpGroup{
	{"Fine-tune", []string{
		"13B lora 4090",
		"llama-3.1-8b qlora rtx-4090",
		"llama-3.1-70b qlora 2xa100 seq 4k",
		"qwen2.5-7b full 8-bit adam h100",
	}},
	{"Train at scale", []string{
		"llama-3.1-70b full 8xh100 zero3",
		"mistral-7b full 4xa100 zero2 cpu offload",
		"13B full 2 nodes of 8 h100 on 2B tokens",
	}},
	{"Serve", []string{
		"llama-3.1-70b inference 2xa100",
		"mixtral 8x7b inference int4 2x4090",
		"llama-3.1-8b inference l4 ctx 32k batch 8",
	}},
	{"Largest model, longest context, which GPU, buy or rent", []string{
		"what 2x4090 lora",
		"llama-3.1-8b inference l4 max context",
		"which gpu 13b lora on 1B tokens",
		"13B lora 4090 buy-vs-rent 3 jobs/week 5h",
	}},
}

// helpMessage lists what fitbot understands, with examples that work.
func helpMessage(interpreter bool) Message {
	var b strings.Builder
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("fitbot: will it fit, and what will it cost?")),
		slack.NewSectionBlock(mrkdwn("Ask in any order: a model (a catalog name, a size like `13B`, or any Hugging Face Hub id or link such as `Qwen/Qwen3-1.7B`), a method (`full`, `lora`, `qlora`, `inference`) and GPUs (`4090`, `2xa100`, `8xh100`). fitbot answers the per-GPU memory, the cheapest ways that fit, and the time and cost at today's prices."), nil, nil),
	}
	for _, g := range helpGroups {
		b.Reset()
		fmt.Fprintf(&b, "*%s*", g.title)
		for _, e := range g.examples {
			fmt.Fprintf(&b, "\n`/fit %s`", e)
		}
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil))
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*More*\n"+
		"`/fit plans mistral-7b`  earlier answers for a model\n"+
		"`/fit plan 42`  a saved plan, re-priced today\n"+
		"`/fit prices`  cheapest GPU prices  ·  `/fit prices h100`  every offer for one GPU\n"+
		"`/fit hardware add our box: 2x rtx-4090`  the team's machines (`/fit 13b lora on our box`)\n"+
		"`/fit cluster`  free GPUs on the team's cluster now (`/fit 13b lora on our cluster right now`)\n"+
		"`/fit gpus`  ·  `/fit models`  what fitbot knows"), nil, nil))
	llm := "Free-text questions the grammar cannot read are not interpreted: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server) to turn the language-model fallback on."
	if interpreter {
		llm = "Free-text questions the grammar cannot read are interpreted by a language model; the answer says so."
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn("Answers are private until you press *Share in channel*. "+llm)))
	return ephemeral("fitbot help: /fit 13B lora 4090, /fit what 2x4090 lora, /fit plans MODEL, /fit plan ID, /fit prices [GPU], /fit gpus, /fit models", blocks...)
}

// catalogEntry is one GPU or model in a catalog listing.
type catalogEntry struct {
	ID     string // what to type
	Name   string // the display name
	Detail string // e.g. "24.0 GiB" or "8.0B params"
}

// catalogMessage lists catalog entries, several to a section so that a
// long catalog stays within the block limit.
func catalogMessage(title, tip string, entries []catalogEntry) Message {
	if len(entries) == 0 {
		return ephemeral(title + ": the catalog is empty.")
	}
	blocks := []slack.Block{slack.NewHeaderBlock(plain(fmt.Sprintf("%s (%d)", title, len(entries))))}
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			blocks = append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil))
			b.Reset()
		}
	}
	for i, e := range entries {
		line := fmt.Sprintf("`%s`  %s", e.ID, e.Name)
		if e.Detail != "" {
			line += "  ·  " + e.Detail
		}
		if b.Len()+len(line)+1 > maxText || (i > 0 && i%20 == 0) {
			flush()
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	flush()
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(tip)))
	return ephemeral(fmt.Sprintf("%s: %d", title, len(entries)), blocks...)
}
