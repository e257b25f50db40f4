package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
)

// migration is one numbered schema change.
type migration struct {
	version int
	name    string // the file name, e.g. 0001_plans.sql
	sql     string
}

// migrationName is the shape of a migration file name.
var migrationName = regexp.MustCompile(`^([0-9]{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads every migration in fsys's root, in order, and
// checks that the versions run 1, 2, 3... without a gap or a repeat, so
// that two branches adding the same number fail here and not in a user's
// database.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql (four digits, lower-case name)", e.Name())
		}
		version, _ := strconv.Atoi(m[1]) // four digits always parse
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: version, name: e.Name(), sql: string(body)})
	}
	// fs.ReadDir sorts by name, and the fixed-width version leads the name.
	for i, m := range ms {
		if m.version != i+1 {
			if i > 0 && ms[i-1].version == m.version {
				return nil, fmt.Errorf("migrations %s and %s share version %d", ms[i-1].name, m.name, m.version)
			}
			return nil, fmt.Errorf("migration %s: expected version %04d next (versions run from 0001 without gaps)", m.name, i+1)
		}
	}
	return ms, nil
}

// inspect reads which migrations the database has, through the read-only
// pool, and refuses a database this binary must not write to: one
// migrated by a newer fitbot, one whose recorded migrations this binary
// does not have, or (when migrations are due) one that fails quick_check.
func (db *DB) inspect(ctx context.Context, all []migration, target int) (map[int]string, error) {
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return nil, err
	}
	for v, name := range applied {
		if v > len(all) {
			return nil, fmt.Errorf("database %s has schema version %d, and this fitbot knows versions up to %d; use a newer fitbot: %w",
				db.path, maxVersion(applied), len(all), ErrSchemaTooNew)
		}
		if v < 1 || name != all[v-1].name {
			return nil, fmt.Errorf("database %s: migration %d is recorded as %s, which this fitbot does not have: %w",
				db.path, v, name, ErrNotDatabase)
		}
	}
	if len(applied) > 0 && len(applied) < target && !db.postgres {
		if err := db.quickCheck(ctx); err != nil {
			return nil, err
		}
	}
	return applied, nil
}

// schema is the migrations an open applies and the version it brings the
// schema to: the target asked, or the newest.
func (opt options) schema() ([]migration, int, error) {
	all, err := loadMigrations(opt.migrations)
	if err != nil {
		return nil, 0, err
	}
	target := opt.target
	if target < 0 || target > len(all) {
		target = len(all)
	}
	return all, target, nil
}

// migrateAndPing migrates an opened database to target and checks that
// it answers; on failure it closes both pools.
func (db *DB) migrateAndPing(ctx context.Context, all []migration, applied map[int]string, target int) error {
	err := db.migrate(ctx, all, applied, target)
	if err == nil {
		err = db.Ping(ctx)
	}
	if err != nil {
		db.ro.Close()
		db.rw.Close()
	}
	return err
}

// migrate brings the schema up to version target. Each migration runs in
// its own transaction together with the row that records it, so a crash
// leaves the database at one version or the next, never in between; the
// row is checked again inside the transaction, so two processes opening a
// new database at once apply each migration once.
func (db *DB) migrate(ctx context.Context, all []migration, applied map[int]string, target int) error {
	for _, m := range all[:target] {
		if _, done := applied[m.version]; done {
			continue
		}
		if err := db.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration and records it, in one transaction.
func (db *DB) apply(ctx context.Context, m migration) error {
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		create := createSchemaMigrations
		if db.postgres {
			// SQLite's write lock serialises processes migrating at once;
			// on PostgreSQL an advisory lock, held to the commit, does.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(migrationLock)); err != nil {
				return err
			}
			create = pgCreateSchemaMigrations
		}
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil // another process applied it first
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
			m.version, m.name, formatTime(db.now()))
		return err
	})
	if err != nil {
		return db.wrap("migration "+m.name, err)
	}
	return nil
}

// createSchemaMigrations makes the table that records applied migrations.
// It is created with the first migration, so opening a database that
// needs nothing never writes to it.
const createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
) STRICT`

// appliedMigrations reads the recorded migrations, version to file name.
// A database with tables of its own but no schema_migrations is another
// program's, and is refused rather than written into.
func (db *DB) appliedMigrations(ctx context.Context) (map[int]string, error) {
	var tables, ours int
	query := `SELECT count(*), count(*) FILTER (WHERE name = 'schema_migrations')
		FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	if db.postgres {
		query = pgTables
	}
	err := db.ro.QueryRowContext(ctx, query).Scan(&tables, &ours)
	if err != nil {
		return nil, db.wrap("read schema", err)
	}
	applied := map[int]string{}
	if ours == 0 {
		if tables > 0 {
			return nil, fmt.Errorf("database %s is a database of another program (it has tables but no schema_migrations); left untouched: %w",
				db.path, ErrNotDatabase)
		}
		return applied, nil
	}
	rows, err := db.ro.QueryContext(ctx, "SELECT version, name FROM schema_migrations")
	if err != nil {
		return nil, db.wrap("read schema version", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			return nil, db.wrap("read schema version", err)
		}
		applied[v] = name
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("read schema version", err)
	}
	return applied, nil
}

// quickCheck runs SQLite's quick_check before a migration writes to an
// existing database, so that a damaged file is reported, not built upon.
func (db *DB) quickCheck(ctx context.Context) error {
	rows, err := db.ro.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return db.wrap("check database", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return db.wrap("check database", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return db.wrap("check database", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("database %s is damaged (quick_check: %s); left untouched: %w", db.path, problems[0], ErrNotDatabase)
	}
	return nil
}

// SchemaVersion is the highest migration applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return 0, err
	}
	return maxVersion(applied), nil
}

func maxVersion(applied map[int]string) int {
	top := 0
	for v := range applied {
		top = max(top, v)
	}
	return top
}
