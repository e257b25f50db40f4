package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWALBounded: after a burst of writes several times walLimit, with a
// reader holding a snapshot through part of it, the -wal file comes back
// under walLimit while the store stays open: it does not keep its
// largest size until Close.
func TestWALBounded(t *testing.T) {
	defer func(l int64, e, w time.Duration) { walLimit, truncateEvery, truncateWait = l, e, w }(walLimit, truncateEvery, truncateWait)
	walLimit, truncateEvery, truncateWait = 1<<20, 0, 250*time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.rw.ExecContext(ctx, "CREATE TABLE filler (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	reader, err := db.ro.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	reader.QueryRowContext(ctx, "SELECT count(*) FROM plans").Scan(&n) // a snapshot the checkpoints cannot pass
	blob := bytes.Repeat([]byte{0x5a}, 64<<10)
	for i := range 128 { // 8 MiB
		if _, err := db.rw.ExecContext(ctx, "INSERT INTO filler (b) VALUES (?)", blob); err != nil {
			t.Fatal(err)
		}
		if i == 64 {
			reader.Rollback()
		}
	}
	var size int64
	for range 100 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if size = fi.Size(); size <= walLimit {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the -wal file is %d bytes 10 s after the writes, over the %d limit", size, walLimit)
}
