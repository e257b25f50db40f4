package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/llm"
)

// TestRecordedRepliesHoldTheSchema: the recorded model replies replayed
// here have every property the schema generated from reading.Request
// requires; when a field is added to it, -update adds the field to them
// as a strict-mode model returns it (null or zero), the rest of each
// file as recorded.
func TestRecordedRepliesHoldTheSchema(t *testing.T) {
	for _, file := range []string{filepath.Join("openai", "request_paged_optimizers.json"), filepath.Join("serve", "openai_structured.json")} {
		path := filepath.Join("testdata", file)
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
			t.Errorf("%s lacks %s, which the schema of reading.Request now requires: `go test ./cmd/fitbot -run TestRecordedReplies -update` adds them as a strict-mode model returns them (null or zero)",
				path, strings.Join(added, ", "))
		}
	}
}
