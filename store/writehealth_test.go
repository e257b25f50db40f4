//go:build cgo

package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fillDisk makes the writer's connection unable to grow the database
// (PRAGMA max_page_count at its current size), which SQLite reports with
// the same SQLITE_FULL, "database or disk is full", as a full disk;
// extra pages give room back.
func fillDisk(t *testing.T, db *DB, extra int) {
	t.Helper()
	var pages int
	if err := db.rw.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.rw.Exec("PRAGMA max_page_count = " + strconv.Itoa(pages+extra)); err != nil {
		t.Fatal(err)
	}
}

// TestDiskFullIsNotReady: while plans cannot be written (the disk is
// full), SavePlan fails, WriteHealth counts the failures and Ping fails
// (/readyz 503); once there is room again, Ping's own probe write
// succeeds and it is ready again without waiting for a plan.
func TestDiskFullIsNotReady(t *testing.T) {
	skipOnPostgres(t) // fills a SQLite file (PRAGMA max_page_count)
	db := openTest(t)
	ctx := context.Background()
	for i := range 3 {
		p := samplePlan("before", testNow)
		p.Question = strings.Repeat("a long question ", 200) + strconv.Itoa(i)
		if _, err := db.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	fillDisk(t, db, 0)
	failed := 0
	for i := range 50 {
		p := samplePlan("full", testNow)
		p.Question = strings.Repeat("x", 4000) + strconv.Itoa(i)
		if _, err := db.SavePlan(ctx, &p); err != nil {
			failed++
			if !strings.Contains(err.Error(), "full") {
				t.Fatalf("SavePlan on a full disk: %v", err)
			}
		}
	}
	h := db.WriteHealth()
	t.Logf("on a full disk: %d of 50 saves refused, WriteHealth counts %d failures", failed, h.Failures)
	if failed == 0 || !h.Failing || h.Failures < int64(failed) {
		t.Fatalf("%d saves failed; WriteHealth %+v", failed, h)
	}
	err := db.Ping(ctx)
	if err == nil || !strings.Contains(err.Error(), "plan writes failing since") || !strings.Contains(err.Error(), "full") {
		t.Fatalf("Ping on a full disk: %v, want the write failure", err)
	}
	fillDisk(t, db, 1000) // space freed
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping once there is room again: %v", err)
	}
	if h := db.WriteHealth(); h.Failing {
		t.Errorf("WriteHealth after the probe succeeded: %+v", h)
	}
	p := samplePlan("after", testNow)
	if _, err := db.SavePlan(ctx, &p); err != nil {
		t.Errorf("SavePlan once there is room again: %v", err)
	}
}

// TestRemovedWALLosesNothingAcknowledged: the fault report's deleted
// -wal file. Plans acknowledged before the removal live only in the log
// SQLite still holds open; once fitbot notices (the next write or Ping),
// they are moved into the database file, the write is refused and Ping
// fails. The database file alone, as a restart after SIGKILL finds it
// (no -wal), holds every acknowledged plan.
func TestRemovedWALLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fitbot.db")
	db := openAt(t, path, nil, -1)
	ctx := context.Background()
	const acked = 500
	for i := range acked {
		p := samplePlan("acked", testNow)
		p.Question = "acknowledged " + strconv.Itoa(i)
		if _, err := db.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no write-ahead log to remove: %v", err)
	}
	if err := os.Remove(path + "-wal"); err != nil {
		t.Fatal(err)
	}
	p := samplePlan("after", testNow)
	_, err := db.SavePlan(ctx, &p)
	t.Logf("after the -wal was removed: %v", err)
	if !errors.Is(err, ErrFileGone) || !strings.Contains(err.Error(), "-wal file was removed") || !strings.Contains(err.Error(), "were moved into the database file") {
		t.Fatalf("SavePlan after the -wal file was removed: %v", err)
	}
	if err := db.Ping(ctx); !errors.Is(err, ErrFileGone) {
		t.Errorf("Ping after the -wal file was removed: %v, want ErrFileGone", err)
	}
	// What a restart would find: the database file without a log.
	copyPath := filepath.Join(dir, "restart.db")
	if err := os.WriteFile(copyPath, readFile(t, path), 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", "file:"+copyPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM plans WHERE question LIKE 'acknowledged %'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != acked {
		t.Errorf("the database file alone holds %d of %d acknowledged plans", n, acked)
	}
	var ok string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check = %q, %v", ok, err)
	}
}
