package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fitbot/fitbot/measure"
)

func TestMeasuredRunsFollowTheirPlansScope(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	public := samplePlan("mistral-7b-v0.1", testNow.Add(-time.Hour))
	if _, err := db.SavePlan(ctx, &public); err != nil {
		t.Fatal(err)
	}
	dm := samplePlan("mistral-7b-v0.1", testNow.Add(-time.Hour))
	dm.Channel, dm.ChannelKind, dm.User = "D0009", ChannelDM, "U0042"
	if _, err := db.SavePlan(ctx, &dm); err != nil {
		t.Fatal(err)
	}
	asker := Viewer("T0001", "C0002", "U0003")

	run := PlanRun{PlanID: public.ID, RecordedBy: "U0003", Via: ViaSlack,
		Measured:  measure.Run{PeakBytes: 20 * measure.GiB, TokensPerSecond: 3150},
		Predicted: measure.Run{PeakBytes: public.PerGPUBytes, TokensPerSecond: 3500}}
	if err := db.SaveMeasuredRun(ctx, asker, &run); err != nil {
		t.Fatal(err)
	}
	if run.ID == 0 || !run.RecordedAt.Equal(testNow) {
		t.Errorf("saved run id %d at %v", run.ID, run.RecordedAt)
	}

	// Another user of the workspace cannot record a run of a DM plan, nor
	// can another workspace record one of the public plan; nothing is written.
	for _, c := range []struct {
		scope Scope
		id    int64
	}{{asker, dm.ID}, {Viewer("T9999", "C0002", "U0003"), public.ID}, {asker, 12345}} {
		r := PlanRun{PlanID: c.id, Via: ViaSlack, Measured: measure.Run{Hours: 1}}
		if err := db.SaveMeasuredRun(ctx, c.scope, &r); !errors.Is(err, ErrNotFound) {
			t.Errorf("run of plan %d from %s: %v, want ErrNotFound", c.id, c.scope, err)
		}
	}
	for _, bad := range []PlanRun{
		{PlanID: public.ID, Via: ViaSlack},
		{PlanID: public.ID, Via: ViaSlack, Measured: measure.Run{Hours: -1}},
		{PlanID: public.ID, Via: "email", Measured: measure.Run{Hours: 1}},
	} {
		if err := db.SaveMeasuredRun(ctx, asker, &bad); err == nil {
			t.Errorf("bad run %+v saved", bad)
		}
	}

	got, err := db.RunsForPlan(ctx, asker, public.ID)
	if err != nil || len(got) != 1 {
		t.Fatalf("runs of plan %d: %v, %v", public.ID, got, err)
	}
	if got[0].Measured != run.Measured || got[0].Predicted != run.Predicted || got[0].Via != ViaSlack || got[0].RecordedBy != "U0003" {
		t.Errorf("read back %+v, saved %+v", got[0], run)
	}
	if other, err := db.RunsForPlan(ctx, Viewer("T9999", "C1", "U1"), public.ID); err != nil || len(other) != 0 {
		t.Errorf("another workspace reads %v, %v", other, err)
	}
	all, err := db.MeasuredRuns(ctx, asker, 0)
	if err != nil || len(all) != 1 || all[0].Plan.ID != public.ID || all[0].Plan.Request.Method != "lora" {
		t.Errorf("measured runs: %+v, %v", all, err)
	}
	if none, _ := db.MeasuredRuns(ctx, CommandLine(), 0); len(none) != 0 {
		t.Errorf("the command line reads a Slack plan's runs: %+v", none)
	}
}
