package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// discardResponder is a Responder that never leaves the process: a
// fuzzed payload may name any response_url.
type discardResponder struct{}

func (discardResponder) Respond(context.Context, string, Message) error { return nil }

// iterationLog is a log that one fuzz iteration reads and empties, so
// that what an input logged is checked against that input alone.
type iterationLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *iterationLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns what was logged since the last take and empties the log.
func (l *iterationLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

// hostileServer is the HTTP endpoints over the real parser and
// estimator, with no store and no network, for the body fuzzers.
func hostileServer(f *testing.F) (*http.ServeMux, *Handler, *iterationLog) {
	logs := &iterationLog{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	h, err := New(Config{Parse: reading.Parse, Answer: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}, Ask: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}},
		Respond: discardResponder{}, Logger: log, FollowUpTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(h.Wait)
	srv, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Events: &recordingEvents{}, Logger: log,
		Now: func() time.Time { return testNow }})
	if err != nil {
		f.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	return mux, h, logs
}

// fuzzEndpoint posts body, correctly signed, to path and checks the
// properties every endpoint keeps whatever the body: no panic, no 500 or
// other status Slack would show as an error beyond 400 and 413, and a
// 200 from /slack/commands is a Slack message.
func fuzzEndpoint(f *testing.F, path, contentType string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	mux, h, logs := hostileServer(f)
	// The fuzzer runs an input more than once; the same signed request
	// again within Slack's window is a replay, answered with an empty 200.
	var mu sync.Mutex
	sent := map[string]bool{}
	f.Fuzz(func(t *testing.T, body []byte) {
		logs.take() // what earlier inputs logged is theirs
		ts := strconv.FormatInt(testNow.Unix(), 10)
		sig := ComputeSignature(testSecret, ts, body)
		mu.Lock()
		replay := sent[sig]
		sent[sig] = true
		mu.Unlock()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set(headerTimestamp, ts)
		req.Header.Set(headerSignature, sig)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("%s %q: status %d", path, body, w.Code)
		}
		h.Wait() // this input's background answer, if any, has finished
		if logged := logs.take(); strings.Contains(logged, "panic") {
			t.Fatalf("%s %q: a panic was recovered:\n%s", path, body, logged)
		}
		if replay && w.Code == http.StatusOK && w.Body.Len() == 0 {
			return
		}
		if path == "/slack/commands" && w.Code == http.StatusOK {
			var msg struct {
				ResponseType string `json:"response_type"`
				Text         string `json:"text"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &msg); err != nil || msg.ResponseType == "" || msg.Text == "" {
				t.Fatalf("%q: 200 reply is not a Slack message: %s", body, w.Body)
			}
		}
	})
}

// FuzzSlashForm fuzzes the raw form body of /slack/commands.
func FuzzSlashForm(f *testing.F) {
	fuzzEndpoint(f, "/slack/commands", formType,
		readTestdataTB(f, "slash_command.form"),
		[]byte("team_id=T1&user_id=U1&command=%2Ffit&text=70b+qlora+2x4090"),
		[]byte("team_id=T1&user_id=U1&command=%2Ffit&text=%ff%fe&text=again"),
		[]byte("%zz%"), []byte(""), []byte("a=b;c=d&&&=="))
}

// FuzzEventBody fuzzes the JSON body of /slack/events.
func FuzzEventBody(f *testing.F) {
	fuzzEndpoint(f, "/slack/events", "application/json",
		readTestdataTB(f, "app_mention.json"), readTestdataTB(f, "url_verification.json"),
		readTestdataTB(f, "message_im.json"), readTestdataTB(f, "app_rate_limited.json"),
		[]byte(`{"type":"event_callback","event":{"type":"app_mention","text":null}}`),
		[]byte(`{"type":"url_verification"}`), []byte(`[]`), []byte(`{"type":1}`))
}

// FuzzInteractionBody fuzzes the form body (payload=JSON) of /slack/interactions.
func FuzzInteractionBody(f *testing.F) {
	payload := strings.NewReplacer("ACTION_ID", ActionDetails, "ACTION_VALUE", "q:llama-3.1-8b qlora rtx-4090",
		"RESPONSE_URL", "http://127.0.0.1:1/r").Replace(string(readTestdataTB(f, "block_actions.json")))
	fuzzEndpoint(f, "/slack/interactions", formType,
		[]byte("payload="+url.QueryEscape(payload)),
		[]byte(`payload={"type":"block_actions","actions":[null]}`),
		[]byte(`payload={"type":"view_submission"}`), []byte("payload="), []byte("payload=%7B"))
}

// readTestdataTB reads testdata/slack/name for a test or a fuzz target.
func readTestdataTB(tb testing.TB, name string) []byte {
	tb.Helper()
	f, err := http.Dir("testdata/slack").Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
