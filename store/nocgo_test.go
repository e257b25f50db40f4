//go:build !cgo

package store

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// TestMain runs only TestOpenWithoutCgo in a CGO_ENABLED=0 build: every
// other test needs the real driver.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := flag.Set("test.run", "^TestOpenWithoutCgo$"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// TestOpenWithoutCgo runs under CGO_ENABLED=0, the way a careless release
// build would be made: Open must say what is wrong instead of passing on
// the stub driver's error at the first query.
func TestOpenWithoutCgo(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if !errors.Is(err, ErrNoCgo) {
		t.Fatalf("Open = %v, want ErrNoCgo", err)
	}
	if want := "fitbot was built without cgo; the SQLite driver needs CGO_ENABLED=1"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}
