package bot

import (
	"strings"
	"text/tabwriter"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/display"
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
