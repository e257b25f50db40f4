package bot

import (
	"bytes"
	"encoding/json"
	"strings"

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
	// ThreadTS posts the message in this thread, as a new reply: a
	// button pressed on an answer everyone sees (pressPublic).
	ThreadTS string `json:"thread_ts,omitempty"`

	// Outcome is what the reply is, as the metrics and the question log
	// count it (OutcomeAnswered...); "" is OutcomeOther. Slack never sees it.
	Outcome string `json:"-"`
	// question is the canonical question of an answer, for its thread's
	// follow-ups; never sent.
	question string
	// once, when set, makes a post of the message idempotent: it is
	// posted with this key in its metadata, and a post that may have
	// landed is looked for before it is tried again (WebAPI.Post).
	once string

	pre *preEncoded // the JSON, made with the message; nil: encode it
}

// preEncoded is a message's JSON made beside it (the reply cache does),
// with the fields it was made from: a copy of the message changed since
// (a shared answer, a replaced original) no longer matches and is
// encoded afresh.
type preEncoded struct {
	body []byte
	of   Message
}

// matches reports whether the pre-encoded JSON is still m's: the same
// fields, and the very same blocks.
func (p *preEncoded) matches(m Message) bool {
	o := p.of
	return m.ResponseType == o.ResponseType && m.Text == o.Text && m.ReplaceOriginal == o.ReplaceOriginal &&
		m.DeleteOriginal == o.DeleteOriginal && m.ThreadTS == o.ThreadTS && len(m.Blocks) == len(o.Blocks) &&
		(len(m.Blocks) == 0 || &m.Blocks[0] == &o.Blocks[0])
}

// ephemeral returns a message only the asker sees, with Slack's limits enforced.
func ephemeral(text string, blocks ...slack.Block) Message {
	return Message{ResponseType: slack.ResponseTypeEphemeral, Text: display.Truncate(inert(text, false), maxFallbackText), Blocks: enforceLimits(blocks)}
}

// inert writes every "<" and ">" of s as the entities Slack reads as
// the characters themselves (https://api.slack.com/reference/surfaces/formatting#escaping),
// so that no text from outside (a machine or plan name, a Hub model's
// name, a provider's or a cluster's error) reaches Slack as a control
// sequence: <!channel>, <!here> and <!everyone> notify a whole channel,
// <@U...> and <#C...> mention, <https://...|text> links. With
// keepMentions, a well-formed user mention (<@U123>) stays one: fitbot's
// own, naming a plan's author; a name from outside is escaped where it
// is written (escape), so a mention in it is not well-formed by then.
// Entities already written (&lt;) are kept as they are.
func inert(s string, keepMentions bool) string {
	if !strings.ContainsAny(s, "<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if n := userMention(s[i:]); keepMentions && n > 0 {
				b.WriteString(s[i : i+n])
				i += n - 1
				continue
			}
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// userMention is the length of the user mention (<@U123> or <@W123>)
// that s starts with, or 0.
func userMention(s string) int {
	if len(s) < 5 || s[1] != '@' || (s[2] != 'U' && s[2] != 'W') {
		return 0
	}
	for i := 3; i < len(s) && i < 24; i++ {
		switch c := s[i]; {
		case c == '>' && i > 3:
			return i + 1
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
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
	if m.pre != nil && m.pre.matches(m) {
		return m.pre.body, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
