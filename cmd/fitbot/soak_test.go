package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fitbot/fitbot/bot"
	_ "github.com/mattn/go-sqlite3"
)

// The soak: `fitbot serve --http` as a real binary on a real SQLite file,
// under mixed traffic (slash commands, mentions, button presses) for a
// long time, with a price refresh and a digest scheduled inside it.
// Resident memory, goroutines and open files are sampled every 30 s and
// must be flat at the end; every plan an answer said was kept must be in
// the database. Off unless -soak is given:
//
//	go test ./cmd/fitbot -run TestSoak -soak 10m -soak-report /tmp/soak.json -v -timeout 30m
var (
	soakFor    = flag.Duration("soak", 0, "run TestSoak for this long (e.g. 10m); 0 skips it")
	soakReport = flag.String("soak-report", "", "write TestSoak's samples to this JSON file")
)

// soakSample is one sample of the serve process.
type soakSample struct {
	At         time.Duration `json:"at_ns"`
	RSSKiB     int64         `json:"rss_kib"`
	Goroutines int64         `json:"goroutines"`
	OpenFiles  int           `json:"open_files"`
	Requests   int64         `json:"requests"`
	DBBytes    int64         `json:"db_bytes"`  // the database file
	WALBytes   int64         `json:"wal_bytes"` // its -wal file
}

// fileSize is a file's size, 0 when it is not there.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func TestSoak(t *testing.T) {
	if *soakFor <= 0 {
		t.Skip("the soak runs with -soak DURATION")
	}
	bin := buildFitbot(t)
	slack := newFakeSlack(t)
	clouds := newFakeClouds(t)
	sink := newSink(t)
	env := binaryEnv(t, slack.GetAPIURL(), clouds.srv.URL)
	env["FITBOT_REFRESH_CRON"] = "@every 3m"
	env["FITBOT_DIGEST_CRON"] = "@every 4m"
	env["FITBOT_DIGEST_CHANNEL"] = "C0DIGEST"
	p := startBinary(t, bin, env)

	ctx, cancel := context.WithTimeout(context.Background(), *soakFor)
	defer cancel()
	tr := newTraffic(p.url, sink.URL)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() { tr.drive(ctx, w) })
	}
	start := time.Now()
	var samples []soakSample
	sample := func() {
		s := soakSample{At: time.Since(start), Requests: tr.sent.Load()}
		s.RSSKiB, s.OpenFiles = procStatus(t, p.cmd.Process.Pid)
		s.Goroutines = metricValue(t, p.url+"/metrics", "go_goroutines")
		s.DBBytes, s.WALBytes = fileSize(p.db), fileSize(p.db+"-wal")
		samples = append(samples, s)
		t.Logf("soak %5.0fs: rss %6d KiB, goroutines %4d, open files %3d, requests %d, db %d KiB, wal %d KiB",
			s.At.Seconds(), s.RSSKiB, s.Goroutines, s.OpenFiles, s.Requests, s.DBBytes>>10, s.WALBytes>>10)
	}
	sample()
	tick := time.NewTicker(30 * time.Second)
	for done := false; !done; {
		select {
		case <-tick.C:
			sample()
		case <-ctx.Done():
			done = true
		}
	}
	tick.Stop()
	wg.Wait()
	time.Sleep(2 * time.Second) // background answers and button presses finish
	sample()
	p.stop(t)

	if *soakReport != "" {
		b, _ := json.MarshalIndent(map[string]any{"samples": samples, "traffic": tr.summary(), "digest_posts": slack.postsTo("C0DIGEST"),
			"price_runs": countRows(t, p.db, "SELECT count(*) FROM price_runs")}, "", "  ")
		if err := os.WriteFile(*soakReport, b, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("traffic: %+v", tr.summary())
	errorLines := 0
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			if errorLines < 5 {
				t.Logf("serve logged: %s", line)
			}
			errorLines++
		}
	}
	t.Logf("serve logged %d errors; %d pictures uploaded", errorLines, slack.pictures())
	if errorLines > 0 {
		t.Errorf("serve logged %d errors under traffic it should answer without one", errorLines)
	}
	if n := tr.failures.Load(); n > 0 {
		t.Errorf("%d requests failed (a status other than 200, or no reply); first: %s", n, tr.firstFailure())
	}
	// Flat: the last sample against the one after a minute's warm-up.
	warm, last := samples[min(2, len(samples)-1)], samples[len(samples)-1]
	if last.RSSKiB > warm.RSSKiB*3/2+8*1024 {
		t.Errorf("resident memory grew from %d KiB to %d KiB", warm.RSSKiB, last.RSSKiB)
	}
	if last.Goroutines > warm.Goroutines+20 {
		t.Errorf("goroutines grew from %d to %d", warm.Goroutines, last.Goroutines)
	}
	if last.OpenFiles > warm.OpenFiles+10 {
		t.Errorf("open files grew from %d to %d", warm.OpenFiles, last.OpenFiles)
	}
	checkKeptPlans(t, p.db, tr.keptUsers())
	if got := countRows(t, p.db, "SELECT count(*) FROM price_runs"); got == 0 {
		t.Error("no price refresh ran during the soak")
	}
	if n := slack.postsTo("C0DIGEST"); n == 0 {
		t.Log("no digest was posted to C0DIGEST during the soak (does this build post digests?)")
	}
}

// buildFitbot builds this package's binary into a temporary folder.
func buildFitbot(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fitbot")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// soakSecret is the signing secret the binary tests run serve with.
const soakSecret = "soak-signing-secret-0123456789"

// binaryEnv is the environment of a serve subprocess: loopback fakes for
// Slack and the keyless providers, a database in a fresh folder, no
// rate limit, schedules that do not fire unless a test sets them.
func binaryEnv(t *testing.T, slackURL, cloudsURL string) map[string]string {
	env := map[string]string{
		"PATH":                 os.Getenv("PATH"),
		"HOME":                 t.TempDir(),
		"FITBOT_DB":            filepath.Join(t.TempDir(), "fitbot.db"),
		"SLACK_BOT_TOKEN":      fakeBotToken,
		"SLACK_SIGNING_SECRET": soakSecret,
		"SLACK_API_URL":        slackURL,
		"FITBOT_HEALTH_ADDR":   "off",
		"FITBOT_LOG_FORMAT":    "json",
		"FITBOT_RATE_LIMIT":    "0",
		"FITBOT_REFRESH_CRON":  "0 0 1 1 *",
		"FITBOT_DIGEST_CRON":   "CRON_TZ=UTC 0 9 1 1 *",
		"FITBOT_AWS_REGIONS":   "us-east-1,us-west-2",
		"FITBOT_AZURE_REGIONS": "eastus,westus2",
	}
	for _, p := range []string{"AWS", "AZURE", "RUNPOD", "VAST"} {
		env["FITBOT_"+p+"_URL"] = cloudsURL
	}
	// The public catalogs too (as useClouds does): left at their defaults,
	// a refresh would go to the network.
	env["FITBOT_GPUHUNT_URL"] = cloudsURL + "/gpuhunt/v3"
	env["FITBOT_SKYPILOT_URL"] = cloudsURL + "/skypilot/v8"
	return env
}

// process is a `fitbot serve` subprocess.
type process struct {
	cmd    *exec.Cmd
	url    string
	db     string
	stderr *syncBuffer
	exited chan error
}

var listeningLine = regexp.MustCompile(`"msg":"fitbot: listening".*"listener":"http","addr":"([^"]+)"`)

// startBinary starts `fitbot serve --http 127.0.0.1:0` with env and
// waits for its listener. The process is killed at the end of the test
// if it is still running.
func startBinary(t *testing.T, bin string, env map[string]string) *process {
	t.Helper()
	p := &process{db: env["FITBOT_DB"], stderr: &syncBuffer{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout = io.Discard
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		p.exited <- nil
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := listeningLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = "http://" + m[1]
			return p
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("serve exited (%v) before listening:\n%s", err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen within 30s:\n%s", p.stderr.String())
		}
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Errorf("serve did not stop cleanly: %v\n%s", err, tail(p.stderr.String(), 4000))
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop within 30s of SIGTERM")
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// procStatus reads a process's resident memory (VmRSS) and its count of
// open file descriptors from /proc.
func procStatus(t *testing.T, pid int) (rssKiB int64, files int) {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			rssKiB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return rssKiB, len(fds)
}

// metricValue reads one unlabelled metric from a Prometheus text page.
func metricValue(t *testing.T, metricsURL, name string) int64 {
	t.Helper()
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return int64(f)
		}
	}
	t.Fatalf("%s: no %s", metricsURL, name)
	return 0
}

// newSink is a loopback response_url that accepts every post.
func newSink(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// postsTo counts the fake Slack's chat.postMessage calls to channel.
func (f *fakeSlack) postsTo(channel string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.posts {
		if p.Get("channel") == channel {
			n++
		}
	}
	return n
}

// traffic drives slash commands, mentions and button presses at a
// serve, and remembers which answers said their plan was kept.
type traffic struct {
	base, sink string
	client     *http.Client
	sent       atomic.Int64
	failures   atomic.Int64
	counts     sync.Map // kind → *atomic.Int64

	mu    sync.Mutex
	kept  []string // user ids of answers that said "Kept"
	first string
}

func newTraffic(base, sink string) *traffic {
	return &traffic{base: base, sink: sink, client: &http.Client{Timeout: 10 * time.Second}}
}

// soakQuestions are the slash commands of the soak.
var soakQuestions = []string{"13B lora 4090", "llama-3.1-70b qlora 2xa100", "mixtral 8x7b inference int4 2x4090",
	"mistral 7b lora a10g", "llama-3.1-405b inference fp8 8xh200", "plans mistral 7b", "prices", "help", "70b qlora a1000",
	"7b full a100-80 3 epochs of 100M tokens"}

// drive sends requests until ctx ends, about 10 a second per worker.
func (tr *traffic) drive(ctx context.Context, worker int) {
	for i := 0; ctx.Err() == nil; i++ {
		n := tr.sent.Add(1)
		switch i % 10 {
		case 7, 8:
			tr.mention(n)
		case 9:
			tr.press(n)
		default:
			tr.slash(n, soakQuestions[(int(n)+worker)%len(soakQuestions)])
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (tr *traffic) count(kind string) {
	c, _ := tr.counts.LoadOrStore(kind, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
}

func (tr *traffic) fail(format string, args ...any) {
	tr.failures.Add(1)
	tr.mu.Lock()
	if tr.first == "" {
		tr.first = fmt.Sprintf(format, args...)
	}
	tr.mu.Unlock()
}

func (tr *traffic) firstFailure() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.first
}

// post sends a signed body and returns the reply.
func (tr *traffic) post(path, contentType string, body []byte) (int, []byte, error) {
	return postSigned(tr.client, tr.base+path, contentType, soakSecret, body)
}

// postSigned posts body to url signed with secret now.
func postSigned(client *http.Client, url, contentType, secret string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", bot.ComputeSignature(secret, ts, body))
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	return resp.StatusCode, reply, err
}

// slashForm is a slash command's form body from user.
func slashForm(user, text, responseURL string) []byte {
	return []byte(url.Values{"token": {"x"}, "team_id": {"T1DC2JH3J"}, "team_domain": {"fitbot"}, "channel_id": {"C0FITBOT"},
		"channel_name": {"ml-infra"}, "user_id": {user}, "user_name": {"soak"}, "command": {"/fit"}, "text": {text},
		"response_url": {responseURL}, "trigger_id": {"1.2.3"}, "api_app_id": {"A0FITBOT"}}.Encode())
}

func (tr *traffic) slash(n int64, text string) {
	tr.count("slash")
	user := fmt.Sprintf("USOAK%07d", n)
	status, reply, err := tr.post("/slack/commands", "application/x-www-form-urlencoded", slashForm(user, text, tr.sink+"/r"))
	if err != nil || status != http.StatusOK {
		tr.fail("slash %q: status %d, %v: %.200s", text, status, err, reply)
		return
	}
	if bytes.Contains(reply, []byte("Kept in the team")) {
		tr.mu.Lock()
		tr.kept = append(tr.kept, user)
		tr.mu.Unlock()
	}
}

func (tr *traffic) mention(n int64) {
	tr.count("event")
	body := fmt.Sprintf(`{"token":"x","team_id":"T1DC2JH3J","api_app_id":"A0FITBOT","event":{"type":"app_mention","user":"USOAKM%06d","text":"<@U0FITBOT> can we fine-tune llama 3 8b with qlora on a 4090?","ts":"1764464400.%06d","channel":"C0FITBOT","event_ts":"1764464400.%06d"},"type":"event_callback","event_id":"Ev0SOAK%08d","event_time":%d}`,
		n, n%1_000_000, n%1_000_000, n, time.Now().Unix())
	status, reply, err := tr.post("/slack/events", "application/json", []byte(body))
	if err != nil || status != http.StatusOK {
		tr.fail("event: status %d, %v: %.200s", status, err, reply)
	}
}

func (tr *traffic) press(n int64) {
	tr.count("interaction")
	payload := fmt.Sprintf(`{"type":"block_actions","user":{"id":"USOAKB%06d","username":"soak","team_id":"T1DC2JH3J"},"api_app_id":"A0FITBOT","token":"x","container":{"type":"message","message_ts":"1764464400.000100","channel_id":"C0FITBOT","is_ephemeral":true},"trigger_id":"1.2.3","team":{"id":"T1DC2JH3J","domain":"fitbot"},"channel":{"id":"C0FITBOT","name":"ml-infra"},"response_url":%q,"actions":[{"action_id":%q,"block_id":"fit_actions","value":"q:llama-3.1-8b qlora rtx-4090","type":"button","action_ts":"1764464401.123456"}]}`,
		n, tr.sink+"/b", []string{bot.ActionShare, bot.ActionDetails, bot.ActionReprice}[n%3])
	status, reply, err := tr.post("/slack/interactions", "application/x-www-form-urlencoded", []byte(url.Values{"payload": {payload}}.Encode()))
	if err != nil || status != http.StatusOK {
		tr.fail("interaction: status %d, %v: %.200s", status, err, reply)
	}
}

func (tr *traffic) keptUsers() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.kept...)
}

func (tr *traffic) summary() map[string]int64 {
	out := map[string]int64{"sent": tr.sent.Load(), "failures": tr.failures.Load(), "kept": int64(len(tr.keptUsers()))}
	tr.counts.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// checkKeptPlans opens the database file directly and checks that it
// passes integrity_check and holds a Slack plan for every user whose
// answer said it was kept.
func checkKeptPlans(t *testing.T, path string, users []string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("PRAGMA integrity_check = %q, %v; want ok", integrity, err)
	}
	rows, err := db.Query("SELECT user_id FROM plans WHERE source = 'slack'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		have[u] = true
	}
	missing := 0
	for _, u := range users {
		if !have[u] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged plans are missing from the database", missing, len(users))
	}
	t.Logf("%d acknowledged plans, all present; %d Slack plans in the database", len(users), len(have))
}

// countRows runs a count query on the database file.
func countRows(t *testing.T, path, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Errorf("%s: %v", query, err)
	}
	return n
}
