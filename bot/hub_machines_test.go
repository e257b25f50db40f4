package bot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// TestHubModelOnTeamMachines is the review's reproduction: with two team
// machines, 1× RTX 4090 and 8× H100, a Hub model asked with no GPU is
// placed by its own size (8.8 GiB for Qwen3-1.7B QLoRA) on the smaller
// machine, whether it is named by its id or by words the catalog lacks.
// Before, the id was placed before the Hub lookup (on neither machine,
// so on the largest) and the words not at all.
func TestHubModelOnTeamMachines(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := hubHandler(t, &fakeModels{delay: time.Millisecond}, func(c *Config) { c.Hardware = db })
	for _, add := range []string{"hardware add the 4090: 1x rtx-4090", "hardware add the big one: 8x h100"} {
		if got := messageJSON(t, h.Command(ctx, slash(add))); !strings.Contains(got, "Saved") {
			t.Fatalf("/fit %s: %s", add, got)
		}
	}
	for _, q := range []string{"Qwen/Qwen3-1.7B qlora", "qwen3 1.7b qlora"} {
		msg := h.Command(ctx, slash(q))
		got := messageJSON(t, msg)
		for _, want := range []string{"Qwen/Qwen3-1.7B", "1× RTX 4090", `sized on \"the 4090\"`, "the smallest of the team's 2 machines it fits on"} {
			if !strings.Contains(got, want) {
				t.Errorf("/fit %s: reply lacks %s:\n%s", q, want, got)
			}
		}
		if strings.Contains(got, "H100") || outcomeOf(msg) != OutcomeAnswered {
			t.Errorf("/fit %s: not answered on the 4090 alone (outcome %s):\n%s", q, outcomeOf(msg), got)
		}
	}
	// The same question with a GPU named is not placed on the machines.
	if got := messageJSON(t, h.Command(ctx, slash("Qwen/Qwen3-1.7B qlora h100"))); strings.Contains(got, "the team's") {
		t.Errorf("a question naming its GPU was placed on the team's machines:\n%s", got)
	}
}
