package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/store"
)

func TestBackup(t *testing.T) {
	path := useDB(t)
	seedPlans(t, path, fourPlans()...)
	dest := filepath.Join(t.TempDir(), "backups", "fitbot-2026-11-30.db")

	code, out, errOut := runCmd(t, "backup", dest)
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, "backed up "+path+" to "+dest) {
		t.Fatalf("backup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	copyDB, err := store.Open(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	plans, err := copyDB.RecentPlans(context.Background(), store.AllPlans(), day(1, 0, 0), 10)
	if err != nil || len(plans) != 4 {
		t.Errorf("the copy holds %d plans, %v; want 4", len(plans), err)
	}

	before, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "backup", dest)
	if code != exitFailure || !strings.Contains(errOut, "never overwrites") || !strings.Contains(errOut, "Try: choose a new file name") {
		t.Errorf("backup onto an existing file: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(dest); string(after) != string(before) {
		t.Error("the existing backup was changed")
	}
}

func TestBackupBadInput(t *testing.T) {
	path := useDB(t)
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"backup"}, exitUsage, "needs one PATH"},
		{[]string{"backup", "a.db", "b.db"}, exitUsage, "needs one PATH"},
		{[]string{"backup", filepath.Join(t.TempDir(), "copy.db")}, exitFailure, "no database at " + path},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.inStderr) || !strings.Contains(errOut, "Try: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errOut, tc.code, tc.inStderr)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("backup created an empty database to copy")
	}
}
