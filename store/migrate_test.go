package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fitbot/fitbot/migrations"
	"github.com/google/go-cmp/cmp"
)

// TestMigrationFilesNumbered checks the real migrations: every .sql file
// is named NNNN_name.sql and the versions run from 0001 without a gap or a
// repeat (loadMigrations refuses anything else), and every file does
// something.
func TestMigrationFilesNumbered(t *testing.T) {
	all, err := loadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no migrations embedded")
	}
	if all[0].name != "0001_plans.sql" {
		t.Errorf("first migration = %s, want 0001_plans.sql", all[0].name)
	}
	for i, m := range all {
		if m.version != i+1 {
			t.Errorf("migration %s has version %d at position %d", m.name, m.version, i+1)
		}
		if strings.TrimSpace(m.sql) == "" {
			t.Errorf("migration %s is empty", m.name)
		}
	}
}

func TestLoadMigrationsRefusesBadSets(t *testing.T) {
	sql := &fstest.MapFile{Data: []byte("CREATE TABLE x (a)")}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"gap", fstest.MapFS{"0001_a.sql": sql, "0003_c.sql": sql}, "expected version 0002"},
		{"repeat", fstest.MapFS{"0001_a.sql": sql, "0002_b.sql": sql, "0002_c.sql": sql}, "share version 2"},
		{"not from one", fstest.MapFS{"0002_b.sql": sql}, "expected version 0001"},
		{"three digits", fstest.MapFS{"001_a.sql": sql}, "NNNN_name.sql"},
		{"upper case", fstest.MapFS{"0001_Plans.sql": sql}, "NNNN_name.sql"},
		{"no name", fstest.MapFS{"0001.sql": sql}, "NNNN_name.sql"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadMigrations(tc.fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loadMigrations = %v, want an error saying %q", err, tc.want)
			}
		})
	}
	ok := fstest.MapFS{"0001_a.sql": sql, "0002_b.sql": sql, "README.md": {Data: []byte("notes")}}
	if ms, err := loadMigrations(ok); err != nil || len(ms) != 2 {
		t.Errorf("loadMigrations(two files and a README) = %d, %v; want 2 migrations", len(ms), err)
	}
}

// TestMigrateFromEveryVersion builds a database at every earlier version
// with the runner stopped there, then opens it with this binary: each
// must end with the same schema as a database migrated from empty, and
// with every migration recorded once.
func TestMigrateFromEveryVersion(t *testing.T) {
	skipOnPostgres(t) // about SQLite: its files, schema table or query planner
	all, err := loadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	fresh := openTest(t)
	want := schemaOf(t, fresh)
	wantApplied := map[int]string{}
	for _, m := range all {
		wantApplied[m.version] = m.name
	}
	for from := 0; from <= len(all); from++ {
		t.Run(fmt.Sprintf("from_%d", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fitbot.db")
			old := openAt(t, path, nil, from)
			if v, err := old.SchemaVersion(context.Background()); err != nil || v != from {
				t.Fatalf("database built to version %d reports %d, %v", from, v, err)
			}
			old.Close()

			db := openAt(t, path, nil, -1)
			if diff := cmp.Diff(want, schemaOf(t, db)); diff != "" {
				t.Errorf("schema after migrating from %d differs from a fresh one (-fresh +migrated):\n%s", from, diff)
			}
			applied, err := db.appliedMigrations(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantApplied, applied); diff != "" {
				t.Errorf("recorded migrations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMigrationIsAtomic: a migration that fails half-way leaves nothing of
// itself behind, and the database stays at the version before it.
func TestMigrationIsAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	v1 := &fstest.MapFile{Data: []byte("CREATE TABLE a (x)")}
	broken := fstest.MapFS{
		"0001_a.sql": v1,
		"0002_b.sql": {Data: []byte("CREATE TABLE b (x); INSERT INTO missing VALUES (1);")},
	}
	_, err := open(context.Background(), path, options{migrations: broken, target: -1})
	if err == nil || !strings.Contains(err.Error(), "0002_b.sql") {
		t.Fatalf("open with a broken migration = %v, want an error naming 0002_b.sql", err)
	}
	db := openAt(t, path, fstest.MapFS{"0001_a.sql": v1}, -1)
	if v, err := db.SchemaVersion(context.Background()); err != nil || v != 1 {
		t.Errorf("SchemaVersion = %d, %v; want 1", v, err)
	}
	var n int
	if err := db.ro.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'b'").Scan(&n); err != nil || n != 0 {
		t.Errorf("table b count = %d, %v; want the failed migration's table gone", n, err)
	}
}

// TestOpenUpToDateWritesNothing: opening a current database changes no
// byte of it, so a read-only command never touches the file.
func TestOpenUpToDateWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	openAt(t, path, nil, -1).Close()
	db := openAt(t, path, nil, -1)
	var changes int
	if err := db.rw.QueryRow("SELECT total_changes()").Scan(&changes); err != nil {
		t.Fatal(err)
	}
	if changes != 0 {
		t.Errorf("opening an up-to-date database made %d changes, want 0", changes)
	}
}
