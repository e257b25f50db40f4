package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/bot"
)

// TestLoopbackOnly: fitload refuses any target that is not this machine.
func TestLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		target string
		ok     bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://127.9.9.9:8080", true},
		{"http://[::1]:8080", true},
		{"http://localhost:8080", true},
		{"http://10.0.0.1:8080", false},
		{"http://example.com:80", false},
		{"http://0.0.0.0:8080", false},
		{"http://127.0.0.1.nip.io:80", false},
		{"ftp://127.0.0.1:21", false},
		{"127.0.0.1:8080", false},
	} {
		_, err := parseFlags([]string{"-target", tc.target, "-secret", "s"}, io.Discard)
		if (err == nil) != tc.ok {
			t.Errorf("-target %s: error %v, want ok=%v", tc.target, err, tc.ok)
		}
	}
	if _, err := parseFlags([]string{"-fake-slack", "192.168.1.1:80"}, io.Discard); err == nil {
		t.Error("-fake-slack on a non-loopback address was accepted")
	}
	if _, err := parseFlags([]string{"-minimal", "192.168.1.1:80", "-secret", "s"}, io.Discard); err == nil {
		t.Error("-minimal on a non-loopback address was accepted")
	}
	if _, err := parseFlags([]string{"-self", "-compare", "http://10.0.0.1:80"}, io.Discard); err == nil {
		t.Error("-compare with a non-loopback URL was accepted")
	}
}

// TestRunsAreBounded: duration and concurrency have limits.
func TestRunsAreBounded(t *testing.T) {
	for _, args := range [][]string{
		{"-self", "-d", "11m"}, {"-self", "-d", "0s"}, {"-self", "-c", "0"}, {"-self", "-c", "10001"}, {"-self", "-n", "0"},
		{"-target", "http://127.0.0.1:1"}, {}, {"-self", "-target", "http://127.0.0.1:1"},
		{"-minimal", "127.0.0.1:0"}, {"-self", "-compare", "http://127.0.0.1:1", "-compare-bare"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("fitload %s: accepted", strings.Join(args, " "))
		}
	}
}

// TestPercentile is the nearest-rank percentile (NIST's definition: the
// smallest value with at least p of the values at or below it).
func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want float64
	}{{0.50, 50}, {0.90, 90}, {0.99, 99}, {1, 100}, {0, 1}} {
		if got := percentile(d, tc.p); got != tc.want {
			t.Errorf("p%v of 1..100 ms = %v, want %v", tc.p*100, got, tc.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile of nothing = %v, want 0", got)
	}
}

// TestSelfRun loads the in-process fitbot briefly and the bare handler
// beside it: every request is answered, none fails.
func TestSelfRun(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"-self", "-c", "4", "-d", "300ms", "-compare-bare"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "throughput ratio fitbot / bare: ") {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, l := range lines[1:3] {
		f := strings.Fields(l)
		if f[len(f)-2] != "0" {
			t.Errorf("errors in %q", l)
		}
	}
}

// TestMinimalHandler: the minimal signed handler replies with fitbot's
// rendered answer to a signed form, and refuses an unsigned one, a
// tampered one and a body that is not a form, as fitbot's endpoint does.
func TestMinimalHandler(t *testing.T) {
	r, err := renderReplies()
	if err != nil {
		t.Fatal(err)
	}
	reply := r[questions[0]]
	if n := len(reply); n < 2000 || !strings.Contains(string(reply), `"blocks"`) || !strings.Contains(string(reply), "RTX 4090") {
		t.Fatalf("reply to %q is %d bytes, want fitbot's Block Kit answer:\n%.300s", questions[0], n, reply)
	}
	srv := httptest.NewServer(minimalHandler("s3cret", r))
	defer srv.Close()
	gen := newGenerator("s3cret", 10, "http://127.0.0.1:1")
	post := func(body []byte, header http.Header) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/slack/commands", bytes.NewReader(body))
		req.Header = header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	body, header := gen.request()
	asked := questions[gen.next.Load()%uint64(len(questions))]
	if code, got := post(body, header); code != http.StatusOK || got != string(r[asked]) {
		t.Errorf("signed form asking %q: %d %.80s, want 200 and fitbot's reply to it", asked, code, got)
	}
	if code, _ := post(append(body, 'x'), header); code != http.StatusUnauthorized {
		t.Errorf("tampered body: %d, want 401", code)
	}
	if code, _ := post(body, http.Header{}); code != http.StatusUnauthorized {
		t.Errorf("unsigned: %d, want 401", code)
	}
	bad := []byte("text=%zz")
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	if code, _ := post(bad, http.Header{"X-Slack-Request-Timestamp": {ts}, "X-Slack-Signature": {bot.ComputeSignature("s3cret", ts, bad)}}); code != http.StatusBadRequest {
		t.Errorf("signed body that is not a form: %d, want 400", code)
	}
}

// TestCompareRun loads the in-process fitbot and then a minimal handler
// through -compare: both answered without errors, and the ratio printed.
func TestCompareRun(t *testing.T) {
	r, err := renderReplies()
	if err != nil {
		t.Fatal(err)
	}
	minimal := httptest.NewServer(minimalHandler(selfSecret, r))
	defer minimal.Close()
	var out strings.Builder
	if err := run(t.Context(), []string{"-self", "-c", "4", "-d", "300ms", "-compare", minimal.URL}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "throughput ratio fitbot / compared: ") {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, l := range lines[1:3] {
		f := strings.Fields(l)
		if f[len(f)-2] != "0" || f[len(f)-1] != "0" {
			t.Errorf("errors or refusals in %q", l)
		}
	}
}

// TestKeptPlans: the ids of the plans the answers said were kept are
// read from the replies and written with -kept, each once.
func TestKeptPlans(t *testing.T) {
	if got := keptPlan([]byte(`{"text":"Kept in the team's plans as plan 42: ` + "`/fit plan 42`" + ` re-prices it"}`)); got != 42 {
		t.Errorf("keptPlan = %d, want 42", got)
	}
	if got := keptPlan([]byte(`{"text":"✅ Fits"}`)); got != 0 {
		t.Errorf("keptPlan of an answer not kept = %d, want 0", got)
	}
	path := t.TempDir() + "/kept.txt"
	var out strings.Builder
	if err := run(t.Context(), []string{"-self", "-c", "4", "-d", "300ms", "-kept", path, "-json"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := strings.Fields(string(b))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("plan %s kept twice", id)
		}
		seen[id] = true
	}
	if len(ids) == 0 || !strings.Contains(out.String(), fmt.Sprintf(`"kept": %d`, len(ids))) {
		t.Errorf("%d ids written; the report says:\n%s", len(ids), out.String())
	}
}
