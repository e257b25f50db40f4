package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/store"
)

// Interaction handles a press of one of the answer's buttons. Slack
// ignores the body of the acknowledgement for block actions, so the
// transport acknowledges at once and the reply goes to the callback's
// response_url from the background:
//
//   - Share in channel posts the answer in_channel as a new message and
//     deletes the private one (response_url accepts delete_original for
//     ephemeral messages);
//   - Show details replaces the private answer with one that lists every
//     assumption and the resolved request;
//   - Re-price replaces it with the same question answered at today's prices.
//
// The button's value is re-parsed as a plan reference or a question,
// never trusted beyond that. Interactions of other kinds are ignored.
func (h *Handler) Interaction(ctx context.Context, cb slack.InteractionCallback) {
	if cb.Type != slack.InteractionTypeBlockActions || cb.ResponseURL == "" {
		h.log.Debug("bot: interaction ignored", "type", cb.Type)
		return
	}
	if !h.cfg.Policy.allows(cb.Team.ID, cb.Channel.ID) {
		h.log.Info("bot: interaction refused by policy", "team", cb.Team.ID, "channel", cb.Channel.ID, "user", cb.User.ID)
		return
	}
	for _, act := range cb.ActionCallback.BlockActions {
		if act == nil {
			continue
		}
		action, value, user, url := act.ActionID, act.Value, cb.User.ID, cb.ResponseURL
		scope := pressedScope(cb)
		if action == ActionLaunch {
			h.later(ctx, action, func(ctx context.Context) { h.launchPressed(ctx, cb, scope, value) })
			continue
		}
		if action == ActionReading {
			h.later(ctx, action, func(ctx context.Context) { h.readingPressed(ctx, cb, value) })
			continue
		}
		if !knownAction(action) {
			h.log.Debug("bot: unknown action ignored", "action_id", action)
			continue
		}
		h.later(ctx, action, func(ctx context.Context) {
			var msgs []Message
			if channel, thread := messageThread(cb); thread != "" && action != ActionShare {
				asker := who{team: cb.Team.ID, channel: channel, user: user, kind: store.SlackChannelKind(channel, cb.Channel.Name)}
				msgs = h.pressPublic(ctx, asker, scope, action, value, thread)
			} else {
				msgs = h.press(ctx, scope, action, value, user)
			}
			for _, msg := range msgs {
				if !h.respond(ctx, url, msg, action) {
					return
				}
			}
			if action == ActionShare {
				h.shareChart(ctx, cb, scope, value)
			}
		})
	}
}

// pressedScope is the plans the person who pressed a button reads: the
// workspace, channel and user of the press, never anything the button's
// value says.
func pressedScope(cb slack.InteractionCallback) store.Scope {
	channel := cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	return store.Viewer(cb.Team.ID, channel, cb.User.ID)
}

// press returns the messages to post, in order, for one button press by
// user, who reads the plans of scope.
func (h *Handler) press(ctx context.Context, scope store.Scope, action, value, user string) []Message {
	msg, ok := h.reanswer(ctx, scope, value, action == ActionDetails, action == ActionReprice)
	if !ok {
		msg.ReplaceOriginal = true
		return []Message{msg}
	}
	switch action {
	case ActionShare:
		shared := msg
		shared.ResponseType = slack.ResponseTypeInChannel
		shared.Blocks = append(sharedBlocks(shared.Blocks), slack.NewContextBlock("", mrkdwn(fmt.Sprintf("Shared by <@%s>", user))))
		return []Message{shared, {DeleteOriginal: true, Text: "shared"}}
	default:
		msg.ReplaceOriginal = true
		return []Message{msg}
	}
}

// pressPublic is press for a button on an answer everyone in the
// channel sees (a mention's, a shared one): the original stays as it is
// for everyone. Show details goes to the presser alone; any other button
// posts its answer as a new reply in thread, kept as a plan as an asked
// question is.
func (h *Handler) pressPublic(ctx context.Context, asker who, scope store.Scope, action, value, thread string) []Message {
	var msg Message
	text, isQuery := strings.CutPrefix(value, refQuery)
	switch {
	case action == ActionDetails || !isQuery:
		var ok bool
		msg, ok = h.reanswer(ctx, scope, value, action == ActionDetails, action == ActionReprice)
		if !ok || action == ActionDetails {
			msg.ResponseType = slack.ResponseTypeEphemeral
			return []Message{msg}
		}
	default:
		p, err := h.parse(ctx, text)
		if err != nil {
			msg := h.failure(text, err)
			msg.ResponseType = slack.ResponseTypeEphemeral
			return []Message{msg}
		}
		msg = h.handle(ctx, asker, answer.Question{Text: text, Route: reading.Routing{Kind: reading.RouteSizing}, Parsed: p})
	}
	msg.ResponseType, msg.ThreadTS, msg.ReplaceOriginal = slack.ResponseTypeInChannel, thread, false
	return []Message{msg}
}

// reanswer renders a button's value again: "plan:ID" re-answers a
// saved plan that scope reads, "q:QUESTION" renders the result this
// process kept for the answer that carries the button (keptResults), or
// answers the question again when it kept none or reprice asks for
// today's prices. ok is false when the value is not one of them or no
// longer answers; msg then says so.
func (h *Handler) reanswer(ctx context.Context, scope store.Scope, value string, details, reprice bool) (msg Message, ok bool) {
	if idText, found := strings.CutPrefix(value, refPlan); found {
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id <= 0 || h.cfg.Plans == nil {
			return ephemeral("That button no longer points at a plan fitbot knows. Ask the question again."), false
		}
		msg := h.replan(ctx, scope, id, details)
		return msg, msg.Outcome == OutcomeAnswered
	}
	q, found := strings.CutPrefix(value, refQuery)
	if !found {
		return ephemeral("That button no longer points at a question fitbot knows. Ask the question again."), false
	}
	r, kept := h.results.get(value)
	if !kept || reprice {
		p, err := h.parse(ctx, q)
		if err != nil {
			return h.failure(q, err), false
		}
		if r, err = h.answers.HandleQuestion(ctx, answer.Who{}, answer.Question{Text: q, Route: reading.Routing{Kind: reading.RouteSizing}, Parsed: p}); err != nil {
			h.log.Error("bot: answering a button's question failed", "err", err)
			return apology(), false
		}
	}
	switch {
	case r.Ask != nil:
		msg := withAskButtons(askMessageView(*r.Ask, h.now(), details), r.Question.Parsed, q)
		return msg, msg.Outcome == OutcomeAnswered
	case r.Fit != nil:
		a := r.Fit.Estimate
		view := answerView{ref: value, details: details, now: h.now()}
		return answered(answerText(a), answerBlocks(a, view)...), true
	}
	return h.render(ctx, who{}, r), false
}
