package bot

import (
	"bytes"
	"encoding/json"

	"github.com/fitbot/fitbot/display"
	"github.com/slack-go/slack"
)

// Message is a reply as Slack reads it, in the shape shared by a slash
// command's acknowledgement body, a Socket Mode ack payload and a post to
// a response_url. Text is the plain fallback that notifications and
// screen readers use; it is always set.
type Message struct {
	ResponseType    string        `json:"response_type,omitempty"` // slack.ResponseTypeEphemeral or slack.ResponseTypeInChannel
	Text            string        `json:"text"`
	Blocks          []slack.Block `json:"blocks,omitempty"`
	ReplaceOriginal bool          `json:"replace_original,omitempty"`
	DeleteOriginal  bool          `json:"delete_original,omitempty"`

	// Outcome is what the reply is, as the metrics and the question log
	// count it (OutcomeAnswered...); "" is OutcomeOther. Slack never sees it.
	Outcome string `json:"-"`
}

// ephemeral returns a message only the asker sees, with Slack's limits enforced.
func ephemeral(text string, blocks ...slack.Block) Message {
	return Message{ResponseType: slack.ResponseTypeEphemeral, Text: display.Truncate(text, maxFallbackText), Blocks: enforceLimits(blocks)}
}

// withOutcome is m marked with outcome.
func (m Message) withOutcome(outcome string) Message {
	m.Outcome = outcome
	return m
}

// answered is an ephemeral answer: an estimate or an other-way-round
// answer, fits or not.
func answered(text string, blocks ...slack.Block) Message {
	return ephemeral(text, blocks...).withOutcome(OutcomeAnswered)
}

// encode is a message's JSON as Slack receives it, without Go's HTML
// escaping (Slack's mrkdwn user mentions "<@U123>" stay readable).
func (m Message) encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
