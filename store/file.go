package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
)

// The per-connection settings, given in the DSN so that every connection
// the pools open gets them. WAL lets readers run beside the writer;
// busy_timeout makes a second process wait for the lock instead of
// failing; BEGIN IMMEDIATE takes the write lock up front, where
// busy_timeout applies, instead of on a read-to-write upgrade, where it
// does not. synchronous=NORMAL is durable enough in WAL: a power cut can
// lose the last commits but never corrupts the file.
const (
	writerParams = "_journal_mode=WAL&_busy_timeout=5000&_foreign_keys=on&_txlock=immediate&_synchronous=NORMAL"
	readerParams = "mode=rw&_busy_timeout=5000&_foreign_keys=on&_query_only=1"
)

// dsn makes a SQLite URI for an absolute path.
func dsn(abs, params string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: params}
	return u.String()
}

// sqliteHeader is the first 16 bytes of every SQLite 3 database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// prepareFile makes sure path can hold fitbot's database before SQLite
// sees it: the folder exists, a new file is created with owner-only
// permissions (SQLite gives its -wal and -shm files the same), and an
// existing file starts with the SQLite header. It returns the absolute
// path.
func prepareFile(path string) (string, error) {
	if path == "" {
		return "", errors.New("open database: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fileError("create folder for", abs, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return abs, f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", fileError("create", abs, err)
	}
	f, err = os.OpenFile(abs, os.O_RDWR, 0)
	if err != nil {
		return "", fileError("open", abs, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fileError("open", abs, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("database %s is not a regular file: %w", abs, ErrNotDatabase)
	}
	if st.Size() == 0 {
		return abs, nil // an empty file is an empty database
	}
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
		return "", fmt.Errorf("database %s is not a SQLite database; left untouched: %w", abs, ErrNotDatabase)
	}
	return abs, nil
}

// fileError turns an operating-system error on the database file into one
// that says what to do.
func fileError(op, abs string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("cannot %s database %s: the location is read-only (%v): %w", op, abs, unwrapPath(err), ErrReadOnly)
	}
	return fmt.Errorf("cannot %s database %s: %w", op, abs, err)
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// wrap gives a driver error context and, where one applies, a sentinel.
func (db *DB) wrap(op string, err error) error {
	if db.postgres {
		if s := pgSentinel(err); s != nil {
			return fmt.Errorf("%s: database %s (%v): %w", op, db.path, err, s)
		}
		return fmt.Errorf("%s: database %s: %w", op, db.path, err)
	}
	switch driverSentinel(err) {
	case ErrNotDatabase:
		return fmt.Errorf("%s: database %s is damaged or not a SQLite database (%v): %w", op, db.path, err, ErrNotDatabase)
	case ErrReadOnly:
		return fmt.Errorf("%s: cannot write database %s; the file and its folder must be writable (WAL keeps -wal and -shm files beside it) (%v): %w", op, db.path, err, ErrReadOnly)
	}
	return fmt.Errorf("%s: database %s: %w", op, db.path, err)
}

// openReadOnly opens a database file that must not change, such as a
// finished backup.
func openReadOnly(abs string) (*sql.DB, error) {
	return sql.Open("sqlite3", dsn(abs, "mode=ro&_query_only=1"))
}
