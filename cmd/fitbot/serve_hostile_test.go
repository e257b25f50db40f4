package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/bot"
)

// TestServeListenerTimeouts checks that every listener serve opens
// bounds a request's headers, its whole read, its reply and an idle
// connection, so that slow or silent clients cannot pile up.
func TestServeListenerTimeouts(t *testing.T) {
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_HEALTH_ADDR"] = "127.0.0.1:0"
	e := environOf(env)
	cfg, err := loadServeConfig(e, []string{"--http", "127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{stdout: io.Discard, stderr: io.Discard, env: e}
	s, code := a.startService(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if code != exitOK {
		t.Fatalf("startService: exit %d", code)
	}
	defer s.stop(context.Background())
	if len(s.servers) != 2 {
		t.Fatalf("%d listeners, want 2 (--http and the health listener)", len(s.servers))
	}
	for i, srv := range s.servers {
		if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
			t.Errorf("listener %d: ReadHeaderTimeout %v, ReadTimeout %v, WriteTimeout %v, IdleTimeout %v; want all set",
				i, srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
		}
		// Slack waits 3 s for an answer; a reply cut off by WriteTimeout
		// would be a failure it shows the user.
		if srv.WriteTimeout < 3*time.Second {
			t.Errorf("listener %d: WriteTimeout %v is shorter than Slack's 3 s", i, srv.WriteTimeout)
		}
	}
}

// planCount counts the plans in a database file.
func planCount(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM plans").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServeSignatureBypassOverHTTP tries to get past the signature check
// of a running `fitbot serve --http` over real loopback HTTP, on each of
// the three endpoints: every attempt gets 401, says nothing of why, and
// writes no plan; the same request correctly signed is answered.
func TestServeSignatureBypassOverHTTP(t *testing.T) {
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_HEALTH_ADDR"] = "off"
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base := r.addr(t, "http")

	form := []byte(url.Values{"team_id": {"T1DC2JH3J"}, "channel_id": {"C0FITBOT"}, "user_id": {"UATTACK"},
		"command": {"/fit"}, "text": {"llama-3.1-8b qlora rtx-4090"}, "response_url": {"http://127.0.0.1:1/r"}}.Encode())
	now := time.Now()
	sign := func(secret string, at time.Time, body []byte) (ts, sig string) {
		ts = strconv.FormatInt(at.Unix(), 10)
		return ts, bot.ComputeSignature(secret, ts, body)
	}
	type attempt struct {
		name    string
		headers func() map[string]string
		body    []byte
	}
	// A request Slack signed six minutes ago, captured and replayed now.
	oldTS, oldSig := sign(fakeSigning, now.Add(-6*time.Minute), form)
	goodTS, goodSig := sign(fakeSigning, now, form)
	tampered := []byte(strings.Replace(string(form), "rtx-4090", "h100", 1))
	attempts := []attempt{
		{"no headers", func() map[string]string { return nil }, form},
		{"timestamp only", func() map[string]string { return map[string]string{"X-Slack-Request-Timestamp": goodTS} }, form},
		{"signature only", func() map[string]string { return map[string]string{"X-Slack-Signature": goodSig} }, form},
		{"v1 prefix", func() map[string]string {
			return map[string]string{"X-Slack-Request-Timestamp": goodTS, "X-Slack-Signature": "v1=" + strings.TrimPrefix(goodSig, "v0=")}
		}, form},
		{"no prefix", func() map[string]string {
			return map[string]string{"X-Slack-Request-Timestamp": goodTS, "X-Slack-Signature": strings.TrimPrefix(goodSig, "v0=")}
		}, form},
		{"empty secret", func() map[string]string {
			ts, sig := sign("", now, form)
			return map[string]string{"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig}
		}, form},
		{"old timestamp, valid signature replayed", func() map[string]string {
			return map[string]string{"X-Slack-Request-Timestamp": oldTS, "X-Slack-Signature": oldSig}
		}, form},
		{"future timestamp", func() map[string]string {
			ts, sig := sign(fakeSigning, now.Add(6*time.Minute), form)
			return map[string]string{"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig}
		}, form},
		{"valid signature, fresh timestamp swapped in", func() map[string]string {
			return map[string]string{"X-Slack-Request-Timestamp": goodTS, "X-Slack-Signature": oldSig}
		}, form},
		{"tampered body", func() map[string]string {
			return map[string]string{"X-Slack-Request-Timestamp": goodTS, "X-Slack-Signature": goodSig}
		}, tampered},
		{"timestamp in milliseconds", func() map[string]string {
			ts := strconv.FormatInt(now.UnixMilli(), 10)
			return map[string]string{"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": bot.ComputeSignature(fakeSigning, ts, form)}
		}, form},
	}
	before := planCount(t, r.dbPath)
	for _, a := range attempts {
		for _, path := range []string{"/slack/commands", "/slack/events", "/slack/interactions"} {
			code, body := rawPost(t, base+path, a.body, a.headers())
			if code != http.StatusUnauthorized {
				t.Errorf("%s on %s: status %d (%.100s), want 401", a.name, path, code, body)
			}
			if strings.Contains(body, "signature") || strings.Contains(body, "timestamp") || strings.Contains(body, "Fits") {
				t.Errorf("%s on %s: the reply says too much: %q", a.name, path, body)
			}
		}
	}
	if after := planCount(t, r.dbPath); after != before {
		t.Errorf("refused requests wrote %d plans", after-before)
	}
	code, body := rawPost(t, base+"/slack/commands", form, map[string]string{"X-Slack-Request-Timestamp": goodTS, "X-Slack-Signature": goodSig})
	if code != http.StatusOK || !strings.Contains(body, "Fits") {
		t.Errorf("the correctly signed request: %d %.200s, want the answer", code, body)
	}
	if strings.Contains(r.stderr.String(), fakeSigning) {
		t.Error("the signing secret appears in serve's log")
	}
}

// rawPost posts a form body with exactly the given Slack headers.
func rawPost(t *testing.T, u string, body []byte, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeOversizedBodies sends bodies over the 1 MiB cap, with a
// Content-Length and chunked without one, unsigned and signed: each is
// refused with 413 before the signature is even computed over it.
func TestServeOversizedBodies(t *testing.T) {
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_HEALTH_ADDR"] = "off"
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base := r.addr(t, "http")
	big := []byte("team_id=T1&user_id=U1&command=%2Ffit&text=" + strings.Repeat("70b+", 600_000))
	for _, chunked := range []bool{false, true} {
		for _, path := range []string{"/slack/commands", "/slack/events", "/slack/interactions"} {
			var rd io.Reader = strings.NewReader(string(big))
			if chunked {
				rd = io.MultiReader(rd) // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, base+path, rd)
			if err != nil {
				t.Fatal(err)
			}
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			req.Header.Set("X-Slack-Request-Timestamp", ts)
			req.Header.Set("X-Slack-Signature", bot.ComputeSignature(fakeSigning, ts, big))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				// The server may close the connection while the client
				// is still sending the rest; that is a refusal too.
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("%s, chunked %v: status %d, want 413", path, chunked, resp.StatusCode)
			}
		}
	}
	if code, _ := signedSlash(t, base, "help", ""); code != http.StatusOK {
		t.Errorf("serve does not answer after the oversized bodies: %d", code)
	}
}

// TestServeSlowClients holds connections open the slowloris way — headers
// a byte at a time, and a body that never finishes — and checks that
// serve closes them within its header and read timeouts, and answers
// others meanwhile. It waits for the real timeouts (tens of seconds).
func TestServeSlowClients(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the listener's real timeouts; skipped with -short")
	}
	t.Parallel() // 30 s of waiting on the real read timeout: beside TestServeSIGKILL, not after it
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_HEALTH_ADDR"] = "off"
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base := r.addr(t, "http")
	host := strings.TrimPrefix(base, "http://")

	type slow struct {
		name  string
		limit time.Duration
		send  func(c net.Conn) // writes, slowly, until the server hangs up
	}
	drip := func(c net.Conn, s string) {
		for i := 0; i < len(s); i++ {
			if _, err := c.Write([]byte{s[i]}); err != nil {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	cases := []slow{
		{"headers a byte at a time", readHeaderTimeout, func(c net.Conn) {
			drip(c, "POST /slack/commands HTTP/1.1\r\nHost: x\r\nX-Padding: "+strings.Repeat("a", 200))
		}},
		{"a body that never ends", httpReadTimeout, func(c net.Conn) {
			fmt.Fprintf(c, "POST /slack/commands HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n")
			drip(c, strings.Repeat("a", 200))
		}},
	}
	var wg sync.WaitGroup
	for _, tc := range cases {
		wg.Go(func() {
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			start := time.Now()
			go tc.send(c)
			// The server hangs up (perhaps after a 408): reading ends.
			c.SetReadDeadline(time.Now().Add(tc.limit + 10*time.Second))
			io.Copy(io.Discard, bufio.NewReader(c))
			took := time.Since(start)
			if took > tc.limit+5*time.Second {
				t.Errorf("%s: connection held %v, want it closed near the %v timeout", tc.name, took, tc.limit)
			}
			t.Logf("%s: closed after %v (timeout %v)", tc.name, took.Round(100*time.Millisecond), tc.limit)
		})
	}
	time.Sleep(time.Second)
	if code, _ := signedSlash(t, base, "help", ""); code != http.StatusOK {
		t.Errorf("serve does not answer while slow clients hold connections: %d", code)
	}
	wg.Wait()
}

// TestServeConnectionFlood is the fault report's idle-connection flood at
// a small scale: with FITBOT_MAX_CONNS=50, 200 idle connections to the
// Slack listener; the health listener keeps answering /readyz, the Slack
// endpoint answers during the flood (the oldest idle connections make
// room: none is refused for want of a slot), and the process keeps its
// file descriptors.
func TestServeConnectionFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the header timeout; skipped with -short")
	}
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_MAX_CONNS"] = "50"
	r := startServe(t, env, "--http", "127.0.0.1:0")
	base, health := r.addr(t, "http"), r.addr(t, "health")
	host := strings.TrimPrefix(base, "http://")

	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 200 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	start := time.Now()
	if code, body := get(t, health+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz on the health listener during the flood: %d %s", code, body)
	}
	took := time.Since(start)
	t.Logf("/readyz on the health listener with 200 idle connections on a cap of 50: %v", took)
	if took > time.Second {
		t.Errorf("/readyz took %v during the flood", took)
	}
	if code, _ := signedSlash(t, base, "help", ""); code != http.StatusOK {
		t.Errorf("a slash command during the flood: %d", code)
	}
	if _, m := get(t, health+"/metrics"); strings.Contains(m, `fitbot_http_connections_refused_total{listener="http"}`) {
		t.Errorf("idle connections were refused instead of making room:\n%s", m)
	}
	if code := r.stop(t); code != exitOK {
		t.Errorf("exit %d after the flood", code)
	}
}

// TestServePprofOnHealthOnly: FITBOT_PPROF=on serves Go's profiler on the
// health listener and never on Slack's; off (the default), on neither.
func TestServePprofOnHealthOnly(t *testing.T) {
	get := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, on := range []bool{true, false} {
		slack := newFakeSlack(t)
		env := baseEnv(t, slack.GetAPIURL())
		env["SLACK_SIGNING_SECRET"] = fakeSigning
		if on {
			env["FITBOT_PPROF"] = "on"
		}
		r := startServe(t, env, "--http", "127.0.0.1:0")
		slackURL, healthURL := r.addr(t, "http"), r.addr(t, "health")
		want := http.StatusNotFound
		if on {
			want = http.StatusOK
		}
		if code := get(healthURL + "/debug/pprof/heap"); code != want {
			t.Errorf("pprof %v: the health listener answered %d, want %d", on, code, want)
		}
		if code := get(slackURL + "/debug/pprof/heap"); code == http.StatusOK {
			t.Errorf("pprof %v: Slack's listener served the profiler", on)
		}
		if code := r.stop(t); code != exitOK {
			t.Errorf("exit %d", code)
		}
	}
}
