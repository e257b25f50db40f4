package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/fitbot/fitbot/store"
)

const backupUsage = `Usage: fitbot backup PATH

Writes a consistent copy of the database (FITBOT_DB, else ./fitbot.db) to
PATH while fitbot keeps running (SQLite VACUUM INTO), owner-only, and
checks it. An existing PATH is never overwritten.

Example: fitbot backup backups/fitbot-2026-11-30.db
`

// backup is `fitbot backup PATH`.
func (a *app) backup(ctx context.Context, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(a.stdout, backupUsage)
		return nil
	}
	if len(args) != 1 || args[0] == "" {
		return usageError("backup needs one PATH to write the copy to", "fitbot backup backups/fitbot-copy.db")
	}
	path := args[0]
	if store.IsPostgresURL(a.dbPath()) {
		return failure("fitbot backup copies a SQLite file; FITBOT_DB is a PostgreSQL database", "pg_dump --format=custom --file="+path+" \"$FITBOT_DB\"")
	}
	// Checked before opening, so that a mistake does not create a new
	// empty database where none was.
	if !a.dbExists() {
		return failure(fmt.Sprintf("no database at %s to back up", a.dbPath()), "FITBOT_DB=path/to/fitbot.db fitbot backup "+path)
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)
	if err := db.Backup(ctx, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return failure(err.Error(), "choose a new file name, e.g. fitbot backup "+path+".1")
		}
		return failure(err.Error(), "")
	}
	st, err := os.Stat(path)
	if err != nil {
		return failure(err.Error(), "")
	}
	fmt.Fprintf(a.stdout, "backed up %s to %s (%d bytes, quick_check ok)\n", db.Path(), path, st.Size())
	return nil
}
