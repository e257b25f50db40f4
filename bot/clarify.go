package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// ActionReading is the button of one reading of a question fitbot read
// two ways: pressing it asks that reading, in its canonical words.
const ActionReading = "fit_reading"

// readingsBlockID is the block of the reading buttons.
const readingsBlockID = "fit_readings"

// maxReadings is how many readings a question back offers (one button
// each); Slack allows 25 elements in an actions block.
const maxReadings = 5

// readingChoice is one way to read a question: what it asks, for the button's
// label, and the words that ask it without doubt.
type readingChoice struct {
	Label string // "prices of the H100"
	Words string // "prices h100"
}

// readingChoices are a question's alternatives (reading.Unsure) as the
// readings a question back offers.
func readingChoices(alts []answer.Alternative) []readingChoice {
	out := make([]readingChoice, len(alts))
	for i, a := range alts {
		out[i] = readingChoice{Label: a.Label, Words: a.Words}
	}
	return out
}

// clarifyMessage asks back about a question fitbot can read more than
// one way, rather than answer one of them silently: a short line and a
// button per reading, each asking that reading. Readings whose words do
// not fit a button's value are left out; with fewer than two left there
// is nothing to choose, and ok is false.
func clarifyMessage(text string, readings []readingChoice) (msg Message, ok bool) {
	var buttons []slack.BlockElement
	var lines []string
	for _, r := range readings {
		v := queryRef(r.Words, "")
		if v == "" || r.Label == "" || len(buttons) == maxReadings {
			continue
		}
		label := display.Truncate(r.Label, 75) // a button's text is at most 75 characters
		buttons = append(buttons, slack.NewButtonBlockElement(ActionReading, v, plain(label)))
		lines = append(lines, fmt.Sprintf("• %s: `/fit %s`", escape(label), escape(r.Words)))
	}
	if len(buttons) < 2 {
		return Message{}, false
	}
	head := fmt.Sprintf("I can read “%s” more than one way. Which do you mean?", escape(display.Truncate(text, 200)))
	fallback := head
	for _, l := range lines {
		fallback += "\n" + l
	}
	return ephemeral(fallback,
		slack.NewSectionBlock(mrkdwn(":thinking_face: "+head), nil, nil),
		slack.NewActionBlock(readingsBlockID, buttons...),
		slack.NewContextBlock("", mrkdwn("Or ask again in other words.")),
	).withOutcome(OutcomeNotUnderstood), true
}

// readingPressed answers the reading a button carries as if it had been
// asked in those words: in the thread of a message everyone sees, for
// everyone there, or else in place of the question back.
func (h *Handler) readingPressed(ctx context.Context, cb slack.InteractionCallback, value string) {
	words, ok := cutQueryRef(value)
	if !ok {
		h.respond(ctx, cb.ResponseURL, ephemeral("That button no longer points at a question fitbot knows. Ask the question again."), ActionReading)
		return
	}
	channel, thread := messageThread(cb)
	asker := who{team: cb.Team.ID, channel: channel, user: cb.User.ID, kind: store.SlackChannelKind(channel, cb.Channel.Name)}
	msg := h.command(ctx, slack.SlashCommand{TeamID: cb.Team.ID, ChannelID: channel, UserID: cb.User.ID,
		ChannelName: cb.Channel.Name, Command: "/fit", Text: words}, asker)
	if thread != "" {
		msg.ResponseType, msg.ThreadTS = slack.ResponseTypeInChannel, thread
	} else {
		msg.ReplaceOriginal = true
	}
	h.respond(ctx, cb.ResponseURL, msg, ActionReading)
}

// cutQueryRef is the question a "q:" button value carries.
func cutQueryRef(value string) (string, bool) {
	words, ok := strings.CutPrefix(value, refQuery)
	return words, ok && strings.TrimSpace(words) != ""
}
