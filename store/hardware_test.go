package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestTeamHardware(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	box, err := reading.ParseMachine("our box: 2x rtx-4090, 128 GB RAM")
	if err != nil {
		t.Fatal(err)
	}
	laptop, err := reading.ParseMachine("laptop: M2 Max 32GB")
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
	bigger, _ := reading.ParseMachine("our box: 4x rtx-4090")
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

// TestMachinesKeptInMemory: a team's machines are read once and reused;
// this process's own writes show at once, another process's (the command
// line on the same file) once machinesTTL has passed; a caller that
// changes what it got does not change what the next caller gets.
func TestMachinesKeptInMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db, other := openAt(t, path, nil, -1), openAt(t, path, nil, -1)
	box := sizing.Machine{Name: "box", GPU: "rtx-4090", GPUs: 2, Nodes: 1}
	if err := db.SaveMachine(ctx, "T1", box); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		ms, err := db.Machines(ctx, "T1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"box"}) {
		t.Fatalf("machines %v", got)
	}
	ms, _ := db.Machines(ctx, "T1")
	ms[0].Name = "changed by a caller"
	if err := other.SaveMachine(ctx, "T1", sizing.Machine{Name: "rig", GPU: "h100", GPUs: 8, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"box"}) {
		t.Errorf("within the TTL: %v, want the kept [box]", got)
	}
	db.machines.mu.Lock()
	e := db.machines.teams["T1"]
	e.until = time.Now().Add(-time.Millisecond)
	db.machines.teams["T1"] = e
	db.machines.mu.Unlock()
	if got := names(); !slices.Equal(got, []string{"box", "rig"}) {
		t.Errorf("after the TTL: %v, want [box rig]", got)
	}
	if _, err := db.RemoveMachine(ctx, "T1", "rig"); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"box"}) {
		t.Errorf("after this process removed rig: %v", got)
	}
	if err := db.SaveMachine(ctx, "T1", sizing.Machine{Name: "new", GPU: "h100", GPUs: 1, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"box", "new"}) {
		t.Errorf("after this process saved new: %v", got)
	}
}

// TestMachineCacheRefusesAReadOlderThanAWrite: a read that began before a
// write is not kept, so it cannot put back what the write replaced.
func TestMachineCacheRefusesAReadOlderThanAWrite(t *testing.T) {
	var c machineCache
	gen := c.generation()
	c.forget("T1") // a write lands while the read is in flight
	c.put("T1", []sizing.Machine{{Name: "stale"}}, gen)
	if ms, ok := c.get("T1"); ok {
		t.Errorf("kept a read older than the write: %v", ms)
	}
	c.put("T1", []sizing.Machine{{Name: "fresh"}}, c.generation())
	if ms, ok := c.get("T1"); !ok || ms[0].Name != "fresh" {
		t.Errorf("get = %v, %v", ms, ok)
	}
}
