package store

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/migrations"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT * FROM plans WHERE id = ?", "SELECT * FROM plans WHERE id = $1"},
		{"INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES ($1, $2, $3)"},
		{"VALUES (?1, ?2) WHERE x <= ?1 OR y = ?12", "VALUES ($1, $2) WHERE x <= $1 OR y = $12"},
		{"SELECT '?' , \"a?b\", ? -- what?\n, ?", "SELECT '?' , \"a?b\", $1 -- what?\n, $2"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{"SELECT 'unterminated ?", "SELECT 'unterminated ?"},
		{"SELECT ? -- trailing ?", "SELECT $1 -- trailing ?"},
	} {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzRebind: rebind never panics, changes nothing in a query without a
// question mark, and leaves no placeholder outside quotes and comments.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"SELECT ?", "?1 ?2 ?", "'?' \"?\" -- ?\n?", "'", "--", "?99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := rebind(q)
		if !strings.Contains(q, "?") && got != q {
			t.Fatalf("rebind(%q) = %q, changed a query without placeholders", q, got)
		}
		if strings.Count(got, "?") > strings.Count(q, "?") {
			t.Fatalf("rebind(%q) = %q added question marks", q, got)
		}
	})
}

// TestMigrationTwins: every SQLite migration has a PostgreSQL twin of
// the same name, so a version means the same schema on both engines.
func TestMigrationTwins(t *testing.T) {
	if _, err := pgMigrations(migrations.FS, migrations.Postgres); err != nil {
		t.Fatal(err)
	}
}

func TestRedactURL(t *testing.T) {
	got := RedactURL("postgres://fitbot:s3cret@db:5432/fitbot?sslmode=require")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "db:5432/fitbot") {
		t.Errorf("RedactURL = %q: the password must go, the server stay", got)
	}
	if !IsPostgresURL("postgresql://x/y") || IsPostgresURL("/data/postgres.db") {
		t.Error("IsPostgresURL misreads a URL or a path")
	}
}

// TestPostgresReplicasMigrateAtOnce has four processes open one new
// PostgreSQL database at the same moment, as replicas started together
// do: each migration is applied once (the advisory lock), every open
// succeeds, and the schema is at the newest version.
func TestPostgresReplicasMigrateAtOnce(t *testing.T) {
	if testPostgres == "" {
		t.Skip("needs FITBOT_TEST_POSTGRES")
	}
	u := newPostgresSchema(t)
	var wg sync.WaitGroup
	dbs := make([]*DB, 4)
	errs := make([]error, 4)
	for i := range dbs {
		wg.Go(func() {
			dbs[i], errs[i] = openPostgres(context.Background(), u, options{migrations: migrations.Postgres, target: -1, now: func() time.Time { return testNow }})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		t.Cleanup(func() { dbs[i].Close() })
	}
	all, err := loadMigrations(migrations.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dbs[0].SchemaVersion(context.Background())
	if err != nil || v != len(all) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, len(all))
	}
	var rows int
	if err := dbs[1].ro.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&rows); err != nil || rows != len(all) {
		t.Errorf("schema_migrations has %d rows (%v), want %d", rows, err, len(all))
	}
}

// TestPostgresRefusesAnotherProgramsSchema: a schema with tables but no
// schema_migrations is not fitbot's, and nothing is written into it.
func TestPostgresRefusesAnotherProgramsSchema(t *testing.T) {
	if testPostgres == "" {
		t.Skip("needs FITBOT_TEST_POSTGRES")
	}
	u := newPostgresSchema(t)
	schema := strings.TrimPrefix(u[strings.Index(u, "search_path="):], "search_path=")
	schema, _, _ = strings.Cut(schema, "&")
	if _, err := pgAdmin.Exec("CREATE TABLE " + schema + ".customers (id int)"); err != nil {
		t.Fatal(err)
	}
	_, err := openPostgres(context.Background(), u, options{migrations: migrations.Postgres, target: -1})
	if err == nil || !strings.Contains(err.Error(), "another program") {
		t.Errorf("open = %v, want a refusal naming another program", err)
	}
}
