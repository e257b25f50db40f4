package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Checkpoints off the plan writer's path. By default SQLite folds the
// write-ahead log back into the database file (a checkpoint) inside the
// commit that takes the log past 1,000 pages, on the committing
// connection: with group commit that is the plan writer, so every few
// hundred plans one batch of answers waits for a checkpoint. Instead the
// writer's automatic checkpoints are off (PRAGMA wal_autocheckpoint=0)
// and a goroutine of the store's own runs a PASSIVE checkpoint every
// checkpointEvery on its own connection: PASSIVE never waits for the
// writer or the readers and never blocks them, and once a checkpoint has
// moved the whole log the next commit starts the log from its beginning
// again, so the -wal file stays as large as a few seconds of writes.
// Close still ends with wal_checkpoint(TRUNCATE). PostgreSQL has no such
// log to fold: nothing of this runs there.
//
// Should the writer's connection ever be replaced (database/sql drops a
// broken one), the new one checkpoints automatically again: slower
// commits now and then, never a growing log.

// checkpointEvery is how often the checkpointer runs.
const checkpointEvery = time.Second

// The -wal file's bound. PASSIVE checkpoints fold the log back but leave
// the file at its largest; and under steady writes with readers always on
// some snapshot, a PASSIVE checkpoint may never reach the log's end, so
// the log is never restarted and grows without end. So the writer keeps
// the file to walLimit whenever it restarts the log (PRAGMA
// journal_size_limit), and when the file is over
// walLimit the checkpointer, at most every truncateEvery, runs a TRUNCATE
// checkpoint: it waits up to truncateWait for the readers of older
// snapshots (new writers wait meanwhile), folds the whole log back and
// empties the file. A TRUNCATE that cannot finish in that time is tried
// again later; the commits never wait longer than truncateWait for it.
var (
	walLimit      int64 = 64 << 20
	truncateEvery       = 10 * time.Second
	truncateWait        = 250 * time.Millisecond
)

// checkpointParams open the checkpointer's connection: an existing file,
// never created, and no foreign keys or transactions of its own.
const checkpointParams = "mode=rw&_busy_timeout=5000"

// checkpointer is the goroutine that checkpoints the write-ahead log.
type checkpointer struct {
	conn *sql.DB
	stop chan struct{} // closed by close
	done chan struct{} // closed when the goroutine has exited
	once sync.Once     // close runs once: Close may be called again
	err  error         // closing the connection
}

// startCheckpointer turns the writer's automatic checkpoints off and
// starts the checkpointer. On any error the writer keeps SQLite's
// automatic checkpoints and no goroutine starts: the store works as
// before, the commits pay for the checkpoints.
func (db *DB) startCheckpointer(ctx context.Context) {
	conn, err := sql.Open("sqlite3", dsn(db.path, checkpointParams))
	if err != nil {
		slog.Warn("store: no background checkpointer; commits will checkpoint", "path", db.path, "err", err)
		return
	}
	conn.SetMaxOpenConns(1)
	limit := fmt.Sprintf("PRAGMA journal_size_limit=%d", walLimit)
	if _, err := db.rw.ExecContext(ctx, limit); err != nil {
		slog.Warn("store: the write-ahead log is not size-limited", "path", db.path, "err", err)
	}
	if _, err := db.rw.ExecContext(ctx, "PRAGMA wal_autocheckpoint=0"); err != nil {
		conn.Close()
		slog.Warn("store: no background checkpointer; commits will checkpoint", "path", db.path, "err", err)
		return
	}
	c := &checkpointer{conn: conn, stop: make(chan struct{}), done: make(chan struct{})}
	db.ckpt = c
	go c.run(db.path)
}

func (c *checkpointer) run(path string) {
	defer close(c.done)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	var truncated time.Time
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			if _, _, err := c.checkpoint(); err != nil {
				slog.Warn("store: background checkpoint failed", "path", path, "err", err)
			}
			if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > walLimit && time.Since(truncated) >= truncateEvery {
				truncated = time.Now()
				if err := c.truncate(); err != nil {
					slog.Debug("store: the write-ahead log could not be truncated yet", "path", path, "size", fi.Size(), "err", err)
				}
			}
		}
	}
}

// checkpoint runs one PASSIVE checkpoint and returns the pages in the
// log and those moved into the database file.
func (c *checkpointer) checkpoint() (logged, moved int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), checkpointEvery)
	defer cancel()
	var busy int
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logged, &moved); err != nil {
		return 0, 0, fmt.Errorf("wal_checkpoint(PASSIVE): %w", err)
	}
	return logged, moved, nil
}

// truncate runs a TRUNCATE checkpoint that waits at most truncateWait for
// readers and the writer; busy means it did not finish.
func (c *checkpointer) truncate() error {
	ctx, cancel := context.WithTimeout(context.Background(), checkpointEvery)
	defer cancel()
	conn, err := c.conn.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout=%d", truncateWait.Milliseconds())); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout=5000")
	var busy, logged, moved int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved); err != nil {
		return fmt.Errorf("wal_checkpoint(TRUNCATE): %w", err)
	}
	if busy != 0 {
		return errors.New("wal_checkpoint(TRUNCATE): busy")
	}
	return nil
}

// close stops the checkpointer and closes its connection; safe on nil
// and when called again.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		c.err = c.conn.Close()
	})
	return c.err
}
