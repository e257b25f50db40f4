// Package migrations holds fitbot's database schema as numbered SQL files,
// embedded into the binary. The store applies them in order, each once and
// in its own transaction.
//
// A file is named NNNN_name.sql: a four-digit version, contiguous from
// 0001, then a short lower-case name. A migration, once released, is never
// edited; a change is a new file. This package imports nothing.
package migrations

import "embed"

// FS holds every migration file at its root.
//
//go:embed *.sql
var FS embed.FS
