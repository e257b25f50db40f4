package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// defaultDBPath is the database when FITBOT_DB is not set: fitbot.db in
// the working directory.
const defaultDBPath = "fitbot.db"

// dbPath is where the database lives: FITBOT_DB, else defaultDBPath.
func (a *app) dbPath() string { return a.env.get("FITBOT_DB") }

// dbExists reports whether the database file is there, so that commands
// that only read can say "nothing yet" instead of creating an empty one.
// A PostgreSQL database (FITBOT_DB=postgres://...) is taken to exist: the
// server says otherwise when it is opened.
func (a *app) dbExists() bool {
	if store.IsPostgresURL(a.dbPath()) {
		return true
	}
	_, err := os.Stat(a.dbPath())
	return !errors.Is(err, fs.ErrNotExist)
}

// openStore opens the database for a subcommand; the caller closes it.
// A database that would not open is a failure with the hint that fits it.
func (a *app) openStore(ctx context.Context) (*store.DB, error) {
	db, err := store.Open(ctx, a.dbPath())
	if err != nil {
		return nil, failure(err.Error(), dbHint(err))
	}
	return db, nil
}

// dbHint is the Try: line for a database that would not open, "" when
// none helps. openStore and serve both use it.
func dbHint(err error) string {
	switch {
	case errors.Is(err, store.ErrNoCgo):
		return "CGO_ENABLED=1 go build -o fitbot ./cmd/fitbot (a C compiler is needed)"
	case errors.Is(err, store.ErrNotDatabase):
		return "point FITBOT_DB at fitbot's database, or move that file aside and run again to start a new one"
	case errors.Is(err, store.ErrSchemaTooNew):
		return "run the newer fitbot that last used this database, or point FITBOT_DB elsewhere"
	case errors.Is(err, store.ErrReadOnly):
		return "FITBOT_DB=/a/writable/folder/fitbot.db (the folder must be writable too: WAL keeps -wal and -shm files beside the database)"
	}
	return ""
}

// closeStore closes the database, reporting a failure (the last writes
// are already committed; a failed checkpoint only leaves the -wal file).
func (a *app) closeStore(db *store.DB) {
	if err := db.Close(); err != nil {
		a.fail(exitFailure, err.Error(), "")
	}
}

// fitPrices is what `fitbot fit` prices answers with: the store's current
// prices, then the default sheet, when the database exists; the embedded
// default sheet otherwise, so that a first question on a fresh machine
// writes no file. A database that cannot be read is noted on stderr and
// the default sheet used: the question can still be answered.
func (a *app) fitPrices(ctx context.Context) sizing.PriceSource {
	if !a.dbExists() {
		return pricing.DefaultSheet()
	}
	db, err := store.Open(ctx, a.dbPath())
	if err != nil {
		fmt.Fprintf(a.stderr, "fitbot: prices from the default sheet: %v\n", err)
		return pricing.DefaultSheet()
	}
	defer a.closeStore(db)
	src, err := db.PriceSource(ctx)
	if err != nil {
		fmt.Fprintf(a.stderr, "fitbot: prices from the default sheet: %v\n", err)
		return pricing.DefaultSheet()
	}
	return src
}
