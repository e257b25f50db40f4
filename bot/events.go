package bot

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fitbot/fitbot/slackoauth"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// EventStore remembers which Slack events were taken, so that a retried
// delivery is answered once; *store.DB is one.
type EventStore interface {
	// SeeEvent records id and reports whether this is its first delivery
	// within ttl.
	SeeEvent(ctx context.Context, id string, ttl time.Duration) (bool, error)
	// ForgetEvents deletes the ids recorded before a time.
	ForgetEvents(ctx context.Context, before time.Time) (int64, error)
}

// ThreadPoster posts a message to a channel, in a thread when threadTS is
// set; *WebAPI is one.
type ThreadPoster interface {
	Post(ctx context.Context, channel, threadTS string, msg Message) (ts string, err error)
}

// DefaultEventTTL is how long a taken event id is remembered. Slack's
// last retry comes about five minutes after the first delivery; a day
// leaves room for clock skew between instances and for restarts.
const DefaultEventTTL = 24 * time.Hour

// pruneEvery is how often, at most, old event ids are deleted.
const pruneEvery = time.Hour

// EventsConfig is what the mention and DM handler needs. Handler, Seen and
// Post are required; BotUserID is the bot's own user id from auth.test.
type EventsConfig struct {
	Handler   *Handler
	Threads   ThreadStore // nil: replies in an answer's thread are read alone, and channel messages ignored
	Seen      EventStore
	Post      ThreadPoster
	BotUserID string // auth.test user_id: the bot's own messages are ignored and its mention stripped; "" with Uninstalled
	// Uninstalled, when set, is fitbot installed in many workspaces
	// (OAuth): each event's authorizations name the bot user of its
	// workspace, and an app_uninstalled event, or a tokens_revoked event
	// revoking the bot's token, is handed to it to forget that
	// installation (enterpriseInstall: the organisation's org-wide one).
	Uninstalled func(ctx context.Context, enterpriseID, teamID string, enterpriseInstall bool) error
	BotID       string        // auth.test bot_id, when known
	Metrics     *Metrics      // nil: not counted
	Logger      *slog.Logger  // nil: slog.Default()
	TTL         time.Duration // how long an event id is remembered; 0 means DefaultEventTTL
}

// Events answers `@fitbot` mentions in channels (app_mention) and direct
// messages (message.im) in a thread: the reply's thread_ts is the
// message's own ts, or its parent's when the message is already in a
// thread. It is the EventHandler of both transports.
//
// It takes only what a person wrote to it: a message from a bot (its own
// included), an edit, a deletion or any other message subtype, and a
// delivery of an event it already took (Slack retries an event_id it did
// not see acknowledged) are dropped. The answer is the `/fit` answer to
// the message's text, with the same access policy, rate limit and plan
// saving; a question only the language model can read is interpreted.
type Events struct {
	h       *Handler
	seen    EventStore
	post    ThreadPoster
	botUser string
	botID   string
	metrics *Metrics
	log     *slog.Logger
	ttl     time.Duration
	threads ThreadStore
	uninst  func(ctx context.Context, enterpriseID, teamID string, enterpriseInstall bool) error

	mu        sync.Mutex
	lastPrune time.Time
}

// NewEvents returns the mention and DM handler, or an error naming what
// is missing.
func NewEvents(cfg EventsConfig) (*Events, error) {
	switch {
	case cfg.Handler == nil:
		return nil, errors.New("bot: EventsConfig.Handler is required")
	case cfg.Seen == nil:
		return nil, errors.New("bot: EventsConfig.Seen is required (duplicates would be answered twice)")
	case cfg.Post == nil:
		return nil, errors.New("bot: EventsConfig.Post is required")
	case cfg.BotUserID == "" && cfg.Uninstalled == nil:
		return nil, errors.New("bot: EventsConfig.BotUserID is required (from auth.test) to ignore the bot's own messages")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultEventTTL
	}
	return &Events{h: cfg.Handler, seen: cfg.Seen, post: cfg.Post, botUser: cfg.BotUserID, botID: cfg.BotID,
		metrics: cfg.Metrics, log: cfg.Logger, ttl: cfg.TTL, threads: cfg.Threads, uninst: cfg.Uninstalled}, nil
}

// incoming is a message addressed to fitbot, whichever event carried it.
type incoming struct {
	kind     string // KindMention or KindDM
	eventID  string
	asker    who
	text     string
	ts       string
	threadTS string
}

// HandleEvent takes one Events API delivery. It returns as soon as the
// event is filtered, so the acknowledgement never waits on the database
// (a price refresh may hold SQLite's one writer for a while); recording
// the event id, which drops a retried delivery, and the answer happen in
// the background (Handler.Wait waits for them).
func (e *Events) HandleEvent(ctx context.Context, ev slackevents.EventsAPIEvent) {
	start := e.h.now()
	auth := authorization(ev)
	ctx = slackoauth.WithWorkspace(ctx, auth.EnterpriseID, auth.TeamID)
	if e.uninst != nil && uninstalls(ev) {
		e.h.later(ctx, "uninstall", func(ctx context.Context) {
			if err := e.uninst(ctx, auth.EnterpriseID, auth.TeamID, auth.IsEnterpriseInstall); err != nil {
				e.log.Error("bot: forgetting an uninstalled workspace failed", "team", auth.TeamID, "enterprise", auth.EnterpriseID, "err", err)
			}
		})
		return
	}
	in, why := e.addressed(ev, auth)
	if why != "" {
		e.metrics.Event("ignored")
		e.log.Debug("bot: event ignored", "type", ev.InnerEvent.Type, "why", why)
		return
	}
	key := in.eventID
	if key == "" {
		key = in.asker.channel + ":" + in.ts // a message is one (channel, ts)
	}
	e.h.later(ctx, in.kind, func(ctx context.Context) {
		first, err := e.seen.SeeEvent(ctx, key, e.ttl)
		if err == nil {
			e.h.failures.OK(e.log, "record-event", "bot: event ids are recorded again")
		}
		switch {
		case err != nil:
			// Better a rare double answer than none: answer, and say why.
			e.h.failures.Error(e.log, "record-event", "bot: recording the event failed; answering anyway", "event_id", key, "err", err)
		case !first:
			e.metrics.Event("duplicate")
			e.log.Info("bot: duplicate event ignored", "event_id", key, "kind", in.kind)
			return
		}
		e.metrics.Event("taken")
		e.prune(ctx)
		msg, post := e.respondTo(ctx, in)
		if !post {
			e.metrics.Event("ignored")
			return
		}
		thread := in.threadTS
		if thread == "" {
			thread = in.ts
		}
		if _, err := e.post.Post(ctx, in.asker.channel, thread, msg); err != nil {
			e.log.Error("bot: posting the answer failed", "event_id", key, "kind", in.kind, "err", err)
		} else {
			e.remember(ctx, in, thread, msg)
			e.h.attachPicture(ctx, in.asker, thread, msg)
		}
		observeQuestion(ctx, e.log, e.metrics, in.kind, key, in.asker, msg, e.h.now().Sub(start))
	})
}

// addressed returns the message an event carries for fitbot, or why the
// event is not one fitbot answers.
func (e *Events) addressed(ev slackevents.EventsAPIEvent, auth slack.EventAuthorization) (incoming, string) {
	if ev.Type != slackevents.CallbackEvent {
		return incoming{}, "not an event callback: " + ev.Type
	}
	botUser := e.botUser
	if botUser == "" {
		botUser = auth.UserID // installed in many workspaces: this workspace's bot user
	}
	var in incoming
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
		in.eventID = cb.EventID
	}
	switch m := ev.InnerEvent.Data.(type) {
	case *slackevents.AppMentionEvent:
		switch {
		case m.BotID != "" || m.User == "" || m.User == botUser:
			return in, "from a bot"
		case m.Edited != nil:
			return in, "an edit"
		}
		in.kind, in.text, in.ts, in.threadTS = KindMention, m.Text, m.TimeStamp, m.ThreadTimeStamp
		// app_mention carries no channel_type: the channel is taken as
		// private (see store.SlackChannelKind).
		in.asker = who{team: ev.TeamID, channel: m.Channel, user: m.User, kind: store.SlackChannelKind(m.Channel, "")}
	case *slackevents.MessageEvent:
		if m.ChannelType != slackevents.ChannelTypeIM && e.threadMessage(m) {
			in.kind, in.text, in.ts, in.threadTS = KindThread, m.Text, m.TimeStamp, m.ThreadTimeStamp
			in.asker = who{team: ev.TeamID, channel: m.Channel, user: m.User, kind: eventChannelKind(m.Channel, m.ChannelType)}
			break
		}
		switch {
		case m.ChannelType != slackevents.ChannelTypeIM:
			return in, "a message outside a DM"
		case m.SubType != "":
			return in, "message subtype " + m.SubType
		case m.BotID != "" || m.User == "" || m.User == botUser || (e.botID != "" && m.BotID == e.botID):
			return in, "from a bot"
		}
		in.kind, in.text, in.ts, in.threadTS = KindDM, m.Text, m.TimeStamp, m.ThreadTimeStamp
		in.asker = who{team: ev.TeamID, channel: m.Channel, user: m.User, kind: store.ChannelDM}
	default:
		return in, "event type " + ev.InnerEvent.Type
	}
	if in.asker.channel == "" || in.ts == "" {
		return in, "no channel or ts"
	}
	in.text = stripMentions(in.text, botUser)
	return in, ""
}

// authorization is the installation an event was delivered for: the
// first of its authorizations (Slack lists the installation the event
// is for first), else the outer team and enterprise ids.
func authorization(ev slackevents.EventsAPIEvent) slack.EventAuthorization {
	auth := slack.EventAuthorization{EnterpriseID: ev.EnterpriseID, TeamID: ev.TeamID}
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok && len(cb.Authorizations) > 0 {
		a := cb.Authorizations[0]
		auth.UserID, auth.IsBot, auth.IsEnterpriseInstall = a.UserID, a.IsBot, a.IsEnterpriseInstall
		auth.EnterpriseID = cmp.Or(auth.EnterpriseID, a.EnterpriseID)
		auth.TeamID = cmp.Or(auth.TeamID, a.TeamID)
	}
	return auth
}

// uninstalls reports whether an event takes fitbot out of a workspace:
// app_uninstalled, or tokens_revoked revoking a bot token.
func uninstalls(ev slackevents.EventsAPIEvent) bool {
	switch m := ev.InnerEvent.Data.(type) {
	case *slackevents.AppUninstalledEvent:
		return true
	case *slackevents.TokensRevokedEvent:
		return len(m.Tokens.Bot) > 0
	}
	return false
}

// eventChannelKind is the kind of a message event's conversation from
// its channel_type: channel (public), group (private), mpim (a group DM,
// private), im (a DM). Any other is taken as private.
func eventChannelKind(channel, channelType string) store.ChannelKind {
	switch channelType {
	case slackevents.ChannelTypeChannel:
		return store.ChannelPublic
	case slackevents.ChannelTypeIM:
		return store.ChannelDM
	}
	return store.SlackChannelKind(channel, "")
}

// mentionRE matches a user mention as Slack writes it: <@U123> or <@U123|name>.
var mentionRE = regexp.MustCompile(`<@([A-Z0-9]+)(?:\|[^>]*)?>`)

// stripMentions removes the bot's own mentions from text and trims it;
// other people's mentions stay.
func stripMentions(text, botUser string) string {
	text = mentionRE.ReplaceAllStringFunc(text, func(m string) string {
		if mentionRE.FindStringSubmatch(m)[1] == botUser {
			return " "
		}
		return m
	})
	return strings.Join(strings.Fields(text), " ")
}

// reply answers a message as `/fit` would. There is no response_url:
// the event path is already in the background, so a question for the
// language model waits for it (Handler.resolved decides).
func (e *Events) reply(ctx context.Context, in incoming) Message {
	cmd := slack.SlashCommand{TeamID: in.asker.team, ChannelID: in.asker.channel, UserID: in.asker.user, Command: "/fit", Text: in.text}
	return e.h.command(ctx, cmd, in.asker)
}

// interpretedNote marks an answer that the language model's reading
// went into.
const interpretedNote = "_Interpreted by the language model; check the assumptions._"

// modelUnavailableNote tells the asker that the language model was asked
// and could not help, so the answer is the grammar's reading alone.
const modelUnavailableNote = "_The language model was unavailable (no usable reply), so this is fitbot's own reading of your words._"

// modelUnavailable is msg, a reply made without the language model it
// was asked for, saying so.
func modelUnavailable(msg Message) Message {
	msg.Blocks = append(msg.Blocks, slack.NewContextBlock("", mrkdwn(modelUnavailableNote)))
	msg.Text += " (The language model was unavailable.)"
	return msg
}

// prune deletes old event ids, at most once per pruneEvery.
func (e *Events) prune(ctx context.Context) {
	now := e.h.now()
	e.mu.Lock()
	due := now.Sub(e.lastPrune) >= pruneEvery
	if due {
		e.lastPrune = now
	}
	e.mu.Unlock()
	if !due {
		return
	}
	e.forgetThreads(ctx, now)
	n, err := e.seen.ForgetEvents(ctx, now.Add(-e.ttl))
	if err != nil {
		e.log.Warn("bot: forgetting old event ids failed", "err", err)
		return
	}
	if n > 0 {
		e.log.Debug("bot: old event ids forgotten", "count", n)
	}
}
