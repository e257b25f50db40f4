package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the test's own reads of the shared database
)

// newPostgresDatabase creates an empty database on the server of
// FITBOT_TEST_POSTGRES and returns its URL; it is dropped at the end.
func newPostgresDatabase(t *testing.T, server string) string {
	t.Helper()
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatal(err)
	}
	name := "fitbot_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		admin.Close()
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestServeReplicasOnPostgres is the replicas' proof: two `fitbot serve`
// processes on one PostgreSQL database take signed slash commands from
// 64 clients split across them; the scheduler leader is SIGKILLed
// midway. Every plan an answer said was kept is in the database, the
// other replica keeps answering and takes the scheduler lease over, and
// the week's digest is posted once in all.
func TestServeReplicasOnPostgres(t *testing.T) {
	server := os.Getenv("FITBOT_TEST_POSTGRES")
	if server == "" || testing.Short() {
		t.Skip("needs FITBOT_TEST_POSTGRES and no -short: builds the binary, runs two replicas, waits out a lease")
	}
	dbURL := newPostgresDatabase(t, server)
	bin := buildFitbot(t)
	slack := newFakeSlack(t)
	sink := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer sink.Close()
	env := binaryEnv(t, slack.GetAPIURL(), sink.URL)
	env["FITBOT_DB"] = dbURL
	env["FITBOT_DIGEST_CHANNEL"] = "C0DIGEST"
	env["FITBOT_DIGEST_CRON"] = "CRON_TZ=UTC 0 9 * * MON"

	// Prices observed in the week the digest covers, so that there is a
	// digest to post: the week ending at the last Monday 09:00 UTC.
	now := time.Now().UTC()
	end := time.Date(now.Year(), now.Month(), now.Day(), 9, 0, 0, 0, time.UTC)
	for end.Weekday() != time.Monday || end.After(now) {
		end = end.AddDate(0, 0, -1)
	}
	sheet := filepath.Join(t.TempDir(), "rates.csv")
	os.WriteFile(sheet, []byte("provider,gpu,gpu_count,region,pricing,usd_per_hour,instance_type\n"+
		"coreweave,h100,8,us-east-04,on_demand,49.24,gd-8xh100ib-i128\n"), 0o600)
	imp := exec.Command(bin, "prices", "import", "--at", end.Add(-48*time.Hour).Format(time.RFC3339), sheet)
	imp.Env = []string{"FITBOT_DB=" + dbURL, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("prices import: %v\n%s", err, out)
	}

	envA, envB := map[string]string{}, map[string]string{}
	for k, v := range env {
		envA[k], envB[k] = v, v
	}
	envA["FITBOT_INSTANCE"], envB["FITBOT_INSTANCE"] = "replica-a", "replica-b"
	a := startBinary(t, bin, envA)
	waitLog(t, a, "scheduler leader: this instance")
	b := startBinary(t, bin, envB)

	trA, trB := newTraffic(a.url, sink.URL), newTraffic(b.url, sink.URL)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var n atomic.Int64
	for w := range 64 {
		tr := trA
		if w%2 == 1 {
			tr = trB
		}
		wg.Go(func() {
			for ctx.Err() == nil {
				i := n.Add(1)
				tr.slash(i, soakQuestions[int(i)%5])
			}
		})
	}
	// Both replicas have kept plans before a is killed.
	waitFor(t, "plans kept on both replicas", func() bool {
		return len(trA.keptUsers()) >= replicaPlans && len(trB.keptUsers()) >= replicaPlans
	})
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	keptBAtKill := len(trB.keptUsers())
	waitFor(t, "plans kept on b after the kill", func() bool { return len(trB.keptUsers()) >= keptBAtKill+replicaPlans })
	cancel()
	wg.Wait()
	keptA, keptB := trA.keptUsers(), trB.keptUsers()
	t.Logf("kept before the kill on a: %d; on b: %d at the kill, %d at the end; failures: a %d (the killed one), b %d",
		len(keptA), keptBAtKill, len(keptB), trA.failures.Load(), trB.failures.Load())
	if len(keptB) <= keptBAtKill {
		t.Error("replica b stopped answering when a was killed")
	}
	if trB.failures.Load() > 0 {
		t.Errorf("replica b failed %d requests: %s", trB.failures.Load(), trB.firstFailure())
	}
	checkKeptPlansPostgres(t, dbURL, append(keptA, keptB...))

	waitLog(t, b, "scheduler leader: this instance")
	t.Logf("b took the scheduler lease over %v after the kill", time.Since(killed).Round(time.Second))
	// b's catch-up digest run, which must find the week posted.
	waitLogLine(t, b, `"job":"digest"`, `"msg":"job done"`)
	posts := 0
	slack.mu.Lock()
	for _, p := range slack.posts {
		if p.Get("channel") == "C0DIGEST" {
			posts++
		}
	}
	slack.mu.Unlock()
	if posts != 1 {
		t.Errorf("the week's digest was posted %d times across the replicas, want once\na:\n%s\nb:\n%s", posts,
			tail(a.stderr.String(), 2000), tail(b.stderr.String(), 2000))
	}
	b.stop(t)
}

// replicaPlans is how many answers a replica keeps as plans before the
// test moves on: enough that the traffic is under way on it.
const replicaPlans = 20

// waitLog waits for a log message from p, for up to the scheduler lease
// and a margin.
func waitLog(t *testing.T, p *process, msg string) {
	t.Helper()
	waitLogLine(t, p, msg)
}

// waitLogLine waits for one log line of p that holds every part, for up
// to the scheduler lease and a margin.
func waitLogLine(t *testing.T, p *process, parts ...string) {
	t.Helper()
	found := func() bool {
		for line := range strings.Lines(p.stderr.String()) {
			if !slices.ContainsFunc(parts, func(s string) bool { return !strings.Contains(line, s) }) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(leaseTTL + 20*time.Second)
	for !found() {
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q in the log:\n%s", parts, tail(p.stderr.String(), 3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor polls cond until it holds, for up to the scheduler lease and a
// margin.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(leaseTTL + 20*time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkKeptPlansPostgres checks that every user whose answer said "Kept"
// has a plan in the shared database.
func checkKeptPlansPostgres(t *testing.T, dbURL string, users []string) {
	t.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
	if missing > 0 || len(users) == 0 {
		t.Errorf("%d of %d acknowledged plans missing from the database", missing, len(users))
	}
	t.Logf("%d acknowledged plans, all in the database (%d plans in all)", len(users), len(have))
}
