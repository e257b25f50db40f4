package main

import (
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/internal/recorded"
)

// TestRecordedRepliesHoldTheSchema: the recorded model replies replayed
// here have every property the schema generated from reading.Request
// requires (recorded.Check).
func TestRecordedRepliesHoldTheSchema(t *testing.T) {
	recorded.Check(t, "./cmd/fitbot",
		filepath.Join("testdata", "openai", "request_paged_optimizers.json"),
		filepath.Join("testdata", "serve", "openai_structured.json"))
}
