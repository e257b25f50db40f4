package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the live database to path with
// VACUUM INTO: one read transaction's snapshot, compacted, safe to take
// while the bot writes. It never overwrites: an existing path is an error
// wrapping fs.ErrExist. The copy is created owner-only, checked with
// quick_check, and removed again if anything fails. A PostgreSQL
// database is refused: pg_dump backs it up.
func (db *DB) Backup(ctx context.Context, path string) (err error) {
	if db.postgres {
		return fmt.Errorf("backup of %s: fitbot backs up SQLite files; back PostgreSQL up with pg_dump", db.path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	if abs == db.path {
		return fmt.Errorf("backup to %s: that is the database itself: %w", abs, fs.ErrExist)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return fileError("create folder for backup", abs, err)
	}
	// An empty file made here, exclusively, is what VACUUM INTO accepts,
	// and it gives the copy owner-only permissions and refuses a file
	// that appeared since the caller looked.
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("backup to %s: the file exists, and a backup never overwrites one: %w", abs, fs.ErrExist)
	}
	if err != nil {
		return fileError("create backup", abs, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("backup to %s: %w", abs, err)
	}
	defer func() {
		if err != nil {
			os.Remove(abs)
		}
	}()
	if _, err := db.rw.ExecContext(ctx, "VACUUM INTO ?", abs); err != nil {
		return db.wrap("backup to "+abs, err)
	}
	return checkCopy(ctx, abs)
}

// checkCopy opens a finished backup read-only and runs quick_check on it.
func checkCopy(ctx context.Context, abs string) error {
	copyDB := &DB{path: abs}
	var err error
	if copyDB.ro, err = openReadOnly(abs); err != nil {
		return fmt.Errorf("check backup %s: %w", abs, err)
	}
	defer copyDB.ro.Close()
	if err := copyDB.quickCheck(ctx); err != nil {
		return fmt.Errorf("check backup: %w", err)
	}
	return nil
}
