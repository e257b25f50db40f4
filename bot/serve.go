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
// question, then the configurations as a compact table (a code block
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
	return head, []slack.Block{
		slack.NewSectionBlock(mrkdwn(display.ServeVerdict(a)), nil, nil),
		slack.NewSectionBlock(mrkdwn("```"+strings.TrimRight(b.String(), "\n")+"```"), nil, nil),
	}
}

// uploadServePicture uploads a serving answer's picture: one replica's
// tokens/s per user and first-token time against concurrency, with the
// targets.
func (h *Handler) uploadServePicture(ctx context.Context, channel, thread string, q answer.Question, comment string) error {
	a, err := h.answers.AskAnswer(ctx, q)
	if err != nil || a.Serve == nil {
		return err
	}
	curve, err := (&sizing.Estimator{}).ServeCurve(launch.QueryFor(q.Parsed.Query, a.Request))
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
