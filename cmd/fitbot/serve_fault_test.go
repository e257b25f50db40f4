package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// TestServeDatabaseFaults removes the database file, or makes it
// read-only, under a running `fitbot serve --http`: answers still come
// (the estimate does not need the database) with 200 and without the
// "kept" line, the failed plan write is logged as an error, and /readyz
// turns unready.
func TestServeDatabaseFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(path string) error
	}{
		{"removed", func(path string) error {
			for _, s := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + s); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			return nil
		}},
		{"read-only", func(path string) error { return os.Chmod(path, 0o400) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slack := newFakeSlack(t)
			env := baseEnv(t, slack.GetAPIURL())
			env["SLACK_SIGNING_SECRET"] = fakeSigning
			env["FITBOT_HEALTH_ADDR"] = "off"
			r := startServe(t, env, "--http", "127.0.0.1:0")
			base := r.addr(t, "http")
			if code, body := signedSlash(t, base, "llama-3.1-8b qlora rtx-4090", ""); code != http.StatusOK || !strings.Contains(body, "Kept in the team") {
				t.Fatalf("before the fault: %d %s", code, body)
			}
			if code, _ := get(t, base+"/readyz"); code != http.StatusOK {
				t.Fatalf("/readyz before the fault: %d", code)
			}
			if err := tc.fault(r.dbPath); err != nil {
				t.Fatal(err)
			}
			code, body := signedSlash(t, base, "13B lora 4090", "")
			if code != http.StatusOK || !strings.Contains(body, `"response_type":"ephemeral"`) || !strings.Contains(body, "13B") || strings.Contains(body, "Sorry") {
				t.Errorf("answer with the database %s: %d %.300s; want 200 and the answer", tc.name, code, body)
			}
			if strings.Contains(body, "Kept in the team") {
				t.Errorf("answer claims its plan was kept with the database %s", tc.name)
			}
			// serve gathers its log lines into few writes (lineWriter), so
			// the line may reach stderr a moment after the answer.
			eventually(t, "the lost plan's error in the log", func() bool {
				return strings.Contains(r.stderr.String(), "saving the plan failed")
			})
			if code, body := get(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"ready":false`) {
				t.Errorf("/readyz with the database %s: %d %s; want 503, not ready", tc.name, code, body)
			}
			if code, _ := signedSlash(t, base, "help", ""); code != http.StatusOK {
				t.Errorf("help with the database %s: %d", tc.name, code)
			}
			r.stop(t)
		})
	}
}

// slowClouds serves the keyless providers' recorded payloads, but holds
// every Azure page for a while, so that a refresh is in flight when the
// test kills serve.
func slowClouds(t *testing.T) (*fakeClouds, *atomic.Int64) {
	var azureCalls atomic.Int64
	fc := newWrappedFakeClouds(t, func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/retail/prices" {
				azureCalls.Add(1)
				select {
				case <-time.After(300 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
			inner.ServeHTTP(w, r)
		})
	})
	return fc, &azureCalls
}

// TestServeSIGKILL kills a real `fitbot serve` binary with SIGKILL while
// a price refresh is in flight and plans are being written by a burst
// of slash commands, three times over on one database file, restarting
// it each time. After each kill the database passes integrity_check,
// every plan an answer said was kept is there, and no ok refresh run is
// without its prices.
func TestServeSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it; skipped with -short")
	}
	t.Parallel() // tens of seconds of waiting on its own process: beside TestServeSlowClients, not after it
	bin := buildFitbot(t)
	slack := newFakeSlack(t)
	clouds, azureCalls := slowClouds(t)
	sink := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer sink.Close()
	env := binaryEnv(t, slack.GetAPIURL(), clouds.srv.URL)
	env["FITBOT_REFRESH_CRON"] = "@every 1s"
	env["FITBOT_ADMINS"] = "UADMIN"

	var kept []string
	for round := range 2 {
		p := startBinary(t, bin, env)
		// Wait until a refresh is walking Azure's slow pages. After a
		// kill, the restarted serve leads the schedules once the dead
		// one's scheduler lease has expired (expireLease stands in for
		// waiting out leaseTTL; TestServeReplicasOnPostgres waits it out).
		calls := azureCalls.Load()
		for deadline := time.Now().Add(leaseTTL + 15*time.Second); azureCalls.Load() == calls; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: no refresh started within the lease's %v:\n%s", round, leaseTTL, tail(p.stderr.String(), 3000))
			}
		}
		tr := newTraffic(p.url, sink.URL)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var n atomic.Int64
		for w := range 16 {
			wg.Go(func() {
				for ctx.Err() == nil {
					i := n.Add(1)
					tr.slash(int64(round)*1_000_000+i, soakQuestions[(int(i)+w)%5])
				}
			})
		}
		time.Sleep(700 * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cancel()
		wg.Wait()
		err := <-p.exited
		p.exited <- err
		kept = append(kept, tr.keptUsers()...)
		t.Logf("round %d: %d answers said kept before SIGKILL (%v); %d requests failed with the process gone", round, len(tr.keptUsers()), err, tr.failures.Load())
		checkKeptPlans(t, p.db, kept)
		checkRunsWhole(t, p.db)
		expireLease(t, p.db)
	}
	// The database opens and migrates cleanly after all that.
	db, err := store.Open(context.Background(), env["FITBOT_DB"])
	if err != nil {
		t.Fatalf("reopen after the kills: %v", err)
	}
	db.Close()
	if len(kept) == 0 {
		t.Error("no answer said it kept a plan; the burst did not reach the database")
	}
}

// expireLease ends the scheduler lease a killed serve held in the
// database at path, as its running out after leaseTTL would, so that the
// next serve leads the schedules at once.
func expireLease(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`UPDATE leases SET expires_at = acquired_at WHERE name = 'scheduler'`)
	if err != nil {
		t.Fatalf("expire the scheduler lease: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("expire the scheduler lease: %d rows, want the killed serve's one", n)
	}
}

// checkRunsWhole checks that no successful price run lacks its
// observations: a run and its prices are written in one transaction.
func checkRunsWhole(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT r.id, r.provider, r.rows, (SELECT count(*) FROM observations o WHERE o.run_id = r.id)
		FROM price_runs r WHERE r.status = 'ok'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, want, got int
		var provider string
		if err := rows.Scan(&id, &provider, &want, &got); err != nil {
			t.Fatal(err)
		}
		if want > 0 && got == 0 {
			t.Errorf("run %d (%s) is ok with %d rows fetched but has no observations", id, provider, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(fmt.Errorf("price runs: %w", err))
	}
}
