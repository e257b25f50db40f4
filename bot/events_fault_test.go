package bot

import (
	"bytes"
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
	"github.com/fitbot/fitbot/llm"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// postSignedAt posts body to a live test server, signed at now, with
// extra headers.
func postSignedAt(t *testing.T, base, path, contentType string, body []byte, now time.Time, extra map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set(headerTimestamp, ts)
	req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, body))
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestMentionThroughSlackAPIFaults delivers a mention over real HTTP
// while Slack's Web API answers chat.postMessage with 429, then 500,
// then 200, and Slack redelivers the event twice meanwhile (its retries
// carry the same event_id): the answer is posted once, after the
// retries, and never twice.
func TestMentionThroughSlackAPIFaults(t *testing.T) {
	f := newEventsFixture(t, nil)
	rateLimited := scriptedReply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "1"}, file: "chat_postMessage_ratelimited.json"}
	rec := newPostRecorder(rateLimited, scriptedReply{status: http.StatusInternalServerError}, replyOK)
	api, waits := newTestWebAPI(t, rec, f.metrics)
	f.events = f.newEvents(t, api)
	endpoints, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: f.h, Events: f.events,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	endpoints.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	body := readTestdata(t, "app_mention.json")
	for retry := range 3 {
		extra := map[string]string{}
		if retry > 0 {
			extra = map[string]string{"X-Slack-Retry-Num": strconv.Itoa(retry), "X-Slack-Retry-Reason": "http_timeout"}
		}
		if code := postSignedAt(t, srv.URL, "/slack/events", "application/json", body, testNow, extra); code != http.StatusOK {
			t.Fatalf("delivery %d: status %d, want 200", retry, code)
		}
	}
	f.h.Wait()
	if got := rec.calls(); got != 3 {
		t.Errorf("chat.postMessage called %d times, want 3 (429, 500, then the post)", got)
	}
	if len(*waits) != 2 || (*waits)[0] != time.Second {
		t.Errorf("waits %v, want Retry-After's 1s then a back-off", *waits)
	}
	posted := rec.posted()
	texts := map[string]bool{}
	for _, p := range posted {
		texts[p.Text] = true
	}
	if len(texts) != 1 {
		t.Errorf("posted %d different answers for one mention, want the same one each try: %+v", len(texts), posted)
	}
}

// hangingModel is an OpenAI-compatible server that never answers until
// the client gives up.
func hangingModel(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a client leaving only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLanguageModelTimeoutOverHTTP sends a question the grammar cannot
// read while the language model hangs: the acknowledgement comes at
// once, and, since the text has nothing to size and the model could not
// help, the help (never an error) replaces it through response_url after
// the model's timeout.
func TestLanguageModelTimeoutOverHTTP(t *testing.T) {
	model := hangingModel(t)
	rurl := newResponseURL(t)
	h, err := New(Config{
		Parse:           reading.Parse,
		Answer:          Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}},
		Ask:             Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}},
		Respond:         NewResponseURLPoster(rurl.Client()),
		ModelReader:     hangingReader(t, model),
		Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
		FollowUpTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	endpoints.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	form := url.Values{"team_id": {"T1"}, "channel_id": {"C1"}, "user_id": {"U1"}, "command": {"/fit"},
		"text": {"can we handle the new checkpoint"}, "response_url": {rurl.URL + "/r"}}.Encode()
	start := time.Now()
	if code := postSignedAt(t, srv.URL, "/slack/commands", formType, []byte(form), testNow, nil); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("the acknowledgement took %v; it must not wait for the model", d)
	}
	h.Wait()
	posted := rurl.posted(t)
	if len(posted) != 1 || !posted[0].ReplaceOriginal || strings.Contains(posted[0].Text, "Sorry") || posted[0].Text == "" {
		t.Fatalf("posted %+v, want one replacement carrying the help", posted)
	}
	if want := notASizingQuestion(true).Text + " (The language model was unavailable.)"; posted[0].Text != want {
		t.Errorf("posted %q, want the help %q", posted[0].Text, want)
	}
	blocks := string(mustJSON(t, posted[0].Blocks))
	if !strings.Contains(blocks, "The language model was unavailable") || strings.Contains(blocks, "OPENAI_API_KEY") {
		t.Errorf("the help after a model timeout does not say the model was unavailable, or asks to configure it:\n%s", blocks)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the fallback message came after %v; the model's timeout is 300ms", d)
	}
}

// hangingReader is llm's reader of fitbot's request pointed at model,
// with a 300 ms timeout.
func hangingReader(t *testing.T, model *httptest.Server) answer.ModelReader {
	t.Helper()
	r, err := llm.NewRequestReader(llm.New(llm.Config{BaseURL: model.URL + "/v1", APIKey: "sk-test", Timeout: 300 * time.Millisecond}, model.Client(), nil))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
