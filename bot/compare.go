package bot

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
)

// maxCompareAssumptions is how many shared assumptions a comparison's
// message lists; `fitbot fit` and --json carry them all.
const maxCompareAssumptions = 6

// compareBlocks renders a comparison for a phone as well as a desktop:
// the verdict, one section per option with its figures one to a line,
// then what was assumed.
func compareBlocks(c answer.CompareAnswer) []slack.Block {
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn("⚖️ *"+escape(c.Summary)+"*"), nil, nil)}
	rows := c.Rows()
	shared, own := c.SharedAssumptions()
	for i, o := range c.Options {
		mark := "✅"
		if !o.Fits {
			mark = "❌"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s *%s*", mark, escape(o.Label))
		if i == c.Cheaper {
			b.WriteString(" — " + c.Better())
		}
		for _, r := range rows[1:] { // the mark says whether it fits
			fmt.Fprintf(&b, "\n• %s: %s", r.Name, escape(r.Values[i]))
		}
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil))
		if len(own[i]) > 0 {
			blocks = append(blocks, slack.NewContextBlock("", mrkdwn(escape(display.Truncate(strings.Join(own[i], "; "), 1500)))))
		}
	}
	if len(shared) > maxCompareAssumptions {
		shared = append(shared[:maxCompareAssumptions:maxCompareAssumptions], fmt.Sprintf("and %d more (`fitbot fit --json` lists them)", len(shared)-maxCompareAssumptions))
	}
	if len(shared) > 0 {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn("*Assumed:* "+escape(display.Truncate(strings.Join(shared, "; "), 2500)))))
	}
	return blocks
}
