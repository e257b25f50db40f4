// Package recorded holds the language model's recorded replies that a
// package replays to the schema of reading.Request, for tests only.
package recorded

import (
	"os"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/llm"
)

// Check fails for each recorded reply at paths that lacks a property the
// schema of reading.Request now requires, naming them and the command
// that adds them (pkg, e.g. "./bot"); with -update it writes them in as a
// strict-mode model returns them (null or zero), the rest of each file
// as recorded.
func Check(t *testing.T, pkg string, paths ...string) {
	t.Helper()
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		updated, added, err := llm.UpdateRecorded(body)
		switch {
		case err != nil:
			t.Errorf("%s: %v", path, err)
		case len(added) == 0:
		case golden.Updating():
			if err := os.WriteFile(path, updated, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s lacks %s, which the schema of reading.Request now requires: `go test %s -run TestRecordedReplies -update` adds them as a strict-mode model returns them (null or zero)",
				path, strings.Join(added, ", "), pkg)
		}
	}
}
