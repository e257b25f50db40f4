package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helperEnv carries the database path to the child process of
// TestCrashMidWriteLeavesDatabaseConsistent.
const helperEnv = "FITBOT_STORE_CRASH_HELPER_DB"

// TestHelperProcess is the child of the crash test, not a test of its own:
// it saves plans as fast as it can and reports each id once SavePlan has
// returned (the commit is durable), until it is killed.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("the child process of TestCrashMidWriteLeavesDatabaseConsistent")
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		p := samplePlan(fmt.Sprintf("model-%d", i%7), time.Time{})
		p.Question = fmt.Sprintf("crash question %d %s", i, strings.Repeat("x", i%500))
		id, err := db.SavePlan(context.Background(), &p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Printf("committed %d %d\n", id, i)
	}
}

// TestCrashMidWriteLeavesDatabaseConsistent kills a process that is
// writing plans with SIGKILL, then reopens the database: it must pass
// integrity_check, hold every plan the child reported committed, and
// hold no partial plan.
func TestCrashMidWriteLeavesDatabaseConsistent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	path := filepath.Join(t.TempDir(), "fitbot.db")
	committed := map[int64]int{} // id → the child's counter, over every round
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), helperEnv+"="+path)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		killAt := len(committed) + 150 + 100*round
		for lines.Scan() {
			var id int64
			var i int
			if _, err := fmt.Sscanf(lines.Text(), "committed %d %d", &id, &i); err != nil {
				continue // the test framework's own output
			}
			committed[id] = i
			if len(committed) == killAt {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
			}
		}
		err = cmd.Wait()
		if len(committed) < killAt {
			t.Fatalf("round %d: child stopped after %d plans (%v): %s", round, len(committed), err, stderr.String())
		}
		if !strings.Contains(fmt.Sprint(err), "killed") {
			t.Fatalf("round %d: child ended with %v, want killed", round, err)
		}
		checkAfterCrash(t, path, committed, round+1)
	}
}

// checkAfterCrash reopens the database after crashes: each may have
// committed one plan it did not live to report, and no more.
func checkAfterCrash(t *testing.T, path string, committed map[int64]int, crashes int) {
	t.Helper()
	db := openAt(t, path, nil, -1)
	defer db.Close()
	var result string
	if err := db.ro.QueryRow("PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		t.Fatalf("integrity_check = %q, %v; want ok", result, err)
	}
	plans, err := db.RecentPlans(context.Background(), AllPlans(), time.Time{}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]bool{}
	for _, p := range plans {
		present[p.ID] = true
		// A partial plan would lack its tail: the question is written
		// whole or not at all.
		var i int
		if _, err := fmt.Sscanf(p.Question, "crash question %d", &i); err != nil ||
			p.Question != fmt.Sprintf("crash question %d %s", i, strings.Repeat("x", i%500)) ||
			p.Request.Model != "mistral-7b-v0.1" || p.ModelKey != fmt.Sprintf("model-%d", i%7) {
			t.Errorf("plan %d is not whole: %q %q", p.ID, p.Question, p.ModelKey)
		}
	}
	for id := range committed {
		if !present[id] {
			t.Errorf("plan %d was reported committed but is missing", id)
		}
	}
	if extra := len(present) - len(committed); extra < 0 || extra > crashes {
		t.Errorf("%d plans present, %d reported committed, after %d crashes", len(present), len(committed), crashes)
	}
}
