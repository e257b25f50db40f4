// Package store is fitbot's database: an embedded SQLite file
// (github.com/mattn/go-sqlite3) or, for several replicas, a PostgreSQL
// server (github.com/jackc/pgx; see postgres.go). It opens the database
// with the right per-connection settings, applies the schema in package
// migrations, and holds a transaction helper and the tables every
// capability writes to (plans here; prices, Slack events, digests and
// leases in files of their own).
//
// It depends on sizing and pricing for their types and on nothing above
// them: bot and cmd reach the store through interfaces they declare. Driver
// errors do not leave the package raw: a missing row is ErrNotFound, a file
// that is not a fitbot database is ErrNotDatabase, and so on.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fitbot/fitbot/migrations"
)

// The errors callers tell apart. Errors returned by the store wrap one of
// these where one applies, with the database path or the key in the text.
var (
	// ErrNotFound means the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew means the database was migrated by a newer fitbot
	// than this one; this binary refuses to touch it.
	ErrSchemaTooNew = errors.New("database schema is newer than this fitbot")
	// ErrNotDatabase means the file is not a SQLite database, is damaged,
	// or is another program's SQLite database. Nothing is written to it.
	ErrNotDatabase = errors.New("not a fitbot database")
	// ErrReadOnly means the database file or its folder cannot be written.
	ErrReadOnly = errors.New("database is read-only")
	// ErrFileGone means the database file was removed, replaced or made
	// read-only while fitbot had it open: writes would go to a file no
	// one will open again, so they are refused.
	ErrFileGone = errors.New("database file removed, replaced or made read-only under fitbot")
	// ErrNoCgo means the binary was built with CGO_ENABLED=0, which leaves
	// the SQLite driver a stub.
	ErrNoCgo = errors.New("fitbot was built without cgo; the SQLite driver needs CGO_ENABLED=1")
)

// DB is fitbot's database: one writer connection, so that writers queue
// inside the process instead of failing with "database is locked", and a
// pool of read-only connections that WAL lets run beside it.
//
// Code in this package writes through db.rw (every write, and every read
// that must see its own transaction) and reads through db.ro.
type DB struct {
	// Now is the clock every stored time comes from; tests replace it.
	// Times are stored in UTC whatever location it returns.
	Now func() time.Time

	path     string  // the file's absolute path, or the PostgreSQL URL without its password
	postgres bool    // a PostgreSQL server rather than a SQLite file
	rw       *sql.DB // SQLite: the single writer, MaxOpenConns(1), BEGIN IMMEDIATE; PostgreSQL: pgWriters
	ro       *sql.DB // readers: query_only (read-only transactions on PostgreSQL)

	file     os.FileInfo // the database file as opened; see checkFile
	planOnce sync.Once
	plans    *planWriter   // group commit of SavePlan; started on first use
	ckpt     *checkpointer // SQLite: checkpoints off the writer's path (checkpoint.go); nil if none

	batchObserver atomic.Pointer[func(rows int)] // see ObservePlanBatches
	writes        writeState                     // see WriteHealth
	side          sidecars                       // the -wal and -shm files; see checkSidecars
	machines      machineCache                   // the teams' machines as last read; see Machines
}

// Open opens the database at path, creating the file (owner-only) and its
// folder when missing, and brings its schema up to date. A path that is a
// postgres:// URL (IsPostgresURL) opens that PostgreSQL database instead,
// with the same schema and behaviour.
//
// A file that is not a SQLite database, a damaged one, another program's
// database, or one migrated by a newer fitbot is refused with an error
// naming the path, and nothing is written to it.
func Open(ctx context.Context, path string) (*DB, error) {
	if IsPostgresURL(path) {
		fsys, err := pgMigrations(migrations.FS, migrations.Postgres)
		if err != nil {
			return nil, err
		}
		return openPostgres(ctx, path, options{migrations: fsys, target: -1})
	}
	return open(ctx, path, options{migrations: migrations.FS, target: -1})
}

// options are the knobs tests turn: which migrations to apply and up to
// which version (-1 for all).
type options struct {
	migrations fs.FS
	target     int
	now        func() time.Time
}

func open(ctx context.Context, path string, opt options) (*DB, error) {
	if !cgoEnabled {
		return nil, ErrNoCgo
	}
	all, target, err := opt.schema()
	if err != nil {
		return nil, err
	}
	abs, err := prepareFile(path)
	if err != nil {
		return nil, err
	}
	db := &DB{Now: opt.now, path: abs}
	if db.file, err = os.Stat(abs); err != nil {
		return nil, fileError("open", abs, err)
	}
	if db.Now == nil {
		db.Now = time.Now
	}
	// The readers come first: they cannot write, so the file is inspected
	// (another program's? damaged? too new?) before anything can change a
	// byte of it, the writer's switch to WAL included.
	if db.ro, err = sql.Open("sqlite3", dsn(abs, readerParams)); err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	db.ro.SetMaxOpenConns(readers)
	db.ro.SetMaxIdleConns(readers)
	applied, err := db.inspect(ctx, all, target)
	if err != nil {
		db.ro.Close()
		return nil, err
	}
	if db.rw, err = sql.Open("sqlite3", dsn(abs, writerParams)); err != nil {
		db.ro.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	db.rw.SetMaxOpenConns(1)
	if err := db.migrateAndPing(ctx, all, applied, target); err != nil {
		return nil, err
	}
	db.startCheckpointer(ctx)
	return db, nil
}

// readers is the size of the read pool: enough for the bot's handlers and
// a CLI user at once, small enough to keep file handles few.
const readers = 8

// Path is the absolute path of the database file, or the PostgreSQL URL
// without its password.
func (db *DB) Path() string { return db.path }

// Ping checks that the database file is still the one opened (see
// checkFile) and that both the writer and the readers can reach it;
// serve's readiness check calls it.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.checkFile(); err != nil {
		return err
	}
	if err := db.pingWrites(ctx); err != nil {
		return err
	}
	if err := db.rw.PingContext(ctx); err != nil {
		return db.wrap("ping", err)
	}
	var one int
	if err := db.ro.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return db.wrap("ping", err)
	}
	return nil
}

// Close folds the write-ahead log back into the database file
// (wal_checkpoint(TRUNCATE)), so that a copy of the file alone is
// complete, and closes every connection.
func (db *DB) Close() error {
	ctx := context.Background()
	db.planOnce.Do(func() {}) // no writer starts after this
	db.plans.close()
	var errs []error
	if db.postgres {
		errs = append(errs, db.ro.Close(), db.rw.Close())
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("close database %s: %w", db.path, err)
		}
		return nil
	}
	if err := db.ckpt.close(); err != nil {
		errs = append(errs, fmt.Errorf("checkpointer: %w", err))
	}
	if _, err := db.rw.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		errs = append(errs, fmt.Errorf("optimize: %w", err))
	}
	if err := db.ro.Close(); err != nil {
		errs = append(errs, err)
	}
	if _, err := db.rw.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errs = append(errs, fmt.Errorf("checkpoint: %w", err))
	}
	if err := db.rw.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close database %s: %w", db.path, err)
	}
	return nil
}

// Tx runs fn in one write transaction (BEGIN IMMEDIATE, so it never fails
// half-way for want of the write lock) and commits when fn returns nil. It
// rolls back when fn returns an error or panics; a panic is re-raised after
// the rollback.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.rw.BeginTx(ctx, nil)
	if err != nil {
		return db.wrap("begin", err)
	}
	committed := false
	defer func() {
		if !committed {
			// The transaction failed or fn panicked; the rollback error,
			// if any, says less than the error already on its way.
			_ = tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("commit", err)
	}
	committed = true
	return nil
}

// now is the store's current time in UTC.
func (db *DB) now() time.Time { return db.Now().UTC() }
