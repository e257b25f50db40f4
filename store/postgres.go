package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL behind the same store: FITBOT_DB=postgres://... opens it
// with jackc/pgx (through its database/sql adapter, pgx/v5/stdlib), so
// that every query, transaction and scan in this package is written once
// for both engines. Three things differ and are handled here or behind
// db.postgres:
//
//   - placeholders: the package writes SQLite's ? and ?N; the connection
//     wrapper below rewrites them to PostgreSQL's $N before pgx sees them;
//   - the schema: migrations/postgres holds the same migrations, file for
//     file, in PostgreSQL's types (times stay fixed-width UTC text, so
//     their order and the Go code reading them are the same);
//   - locking: SQLite has one writer, so a read-then-write transaction is
//     serialised for free; on PostgreSQL such transactions take a table
//     lock (lockTable), migrations an advisory lock, and the one-statement
//     rules (leases, event ids, digest claims) are atomic on both.
//
// Pool sizes, per process: pgWriters connections for writes (the plan
// writer's group commit uses one; leases, claims and price runs the
// rest) and pgReaders read-only connections. Two replicas hold at most
// 2*(pgWriters+pgReaders) = 32 connections, well under PostgreSQL's
// default max_connections of 100.
const (
	pgWriters = 8
	pgReaders = 8
	// pgIdle is how long an idle pooled connection is kept.
	pgIdle = 5 * time.Minute
)

// migrationLock is the advisory lock key that serialises migrations
// across processes opening one PostgreSQL database at once ("fitbot" in
// ASCII).
const migrationLock = 0x666974626f74

// IsPostgresURL reports whether FITBOT_DB names a PostgreSQL database
// (postgres:// or postgresql://) rather than a SQLite file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// RedactURL is a PostgreSQL URL without its password, fit for logs and
// errors.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	return u.Redacted()
}

// openPostgres opens the PostgreSQL database at rawURL and brings its
// schema up to date, as open does for a SQLite file.
func openPostgres(ctx context.Context, rawURL string, opt options) (*DB, error) {
	name := RedactURL(rawURL)
	all, target, err := opt.schema()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		// pgconn's message repeats the URL with its password masked.
		return nil, fmt.Errorf("open database %s: %w", name, err)
	}
	db := &DB{Now: opt.now, path: name, postgres: true}
	if db.Now == nil {
		db.Now = time.Now
	}
	roCfg := cfg.Copy()
	roCfg.RuntimeParams["default_transaction_read_only"] = "on"
	db.ro = sql.OpenDB(pgConnector{stdlib.GetConnector(*roCfg)})
	db.ro.SetMaxOpenConns(pgReaders)
	db.ro.SetMaxIdleConns(pgReaders)
	db.ro.SetConnMaxIdleTime(pgIdle)
	db.rw = sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)})
	db.rw.SetMaxOpenConns(pgWriters)
	db.rw.SetMaxIdleConns(pgWriters)
	db.rw.SetConnMaxIdleTime(pgIdle)
	applied, err := db.inspect(ctx, all, target)
	if err != nil {
		db.ro.Close()
		db.rw.Close()
		return nil, err
	}
	if err := db.migrateAndPing(ctx, all, applied, target); err != nil {
		return nil, err
	}
	return db, nil
}

// pgMigrations are the PostgreSQL migrations, checked to be the SQLite
// ones file for file, so that a version means the same schema on both
// engines and `fitbot db copy` can trust it.
func pgMigrations(sqliteFS, pgFS fs.FS) (fs.FS, error) {
	lite, err := loadMigrations(sqliteFS)
	if err != nil {
		return nil, err
	}
	pg, err := loadMigrations(pgFS)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	for i := range max(len(lite), len(pg)) {
		switch {
		case i >= len(pg):
			return nil, fmt.Errorf("migration %s has no PostgreSQL twin in migrations/postgres", lite[i].name)
		case i >= len(lite):
			return nil, fmt.Errorf("migration postgres/%s has no SQLite twin", pg[i].name)
		case lite[i].name != pg[i].name:
			return nil, fmt.Errorf("migration %s is postgres/%s for PostgreSQL; the twins must share a name", lite[i].name, pg[i].name)
		}
	}
	return pgFS, nil
}

// pgTables is appliedMigrations' first question on
// PostgreSQL: how many tables the schema fitbot uses has, and whether
// schema_migrations is one of them.
const pgTables = `SELECT count(*), count(*) FILTER (WHERE table_name = 'schema_migrations')
	FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`

// pgCreateSchemaMigrations is createSchemaMigrations in PostgreSQL's types.
const pgCreateSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
)`

// lockTable makes a read-then-write transaction on table the only one
// writing it until tx ends. SQLite's single writer already is; on
// PostgreSQL it takes a lock that lets readers through and queues writers.
func (db *DB) lockTable(ctx context.Context, tx *sql.Tx, table string) error {
	if !db.postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, "LOCK TABLE "+table+" IN SHARE ROW EXCLUSIVE MODE")
	return err
}

// pgSentinel maps a PostgreSQL error to the store's sentinel for it, or
// nil when none applies.
func pgSentinel(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return nil
	}
	switch pe.Code {
	case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
		return ErrReadOnly
	}
	return nil
}

// pgConnector hands database/sql connections that rebind placeholders.
type pgConnector struct{ driver.Connector }

// Connect opens one pgx connection.
func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn is a pgx connection that takes the store's SQLite-style
// placeholders; every other method is pgx's own.
type pgConn struct{ *stdlib.Conn }

func (c pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebind rewrites SQLite placeholders to PostgreSQL's: ?N becomes $N and
// each bare ? the next $N. Question marks inside string literals, quoted
// identifiers and comments are left alone.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				b.WriteString(query[i:])
				return b.String()
			}
			b.WriteString(query[i : i+end+1])
			i += end
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
			} else {
				n++
				fmt.Fprint(&b, n)
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
