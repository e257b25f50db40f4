package main

import (
	"strings"
	"testing"
)

// TestDBCopyBadInput: every mistake is refused before anything is opened,
// with a Try: line, and a password in a URL never reaches the message.
func TestDBCopyBadInput(t *testing.T) {
	path := useDB(t)
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"db"}, exitUsage, "db needs a command"},
		{[]string{"db", "move"}, exitUsage, `unknown db command "move"`},
		{[]string{"db", "copy"}, exitUsage, "needs --to"},
		{[]string{"db", "copy", "--to"}, exitUsage, "needs --to"},
		{[]string{"db", "copy", "--to", "mysql://u:hunter2@h/db"}, exitUsage, "is not a PostgreSQL URL"},
		{[]string{"db", "copy", "--to=postgres://u:hunter2@127.0.0.1:1/db"}, exitFailure, "no database at " + path},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.inStderr) || !strings.Contains(errOut, "Try: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, errOut, tc.code, tc.inStderr)
		}
		if strings.Contains(errOut, "hunter2") {
			t.Errorf("%v: the password is in the message: %q", tc.args, errOut)
		}
	}
}
