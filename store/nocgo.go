//go:build !cgo

package store

// The driver is imported for its stub, so that a binary built without cgo
// still links and Open can say what is wrong.
import _ "github.com/mattn/go-sqlite3"

// cgoEnabled reports whether the real SQLite driver is linked in. Built
// with CGO_ENABLED=0, go-sqlite3 registers a stub that fails every open.
const cgoEnabled = false

// driverSentinel has nothing to map without the real driver.
func driverSentinel(error) error { return nil }
