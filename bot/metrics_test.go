package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestOutcomeOf: the replies the real constructors and the handler build
// carry their outcome, whatever their words (an other-way-round answer,
// which has no buttons, is an answer too).
func TestOutcomeOf(t *testing.T) {
	h := newTestHandler(t, func(c *Config) {
		c.ModelReader = fakeReader{}
		c.Policy = Policy{AllowedTeams: []string{"T1"}, PerUserPerMinute: 1}
	})
	cmd := func(team, user, text string) Message {
		c := slash(text)
		c.TeamID, c.UserID, c.ResponseURL = team, user, "https://hooks.slack.invalid/commands/1"
		return h.Command(context.Background(), c)
	}
	parsed, err := reading.Parse("largest model lora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	largest, err := (&sizing.Estimator{Prices: pricing.DefaultSheet()}).Ask(parsed.Query, parsed.Intent, parsed.Workload)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"answer", cmd("T1", "U1", "llama-3.1-8b qlora rtx-4090"), OutcomeAnswered},
		{"rate limited", cmd("T1", "U1", "llama-3.1-8b qlora rtx-4090"), OutcomeRateLimited},
		{"other-way-round answer", askMessage(largest, time.Now()), OutcomeAnswered},
		{"no plan store", cmd("T1", "U5", "plan 99"), OutcomeOther},
		{"not understood", errorMessage("no model", "13B lora 4090"), OutcomeNotUnderstood},
		{"interpreting", cmd("T1", "U2", "can we tune the big one on our box"), OutcomeInterpreting},
		{"refused", cmd("T9", "U3", "llama-3.1-8b qlora rtx-4090"), OutcomeRefused},
		{"apology", apology(), OutcomeError},
		{"help", helpMessage(false), OutcomeOther},
	}
	for _, tt := range tests {
		if got := outcomeOf(tt.msg); got != tt.want {
			t.Errorf("%s: outcomeOf = %s, want %s (text %q)", tt.name, got, tt.want, tt.msg.Text)
		}
	}
}

// TestNilMetrics records into a nil *Metrics: nothing happens, nothing panics.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.Question(KindSlash, OutcomeAnswered, time.Second)
	m.LLMCall(errors.New("x"))
	m.RefreshRun("runpod", "ok")
	m.PriceAge("runpod", time.Hour)
	m.UnknownGPUs("runpod", map[string]int{"RTX 4060": 2})
	m.DigestPosted("posted")
	m.SlackAPIError("chat.postMessage", "server")
	m.Event("taken")
	m.SocketConnected(true)
	m.PlanBatch(3)
	if m.Registry() != nil {
		t.Error("nil Metrics has a registry")
	}
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != 404 {
		t.Errorf("nil Metrics handler status %d, want 404", w.Code)
	}
}

// TestMetricsExposition records one of everything and reads the text
// format back, as Prometheus scrapes it.
func TestMetricsExposition(t *testing.T) {
	m := NewMetrics()
	m.Question(KindMention, OutcomeAnswered, 150*time.Millisecond)
	m.LLMCall(nil)
	m.LLMCall(&answer.NotUnderstood{QuestionBack: "which GPU?"})
	m.LLMCall(fmt.Errorf("interpret: %w", context.DeadlineExceeded))
	m.RefreshRun("runpod", "failed")
	m.PriceAge("runpod", 90*time.Minute)
	m.UnknownGPUs("gpuhunt:lambdalabs", map[string]int{"A6000": 3, "GH200": 1})
	m.UnknownGPUs("gpuhunt:lambdalabs", map[string]int{"A6000": 2}) // the next refresh: GH200 now maps
	m.DigestPosted("posted")
	m.SlackAPIError("chat.postMessage", "rate_limited")
	m.Event("duplicate")
	m.SocketConnected(true)
	m.PlanBatch(12)
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(w.Result().Body)
	for _, want := range []string{
		`fitbot_questions_total{kind="mention",outcome="answered"} 1`,
		`fitbot_answer_seconds_bucket{kind="mention",le="0.25"} 1`,
		`fitbot_llm_calls_total{outcome="ok"} 1`,
		`fitbot_llm_calls_total{outcome="not_understood"} 1`,
		`fitbot_llm_failures_total{reason="timeout"} 1`,
		`fitbot_price_refresh_runs_total{provider="runpod",status="failed"} 1`,
		`fitbot_price_age_seconds{provider="runpod"} 5400`,
		`fitbot_price_unknown_gpu_rows{gpu="A6000",provider="gpuhunt:lambdalabs"} 2`,
		`fitbot_digests_posted_total{outcome="posted"} 1`,
		`fitbot_slack_api_errors_total{kind="rate_limited",method="chat.postMessage"} 1`,
		`fitbot_slack_rate_limited_total{method="chat.postMessage"} 1`,
		`fitbot_slack_events_total{outcome="duplicate"} 1`,
		`fitbot_slack_socket_connected 1`,
		`fitbot_plan_batch_rows_bucket{le="8"} 0`,
		`fitbot_plan_batch_rows_bucket{le="16"} 1`,
		`fitbot_plan_batch_rows_sum 12`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want+"\n") && !strings.Contains(string(body), want+" ") {
			t.Errorf("exposition lacks %s", want)
		}
	}
	if strings.Contains(string(body), `gpu="GH200"`) {
		t.Error("a GPU name of an earlier refresh is still exposed")
	}
}

func TestNewRequestID(t *testing.T) {
	a, b := NewRequestID(), NewRequestID()
	if len(a) != 16 || a == b {
		t.Errorf("NewRequestID = %q, %q; want two different 16-digit ids", a, b)
	}
}

// TestHTTPSlashObserved checks that a slash command over the HTTP
// endpoint is counted and logged as a question, with a request id.
func TestHTTPSlashObserved(t *testing.T) {
	h := newTestHandler(t, nil)
	m := NewMetrics()
	var logs strings.Builder
	srv, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Metrics: m, Now: func() time.Time { return testNow },
		Logger: slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	body := []byte(url.Values{"team_id": {"T1"}, "channel_id": {"C1"}, "user_id": {"U1"}, "command": {"/fit"},
		"text": {"llama-3.1-8b qlora rtx-4090"}}.Encode())
	req := httptest.NewRequest(http.MethodPost, "/slack/commands", bytes.NewReader(body))
	ts := strconv.FormatInt(testNow.Unix(), 10)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(headerTimestamp, ts)
	req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, body))
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if got := testutil.ToFloat64(m.questions.WithLabelValues(KindSlash, OutcomeAnswered)); got != 1 {
		t.Errorf("questions{slash, answered} = %v, want 1", got)
	}
	if !strings.Contains(logs.String(), `"msg":"question","kind":"slash","outcome":"answered"`) || !strings.Contains(logs.String(), `"request_id":"`) {
		t.Errorf("no question line with a request id in the log:\n%s", logs.String())
	}
}

// TestSlashQuestionBack: over a slash command, a model that finds no
// sizing question asks its question back through the response_url.
func TestSlashQuestionBack(t *testing.T) {
	rurl := newResponseURL(t)
	h := newTestHandler(t, func(c *Config) {
		c.ModelReader = fakeReader{err: &answer.NotUnderstood{QuestionBack: "Which model, and on which GPU?"}}
	})
	c := slash("can we tune the big one on our box")
	c.ResponseURL = rurl.URL
	if msg := h.Command(context.Background(), c); outcomeOf(msg) != OutcomeInterpreting {
		t.Fatalf("ack = %q, want the interpreting ack", msg.Text)
	}
	h.Wait()
	got := rurl.posted(t)
	if len(got) != 1 || !strings.Contains(got[0].Text, "Which model, and on which GPU?") || !got[0].ReplaceOriginal {
		t.Errorf("response_url got %+v, want the model's question back replacing the ack", got)
	}
}
