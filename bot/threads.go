package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// KindThread is a message in the thread of one of fitbot's answers that
// does not mention it (message.channels, message.groups).
const KindThread = "thread"

// ThreadStore remembers the question of the latest answer in each Slack
// thread, so that a message in the thread is read against it;
// *store.DB is one. The question is kept as the canonical words of the
// whole question, its intent's words too (reading.FormatAsk), which read
// back to the same request; a row written before that holds the sizing
// words alone and reads as a fit question.
type ThreadStore interface {
	RememberThread(ctx context.Context, team, channel, threadTS, canonical string) error
	ThreadQuestion(ctx context.Context, team, channel, threadTS string) (canonical string, ok bool, err error)
}

// threadMessage reports whether a channel message event is one fitbot
// may read as a follow-up: in a thread, from a person, not an edit, and
// without a mention of the bot (the app_mention event carries those).
// Whether the thread is one of fitbot's answers is decided later, off
// the acknowledgement path.
func (e *Events) threadMessage(m *slackevents.MessageEvent) bool {
	return e.threads != nil && m.ThreadTimeStamp != "" && m.ThreadTimeStamp != m.TimeStamp && m.SubType == "" &&
		m.BotID == "" && m.User != "" && m.User != e.botUser && !strings.Contains(m.Text, "<@"+e.botUser)
}

// respondTo is the answer to a message, and whether to post one: a
// message in the thread of an answer is read against that answer's
// question; one that asks something fitbot cannot read there gets a
// short "I didn't catch that"; other talk in such a thread is left
// alone.
func (e *Events) respondTo(ctx context.Context, in incoming) (Message, bool) {
	var ours bool // the thread is one of fitbot's answers
	if in.threadTS != "" && e.threads != nil {
		canonical, ok, err := e.threads.ThreadQuestion(ctx, in.asker.team, in.asker.channel, in.threadTS)
		if err != nil {
			e.log.Error("bot: reading the thread's question failed", "channel", in.asker.channel, "thread", in.threadTS, "err", err)
		}
		ours = ok
		if ok {
			if msg, ok := e.h.followUp(ctx, in.asker, canonical, in.text); ok {
				return msg, true
			}
		}
	}
	if in.kind == KindThread {
		if ours && asksSomething(in.text) {
			return notCaughtInThread(), true
		}
		return Message{}, false
	}
	return e.reply(ctx, in), true
}

// asksSomething reports whether a message in one of fitbot's threads
// reads as said to fitbot (a question, or how people start one) rather
// than talk between people ("thanks", "nice, trying it now").
func asksSomething(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if strings.HasSuffix(t, "?") {
		return true
	}
	for _, start := range []string{"and ", "what about", "how about", "what if", "how much", "how many", "how long", "can we", "could we", "can it", "does it", "would it", "same but", "now with", "instead"} {
		if strings.HasPrefix(t, start) {
			return true
		}
	}
	return false
}

// notCaughtInThread is the short reply to a message in fitbot's thread
// that asks something fitbot cannot read against the thread's question.
func notCaughtInThread() Message {
	return ephemeral("I didn't catch that. In this thread I read changes to the question above, e.g. " +
		"`and with 2 of them?`, `on an h100`, `qlora instead`, `with 32k context`, `cheapest?`, `and spot?`, `same but llama 3 70b`. " +
		"A new question works too: mention me with it.").withOutcome(OutcomeNotUnderstood)
}

// remember records the question of an answer posted in a thread.
func (e *Events) remember(ctx context.Context, in incoming, thread string, msg Message) {
	if e.threads == nil || msg.question == "" {
		return
	}
	if err := e.threads.RememberThread(ctx, in.asker.team, in.asker.channel, thread, msg.question); err != nil {
		e.log.Warn("bot: remembering the answer's thread failed; replies in it read alone", "thread", thread, "err", err)
	}
}

// threadRetention is how long a thread's question is kept after its
// latest answer.
const threadRetention = 90 * 24 * time.Hour

// forgetThreads deletes the questions of threads answered longer ago
// than threadRetention, when the store can.
func (e *Events) forgetThreads(ctx context.Context, now time.Time) {
	f, ok := e.threads.(interface {
		ForgetThreads(ctx context.Context, before time.Time) (int64, error)
	})
	if !ok {
		return
	}
	if _, err := f.ForgetThreads(ctx, now.Add(-threadRetention)); err != nil {
		e.log.Warn("bot: forgetting old answer threads failed", "err", err)
	}
}

// followUp answers a message in an answer's thread against the question
// that answer was for, read as any question is (answer.Service.FollowUp:
// the grammar, and the language model when it is configured and the
// grammar leaves words); ok is false when the message is not a
// follow-up. One that asks something while the model was unavailable is
// told so.
func (h *Handler) followUp(ctx context.Context, asker who, canonical, text string) (Message, bool) {
	if !h.cfg.Policy.allows(asker.team, asker.channel) {
		return Message{}, false
	}
	in, ok := h.answers.FollowUp(ctx, canonical, text)
	if !ok {
		if in.ModelError != nil && asksSomething(text) {
			return modelUnavailable(notCaughtInThread()), true
		}
		return Message{}, false
	}
	if !h.limiter.allow(asker.user, h.now()) {
		return ephemeral(fmt.Sprintf("You're asking faster than fitbot answers (%d a minute). Try again in a minute.", h.cfg.Policy.PerUserPerMinute)).withOutcome(OutcomeRateLimited), true
	}
	in.Question.Scope = asker.scope()
	if !in.Interpreted && in.ModelError == nil {
		return h.handle(ctx, asker, in.Question), true
	}
	return h.render(ctx, asker, h.answers.HandleInterpretation(ctx, asker.answerWho(h.cfg.Plans != nil), in)), true
}

// The next-step buttons: each re-asks the question with one change.
const (
	actionNextPrefix   = "fit_next_"
	ActionNextQLoRA    = actionNextPrefix + "qlora"
	ActionNextGPUs     = actionNextPrefix + "gpus"
	ActionNextCheapest = actionNextPrefix + "cheapest"
	nextStepsBlockID   = "fit_next_steps"
)

// knownAction reports whether a button's action id is one fitbot answers.
func knownAction(id string) bool {
	switch id {
	case ActionShare, ActionDetails, ActionReprice, ActionNextQLoRA, ActionNextGPUs, ActionNextCheapest:
		return true
	}
	return false
}

// nextSteps are the buttons for the common next steps of an answer that
// does not fit or is tight: QLoRA (for training that is not QLoRA yet),
// twice the cards, and the cheapest configuration that fits as asked.
// nil when the answer fits comfortably.
func nextSteps(q sizing.Query, a sizing.Answer) slack.Block {
	if a.Fits && a.Headroom != sizing.HeadroomTight {
		return nil
	}
	var buttons []slack.BlockElement
	add := func(id, label string, change func(*sizing.Query)) {
		c := q
		change(&c)
		if v := queryRef(sizing.Format(c), ""); v != "" && sizing.Format(c) != sizing.Format(q) {
			buttons = append(buttons, slack.NewButtonBlockElement(id, v, plain(label)))
		}
	}
	if m := a.Request.Method; m == sizing.MethodFull || m == sizing.MethodLoRA {
		add(ActionNextQLoRA, "Use QLoRA", func(c *sizing.Query) {
			c.Method, c.Optimizer, c.Quant = sizing.MethodQLoRA, "", ""
			c.ZeROStage, c.Offload = nil, ""
		})
	}
	if n := a.Request.GPUs * 2; n <= sizing.MaxGPUsPerNode {
		add(ActionNextGPUs, fmt.Sprintf("%d GPUs", n), func(c *sizing.Query) {
			c.GPU, c.GPUs, c.Nodes = a.Request.GPU, n, 0
		})
	}
	add(ActionNextCheapest, "Cheapest that fits", func(c *sizing.Query) { c.GPU, c.GPUs, c.Nodes, c.GPUMemoryBytes = "", 0, 0, 0 })
	if len(buttons) == 0 {
		return nil
	}
	return slack.NewActionBlock(nextStepsBlockID, buttons...)
}

// withAskButtons gives an answer to a question that runs the other way
// round the buttons of a fit answer (Share, Show details, Re-price),
// carrying the question with its intent's words, and remembers the
// question for its thread.
func withAskButtons(msg Message, p reading.Request, text string) Message {
	if msg.Outcome != OutcomeAnswered {
		return msg
	}
	if ref := queryRef(reading.FormatAsk(p), text); ref != "" {
		msg.Blocks = append(msg.Blocks, slack.NewActionBlock(answerActionsID,
			slack.NewButtonBlockElement(ActionShare, ref, plain("Share in channel")).WithStyle(slack.StylePrimary),
			slack.NewButtonBlockElement(ActionDetails, ref, plain("Show details")),
			slack.NewButtonBlockElement(ActionReprice, ref, plain("Re-price")),
		))
		if p.Intent == sizing.IntentServe {
			withLaunch(msg.Blocks[len(msg.Blocks)-1], ref)
		}
	}
	msg.question = reading.FormatAsk(p)
	return msg
}
