package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestPlansShowComparesFigures is bot's TestReaskComparesFigures through
// `fitbot plans show`: new words for the same answer are no change, a
// moved figure is, and is named.
func TestPlansShowComparesFigures(t *testing.T) {
	ctx := context.Background()
	path := useDB(t)
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reading.Parse("what 2x4090 lora")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{Prices: pricing.DefaultSheet()}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	reworded := plan.FromAsk("what 2x4090 lora", p, a, "2x RTX 4090: LoRA to about 9.5B (as an older fitbot put it)")
	moved := reworded
	moved.Request.Params /= 2
	var ids []int64
	for _, s := range []plan.Summary{reworded, moved} {
		id, err := db.SavePlan(ctx, new(store.NewPlan(store.Who{Source: store.SourceCLI}, s)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	db.Close()
	for i, want := range []string{"Answer unchanged.", "largest model: 4.73B then, 9.46B now"} {
		code, out, errOut := runCmd(t, "plans", "show", strconv.FormatInt(ids[i], 10))
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("plans show %d: exit %d, lacks %q:\n%s%s", ids[i], code, want, out, errOut)
		}
	}
}
