package bot

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/sizing"
)

// serveBlocks renders a serving answer: the verdict that answers the
// question, what the cards cost to buy when owning them was asked, then
// the configurations as a compact table (a code block
// keeps its columns on a phone).
func serveBlocks(a sizing.AskAnswer) (string, []slack.Block) {
	head := "🧮 Serving " + a.ModelName
	if a.Serve != nil && !a.Serve.MeetsTargets {
		head = "❌ Serving " + a.ModelName + ": does not meet the target"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range display.ServeTable(a) {
		tw.Write([]byte(strings.Join(row, "\t") + "\n"))
	}
	tw.Flush()
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(display.ServeVerdict(a)), nil, nil)}
	if line := display.ServePurchase(a); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(line), nil, nil))
	}
	return head, append(blocks, slack.NewSectionBlock(mrkdwn("```"+strings.TrimRight(b.String(), "\n")+"```"), nil, nil))
}

// uploadServePicture uploads a serving answer's picture: one replica's
// tokens/s per user and first-token time against concurrency, with the
// targets.
func (h *Handler) uploadServePicture(ctx context.Context, channel, thread string, q answer.Question, comment string) error {
	a, err := h.answers.AskAnswer(ctx, q)
	if err != nil || a.Serve == nil {
		return err
	}
	return h.uploadServeCurve(ctx, channel, thread, a, q.Parsed.Query, comment)
}

// uploadServeCurve uploads the latency and throughput curve of a serving
// answer a to the query q.
func (h *Handler) uploadServeCurve(ctx context.Context, channel, thread string, a sizing.AskAnswer, q sizing.Query, comment string) error {
	curve, err := answer.ServeCurve(q, a)
	if err != nil {
		return fmt.Errorf("the serving curve: %w", err)
	}
	d := chart.Serve(a, curve)
	png, err := chart.ServePNG(d)
	if err != nil {
		return fmt.Errorf("draw the serving picture: %w", err)
	}
	return h.cfg.Upload.Upload(ctx, File{
		Channel: channel, ThreadTS: thread, Name: "serving.png", Title: d.Title,
		AltText: fmt.Sprintf("%s: tokens per second per user and time to first token against concurrent requests, %d answered", d.Title, d.Answered),
		Comment: comment, Data: png,
	})
}

// servingPlan is the launch plan of the answer to question: for a
// serving question the answered replica (the named GPUs, or the cheapest
// configuration of a plan) with its memory share, context and
// concurrency; for any other the answer as asked.
func (h *Handler) servingPlan(ctx context.Context, question string, a sizing.Answer) launch.Plan {
	q := h.answers.ReadSizing(question)
	if q.Err != nil || q.Parsed.Intent != sizing.IntentServe {
		return launch.PlanOf(a)
	}
	ask, err := h.answers.AskAnswer(ctx, q)
	if err != nil {
		return launch.PlanOf(a)
	}
	p, err := h.answers.ServingPlan(ctx, q.Parsed.Query, ask)
	if err != nil {
		return launch.PlanOf(a)
	}
	return p
}
