package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/store"
)

// TestPlansFamily: `/fit plans llama` lists the plans of every Llama,
// newest first, and no other family's.
func TestPlansFamily(t *testing.T) {
	plans := &fakePlans{plans: []store.Plan{
		{ID: 1, CreatedAt: testNow.Add(-3 * time.Hour), Team: "T1DC2JH3J", ChannelKind: store.ChannelPublic, Summary: plan.Summary{ModelKey: "llama-3.1-8b", Question: "llama 3.1 8b lora 4090"}},
		{ID: 2, CreatedAt: testNow.Add(-2 * time.Hour), Team: "T1DC2JH3J", ChannelKind: store.ChannelPublic, Summary: plan.Summary{ModelKey: "mistral-7b-v0.1", Question: "mistral 7b lora 4090"}},
		{ID: 3, CreatedAt: testNow.Add(-1 * time.Hour), Team: "T1DC2JH3J", ChannelKind: store.ChannelPublic, Summary: plan.Summary{ModelKey: "llama-3-70b", Question: "llama 3 70b qlora a100"}},
	}}
	h := newTestHandler(t, func(c *Config) { c.Plans = plans })
	got := messageJSON(t, h.Command(context.Background(), slash("plans llama")))
	i8, i70 := strings.Index(got, "llama 3.1 8b lora 4090"), strings.Index(got, "llama 3 70b qlora a100")
	if i8 < 0 || i70 < 0 || i70 > i8 || strings.Contains(got, "mistral 7b lora") || !strings.Contains(got, "Plans for the llama family") {
		t.Errorf("plans llama, want both Llama plans newest first and no Mistral:\n%s", got)
	}
	got = messageJSON(t, h.Command(context.Background(), slash("plans gemma")))
	if !strings.Contains(got, "No plans yet for any of the") || !strings.Contains(got, "lora 4090`") {
		t.Errorf("plans gemma with none kept:\n%s", got)
	}
	got = messageJSON(t, h.Command(context.Background(), slash("plans llama-3.1-8b")))
	if !strings.Contains(got, "llama 3.1 8b lora 4090") || strings.Contains(got, "llama 3 70b qlora") {
		t.Errorf("plans for one model lists others:\n%s", got)
	}
}
