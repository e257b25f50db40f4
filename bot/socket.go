package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// maxAckBytes is the largest Socket Mode acknowledgement fitbot sends
// with its payload: Slack silently drops responses of 20 KB or more, and
// slack-go refuses them; the envelope around the payload needs a little
// room too. A larger answer goes to the command's response_url instead.
const maxAckBytes = 20*1024 - 512

// DefaultDrainTimeout bounds how long Socket.Run waits, once told to
// stop, for the commands it already took.
const DefaultDrainTimeout = 10 * time.Second

// ackFlushGrace is how long Run lets queued acknowledgements reach the
// websocket before it closes the connection at shutdown.
const ackFlushGrace = 200 * time.Millisecond

// SocketConfig is what the Socket Mode transport needs. Client and
// Handler are required; Events may be nil (event callbacks are then
// acknowledged and dropped).
type SocketConfig struct {
	// Client is the Socket Mode client, built on a *slack.Client that has
	// the app-level token (SLACK_APP_TOKEN, connections:write).
	Client       *socketmode.Client
	Handler      *Handler
	Events       EventHandler
	Metrics      *Metrics      // nil: not counted
	Logger       *slog.Logger  // nil: slog.Default()
	DrainTimeout time.Duration // 0 means DefaultDrainTimeout
}

// Socket is the Socket Mode transport: it keeps the websocket to Slack
// open (slack-go reconnects with backoff) and routes what arrives to the
// same Handler as the HTTP endpoints:
//
//   - a slash command is answered in its acknowledgement, the way the
//     HTTP endpoint answers in its response body; an answer too large for
//     an acknowledgement (20 KB) is acknowledged empty and posted to the
//     command's response_url;
//   - events and button presses are acknowledged at once and handled
//     after, since Slack reads nothing in their acknowledgement.
//
// Every request is handled in its own goroutine, so a slow one never
// holds up the rest.
type Socket struct {
	client  *socketmode.Client
	h       *Handler
	events  EventHandler
	metrics *Metrics
	log     *slog.Logger
	drain   time.Duration

	connected atomic.Bool
	inflight  sync.WaitGroup
}

// NewSocket returns the transport, or an error naming what is missing.
func NewSocket(cfg SocketConfig) (*Socket, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("bot: SocketConfig.Client is required")
	case cfg.Handler == nil:
		return nil, errors.New("bot: SocketConfig.Handler is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	return &Socket{client: cfg.Client, h: cfg.Handler, events: cfg.Events, metrics: cfg.Metrics, log: cfg.Logger, drain: cfg.DrainTimeout}, nil
}

// Connected reports whether the websocket to Slack is up; the readiness
// check reads it.
func (s *Socket) Connected() bool { return s.connected.Load() }

func (s *Socket) setConnected(up bool) {
	s.connected.Store(up)
	s.metrics.SocketConnected(up)
}

// Run connects and serves until ctx is done, then stops taking requests
// (what arrives after is left unacknowledged, and Slack delivers events
// again), waits up to the drain timeout for the commands already taken
// to be acknowledged, and closes the connection. It returns nil after a
// stop, or the error that ended the connection for good: a token Slack
// refuses (invalid_auth, token_revoked, not_authed).
func (s *Socket) Run(ctx context.Context) error {
	clientCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.client.RunContext(clientCtx) }()
	for {
		select {
		case <-ctx.Done():
			s.wait()
			// The last acknowledgements are queued for the client's writer;
			// give it a moment to put them on the wire before closing.
			time.Sleep(ackFlushGrace)
			cancel()
			<-done
			s.setConnected(false)
			return nil
		case err := <-done:
			s.setConnected(false)
			s.wait()
			if ctx.Err() != nil || errors.Is(err, context.Canceled) {
				return nil
			}
			return fmt.Errorf("socket mode: %w", err)
		case evt := <-s.client.Events:
			s.dispatch(clientCtx, evt)
		}
	}
}

// wait waits for the requests in flight, at most the drain timeout.
func (s *Socket) wait() {
	idle := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-time.After(s.drain):
		s.log.Warn("bot: socket mode requests still in flight at shutdown", "waited", s.drain)
	}
}

// dispatch routes one event of the client.
func (s *Socket) dispatch(ctx context.Context, evt socketmode.Event) {
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		s.log.Debug("bot: socket mode connecting")
	case socketmode.EventTypeConnected, socketmode.EventTypeHello:
		if !s.Connected() {
			s.log.Info("bot: socket mode connected")
		}
		s.setConnected(true)
	case socketmode.EventTypeConnectionError:
		s.setConnected(false)
		if e, ok := evt.Data.(*slack.ConnectionErrorEvent); ok {
			s.log.Warn("bot: socket mode connection failed, retrying", "attempt", e.Attempt, "backoff", e.Backoff, "err", e.ErrorObj)
		}
	case socketmode.EventTypeInvalidAuth:
		s.setConnected(false)
		s.log.Error("bot: Slack refused SLACK_APP_TOKEN (socket mode needs an app-level token with connections:write)")
	case socketmode.EventTypeDisconnect:
		s.setConnected(false)
		s.log.Info("bot: Slack asked to reconnect")
	case socketmode.EventTypeIncomingError, socketmode.EventTypeErrorBadMessage, socketmode.EventTypeErrorWriteFailed:
		s.log.Warn("bot: socket mode message problem", "type", evt.Type, "detail", describeSocketError(evt.Data))
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok || evt.Request == nil {
			s.ackEmpty(ctx, evt)
			return
		}
		s.handle("slash", func() { s.slash(ctx, *evt.Request, cmd) })
	case socketmode.EventTypeInteractive:
		s.ackEmpty(ctx, evt)
		if cb, ok := evt.Data.(slack.InteractionCallback); ok {
			s.handle("interaction", func() { s.h.Interaction(ctx, cb) })
		}
	case socketmode.EventTypeEventsAPI:
		s.ackEmpty(ctx, evt)
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			return
		}
		if ev.Type == slackevents.AppRateLimited {
			s.log.Warn("bot: Slack is rate-limiting this app's events (over 30,000 an hour in one workspace)", "team", ev.TeamID)
			return
		}
		if s.events != nil {
			s.handle("event", func() { s.events.HandleEvent(ctx, ev) })
		}
	default:
		s.ackEmpty(ctx, evt)
		s.log.Debug("bot: socket mode event ignored", "type", evt.Type)
	}
}

// handle runs f in its own goroutine, counted in flight, with a panic
// turned into a log line.
func (s *Socket) handle(what string, f func()) {
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("bot: panic handling a socket mode request", "what", what, "panic", p)
			}
		}()
		f()
	}()
}

// ackEmpty acknowledges a request without a payload.
func (s *Socket) ackEmpty(ctx context.Context, evt socketmode.Event) {
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return
	}
	if err := s.client.AckCtx(ctx, evt.Request.EnvelopeID, nil); err != nil {
		s.log.Warn("bot: socket mode ack failed", "type", evt.Type, "err", err)
	}
}

// slash answers a slash command in its acknowledgement.
func (s *Socket) slash(ctx context.Context, req socketmode.Request, cmd slack.SlashCommand) {
	start := s.h.now()
	msg := s.h.Command(ctx, cmd)
	s.ack(ctx, req, cmd, msg)
	observeQuestion(ctx, s.log, s.metrics, KindSlash, req.EnvelopeID, who{team: cmd.TeamID, channel: cmd.ChannelID, user: cmd.UserID}, msg, s.h.now().Sub(start))
}

// ack sends msg as the acknowledgement of req, or, when it is too large
// for one, acknowledges empty and posts msg to the command's response_url.
func (s *Socket) ack(ctx context.Context, req socketmode.Request, cmd slack.SlashCommand, msg Message) {
	body, err := msg.encode()
	if err == nil && len(body) <= maxAckBytes {
		if err = s.client.AckCtx(ctx, req.EnvelopeID, json.RawMessage(body)); err == nil {
			return
		}
		s.log.Warn("bot: socket mode ack with the answer failed; posting to response_url", "err", err)
	}
	if err := s.client.AckCtx(ctx, req.EnvelopeID, nil); err != nil {
		s.log.Warn("bot: socket mode ack failed", "err", err)
	}
	if cmd.ResponseURL == "" {
		s.log.Error("bot: answer too large to acknowledge and no response_url to post it to", "bytes", len(body))
		return
	}
	url := cmd.ResponseURL
	s.h.later(ctx, "large answer", func(ctx context.Context) {
		if err := s.h.cfg.Respond.Respond(ctx, url, msg); err != nil {
			s.log.Error("bot: posting a large answer to response_url failed", "err", err)
		}
	})
}

// describeSocketError says what went wrong in a client error event
// without dumping the raw message, which may carry user text.
func describeSocketError(data any) string {
	switch d := data.(type) {
	case *socketmode.ErrorBadMessage:
		return d.Cause.Error()
	case *socketmode.ErrorWriteFailed:
		return d.Cause.Error()
	case *slack.IncomingEventError:
		return d.Error()
	case error:
		return d.Error()
	}
	return fmt.Sprintf("%T", data)
}
