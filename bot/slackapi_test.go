package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// newTestWebAPI points a WebAPI at a fake Slack whose chat.postMessage is
// rec, and records the waits instead of sleeping them.
func newTestWebAPI(t *testing.T, rec *postRecorder, m *Metrics) (*WebAPI, *[]time.Duration) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/chat.postMessage", rec)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	api := NewSlackClient("xoxb-test-bot-token", "", srv.URL+"/api", srv.Client()) // no trailing slash: NewSlackClient adds it
	w, err := NewWebAPI(WebAPIConfig{API: api, Metrics: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	w.sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	return w, &waits
}

func TestWebAPIPostRetries(t *testing.T) {
	rateLimited := scriptedReply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "2"}, file: "chat_postMessage_ratelimited.json"}
	unavailable := scriptedReply{status: http.StatusServiceUnavailable}
	notFound := scriptedReply{status: http.StatusOK, file: "chat_postMessage_channel_not_found.json"}
	tests := []struct {
		name      string
		script    []scriptedReply
		wantErr   string
		wantCalls int
		wantWaits []time.Duration
		wantRate  float64 // fitbot_slack_rate_limited_total
	}{
		{"ok at once", []scriptedReply{replyOK}, "", 1, nil, 0},
		{"429 then 200 waits Retry-After", []scriptedReply{rateLimited, replyOK}, "", 2, []time.Duration{2 * time.Second}, 1},
		{"5xx backs off 1s, 2s", []scriptedReply{unavailable, unavailable, replyOK}, "", 3, []time.Duration{time.Second, 2 * time.Second}, 0},
		{"gives up after 3 retries", []scriptedReply{unavailable}, "503", 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, 0},
		{"channel_not_found is not retried", []scriptedReply{notFound}, "channel_not_found", 1, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newPostRecorder(tt.script...)
			m := NewMetrics()
			w, waits := newTestWebAPI(t, rec, m)
			ts, err := w.Post(context.Background(), "C0FITBOT", "1764464400.000200", Message{Text: "Fits"})
			if tt.wantErr == "" && (err != nil || ts != "1764464401.000300") {
				t.Fatalf("Post = %q, %v; want the posted ts", ts, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Post error = %v, want one saying %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "xoxb-") {
				t.Errorf("error %q carries the bot token", err)
			}
			if got := rec.calls(); got != tt.wantCalls {
				t.Errorf("chat.postMessage called %d times, want %d", got, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, *waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got := testutil.ToFloat64(m.slackRateLimits.WithLabelValues("chat.postMessage")); got != tt.wantRate {
				t.Errorf("rate-limited counter = %v, want %v", got, tt.wantRate)
			}
			for _, p := range rec.posted() {
				if p.Channel != "C0FITBOT" || p.ThreadTS != "1764464400.000200" || p.Text != "Fits" {
					t.Errorf("posted %+v, want channel C0FITBOT in thread 1764464400.000200", p)
				}
			}
			for _, a := range rec.auth {
				if a != "xoxb-test-bot-token" {
					t.Errorf("token = %q, want the bot token", a)
				}
			}
		})
	}
}

// TestWebAPIRefusesLongWaits gives up at once when Slack asks for a wait
// longer than fitbot accepts, instead of holding an answer for minutes.
func TestWebAPIRefusesLongWaits(t *testing.T) {
	rec := newPostRecorder(scriptedReply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "120"}})
	w, waits := newTestWebAPI(t, rec, nil)
	if _, err := w.Post(context.Background(), "C0FITBOT", "", Message{Text: "x"}); err == nil {
		t.Fatal("Post succeeded against a 429 asking for 120 s")
	}
	if len(*waits) != 0 || rec.calls() != 1 {
		t.Errorf("waited %v over %d calls, want no wait and one call", *waits, rec.calls())
	}
}
