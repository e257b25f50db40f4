package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/fitbot/fitbot/slackoauth"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxBodyBytes is the largest request body the endpoints read; larger
// ones are refused with 413 before any parsing.
const maxBodyBytes = 1 << 20

// EventHandler receives the Events API callbacks (mentions, DMs) that
// arrived over HTTP, after the signature was checked. It must return
// quickly: Slack retries an event that is not acknowledged in 3 seconds.
// Deduplicating by event id is its job.
type EventHandler interface {
	HandleEvent(ctx context.Context, event slackevents.EventsAPIEvent)
}

// HTTP serves Slack's HTTP endpoints: POST /slack/commands,
// /slack/events and /slack/interactions. Each reads at most 1 MiB of raw
// body (413 beyond), checks the v0 signature and the 5-minute window on
// it before parsing anything (401 otherwise, with no detail; the reason
// is logged), then restores the body for the parser.
//
// Status codes, decided for Slack, which shows the user an error for
// anything but 200: a signed form with fields missing gets 200 and a
// friendly ephemeral message; a body that is not a form or not JSON at
// all gets 400; a panic gets 200 and an apology. Nothing answers 500.
type HTTP struct {
	handler *Handler
	events  EventHandler
	secret  string
	log     *slog.Logger
	now     func() time.Time
	metrics *Metrics
	replays replayGuard // signatures of commands and interactions already taken
}

// HTTPConfig is what the HTTP endpoints need. Events may be nil: event
// callbacks are then acknowledged and dropped.
type HTTPConfig struct {
	SigningSecret string // SLACK_SIGNING_SECRET
	Handler       *Handler
	Events        EventHandler
	Logger        *slog.Logger     // nil: slog.Default()
	Now           func() time.Time // nil: time.Now; the signature window is checked against it
	Metrics       *Metrics         // nil: questions are not counted
}

// NewHTTP returns the endpoints, or an error when the signing secret or
// the handler is missing.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	if cfg.SigningSecret == "" {
		return nil, errors.New("bot: the HTTP endpoints need SLACK_SIGNING_SECRET")
	}
	if cfg.Handler == nil {
		return nil, errors.New("bot: HTTPConfig.Handler is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &HTTP{handler: cfg.Handler, events: cfg.Events, secret: cfg.SigningSecret, log: cfg.Logger, now: cfg.Now, metrics: cfg.Metrics}, nil
}

// Register adds the three endpoints to mux.
func (s *HTTP) Register(mux *http.ServeMux) {
	mux.Handle("POST /slack/commands", s.signed(s.once(s.commands)))
	mux.Handle("POST /slack/events", s.signed(s.eventsEndpoint)) // retried deliveries are deduplicated by event id
	mux.Handle("POST /slack/interactions", s.signed(s.once(s.interactions)))
}

// signedHandler is an endpoint behind signed: it gets the request's body,
// read and verified, and the request without it.
type signedHandler func(w http.ResponseWriter, r *http.Request, body []byte)

// signed wraps an endpoint with the body cap, the signature check and
// panic recovery, and hands it the verified body.
func (s *HTTP) signed(next signedHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("bot: panic in HTTP endpoint", "path", r.URL.Path, "panic", p)
				writeJSON(w, apology())
			}
		}()
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				s.log.Warn("bot: request body over 1 MiB refused", "path", r.URL.Path)
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			s.log.Warn("bot: reading request body failed", "path", r.URL.Path, "err", err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if err := VerifySignature(s.secret, r.Header, body, s.now()); err != nil {
			s.log.Warn("bot: request signature refused", "path", r.URL.Path, "reason", err, "remote", r.RemoteAddr)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next(w, r, body)
	})
}

// once answers a signed request whose signature was taken before (a
// replay within the signature window, see replay.go) with an empty 200,
// without doing it again: a slash command is not answered twice, a
// button not pressed twice.
func (s *HTTP) once(next signedHandler) signedHandler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if !s.replays.first(r.Header.Get(headerSignature), s.now()) {
			s.log.Warn("bot: a signed request was sent again; not answered twice", "path", r.URL.Path, "remote", r.RemoteAddr)
			w.WriteHeader(http.StatusOK)
			return
		}
		next(w, r, body)
	}
}

// commands answers a slash command in the response body itself.
func (s *HTTP) commands(w http.ResponseWriter, r *http.Request, body []byte) {
	cmd, err := parseSlashCommand(r, body)
	if err != nil {
		s.log.Warn("bot: slash command body is not a form", "err", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if missing := missingFields(cmd); missing != "" {
		s.log.Warn("bot: slash command without "+missing, "team", cmd.TeamID)
		writeJSON(w, ephemeral("fitbot could not read this command: Slack sent it without "+missing+". Please try again."))
		return
	}
	start := time.Now()
	msg := s.handler.Command(slackoauth.WithWorkspace(r.Context(), cmd.EnterpriseID, cmd.TeamID), cmd)
	writeJSON(w, msg)
	observeQuestion(r.Context(), s.log, s.metrics, KindSlash, NewRequestID(), who{team: cmd.TeamID, channel: cmd.ChannelID, user: cmd.UserID}, msg, time.Since(start))
}

// missingFields names the first field a slash command cannot do without, or "".
func missingFields(cmd slack.SlashCommand) string {
	switch {
	case cmd.TeamID == "":
		return "team_id"
	case cmd.UserID == "":
		return "user_id"
	case cmd.Command == "":
		return "command"
	}
	return ""
}

// interactions acknowledges a button press at once and handles it in the background.
func (s *HTTP) interactions(w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	cb, err := slack.InteractionCallbackParse(r)
	if err != nil {
		s.log.Warn("bot: interaction payload unreadable", "err", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.handler.Interaction(slackoauth.WithWorkspace(r.Context(), cb.Enterprise.ID, cb.Team.ID), cb)
	w.WriteHeader(http.StatusOK)
}

// eventsEndpoint answers Slack's url_verification challenge and hands
// event callbacks to the EventHandler.
func (s *HTTP) eventsEndpoint(w http.ResponseWriter, r *http.Request, body []byte) {
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		var outer struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(body, &outer) != nil || outer.Type == "" {
			s.log.Warn("bot: event body is not an Events API payload", "err", err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.log.Info("bot: event of a kind fitbot does not read, acknowledged", "type", outer.Type, "err", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	switch ev.Type {
	case "":
		s.log.Warn("bot: event body without a type")
		http.Error(w, "bad request", http.StatusBadRequest)
	case slackevents.URLVerification:
		v, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent)
		if !ok {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, v.Challenge)
	case slackevents.CallbackEvent:
		if s.events != nil {
			s.events.HandleEvent(r.Context(), ev)
		}
		w.WriteHeader(http.StatusOK)
	default:
		s.log.Info("bot: event acknowledged and ignored", "type", ev.Type)
		w.WriteHeader(http.StatusOK)
	}
}

// writeJSON writes a message as the 200 response body.
func writeJSON(w http.ResponseWriter, msg Message) {
	body, err := msg.encode()
	if err != nil {
		body = []byte(`{"response_type":"ephemeral","text":"Sorry, fitbot could not write its answer."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
