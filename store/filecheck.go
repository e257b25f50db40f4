package store

import (
	"fmt"
	"os"
)

// checkFile reports, wrapping ErrFileGone, a database file that is no
// longer the one Open opened: removed, replaced by another file, or
// stripped of its owner's write permission. SQLite keeps writing to an
// open file that was unlinked, so without this check a plan would be
// committed, acknowledged, and lost at the next start. A stat costs a
// microsecond; SavePlan's writer and Ping call it. A PostgreSQL database
// has no file to check.
func (db *DB) checkFile() error {
	if db.postgres {
		return nil
	}
	st, err := os.Stat(db.path)
	switch {
	case err != nil:
		return fmt.Errorf("database %s: %v; restart fitbot once the file is back: %w", db.path, unwrapPath(err), ErrFileGone)
	case !os.SameFile(st, db.file):
		return fmt.Errorf("database %s was replaced by another file; restart fitbot to use it: %w", db.path, ErrFileGone)
	case st.Mode().Perm()&0o200 == 0:
		return fmt.Errorf("database %s was made read-only (mode %v): %w", db.path, st.Mode().Perm(), ErrFileGone)
	}
	return db.checkSidecars()
}
