package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/migrations"
)

// Every store test runs on SQLite; when FITBOT_TEST_POSTGRES names a
// PostgreSQL server (postgres://user@host:port/db, as .ci/postgres.sh
// prints), TestMain runs them all a second time with openTest opening a
// fresh schema on that server. Tests about SQLite files (openAt with a
// path: crashes, backups, damaged files) skip in that pass.

// testPostgres is the server of the PostgreSQL pass, "" in the SQLite one.
var testPostgres string

// skipOnPostgres skips a test that is about SQLite files in the
// PostgreSQL pass.
func skipOnPostgres(t testing.TB) {
	t.Helper()
	if testPostgres != "" {
		t.Skip("a SQLite file test: it ran in the SQLite pass")
	}
}

var (
	pgAdminOnce sync.Once
	pgAdmin     *sql.DB
	pgAdminErr  error
)

// openPostgresTest opens a fully migrated database in a new schema of
// the test server, dropped again when the test ends.
func openPostgresTest(t testing.TB) *DB {
	t.Helper()
	u := newPostgresSchema(t)
	db, err := openPostgres(context.Background(), u, options{migrations: migrations.Postgres, target: -1, now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatalf("open %s: %v", RedactURL(u), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newPostgresSchema creates an empty schema on the test server and
// returns the server's URL with search_path set to it.
func newPostgresSchema(t testing.TB) string {
	t.Helper()
	pgAdminOnce.Do(func() {
		pgAdmin, pgAdminErr = sql.Open("pgx", testPostgres)
	})
	if pgAdminErr != nil {
		t.Fatalf("FITBOT_TEST_POSTGRES: %v", pgAdminErr)
	}
	schema := "t_" + rand.Text()[:16]
	ctx := context.Background()
	if _, err := pgAdmin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema on %s: %v", RedactURL(testPostgres), err)
	}
	t.Cleanup(func() {
		if _, err := pgAdmin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(testPostgres)
	if err != nil {
		t.Fatalf("FITBOT_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// reopen opens a second handle on db's database, as a second process
// (a replica) would, closed when the test ends.
func reopen(t testing.TB, db *DB) *DB {
	t.Helper()
	if !db.postgres {
		return openAt(t, db.path, nil, -1)
	}
	// db.path has no password; the test server needs none (trust).
	other, err := openPostgres(context.Background(), db.path, options{migrations: migrations.Postgres, target: -1, now: db.Now})
	if err != nil {
		t.Fatalf("reopen %s: %v", db.path, err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

func runEngines(m *testing.M) int {
	code := m.Run()
	pg := os.Getenv("FITBOT_TEST_POSTGRES")
	if pg == "" || code != 0 {
		return code
	}
	fmt.Printf("== the store's tests again, on PostgreSQL (%s)\n", RedactURL(pg))
	testPostgres = pg
	return m.Run()
}
