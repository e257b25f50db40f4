package bot

import (
	"fmt"

	"github.com/fitbot/fitbot/display"
	"github.com/slack-go/slack"
)

// Slack's Block Kit limits (docs.slack.dev/reference/block-kit). slack-go
// does not enforce them, and Slack rejects a whole message that breaks
// one, so every message leaves through enforceLimits.
const (
	maxBlocks          = 50   // blocks in one message
	maxSectionFields   = 10   // fields in one section
	maxFieldText       = 2000 // characters in one section field
	maxText            = 3000 // characters in a section's or context element's text
	maxHeaderText      = 150  // characters in a header
	maxButtonText      = 75   // characters on a button
	maxActionValue     = 2000 // characters in a button's value
	maxContextElements = 10   // elements in one context block
	maxFallbackText    = 3000 // our own cap on the notification fallback text
)

// enforceLimits returns blocks cut to Slack's limits: at most maxBlocks
// blocks (the last replaced by a note of how many were left out), section
// fields and every text cut to size. It changes the blocks in place.
func enforceLimits(blocks []slack.Block) []slack.Block {
	if len(blocks) > maxBlocks {
		dropped := len(blocks) - (maxBlocks - 1)
		blocks = append(blocks[:maxBlocks-1:maxBlocks-1], slack.NewContextBlock("",
			slack.NewTextBlockObject(slack.MarkdownType, fmt.Sprintf("_%d more not shown._", dropped), false, false)))
	}
	for _, b := range blocks {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			limitText(b.Text, maxHeaderText)
		case *slack.SectionBlock:
			limitText(b.Text, maxText)
			if len(b.Fields) > maxSectionFields {
				b.Fields = b.Fields[:maxSectionFields]
			}
			for _, f := range b.Fields {
				limitText(f, maxFieldText)
			}
		case *slack.ContextBlock:
			els := b.ContextElements.Elements
			if len(els) > maxContextElements {
				b.ContextElements.Elements = els[:maxContextElements]
			}
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slack.TextBlockObject); ok {
					limitText(t, maxText)
				}
			}
		case *slack.ActionBlock:
			if b.Elements == nil {
				continue
			}
			for _, e := range b.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					limitText(btn.Text, maxButtonText)
					btn.Value = display.Truncate(btn.Value, maxActionValue)
				}
			}
		}
	}
	return blocks
}

func limitText(t *slack.TextBlockObject, max int) {
	if t != nil {
		t.Text = display.Truncate(t.Text, max)
	}
}
