package bot

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/slack-go/slack"
)

// ModelResolver finishes a parse with the Hugging Face Hub: a repo the
// question names by id or link, or a model name the catalog lacks;
// *hub.Resolver is one. A nil ModelResolver leaves such questions to the
// parser's own message.
type ModelResolver interface {
	ResolveParsed(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error)
}

// maxListedHubModels is how many cached Hub models `/fit models` lists,
// the most recently fetched: the reply stays the same size however many
// the cache holds.
const maxListedHubModels = 40

// hubEntries are the most recently fetched cached Hub models as catalog
// entries, and whether the cache holds more.
func (h *Handler) hubEntries(ctx context.Context) (out []catalogEntry, more bool) {
	models, more, err := h.answers.CachedModels(ctx, maxListedHubModels)
	if err != nil {
		h.log.Warn("bot: listing cached Hub models failed", "err", err)
		return nil, false
	}
	out = make([]catalogEntry, 0, len(models))
	for _, m := range models {
		detail := display.Params(m.Params) + " params"
		if m.Active != m.Params {
			detail += ", " + display.Params(m.Active) + " active"
		}
		detail += ", Hugging Face Hub, fetched " + m.Age
		out = append(out, catalogEntry{ID: m.Repo, Name: m.Repo, Detail: detail})
	}
	return out, more
}

// hubAckBudget is how long a slash command waits for the Hub before it
// acknowledges and answers through response_url, well inside Slack's
// 3 seconds (the plan's commit has its own budget after it).
const hubAckBudget = 1200 * time.Millisecond

// inBackground answers q in the background and returns what to reply
// now: the answer itself when it is ready within budget, else ack, and
// the answer replaces ack through responseURL when it is ready. A zero
// budget acknowledges at once (the language model takes seconds).
func (h *Handler) inBackground(ctx context.Context, asker who, responseURL string, q answer.Question, budget time.Duration, ack Message) Message {
	ready := make(chan Message, 1)
	var mu sync.Mutex
	late := budget <= 0
	h.later(ctx, "answer", func(ctx context.Context) {
		msg := h.handle(ctx, asker, q)
		mu.Lock()
		if !late {
			ready <- msg
			mu.Unlock()
			return
		}
		mu.Unlock()
		msg.ReplaceOriginal = true
		h.respond(ctx, responseURL, msg, "late answer")
	})
	if budget <= 0 {
		return ack
	}
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case msg := <-ready:
		return msg
	case <-timer.C:
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case msg := <-ready: // it came as the budget ran out
		return msg
	default:
		late = true
	}
	return ack
}

// parse reads a question that is answered again (a button, a saved
// plan), resolving a Hub model in place: the cache has it fresh or
// answers for it, so there is no acknowledgement to race.
func (h *Handler) parse(ctx context.Context, question string) (reading.Request, error) {
	return h.answers.Reread(ctx, question)
}

// hinted is an error written for the asker with a next step in words
// (the Hub's refusals: gated, not found, rate-limited, down).
type hinted interface {
	error
	UserHint() string
}

// hintedMessage shows such an error: the problem, then what to do.
func hintedMessage(err hinted) Message {
	text := "I couldn't use that: " + err.Error()
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(":warning: *I couldn't use that.* "+escape(err.Error())), nil, nil)}
	if hint := err.UserHint(); hint != "" {
		text += " Try: " + hint
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*Try:* "+escape(hint)), nil, nil))
	}
	// Not OutcomeNotUnderstood: the words were understood, and the
	// language model could not open a gated repo either.
	return ephemeral(text, blocks...).withOutcome(OutcomeOther)
}

// asHinted finds a hinted error in err's chain.
func asHinted(err error) (hinted, bool) {
	var he hinted
	ok := errors.As(err, &he)
	return he, ok
}
