package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fitbot/fitbot/migrations"
)

func TestOpenCreatesFolderAndOwnerOnlyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "fitbot.db")
	db := openAt(t, path, nil, -1)
	if db.Path() != path {
		t.Errorf("Path() = %q, want %q", db.Path(), path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		t.Errorf("database file mode = %v, want -rw-------", perm)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		pool   *sql.DB
		pragma string
		want   string
	}{
		{db.rw, "journal_mode", "wal"},
		{db.rw, "foreign_keys", "1"},
		{db.rw, "busy_timeout", "5000"},
		{db.rw, "synchronous", "1"}, // NORMAL
		{db.ro, "query_only", "1"},
		{db.ro, "foreign_keys", "1"},
	} {
		var got string
		if err := tc.pool.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
	all, err := loadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(all) {
		t.Errorf("SchemaVersion = %d, want %d", v, len(all))
	}
}

func TestReaderPoolRefusesWrites(t *testing.T) {
	db := openTest(t)
	_, err := db.ro.ExecContext(context.Background(), "CREATE TABLE sneaky (x)")
	if err == nil {
		t.Fatal("a write through the read pool succeeded; the readers must be query_only")
	}
}

func TestOpenRefusesFilesItMustNotTouch(t *testing.T) {
	otherProgram := func(t *testing.T, path string) {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('cat.jpg')"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		make  func(t *testing.T, path string)
		inMsg string
	}{
		{"text file", func(t *testing.T, path string) {
			writeFile(t, path, []byte("name,gpu\nllama,h100\n"))
		}, "is not a SQLite database"},
		{"short file", func(t *testing.T, path string) {
			writeFile(t, path, []byte("SQLite"))
		}, "is not a SQLite database"},
		{"another program's database", otherProgram, "another program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fitbot.db")
			tc.make(t, path)
			before := readFile(t, path)
			_, err := open(context.Background(), path, options{migrations: migrations.FS, target: -1})
			if !errors.Is(err, ErrNotDatabase) {
				t.Fatalf("open = %v, want ErrNotDatabase", err)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.inMsg) {
				t.Errorf("error %q does not name the path and say %q", err, tc.inMsg)
			}
			if after := readFile(t, path); !bytes.Equal(before, after) {
				t.Errorf("the file changed (%d bytes before, %d after)", len(before), len(after))
			}
			for _, suffix := range []string{"-wal", "-journal"} {
				if st, err := os.Stat(path + suffix); err == nil && st.Size() > 0 {
					t.Errorf("%s%s was written", path, suffix)
				}
			}
		})
	}
}

func TestOpenRefusesDamagedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	v1 := fstest.MapFS{"0001_notes.sql": {Data: []byte(
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);" +
			"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 2000) INSERT INTO notes (body) SELECT printf('note %d', i) FROM n;" +
			"CREATE INDEX notes_body ON notes (body);")}}
	db := openAt(t, path, v1, -1)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Overwrite the third page (a b-tree page of notes) with garbage,
	// keeping the header and the schema page intact.
	data := readFile(t, path)
	if len(data) < 4*4096 {
		t.Fatalf("database is only %d bytes; the test needs a few pages", len(data))
	}
	copy(data[2*4096:3*4096], bytes.Repeat([]byte{0xA5}, 4096))
	writeFile(t, path, data)

	v2 := fstest.MapFS{
		"0001_notes.sql": v1["0001_notes.sql"],
		"0002_tags.sql":  {Data: []byte("CREATE TABLE tags (name TEXT)")},
	}
	_, err := open(context.Background(), path, options{migrations: v2, target: -1})
	if !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("open damaged database = %v, want ErrNotDatabase", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the path", err)
	}
	if after := readFile(t, path); !bytes.Equal(data, after) {
		t.Error("the damaged file was written to")
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	three := fstest.MapFS{
		"0001_a.sql": {Data: []byte("CREATE TABLE a (x)")},
		"0002_b.sql": {Data: []byte("CREATE TABLE b (x)")},
		"0003_c.sql": {Data: []byte("CREATE TABLE c (x)")},
	}
	db := openAt(t, path, three, -1)
	db.Close()

	two := fstest.MapFS{"0001_a.sql": three["0001_a.sql"], "0002_b.sql": three["0002_b.sql"]}
	_, err := open(context.Background(), path, options{migrations: two, target: -1})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("open = %v, want ErrSchemaTooNew", err)
	}
	for _, want := range []string{path, "schema version 3", "up to 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestOpenRefusesUnknownMigrationName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	openAt(t, path, fstest.MapFS{"0001_a.sql": {Data: []byte("CREATE TABLE a (x)")}}, -1).Close()
	_, err := open(context.Background(), path, options{
		migrations: fstest.MapFS{"0001_other.sql": {Data: []byte("CREATE TABLE o (x)")}}, target: -1})
	if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "0001_a.sql") {
		t.Fatalf("open = %v, want ErrNotDatabase naming 0001_a.sql", err)
	}
}

func TestTxRollsBackOnErrorAndPanic(t *testing.T) {
	db := openAt(t, filepath.Join(t.TempDir(), "fitbot.db"),
		fstest.MapFS{"0001_t.sql": {Data: []byte("CREATE TABLE t (x INTEGER)")}}, -1)
	ctx := context.Background()
	insert := func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)")
		return err
	}
	boom := errors.New("boom")
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		if err := insert(tx); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Tx = %v, want the function's error", err)
	}

	func() {
		defer func() {
			if p := recover(); p != "kaboom" {
				t.Errorf("recovered %v, want the panic re-raised", p)
			}
		}()
		db.Tx(ctx, func(tx *sql.Tx) error {
			if err := insert(tx); err != nil {
				return err
			}
			panic("kaboom")
		})
	}()

	if err := db.Tx(ctx, insert); err != nil {
		t.Fatalf("Tx after a rollback: %v (the writer connection must be free again)", err)
	}
	var n int
	if err := db.ro.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("rows = %d, want 1: only the committed transaction", n)
	}
}

func TestCloseFoldsTheLogIntoTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		t.Errorf("%s-wal holds %d bytes after Close, want none", path, st.Size())
	}
	// The file alone is now a complete database.
	raw, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_query_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&n); err != nil || n == 0 {
		t.Errorf("schema_migrations rows = %d, %v; want the migrations recorded in the main file", n, err)
	}
}

func TestReadOnlyLocation(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes through file permissions; run as an ordinary user")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	readOnlyFile := filepath.Join(dir, "ro.db")
	openAt(t, readOnlyFile, nil, -1).Close()
	if err := os.Chmod(readOnlyFile, 0o400); err != nil {
		t.Fatal(err)
	}
	// A writable file in a folder that is not: WAL needs -wal and -shm
	// files beside the database.
	lockedFolder := filepath.Join(dir, "frozen")
	openAt(t, filepath.Join(lockedFolder, "fitbot.db"), nil, -1).Close()
	if err := os.Chmod(lockedFolder, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(lockedFolder, 0o700) })
	for _, path := range []string{
		filepath.Join(locked, "fitbot.db"),
		filepath.Join(locked, "sub", "fitbot.db"),
		readOnlyFile,
		filepath.Join(lockedFolder, "fitbot.db"),
	} {
		_, err := Open(context.Background(), path)
		t.Logf("Open(%s): %v", path, err)
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%s) = %v, want ErrReadOnly naming the path", path, err)
		}
	}
}

// schemaOf is every table, index and trigger definition, for comparing
// databases that reached one version by different paths.
func schemaOf(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.ro.Query("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
