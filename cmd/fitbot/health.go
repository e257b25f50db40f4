package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/slackoauth"
	"github.com/fitbot/fitbot/store"
)

// healthDB is what the health endpoints need of the store.
type healthDB interface {
	Ping(ctx context.Context) error
	ProviderHealth(ctx context.Context) ([]store.ProviderHealth, error)
}

var _ healthDB = (*store.DB)(nil)

// connection reports whether a Slack connection is up; *bot.Socket is one.
type connection interface{ Connected() bool }

var _ connection = (*bot.Socket)(nil)

// readyTimeout bounds the checks of one /readyz.
const readyTimeout = 2 * time.Second

// health serves /healthz, /readyz and /metrics.
type health struct {
	db     healthDB
	socket connection // nil when Socket Mode is off
	// tokens checks the workspaces' stored tokens (installed through
	// OAuth); nil with one bot token.
	tokens  func(ctx context.Context) (slackoauth.TokenHealth, error)
	metrics *bot.Metrics
	now     func() time.Time
	log     *slog.Logger
}

// register adds the endpoints to mux.
func (h *health) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", h.healthz)
	mux.HandleFunc("GET /readyz", h.readyz)
	mux.HandleFunc("GET /metrics", h.serveMetrics)
}

// registerPprof adds Go's profiler (net/http/pprof) to mux: CPU,
// heap, goroutines and the rest under /debug/pprof/. serve registers it
// on the health listener only, when FITBOT_PPROF=on and that listener
// has its own address, so Slack's listener never serves it.
func registerPprof(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}

// healthz says the process is alive and serving HTTP.
func (h *health) healthz(w http.ResponseWriter, _ *http.Request) {
	writeHealthJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// check is one line of /readyz.
type check struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	// AgeSeconds is the age of the newest prices, for the prices check.
	AgeSeconds *float64 `json:"age_seconds,omitempty"`
}

// readiness is the /readyz body.
type readiness struct {
	Ready  bool             `json:"ready"`
	Checks map[string]check `json:"checks"`
}

// readyz checks what fitbot needs to answer: the database, and the Slack
// connection in Socket Mode; it reports the age of the newest prices. 200
// when ready, 503 when not, with each check in the body. The body never
// quotes an error (they name files and paths, and /readyz may be on the
// public listener): errors go to the log.
func (h *health) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	rd := readiness{Ready: true, Checks: map[string]check{}}
	if err := h.db.Ping(ctx); err != nil {
		h.log.Warn("readyz: database unreachable", "err", err)
		rd.Checks["database"] = check{Detail: "unreachable (the log has the error)"}
	} else {
		rd.Checks["database"] = check{OK: true}
	}
	if h.socket != nil {
		if h.socket.Connected() {
			rd.Checks["slack_socket"] = check{OK: true}
		} else {
			rd.Checks["slack_socket"] = check{Detail: "not connected to Slack"}
		}
	}
	if h.tokens != nil {
		rd.Checks["slack_tokens"] = h.slackTokens(ctx)
	}
	rd.Checks["prices"] = h.prices(ctx)
	for name, c := range rd.Checks {
		if !c.OK && name != "prices" {
			rd.Ready = false
		}
	}
	status := http.StatusOK
	if !rd.Ready {
		status = http.StatusServiceUnavailable
	}
	writeHealthJSON(w, status, rd)
}

// slackTokens reports whether the workspaces' stored tokens can be used:
// not ready when FITBOT_TOKEN_KEY opens none of them (every workspace's
// answers would fail); ready, with a word, when some workspaces need
// fitbot installed again (the others are answered).
func (h *health) slackTokens(ctx context.Context) check {
	th, err := h.tokens(ctx)
	switch {
	case err != nil:
		h.log.Warn("readyz: reading the workspaces failed", "err", err)
		return check{Detail: "cannot read the workspaces (the log has the error)"}
	case th.WrongKey():
		return check{Detail: fmt.Sprintf("FITBOT_TOKEN_KEY opens none of the %d workspaces' stored tokens: it is not the key that sealed them", th.Installations)}
	}
	var notes []string
	if th.Unopened > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d workspaces' tokens do not open with FITBOT_TOKEN_KEY", th.Unopened, th.Installations))
	}
	if th.Reinstall > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d workspaces need fitbot installed again (fitbot workspaces lists them)", th.Reinstall, th.Installations))
	}
	return check{OK: true, Detail: strings.Join(notes, "; ")}
}

// prices reports the age of the newest good prices and how many
// providers are behind (pricing.SourceBehind), and updates the price-age
// gauges on the way. Stale prices do not make fitbot unready (answers
// fall back to the built-in sheet and say how old a price is); the check
// says so for the operator.
func (h *health) prices(ctx context.Context) check {
	providers, err := h.db.ProviderHealth(ctx)
	if err != nil {
		h.log.Warn("readyz: reading price runs failed", "err", err)
		return check{Detail: "cannot read price runs (the log has the error)"}
	}
	now := h.now()
	var newest time.Time
	stale := 0
	for _, p := range providers {
		if p.LastGood == nil {
			stale++
			continue
		}
		h.metrics.PriceAge(p.Provider, now.Sub(p.LastGood.AsOf))
		if p.LastGood.AsOf.After(newest) {
			newest = p.LastGood.AsOf
		}
		if p.Stale(now) {
			stale++
		}
	}
	if newest.IsZero() {
		return check{OK: true, Detail: "no refresh yet; answers use the built-in price sheet"}
	}
	age := now.Sub(newest).Seconds()
	c := check{OK: true, AgeSeconds: &age}
	if stale > 0 {
		c.Detail = fmt.Sprintf("%d of %d providers stale or failing", stale, len(providers))
	}
	return c
}

// serveMetrics brings the price ages up to date and serves the metrics.
func (h *health) serveMetrics(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	h.prices(ctx)
	cancel()
	h.metrics.Handler().ServeHTTP(w, r)
}

func writeHealthJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
