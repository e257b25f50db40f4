package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointsOffTheWriter: the plan writer never checkpoints on its
// own (wal_autocheckpoint=0), however many plans it commits; the
// checkpointer moves the whole log, and the log then starts over rather
// than growing.
func TestCheckpointsOffTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db := openAt(t, path, nil, -1)
	ctx := context.Background()
	if db.ckpt == nil {
		t.Fatal("no checkpointer")
	}
	var auto int
	if err := db.rw.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d (%v), want 0", auto, err)
	}
	save := func(n int) {
		for range n {
			p := samplePlan("mistral-7b-v0.1", time.Time{})
			if _, err := db.SavePlan(ctx, &p); err != nil {
				t.Fatal(err)
			}
		}
	}
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	save(600)
	logged, moved, err := db.ckpt.checkpoint()
	if err != nil || logged == 0 || moved != logged {
		t.Fatalf("checkpoint: %d pages logged, %d moved, %v; want all moved", logged, moved, err)
	}
	first := walSize()
	for round := range 3 {
		save(600)
		if _, _, err := db.ckpt.checkpoint(); err != nil {
			t.Fatal(err)
		}
		// 600 more plans: about first bytes more when the log started
		// over, twice first and more when it did not.
		if got := walSize(); got > first*3/2 {
			t.Errorf("round %d: the log grew from %d to %d bytes: it did not start over after a full checkpoint", round, first, got)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
