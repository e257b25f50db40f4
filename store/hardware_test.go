package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestTeamHardware(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	box, err := sizing.ParseMachine("our box: 2x rtx-4090, 128 GB RAM")
	if err != nil {
		t.Fatal(err)
	}
	laptop, err := sizing.ParseMachine("laptop: M2 Max 32GB")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []sizing.Machine{box, laptop} {
		if err := db.SaveMachine(ctx, "T1", m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Machines(ctx, "T1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sizing.Machine{laptop, box}, got); d != "" {
		t.Errorf("Machines (-want +got):\n%s", d)
	}
	if other, _ := db.Machines(ctx, "T2"); len(other) != 0 {
		t.Errorf("team T2 sees %v", other)
	}
	// Naming a machine again replaces it.
	bigger, _ := sizing.ParseMachine("our box: 4x rtx-4090")
	if err := db.SaveMachine(ctx, "T1", bigger); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Machines(ctx, "T1"); len(got) != 2 || got[1].GPUs != 4 {
		t.Errorf("after renaming: %+v", got)
	}
	if ok, err := db.RemoveMachine(ctx, "T1", "our box"); !ok || err != nil {
		t.Errorf("RemoveMachine = %v, %v", ok, err)
	}
	if ok, _ := db.RemoveMachine(ctx, "T1", "our box"); ok {
		t.Error("removed a machine twice")
	}
	if err := db.SaveMachine(ctx, "T1", sizing.Machine{Name: "bad"}); err == nil {
		t.Error("a machine without a GPU was saved")
	}
	for i := range sizing.MaxMachines {
		if err := db.SaveMachine(ctx, "T3", sizing.Machine{Name: fmt.Sprintf("m%d", i), GPU: "h100", GPUs: 1, Nodes: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveMachine(ctx, "T3", sizing.Machine{Name: "one more", GPU: "h100", GPUs: 1, Nodes: 1}); !errors.Is(err, ErrTooManyMachines) {
		t.Errorf("machine %d: err %v, want ErrTooManyMachines", sizing.MaxMachines+1, err)
	}
	if all, _ := db.Machines(ctx, "T3"); len(all) != sizing.MaxMachines {
		t.Errorf("%d machines kept, want %d", len(all), sizing.MaxMachines)
	}
}
