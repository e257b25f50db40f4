//go:build cgo

package store

import (
	"os"
	"testing"
)

// TestMain runs the tests on SQLite, then on PostgreSQL when
// FITBOT_TEST_POSTGRES is set (engines_test.go).
func TestMain(m *testing.M) {
	os.Exit(runEngines(m))
}
