package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fitbot/fitbot/migrations"
)

// The helpers every test of the package uses. They carry no build tag so
// that the package's tests compile with CGO_ENABLED=0 too, where
// nocgo_test.go runs only the test that can pass there.

// testNow is the fixed clock of every test database.
var testNow = time.Date(2026, 11, 30, 1, 2, 3, 456789000, time.UTC)

// openAt opens a database in path with the given migrations applied up to
// target (-1 for all), failing the test on error and closing it at the end.
// These tests are about SQLite files; the PostgreSQL pass skips them.
func openAt(t testing.TB, path string, fsys fstest.MapFS, target int) *DB {
	t.Helper()
	skipOnPostgres(t)
	opt := options{migrations: migrations.FS, target: target, now: func() time.Time { return testNow }}
	if fsys != nil {
		opt.migrations = fsys
	}
	db, err := open(context.Background(), path, opt)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openTest opens a fully migrated database: a SQLite file in a fresh
// folder, or a fresh schema on the PostgreSQL server of
// FITBOT_TEST_POSTGRES in the PostgreSQL pass (see TestMain).
func openTest(t testing.TB) *DB {
	t.Helper()
	if testPostgres != "" {
		return openPostgresTest(t)
	}
	return openAt(t, filepath.Join(t.TempDir(), "fitbot.db"), nil, -1)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
