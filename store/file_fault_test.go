//go:build cgo

package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFileFaultsUnderAnOpenDatabase removes, replaces or write-protects
// the database file while it is open. SQLite would go on committing to
// an unlinked file, and a plan acknowledged then would be gone at the
// next start; instead SavePlan and Ping refuse with ErrFileGone. Plans
// saved before stay readable from a read-only file.
func TestFileFaultsUnderAnOpenDatabase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, path string)
	}{
		{"removed", func(t *testing.T, path string) {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
			}
		}},
		{"replaced", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.db")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"read-only", func(t *testing.T, path string) {
			if err := os.Chmod(path, 0o400); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fitbot.db")
			db := openAt(t, path, nil, -1)
			ctx := context.Background()
			p := samplePlan("before", testNow)
			id, err := db.SavePlan(ctx, &p)
			if err != nil {
				t.Fatal(err)
			}
			tc.fault(t, path)
			q := samplePlan("after", testNow)
			if _, err := db.SavePlan(ctx, &q); !errors.Is(err, ErrFileGone) {
				t.Errorf("SavePlan after the file was %s: %v, want ErrFileGone", tc.name, err)
			}
			if err := db.Ping(ctx); !errors.Is(err, ErrFileGone) {
				t.Errorf("Ping after the file was %s: %v, want ErrFileGone", tc.name, err)
			}
			if _, err := db.Plan(ctx, AllPlans(), id); err != nil && tc.name == "read-only" {
				t.Errorf("plan saved before the file was made read-only: %v", err)
			}
		})
	}
}

// TestWritableAgainAfterChmod: a file given back its write permission is
// written again without a restart (it is still the same file).
func TestWritableAgainAfterChmod(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db := openAt(t, path, nil, -1)
	ctx := context.Background()
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	p := samplePlan("m", testNow)
	if _, err := db.SavePlan(ctx, &p); !errors.Is(err, ErrFileGone) {
		t.Fatalf("SavePlan on a read-only file: %v, want ErrFileGone", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SavePlan(ctx, &p); err != nil {
		t.Errorf("SavePlan once writable again: %v", err)
	}
}
