package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
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
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			if _, _, err := c.checkpoint(); err != nil {
				slog.Warn("store: background checkpoint failed", "path", path, "err", err)
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
