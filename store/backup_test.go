package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestBackupWhileWriting takes a backup while another goroutine keeps
// saving plans: the copy is a complete database (quick_check, all
// migrations) holding some prefix of the plans, and it is owner-only.
func TestBackupWhileWriting(t *testing.T) {
	skipOnPostgres(t) // about SQLite: its files, schema table or query planner
	db := openTest(t)
	ctx := context.Background()
	for i := range 50 {
		p := samplePlan("mistral-7b-v0.1", testNow.Add(time.Duration(i)*time.Second))
		if _, err := db.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := samplePlan("llama-3.1-8b", time.Time{})
			if _, err := db.SavePlan(ctx, &p); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	path := filepath.Join(t.TempDir(), "backups", "fitbot-copy.db")
	err := db.Backup(ctx, path)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("backup mode = %v, want -rw-------", perm)
	}
	copyDB := openAt(t, path, nil, -1)
	got, err := copyDB.PlansForModel(ctx, AllPlans(), "mistral-7b-v0.1", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 {
		t.Errorf("backup holds %d of the 50 plans saved before it", len(got))
	}
}

func TestBackupNeverOverwrites(t *testing.T) {
	skipOnPostgres(t) // about SQLite: its files, schema table or query planner
	db := openTest(t)
	ctx := context.Background()
	existing := filepath.Join(t.TempDir(), "precious.db")
	writeFile(t, existing, []byte("keep me"))
	for _, path := range []string{existing, db.Path()} {
		if err := db.Backup(ctx, path); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Backup(%s) = %v, want fs.ErrExist", path, err)
		}
	}
	if got := string(readFile(t, existing)); got != "keep me" {
		t.Errorf("the existing file now holds %q", got)
	}
}
