package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
)

// fakeConnection is a Slack connection that is up or not.
type fakeConnection bool

func (c fakeConnection) Connected() bool { return bool(c) }

func readyz(t *testing.T, h *health) (int, readiness) {
	t.Helper()
	mux := http.NewServeMux()
	h.register(mux)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var rd readiness
	if err := json.Unmarshal(w.Body.Bytes(), &rd); err != nil {
		t.Fatalf("/readyz body %q: %v", w.Body.String(), err)
	}
	return w.Code, rd
}

// TestReadyz checks /readyz on a real database: ready with the database
// and the socket up, unready (503) when the database is gone or the
// socket is down, each check in the body; stale prices are reported
// without making fitbot unready.
func TestReadyz(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	asOf := now.Add(-30 * time.Hour)
	run := pricing.Run{Provider: "runpod", Started: asOf, Finished: asOf.Add(time.Second), AsOf: asOf, Status: pricing.RunOK, Rows: 1}
	offer := pricing.Offer{Provider: "runpod", InstanceType: "NVIDIA GeForce RTX 4090", GPU: "rtx-4090", GPUCount: 1, Market: pricing.MarketOnDemand,
		Tier: "community", USDPerHour: 0.34, USDPerGPUHour: 0.34, ObservedAt: asOf, Samples: 1, Source: "runpod graphql"}
	if _, err := db.SaveRun(context.Background(), run, []pricing.Offer{offer}); err != nil {
		t.Fatal(err)
	}
	m := bot.NewMetrics()
	h := &health{db: db, socket: fakeConnection(true), metrics: m, now: func() time.Time { return now }, log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	code, rd := readyz(t, h)
	if code != http.StatusOK || !rd.Ready || !rd.Checks["database"].OK || !rd.Checks["slack_socket"].OK {
		t.Errorf("/readyz = %d %+v, want 200 and ready", code, rd)
	}
	p := rd.Checks["prices"]
	if !p.OK || p.AgeSeconds == nil || *p.AgeSeconds != (30*time.Hour).Seconds() || p.Detail != "1 of 1 providers stale or failing" {
		t.Errorf("prices check = %+v, want ok, 30 h old, 1 of 1 stale", p)
	}

	h.socket = fakeConnection(false)
	if code, rd := readyz(t, h); code != http.StatusServiceUnavailable || rd.Ready || rd.Checks["slack_socket"].OK {
		t.Errorf("/readyz with the socket down = %d %+v, want 503", code, rd)
	}
	h.socket = fakeConnection(true)

	db.Close() // the database is gone
	code, rd = readyz(t, h)
	if code != http.StatusServiceUnavailable || rd.Ready || rd.Checks["database"].OK || rd.Checks["database"].Detail == "" {
		t.Errorf("/readyz with the database closed = %d %+v, want 503 with the database check failing", code, rd)
	}
}

func TestHealthzAndMetrics(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := &health{db: db, metrics: bot.NewMetrics(), now: time.Now, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	mux := http.NewServeMux()
	h.register(mux)
	for path, want := range map[string]int{"/healthz": 200, "/metrics": 200, "/readyz": 200} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != want {
			t.Errorf("GET %s = %d, want %d", path, w.Code, want)
		}
	}
	_, rd := readyz(t, h)
	if _, ok := rd.Checks["slack_socket"]; ok {
		t.Error("/readyz checks a socket in HTTP-only mode")
	}
	if rd.Checks["prices"].Detail == "" {
		t.Error("/readyz says nothing about prices before the first refresh")
	}
}

// brokenDB fails every health query with an error naming the database's
// absolute path, as SQLite's errors do.
type brokenDB struct{}

var errBrokenDB = errors.New("unable to open database file: /srv/fitbot/secret-team/fitbot.db: permission denied")

func (brokenDB) Ping(context.Context) error { return errBrokenDB }
func (brokenDB) ProviderHealth(context.Context) ([]store.ProviderHealth, error) {
	return nil, errBrokenDB
}

// TestReadyzQuotesNoError: /readyz may be on the public listener, so a
// failing database is reported without its error (and its path); the
// error is in the log.
func TestReadyzQuotesNoError(t *testing.T) {
	var logged bytes.Buffer
	h := &health{db: brokenDB{}, metrics: bot.NewMetrics(), now: time.Now, log: slog.New(slog.NewTextHandler(&logged, nil))}
	mux := http.NewServeMux()
	h.register(mux)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "/srv/fitbot") || strings.Contains(w.Body.String(), "permission denied") {
		t.Errorf("/readyz = %d %s, want 503 without the database's error", w.Code, w.Body.String())
	}
	if !strings.Contains(logged.String(), "permission denied") {
		t.Errorf("the log %q lacks the error", logged.String())
	}
}
