package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Write failures are a readiness state. The plan writer records the
// outcome of every batch: after a batch that could not be written (a
// full disk, an I/O error, a database file or write-ahead log removed
// under fitbot) Ping fails until a write succeeds again, so /readyz says
// 503 while plans cannot be kept and 200 once they can. Ping does not
// wait for traffic to find out: while writes are failing it tries one
// small write itself (probeWrite).

// WriteHealth is where plan writes stand.
type WriteHealth struct {
	Failing  bool      // the latest write failed and none succeeded since
	Since    time.Time // when the current run of failures began
	Failures int64     // failed writes since then
	Err      error     // the latest failure
}

// writeState guards WriteHealth.
type writeState struct {
	mu sync.Mutex
	h  WriteHealth
}

// note records one write's outcome; err nil is a success.
func (s *writeState) note(err error, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.h = WriteHealth{}
		return
	}
	if !s.h.Failing {
		s.h = WriteHealth{Failing: true, Since: now}
	}
	s.h.Failures++
	s.h.Err = err
}

func (s *writeState) get() WriteHealth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h
}

// WriteHealth reports whether plan writes are failing now.
func (db *DB) WriteHealth() WriteHealth { return db.writes.get() }

// probeTimeout bounds the write Ping tries while writes are failing.
const probeTimeout = 2 * time.Second

// probeLease names the row probeWrite writes and removes, and
// probeBytes is its size.
const (
	probeLease = "fitbot:write-probe"
	probeBytes = 64 << 10
)

// pingWrites is Ping's part for writes: nil when plan writes work, else
// why not. While they are failing it tries one write itself, and a
// success clears the state.
func (db *DB) pingWrites(ctx context.Context) error {
	h := db.writes.get()
	if !h.Failing {
		return nil
	}
	err := db.probeWrite(ctx)
	db.writes.note(err, db.now())
	if err == nil {
		return nil
	}
	h = db.writes.get()
	return fmt.Errorf("plan writes failing since %s (%d failed): %w", h.Since.UTC().Format(time.RFC3339), h.Failures, err)
}

// probeWrite writes and removes one row of 64 KiB in one committed
// transaction: larger than any plan, so it needs new pages, and a disk
// too full for a plan fails it too.
func (db *DB) probeWrite(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := db.checkFile(); err != nil {
		return err
	}
	now := formatTime(db.now())
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder`, probeLease, strings.Repeat("probe ", probeBytes/6), now, now); err != nil {
			return db.wrap("write probe", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE name = ?`, probeLease); err != nil {
			return db.wrap("write probe", err)
		}
		return nil
	})
}

// sidecars are the write-ahead log and shared-memory files as first
// seen, to notice one removed or replaced under an open database.
type sidecars struct {
	mu       sync.Mutex
	wal, shm os.FileInfo
	rescue   string // what became of the removed log's commits, once known
}

// rescueTimeout bounds the checkpoint that saves a removed log's commits.
const rescueTimeout = 10 * time.Second

// checkSidecars reports, wrapping ErrFileGone, a -wal or -shm file that
// is no longer the one SQLite has open. SQLite goes on appending commits
// to a log that was unlinked, and a restart would lose every one of them;
// so the first time the log is found gone, its commits are checkpointed
// into the database file (SQLite still holds the unlinked log open), so
// that every plan acknowledged so far survives, and every later write is
// refused until a restart.
func (db *DB) checkSidecars() error {
	s := &db.side
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range []struct {
		suffix string
		seen   *os.FileInfo
	}{{"-wal", &s.wal}, {"-shm", &s.shm}} {
		st, err := os.Stat(db.path + f.suffix)
		var problem string
		switch {
		case *f.seen == nil:
			if err == nil {
				*f.seen = st
			}
			continue
		case err != nil:
			problem = fmt.Sprintf("was removed (%v)", unwrapPath(err))
		case !os.SameFile(st, *f.seen):
			problem = "was replaced by another file"
		default:
			continue
		}
		if s.rescue == "" {
			s.rescue = db.checkpointRemoved()
		}
		return fmt.Errorf("database %s: its %s file %s under fitbot; %s; restart fitbot to write again: %w",
			db.path, f.suffix, problem, s.rescue, ErrFileGone)
	}
	return nil
}

// checkpointRemoved copies the commits of a removed write-ahead log into
// the database file and says how that went.
func (db *DB) checkpointRemoved() string {
	ctx, cancel := context.WithTimeout(context.Background(), rescueTimeout)
	defer cancel()
	var busy, logged, moved int
	err := db.rw.QueryRowContext(ctx, "PRAGMA wal_checkpoint(FULL)").Scan(&busy, &logged, &moved)
	switch {
	case err != nil:
		return fmt.Sprintf("moving its commits into the database file failed (%v)", err)
	case busy != 0:
		return "moving its commits into the database file was blocked by a reader; commits since the last checkpoint may be lost at a restart"
	}
	return fmt.Sprintf("its commits (%d pages) were moved into the database file", moved)
}
