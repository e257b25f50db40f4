package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// ErrNotEmpty means the database a copy was to go into already has rows.
var ErrNotEmpty = errors.New("the target database is not empty")

// TableCount is how many rows one table has in the source and, after a
// copy, in the target.
type TableCount struct {
	Table          string
	Source, Target int64
}

// copyOrder lists the tables a copy writes, parents before the tables
// whose foreign keys point at them. A table the schema gains later and
// this list lacks is copied after these, in name order. Leases are not
// data but the running processes' state, and are not copied.
var copyOrder = []string{"price_runs", "offers", "observations", "plans", "digests",
	"hub_models", "answer_threads", "team_hardware", "slack_events"}

// notCopied are the tables a copy leaves alone.
var notCopied = []string{"schema_migrations", "leases"}

// CopyTo copies every row of the SQLite database db (plans, prices and
// their runs, digests, the Hub cache, threads, team hardware, recent
// Slack event ids) into the PostgreSQL database dst, in one transaction
// with PostgreSQL's COPY, then counts every table on both sides. Both
// must be at the same schema version (each Open migrates to this
// binary's), and dst must hold no rows: a copy never merges. The
// identity sequences of dst are moved past the copied ids, so new plans
// and runs continue the numbering.
func (db *DB) CopyTo(ctx context.Context, dst *DB) ([]TableCount, error) {
	if db.postgres || !dst.postgres {
		return nil, errors.New("copy: the source must be a SQLite file and the target a PostgreSQL database")
	}
	from, err := db.SchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	to, err := dst.SchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if from != to {
		return nil, fmt.Errorf("copy %s (schema %d) to %s (schema %d): the versions differ; open both with this fitbot first", db.path, from, dst.path, to)
	}
	tables, err := db.copyTables(ctx)
	if err != nil {
		return nil, err
	}
	// One read transaction: every table is read from the same snapshot,
	// so a run written during the copy is either wholly in it or not.
	snap, err := db.ro.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, db.wrap("copy", err)
	}
	defer snap.Rollback() // read-only: nothing to lose
	for _, t := range tables {
		n, err := count(ctx, dst.ro, t)
		if err != nil {
			return nil, dst.wrap("count "+t, err)
		}
		if n > 0 {
			return nil, fmt.Errorf("copy to %s: table %s has %d rows; copy into a new database: %w", dst.path, t, n, ErrNotEmpty)
		}
	}
	conn, err := dst.rw.Conn(ctx)
	if err != nil {
		return nil, dst.wrap("copy", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc := dc.(pgConn).Conn.Conn()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx) // after Commit, a no-op
		for _, t := range tables {
			if err := copyTable(ctx, snap, tx, t); err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
		}
		for _, t := range []string{"plans", "price_runs"} {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), coalesce(max(id), 0) + 1, false) FROM %[1]s`, t)); err != nil {
				return fmt.Errorf("sequence of %s: %w", t, err)
			}
		}
		return tx.Commit(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("copy %s to %s: %w", db.path, dst.path, err)
	}
	var counts []TableCount
	var mismatch []string
	for _, t := range tables {
		c := TableCount{Table: t}
		if c.Source, err = count(ctx, snap, t); err != nil {
			return nil, db.wrap("count "+t, err)
		}
		if c.Target, err = count(ctx, dst.ro, t); err != nil {
			return nil, dst.wrap("count "+t, err)
		}
		if c.Source != c.Target {
			mismatch = append(mismatch, fmt.Sprintf("%s: %d rows, %d copied", t, c.Source, c.Target))
		}
		counts = append(counts, c)
	}
	if len(mismatch) > 0 {
		return counts, fmt.Errorf("copy %s to %s: counts differ: %v", db.path, dst.path, mismatch)
	}
	return counts, nil
}

// copyTables lists the SQLite database's tables in copy order.
func (db *DB) copyTables(ctx context.Context) ([]string, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, db.wrap("list tables", err)
	}
	defer rows.Close()
	var rest []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, db.wrap("list tables", err)
		}
		if !slices.Contains(copyOrder, name) && !slices.Contains(notCopied, name) {
			rest = append(rest, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("list tables", err)
	}
	return append(slices.Clone(copyOrder), rest...), nil
}

// copyTable streams one table from SQLite into tx with COPY. SQLite's
// 0/1 in a column PostgreSQL declares boolean becomes a bool; every other
// value (text, integer, real, blob, NULL) goes as SQLite returns it.
func copyTable(ctx context.Context, snap *sql.Tx, tx pgx.Tx, table string) error {
	bools, err := booleanColumns(ctx, tx, table)
	if err != nil {
		return err
	}
	rows, err := snap.QueryContext(ctx, "SELECT * FROM "+table)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if !rows.Next() {
			return nil, rows.Err()
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out := slices.Clone(vals)
		for i, c := range cols {
			if n, ok := out[i].(int64); ok && bools[c] {
				out[i] = n != 0
			}
		}
		return out, nil
	})
	_, err = tx.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
	return err
}

// booleanColumns names table's boolean columns in the PostgreSQL schema.
func booleanColumns(ctx context.Context, tx pgx.Tx, table string) (map[string]bool, error) {
	rows, err := tx.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND data_type = 'boolean'`, table)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}

// count is the number of rows in table.
func count(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, table string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}
