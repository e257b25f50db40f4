package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack/slacktest"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
)

// Fake credentials the serve tests run with; TestServeNeverLogsSecrets
// looks for each of them in everything serve printed.
const (
	fakeBotToken = "xoxb-1111111111-2222222222-fAkEbOtToKeNfOrTeStS"
	fakeAppToken = "xapp-1-A0FITBOT-3333333333-fakeapptokenforthetests"
	fakeSigning  = "8f742231b10e8888abcd99fakesigning"
	fakeOpenAI   = "sk-test-fakeopenaikey0123456789abcdef"
	fakeGCPKey   = "AIzaSyFAKE-gcp-key-for-the-serve-tests"
)

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually polls cond for up to ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitStopping waits until serve has begun to stop (it logs so), then
// checks that it has not exited: work in flight holds it.
func (r *serveRun) waitStopping(t *testing.T) {
	t.Helper()
	eventually(t, "serve to begin stopping", func() bool { return strings.Contains(r.stderr.String(), `"msg":"fitbot: stopping"`) })
	select {
	case code := <-r.done:
		t.Fatalf("serve exited %d with work in flight", code)
	default:
	}
}

// readSlackTestdata reads one of bot's recorded Slack replies.
func readSlackTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "bot", "testdata", "slack", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readServeTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "serve", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeSlack is slack-go's fake Slack with the calls serve makes that it
// does not answer usefully replaced: auth.test (the bot's own ids) and a
// recording chat.postMessage.
type fakeSlack struct {
	*slacktest.Server
	mu      sync.Mutex
	posts   []url.Values
	uploads int // pictures uploaded
}

func newFakeSlack(t *testing.T) *fakeSlack {
	t.Helper()
	f := &fakeSlack{}
	authTest := readServeTestdata(t, "auth_test.json")
	posted := readServeTestdata(t, "chat_postMessage_ok.json")
	getUpload := readSlackTestdata(t, "files_getUploadURLExternal_ok.json")
	completeUpload := readSlackTestdata(t, "files_completeUploadExternal_ok.json")
	f.Server = slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/auth.test", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(authTest)
		})
		c.Handle("/chat.postMessage", func(w http.ResponseWriter, r *http.Request) {
			r.ParseForm()
			f.mu.Lock()
			f.posts = append(f.posts, r.PostForm)
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write(posted)
		})
		// The picture upload: Slack's recorded replies (bot/testdata/slack,
		// FILES_SOURCES.md); the upload URL is on this server.
		c.Handle("/files.getUploadURLExternal", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(bytes.ReplaceAll(getUpload, []byte("UPLOAD_URL"), []byte("http://"+r.Host+"/upload/F0FITCHART1")))
		})
		c.Handle("/upload/F0FITCHART1", func(w http.ResponseWriter, r *http.Request) {
			n, _ := io.Copy(io.Discard, r.Body)
			f.mu.Lock()
			f.uploads++
			f.mu.Unlock()
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "OK - %d", n)
		})
		c.Handle("/files.completeUploadExternal", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(completeUpload)
		})
	})
	f.Start()
	t.Cleanup(f.Stop)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() { // the fake's websocket reader waits for someone to take each inbound message
		for {
			select {
			case <-f.SeenFeed:
			case <-done:
				return
			}
		}
	}()
	return f
}

// pictures is how many pictures were uploaded.
func (f *fakeSlack) pictures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uploads
}

// ackPayload waits for the acknowledgement of an envelope on the fake's websocket.
func (f *fakeSlack) ackPayload(t *testing.T, envelope string) string {
	t.Helper()
	var payload string
	eventually(t, "the ack of "+envelope, func() bool {
		for _, m := range f.GetSeenInboundMessages() {
			var ack struct {
				EnvelopeID string          `json:"envelope_id"`
				Payload    json.RawMessage `json:"payload"`
			}
			if json.Unmarshal([]byte(m), &ack) == nil && ack.EnvelopeID == envelope {
				payload = string(ack.Payload)
				return true
			}
		}
		return false
	})
	return payload
}

// serveRun is one `fitbot serve` running in the test.
type serveRun struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan int
	dbPath         string
}

// baseEnv is the environment every serve test starts from: a database in
// a fresh folder, the fake bot token, JSON logs, the health listener on a
// free port, and schedules that will not fire during a test.
func baseEnv(t *testing.T, slackURL string) map[string]string {
	return map[string]string{
		"FITBOT_DB":           filepath.Join(t.TempDir(), "fitbot.db"),
		"SLACK_BOT_TOKEN":     fakeBotToken,
		"SLACK_API_URL":       slackURL,
		"FITBOT_HEALTH_ADDR":  "127.0.0.1:0",
		"FITBOT_LOG_FORMAT":   "json",
		"FITBOT_REFRESH_CRON": "0 0 1 1 *",
		"FITBOT_DIGEST_CRON":  "CRON_TZ=UTC 0 9 1 1 *",
	}
}

func startServe(t *testing.T, env map[string]string, args ...string) *serveRun {
	t.Helper()
	r := &serveRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan int, 1), dbPath: env["FITBOT_DB"]}
	a := &app{stdout: r.stdout, stderr: r.stderr, env: environOf(env)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- a.serve(ctx, append([]string{}, args...)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return r
}

// addr waits for serve's "listening" log line of a listener and returns its address.
func (r *serveRun) addr(t *testing.T, listener string) string {
	t.Helper()
	var addr string
	eventually(t, listener+" listening", func() bool {
		select {
		case code := <-r.done:
			r.done <- code
			t.Fatalf("serve exited %d before listening; stderr:\n%s", code, r.stderr.String())
		default:
		}
		for _, line := range strings.Split(r.stderr.String(), "\n") {
			var l struct {
				Msg, Listener, Addr string
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "fitbot: listening" && l.Listener == listener {
				addr = l.Addr
				return true
			}
		}
		return false
	})
	return "http://" + addr
}

// stop sends the stop (SIGTERM's context cancel) and returns the exit code.
func (r *serveRun) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30s")
		return -1
	}
}

// signedSlash posts a slash command to serve's HTTP endpoint, signed now with the fake secret.
func signedSlash(t *testing.T, base, text, responseURL string) (int, string) {
	t.Helper()
	body := url.Values{
		"token": {"XXYYZZ"}, "team_id": {"T1DC2JH3J"}, "team_domain": {"fitbot-test"}, "channel_id": {"C0FITBOT"},
		"channel_name": {"ml-capacity"}, "user_id": {"U2CERLKJA"}, "user_name": {"roadrunner"}, "command": {"/fit"},
		"text": {text}, "response_url": {responseURL}, "trigger_id": {"398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"},
	}.Encode()
	return signedPost(t, base+"/slack/commands", "application/x-www-form-urlencoded", []byte(body))
}

// signedPost posts body to u signed now with the fake secret.
func signedPost(t *testing.T, u, contentType string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", bot.ComputeSignature(fakeSigning, ts, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// responseURL records what serve posts to a slash command's response_url.
type responseURL struct {
	*httptest.Server
	mu   sync.Mutex
	msgs []string
}

func newResponseURL(t *testing.T) *responseURL {
	r := &responseURL{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.msgs = append(r.msgs, string(b))
		r.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *responseURL) posted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// TestServeSocketModeMetrics runs serve in Socket Mode against the fake
// Slack: a slash command sent over the websocket is acknowledged with its
// answer, and the question shows in /metrics on the health listener.
func TestServeSocketModeMetrics(t *testing.T) {
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_APP_TOKEN"] = fakeAppToken
	env["FITBOT_DIGEST_CHANNEL"] = "C0PRICES"
	r := startServe(t, env)
	health := r.addr(t, "health")
	eventually(t, "socket connected", func() bool {
		code, _ := get(t, health+"/readyz")
		return code == http.StatusOK
	})
	_, before := get(t, health+"/metrics")
	const answered = `fitbot_questions_total{kind="slash",outcome="answered"} 1`
	if strings.Contains(before, answered) {
		t.Fatal("metrics count an answer before any question")
	}

	slack.SendToWebsocket(string(readServeTestdata(t, "socket_slash_command.json")))
	ack := slack.ackPayload(t, "5e0c7d1a-9b8f-4e3d-a2c1-0f9e8d7c6b5a")
	if !strings.Contains(ack, "RTX 4090") || !strings.Contains(ack, `"blocks"`) {
		t.Errorf("ack payload = %.300s, want the answer with blocks", ack)
	}
	eventually(t, "the question in /metrics", func() bool {
		_, m := get(t, health+"/metrics")
		return strings.Contains(m, answered)
	})
	_, m := get(t, health+"/metrics")
	for _, want := range []string{`fitbot_answer_seconds_count{kind="slash"} 1`, `fitbot_slack_socket_connected 1`, `fitbot_plan_batch_rows_sum 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The leader posts the digest due at start; with no prices yet there is
	// nothing to report, and the week stays open.
	eventually(t, "the digest run at start in /metrics", func() bool {
		_, m := get(t, health+"/metrics")
		return strings.Contains(m, `fitbot_digests_posted_total{outcome="skipped"} 1`)
	})
	if code := r.stop(t); code != exitOK {
		t.Errorf("serve exit code %d, want 0; stderr:\n%s", code, r.stderr.String())
	}
}

// TestServeShutdownFinishesRequest stops serve while a slash command is
// in flight (its body still arriving): the request completes with its
// answer, then serve exits 0 with the database checkpointed.
func TestServeShutdownFinishesRequest(t *testing.T) {
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base := r.addr(t, "http")

	body := []byte(url.Values{"team_id": {"T1DC2JH3J"}, "channel_id": {"C0FITBOT"}, "user_id": {"U2CERLKJA"},
		"command": {"/fit"}, "text": {"llama-3.1-8b qlora rtx-4090"}, "response_url": {"https://hooks.slack.com/commands/T1DC2JH3J/1/x"}}.Encode())
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, base+"/slack/commands", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", bot.ComputeSignature(fakeSigning, ts, body))
	type result struct {
		code int
		body string
		err  error
	}
	// Expect: 100-continue makes the server say when the handler starts
	// reading the body: the signal that the request is in flight.
	req.Header.Set("Expect", "100-continue")
	reading := make(chan struct{})
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(reading) }}))
	res := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			res <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		res <- result{code: resp.StatusCode, body: string(b)}
	}()
	select {
	case <-reading:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never read the body")
	}
	half := len(body) / 2
	if _, err := pw.Write(body[:half]); err != nil {
		t.Fatal(err)
	}
	r.cancel() // SIGTERM
	r.waitStopping(t)
	if _, err := pw.Write(body[half:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	got := <-res
	if got.err != nil || got.code != http.StatusOK || !strings.Contains(got.body, "Llama 3.1 8B") {
		t.Errorf("in-flight request = %d %.200s %v, want 200 and the answer", got.code, got.body, got.err)
	}
	if code := r.stop(t); code != exitOK {
		t.Errorf("serve exit code %d, want 0; stderr:\n%s", code, r.stderr.String())
	}
	if st, err := os.Stat(r.dbPath + "-wal"); err == nil && st.Size() != 0 {
		t.Errorf("the -wal file holds %d bytes after the stop, want it checkpointed", st.Size())
	}
	if !strings.Contains(r.stderr.String(), `"msg":"fitbot: stopped"`) {
		t.Errorf("no stopped line in the log:\n%s", r.stderr.String())
	}
}

// TestServeShutdownFinishesBackgroundAnswer stops serve while a DM is
// being answered in the background (the language model still thinking):
// the answer is posted in the thread, then serve exits 0.
func TestServeShutdownFinishesBackgroundAnswer(t *testing.T) {
	slack := newFakeSlack(t)
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	completion := readServeTestdata(t, "openai_structured.json")
	llmServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		w.Write(completion)
	}))
	defer llmServer.Close()

	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["OPENAI_BASE_URL"] = llmServer.URL + "/v1"
	env["OPENAI_API_KEY"] = fakeOpenAI
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base := r.addr(t, "http")

	if code, body := signedPost(t, base+"/slack/events", "application/json", readServeTestdata(t, "message_im_free_text.json")); code != http.StatusOK {
		t.Fatalf("event = %d %s, want 200", code, body)
	}
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatalf("the language model was never asked; stderr:\n%s", r.stderr.String())
	}
	r.cancel() // SIGTERM, with the answer in flight
	r.waitStopping(t)
	close(release)
	if code := r.stop(t); code != exitOK {
		t.Errorf("serve exit code %d, want 0; stderr:\n%s", code, r.stderr.String())
	}
	slack.mu.Lock()
	defer slack.mu.Unlock()
	if len(slack.posts) != 1 {
		t.Fatalf("%d posts, want the interpreted answer once", len(slack.posts))
	}
	p := slack.posts[0]
	if p.Get("channel") != "D0FITBOTDM" || p.Get("thread_ts") != "1764464500.000100" || !strings.Contains(p.Get("text"), "Llama 3 70B") {
		t.Errorf("posted channel %s thread %s text %q, want the answer in the DM's thread", p.Get("channel"), p.Get("thread_ts"), p.Get("text"))
	}
}

// TestServeRefusesAtStart checks the start-up failures that need the
// outside world: a bot token Slack refuses, and a database path that
// cannot be written.
func TestServeRefusesAtStart(t *testing.T) {
	refusing := slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/auth.test", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(readServeTestdata(t, "auth_test_invalid.json"))
		})
	})
	refusing.Start()
	defer refusing.Stop()
	slack := newFakeSlack(t)
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(readOnly, 0o700) })

	tests := []struct {
		name  string
		env   func(map[string]string)
		wants []string
	}{
		{"token refused", func(e map[string]string) { e["SLACK_API_URL"] = refusing.GetAPIURL() }, []string{"SLACK_BOT_TOKEN", "invalid_auth"}},
		{"database read-only", func(e map[string]string) { e["FITBOT_DB"] = filepath.Join(readOnly, "sub", "fitbot.db") }, []string{"FITBOT_DB", "read-only", "Try:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "database read-only" && os.Geteuid() == 0 {
				t.Skip("root writes anywhere")
			}
			env := baseEnv(t, slack.GetAPIURL())
			env["SLACK_APP_TOKEN"] = fakeAppToken
			tt.env(env)
			r := startServe(t, env)
			var code int
			select {
			case code = <-r.done:
				r.done <- code
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not give up")
			}
			if code != exitFailure {
				t.Errorf("exit code %d, want %d", code, exitFailure)
			}
			for _, want := range tt.wants {
				if !strings.Contains(r.stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr.String())
				}
			}
			if strings.Contains(r.stderr.String(), fakeBotToken) {
				t.Error("stderr carries the bot token")
			}
		})
	}
}

// TestServeNeverLogsSecrets runs serve in both transports at debug level
// with known fake secrets and drives the paths where a secret could leak:
// commands over both transports, a forged request, a language model that
// answers 401 echoing its key, an admin's price refresh against providers
// that fail echoing theirs, the health endpoints and the stop. None of
// the secrets may appear in anything serve printed or posted.
func TestServeNeverLogsSecrets(t *testing.T) {
	slack := newFakeSlack(t)
	llmBody := bytes.ReplaceAll(readServeTestdata(t, "openai_error_401.json"), []byte("OPENAI_KEY_ECHO"), []byte(fakeOpenAI))
	llmServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(llmBody)
	}))
	defer llmServer.Close()
	providers := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied for key "+r.URL.Query().Get("key")+" auth "+r.Header.Get("Authorization"), http.StatusForbidden)
	}))
	defer providers.Close()
	respond := newResponseURL(t)

	env := baseEnv(t, slack.GetAPIURL())
	for k, v := range map[string]string{
		"SLACK_APP_TOKEN": fakeAppToken, "SLACK_SIGNING_SECRET": fakeSigning, "OPENAI_API_KEY": fakeOpenAI,
		"OPENAI_BASE_URL": llmServer.URL + "/v1", "GCP_API_KEY": fakeGCPKey, "LAMBDA_API_KEY": fakeGCPKey + "-lambda",
		"FITBOT_ADMINS": "U2CERLKJA", "FITBOT_LOG_LEVEL": "debug",
	} {
		env[k] = v
	}
	for _, p := range pricing.Providers() {
		env[providerURLVar(p)] = providers.URL
	}
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base, health := r.addr(t, "http"), r.addr(t, "health")
	eventually(t, "socket connected", func() bool { code, _ := get(t, health+"/readyz"); return code == http.StatusOK })

	slack.SendToWebsocket(string(readServeTestdata(t, "socket_slash_command.json")))
	slack.ackPayload(t, "5e0c7d1a-9b8f-4e3d-a2c1-0f9e8d7c6b5a")
	if code, _ := signedSlash(t, base, "llama-3.1-8b qlora rtx-4090", respond.URL); code != http.StatusOK {
		t.Errorf("slash over HTTP = %d", code)
	}
	if code, _ := signedSlash(t, base, "prices refresh", respond.URL); code != http.StatusOK {
		t.Errorf("prices refresh = %d", code)
	}
	if code, _ := signedPost(t, base+"/slack/events", "application/json", readServeTestdata(t, "message_im_free_text.json")); code != http.StatusOK {
		t.Errorf("event = %d", code)
	}
	forged, _ := http.Post(base+"/slack/commands", "application/x-www-form-urlencoded", strings.NewReader("token="+fakeSigning))
	if forged != nil {
		forged.Body.Close()
		if forged.StatusCode != http.StatusUnauthorized {
			t.Errorf("forged request = %d, want 401", forged.StatusCode)
		}
	}
	get(t, health+"/metrics")
	eventually(t, "the refresh summary and the DM answer", func() bool {
		slack.mu.Lock()
		n := len(slack.posts)
		slack.mu.Unlock()
		return len(respond.posted()) >= 1 && n >= 1
	})
	if code := r.stop(t); code != exitOK {
		t.Errorf("serve exit code %d, want 0", code)
	}

	if got := respond.posted(); len(got) != 1 || !strings.Contains(got[0], "failed") {
		t.Errorf("response_url got %v, want the refresh summary with the failed providers", got)
	}
	printed := r.stdout.String() + r.stderr.String() + strings.Join(respond.posted(), "\n")
	slack.mu.Lock()
	for _, p := range slack.posts {
		if p.Get("token") != fakeBotToken {
			t.Errorf("chat.postMessage carried token %.8s…, want the bot token", p.Get("token"))
		}
		p.Del("token") // the one place the bot token belongs
		printed += p.Encode()
	}
	slack.mu.Unlock()
	for _, s := range []string{fakeBotToken, fakeAppToken, fakeSigning, fakeOpenAI, fakeGCPKey} {
		if strings.Contains(printed, s) {
			t.Errorf("serve printed or posted a secret (%.8s…)", s)
		}
	}
	for _, want := range []string{`"msg":"question"`, `"outcome":"answered"`, `"request_id"`, "signature refused", "prices: refresh did not land"} {
		if !strings.Contains(r.stderr.String(), want) {
			t.Errorf("the log lacks %s; the paths were not all driven", want)
		}
	}
}
