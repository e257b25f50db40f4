package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestReaskComparesFigures: `/fit plan N` on an inverse plan says
// "unchanged" when only the words of its one-line answer differ (a newer
// fitbot words it otherwise) and "changed" when a figure moved; before,
// the two lines were compared as text.
func TestReaskComparesFigures(t *testing.T) {
	h, db := newRealHandler(t)
	ctx := context.Background()
	p, err := reading.Parse("what 2x4090 lora")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{Prices: pricing.DefaultSheet()}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	reworded := plan.FromAsk("what 2x4090 lora", p, a, "2x RTX 4090: LoRA to about 10B (as an older fitbot put it)")
	moved := reworded
	moved.Request.Params /= 2
	for _, tt := range []struct {
		s    plan.Summary
		want string
	}{{reworded, "Answer unchanged."}, {moved, "Answer changed: then 2x RTX 4090"}} {
		id, err := db.SavePlan(ctx, new(store.NewPlan(slashAsker(slash("plan")).saver(), tt.s)))
		if err != nil {
			t.Fatal(err)
		}
		if got := messageJSON(t, h.Command(ctx, slash("plan "+itoa(id)))); !strings.Contains(got, tt.want) {
			t.Errorf("/fit plan %d: lacks %q:\n%s", id, tt.want, got)
		}
	}
}
