package bot

import (
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/internal/recorded"
)

// TestRecordedRepliesHoldTheSchema: the recorded model replies replayed
// here have every property the schema generated from reading.Request
// requires (recorded.Check). old_schema.json is a reply of an older
// schema, kept to be refused.
func TestRecordedRepliesHoldTheSchema(t *testing.T) {
	dir := filepath.Join("testdata", "openai")
	recorded.Check(t, "./bot",
		filepath.Join(dir, "paged_optimizers.json"), filepath.Join(dir, "paged_optimizers_ollama_fenced.json"),
		filepath.Join(dir, "paged_optimizers_vllm_think.json"), filepath.Join(dir, "refusal.json"))
}
