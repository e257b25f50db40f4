//go:build cgo

package store

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// cgoEnabled reports whether the real SQLite driver is linked in.
const cgoEnabled = true

// driverSentinel maps a SQLite error to the store's sentinel for it, or
// nil when none applies.
func driverSentinel(err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code {
	case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
		return ErrNotDatabase
	case sqlite3.ErrReadonly, sqlite3.ErrCantOpen, sqlite3.ErrPerm:
		return ErrReadOnly
	}
	return nil
}
