// Package migrations holds fitbot's database schema as numbered SQL files,
// embedded into the binary. The store applies them in order, each once and
// in its own transaction.
//
// A file is named NNNN_name.sql: a four-digit version, contiguous from
// 0001, then a short lower-case name. A migration, once released, is never
// edited; a change is a new file. The files at the root are SQLite's;
// postgres/ holds the same migrations, file for file and under the same
// names, written for PostgreSQL (the store refuses to start when the two
// sets differ). This package imports nothing outside the standard library.
package migrations

import (
	"embed"
	"io/fs"
)

// FS holds every SQLite migration file at its root (and PostgreSQL's
// under postgres/).
//
//go:embed *.sql postgres/*.sql
var FS embed.FS

// Postgres holds every PostgreSQL migration file at its root.
var Postgres = mustSub(FS, "postgres")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a constant, embedded above
	}
	return sub
}
