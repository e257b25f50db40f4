package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// TestDBCopyRefusesAServedDatabase: while a fitbot serve holds the
// database's scheduler lease, db copy refuses, says which instance and
// what to do, and never reaches PostgreSQL; once the lease has run out
// (serve stopped or died), it goes on to PostgreSQL.
func TestDBCopyRefusesAServedDatabase(t *testing.T) {
	path := useDB(t)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, won, err := db.AcquireLease(context.Background(), schedulerLease, "fitbot-7d9f-abc12", time.Minute); err != nil || !won {
		t.Fatalf("lease: %v %v", won, err)
	}
	db.Close()
	const to = "postgres://fitbot@127.0.0.1:1/fitbot?connect_timeout=1"
	code, out, errOut := runCmd(t, "db", "copy", "--to", to)
	if code != exitFailure || !strings.Contains(errOut, "fitbot serve (fitbot-7d9f-abc12) is running") || !strings.Contains(errOut, "Try: stop fitbot serve first") {
		t.Errorf("served database: exit %d\n%s%s", code, out, errOut)
	}
	db, err = store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ReleaseLease(context.Background(), schedulerLease, "fitbot-7d9f-abc12"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, _, errOut := runCmd(t, "db", "copy", "--to", to); strings.Contains(errOut, "is running") {
		t.Errorf("a released lease still refused the copy:\n%s", errOut)
	}
}
