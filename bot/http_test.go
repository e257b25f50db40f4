package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

const testSecret = "e2e-test-signing-secret"

// testServer is the HTTP endpoints over a test handler, on a mux as fitbot serve mounts them.
type testServer struct {
	mux    *http.ServeMux
	events *recordingEvents
	logs   *strings.Builder
}

func newTestServer(t *testing.T, h *Handler) *testServer {
	t.Helper()
	s := &testServer{mux: http.NewServeMux(), events: &recordingEvents{}, logs: &strings.Builder{}}
	srv, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Events: s.events,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: s.logs}, nil)), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	srv.Register(s.mux)
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recordingEvents is an EventHandler that keeps what it was handed.
type recordingEvents struct {
	mu     sync.Mutex
	events []slackevents.EventsAPIEvent
	panics bool
}

func (r *recordingEvents) HandleEvent(_ context.Context, ev slackevents.EventsAPIEvent) {
	if r.panics {
		panic("event handler bug")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

// do sends body to path signed at the given time, as Slack does.
func (s *testServer) do(path, contentType string, body []byte, at time.Time, tamper func(*http.Request)) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	ts := strconv.FormatInt(at.Unix(), 10)
	req.Header.Set(headerTimestamp, ts)
	req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, body))
	if tamper != nil {
		tamper(req)
	}
	w := httptest.NewRecorder()
	s.mux.ServeHTTP(w, req)
	return w
}

const formType = "application/x-www-form-urlencoded"

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/slack/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSlashCommandEndpoint(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	form := readTestdata(t, "slash_command.form")
	w := s.do("/slack/commands", formType, form, testNow, nil)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q; body %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	// One write with its length, not a chunked body.
	if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(w.Body.Len()) {
		t.Errorf("Content-Length %q, body %d bytes", cl, w.Body.Len())
	}
	var got postedMessage
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.ResponseType != "ephemeral" || !strings.HasPrefix(got.Text, "✅ Fits: Llama 3.1 8B QLoRA") || len(got.Blocks) == 0 {
		t.Errorf("answer = %+v, want the ephemeral Block Kit answer", got)
	}
}

func TestEndpointsRefuseUnsignedRequests(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	form := readTestdata(t, "slash_command.form")
	tests := []struct {
		name   string
		at     time.Time
		body   []byte
		tamper func(*http.Request)
		want   int
		reason string
	}{
		{"stale timestamp", testNow.Add(-6 * time.Minute), form, nil, http.StatusUnauthorized, ErrStaleTimestamp.Error()},
		{"future timestamp", testNow.Add(6 * time.Minute), form, nil, http.StatusUnauthorized, ErrStaleTimestamp.Error()},
		{"tampered body", testNow, form, func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(strings.Replace(string(form), "rtx-4090", "rtx-3090", 1)))
		}, http.StatusUnauthorized, ErrBadSignature.Error()},
		{"wrong version prefix", testNow, form, func(r *http.Request) {
			r.Header.Set(headerSignature, "v1"+r.Header.Get(headerSignature)[2:])
		}, http.StatusUnauthorized, ErrBadSignature.Error()},
		{"missing headers", testNow, form, func(r *http.Request) {
			r.Header.Del(headerSignature)
			r.Header.Del(headerTimestamp)
		}, http.StatusUnauthorized, ErrMissingSignature.Error()},
		{"signed with another secret", testNow, form, func(r *http.Request) {
			ts := r.Header.Get(headerTimestamp)
			r.Header.Set(headerSignature, ComputeSignature("not-the-secret", ts, form))
		}, http.StatusUnauthorized, ErrBadSignature.Error()},
		{"over 1 MiB", testNow, append(append([]byte{}, form...), []byte("&pad="+strings.Repeat("x", maxBodyBytes))...), nil, http.StatusRequestEntityTooLarge, "over 1 MiB"},
	}
	for _, tt := range tests {
		for _, path := range []string{"/slack/commands", "/slack/events", "/slack/interactions"} {
			t.Run(tt.name+path, func(t *testing.T) {
				s.logs.Reset()
				w := s.do(path, formType, tt.body, tt.at, tt.tamper)
				if w.Code != tt.want {
					t.Errorf("status = %d, want %d", w.Code, tt.want)
				}
				if body := w.Body.String(); strings.Contains(body, "signature") || strings.Contains(body, "timestamp") {
					t.Errorf("response leaks the reason: %q", body)
				}
				logs := s.logs.String()
				if !strings.Contains(logs, tt.reason) {
					t.Errorf("log lacks the reason %q:\n%s", tt.reason, logs)
				}
				if strings.Contains(logs, testSecret) {
					t.Errorf("log contains the signing secret:\n%s", logs)
				}
			})
		}
	}
}

func TestReplayWithinWindowAccepted(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	form := readTestdata(t, "slash_command.form")
	signedAt := testNow.Add(-4 * time.Minute)
	for i := range 2 {
		if w := s.do("/slack/commands", formType, form, signedAt, nil); w.Code != http.StatusOK {
			t.Errorf("delivery %d: status %d, want 200 (Slack's retries carry the same signature)", i+1, w.Code)
		}
	}
}

func TestSlashCommandBadBodies(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	tests := []struct {
		name string
		body string
		code int
		want string
	}{
		{"missing user_id", "team_id=T1&command=%2Ffit&text=help", http.StatusOK, "without user_id"},
		{"missing team_id", "user_id=U1&command=%2Ffit&text=help", http.StatusOK, "without team_id"},
		{"empty form", "", http.StatusOK, "without team_id"},
		{"not a form", "%zz%", http.StatusBadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := s.do("/slack/commands", formType, []byte(tt.body), testNow, nil)
			if w.Code != tt.code || !strings.Contains(w.Body.String(), tt.want) {
				t.Errorf("status %d body %q, want %d with %q", w.Code, w.Body, tt.code, tt.want)
			}
		})
	}
}

func TestEventsEndpoint(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	const jsonType = "application/json"

	w := s.do("/slack/events", jsonType, readTestdata(t, "url_verification.json"), testNow, nil)
	if w.Code != http.StatusOK || w.Body.String() != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" || w.Header().Get("Content-Type") != "text/plain" {
		t.Errorf("url_verification: %d %q %q, want the challenge as text/plain", w.Code, w.Header().Get("Content-Type"), w.Body)
	}

	w = s.do("/slack/events", jsonType, readTestdata(t, "app_mention.json"), testNow, nil)
	if w.Code != http.StatusOK {
		t.Errorf("event_callback: status %d, want 200", w.Code)
	}
	if len(s.events.events) != 1 {
		t.Fatalf("event handler got %d events, want 1", len(s.events.events))
	}
	cb, ok := s.events.events[0].Data.(*slackevents.EventsAPICallbackEvent)
	if !ok || cb.EventID != "Ev0FITBOT01" || s.events.events[0].InnerEvent.Type != "app_mention" {
		t.Errorf("event handed on = %+v, want the app_mention Ev0FITBOT01", s.events.events[0])
	}

	if w := s.do("/slack/events", jsonType, readTestdata(t, "app_rate_limited.json"), testNow, nil); w.Code != http.StatusOK {
		t.Errorf("app_rate_limited: status %d, want 200", w.Code)
	}
	if w := s.do("/slack/events", jsonType, []byte(`{"type":"some_future_kind","token":"x"}`), testNow, nil); w.Code != http.StatusOK {
		t.Errorf("unknown kind: status %d, want 200", w.Code)
	}
	for _, garbage := range []string{"not json", `{"no":"type"}`, ""} {
		if w := s.do("/slack/events", jsonType, []byte(garbage), testNow, nil); w.Code != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", garbage, w.Code)
		}
	}
}

func TestPanicsBecomeApologies(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	s.events.panics = true
	w := s.do("/slack/events", "application/json", readTestdata(t, "app_mention.json"), testNow, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Sorry") {
		t.Errorf("panicking event handler: %d %q, want 200 and an apology", w.Code, w.Body)
	}
	if !strings.Contains(s.logs.String(), "event handler bug") {
		t.Errorf("the panic was not logged:\n%s", s.logs)
	}
	form := url.Values{"team_id": {"T1"}, "user_id": {"U1"}, "command": {"/fit"}, "text": {"panic"}}.Encode()
	w = s.do("/slack/commands", formType, []byte(form), testNow, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Sorry") {
		t.Errorf("panicking estimator: %d %q, want 200 and an apology", w.Code, w.Body)
	}
}

// interactionForm is the recorded block_actions payload with the button and URL filled in.
func interactionForm(t *testing.T, action, value, responseURL string) []byte {
	t.Helper()
	payload := strings.NewReplacer("ACTION_ID", action, "ACTION_VALUE", value, "RESPONSE_URL", responseURL).
		Replace(string(readTestdata(t, "block_actions.json")))
	return []byte(url.Values{"payload": {payload}}.Encode())
}

func TestInteractions(t *testing.T) {
	tests := []struct {
		name   string
		action string
		value  string
		want   func(t *testing.T, posted []postedMessage)
	}{
		{"share posts in channel and deletes the private answer", ActionShare, "plan:1", func(t *testing.T, p []postedMessage) {
			if len(p) != 2 {
				t.Fatalf("posted %d messages, want 2", len(p))
			}
			if p[0].ResponseType != slack.ResponseTypeInChannel || p[0].ReplaceOriginal || p[0].DeleteOriginal || !strings.Contains(p[0].Text, "✅ Fits") {
				t.Errorf("first post %+v, want the answer in_channel as a new message", p[0])
			}
			raw := string(mustJSON(t, p[0].Blocks))
			for _, private := range []string{ActionShare, ActionDetails, ActionReprice} {
				if strings.Contains(raw, private) {
					t.Errorf("shared answer keeps the private button %s: %s", private, raw)
				}
			}
			if !strings.Contains(raw, ActionLaunch) || !strings.Contains(raw, "Shared by") {
				t.Errorf("shared answer lacks the Launch config button or who shared it: %s", raw)
			}
			if !p[1].DeleteOriginal {
				t.Errorf("second post %+v, want delete_original", p[1])
			}
		}},
		{"details replace the answer", ActionDetails, "q:llama-3.1-8b qlora rtx-4090", func(t *testing.T, p []postedMessage) {
			if len(p) != 1 || !p[0].ReplaceOriginal || !strings.Contains(string(mustJSON(t, p[0].Blocks)), "Request as resolved") {
				t.Errorf("posted %+v, want one replacement with the resolved request", p)
			}
		}},
		{"re-price replaces the answer", ActionReprice, "plan:1", func(t *testing.T, p []postedMessage) {
			if len(p) != 1 || !p[0].ReplaceOriginal || !strings.Contains(string(mustJSON(t, p[0].Blocks)), "re-answered today") {
				t.Errorf("posted %+v, want one replacement re-answering plan 1", p)
			}
		}},
		{"a forged value is only re-parsed", ActionReprice, "q:<!channel> drop table plans", func(t *testing.T, p []postedMessage) {
			if len(p) != 1 || !strings.Contains(p[0].Text, "I couldn't use that") || p[0].ResponseType != slack.ResponseTypeEphemeral {
				t.Errorf("posted %+v, want a private error", p)
			}
		}},
		{"a plan that does not exist", ActionShare, "plan:99", func(t *testing.T, p []postedMessage) {
			if len(p) != 1 || !strings.Contains(p[0].Text, "no plan #99") || p[0].ResponseType != slack.ResponseTypeEphemeral {
				t.Errorf("posted %+v, want a private note", p)
			}
		}},
		{"a value of no known kind", ActionShare, "rm -rf", func(t *testing.T, p []postedMessage) {
			if len(p) != 1 || !strings.Contains(p[0].Text, "no longer points") {
				t.Errorf("posted %+v, want a private note", p)
			}
		}},
		{"an unknown action is ignored", "fit_launch_missiles", "plan:1", func(t *testing.T, p []postedMessage) {
			if len(p) != 0 {
				t.Errorf("posted %+v, want nothing", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans := &fakePlans{}
			h := newTestHandler(t, func(c *Config) { c.Plans = plans })
			h.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090"))
			h.Wait()
			s := newTestServer(t, h)
			rurl := newResponseURL(t)
			w := s.do("/slack/interactions", formType, interactionForm(t, tt.action, tt.value, rurl.URL+"/actions/T1/1/x"), testNow, nil)
			if w.Code != http.StatusOK || w.Body.Len() != 0 {
				t.Errorf("ack: %d %q, want an empty 200", w.Code, w.Body)
			}
			h.Wait()
			tt.want(t, rurl.posted(t))
		})
	}
}

func TestInteractionGarbage(t *testing.T) {
	s := newTestServer(t, newTestHandler(t, nil))
	for _, body := range []string{"payload=not-json", "nothing=here"} {
		if w := s.do("/slack/interactions", formType, []byte(body), testNow, nil); w.Code != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", body, w.Code)
		}
	}
}

func TestNewHTTPNeedsSecret(t *testing.T) {
	if _, err := NewHTTP(HTTPConfig{Handler: newTestHandler(t, nil)}); err == nil {
		t.Error("NewHTTP without a signing secret: nil error")
	}
}

func TestResponseURLPosterHidesTheURL(t *testing.T) {
	rurl := newResponseURL(t)
	rurl.Close()
	err := NewResponseURLPoster(http.DefaultClient).Respond(context.Background(), rurl.URL+"/commands/T1/secret-token", ephemeral("x"))
	if err == nil || strings.Contains(err.Error(), "secret-token") {
		t.Errorf("Respond to a closed server = %v; want an error without the URL", err)
	}
}
