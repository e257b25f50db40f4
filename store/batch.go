package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Group commit of plans. SQLite has one writer and a commit costs a
// write-ahead-log append and, at synchronous=NORMAL, no fsync; but each
// transaction still pays BEGIN IMMEDIATE, the lock and the commit. Under
// a burst of answers the bot would queue on that one connection, one
// plan per transaction. Instead SavePlan hands its row to one writer
// goroutine that takes whatever is queued (up to maxBatch rows) and
// writes it in ONE transaction; every caller waits for its batch's
// commit and gets its own id. A caller's SavePlan returns only after the
// row is committed, so an answer that says "kept" is on disk and
// survives the process being killed.
//
// Three things make the batches real batches: the writer yields once
// after taking the first row, so that the goroutines answering at the
// same moment get their rows in before it drains the queue; the INSERT
// is prepared once for the writer's life, not in every transaction; and
// the inserts run under a context that cannot be cancelled, for which
// the SQLite driver does not start a goroutine per statement (the batch's
// time is bounded at BEGIN, where the lock is waited for, and by
// busy_timeout). A caller that gives up is still answered by its
// context in enqueue, and a row whose caller gave up before its batch
// began is not written.

// Bounds of the plan writer.
const (
	// planQueue is how many plans may wait for the writer; past it
	// SavePlan waits for room (or for its context).
	planQueue = 1024
	// maxBatch is the most plans written in one transaction.
	maxBatch = 256
	// batchTimeout bounds one batch's transaction, lock wait included.
	batchTimeout = 10 * time.Second
)

// errClosed is returned by SavePlan after Close.
var errClosed = errors.New("database is closed")

// planRow is one plan on its way to the writer, with the channel its
// caller waits on.
type planRow struct {
	ctx    context.Context
	args   []any
	result chan planResult
}

type planResult struct {
	id  int64
	err error
}

// planWriter is the goroutine that writes queued plans in batches.
type planWriter struct {
	queue chan *planRow
	stop  chan struct{} // closed by Close: write what is queued, then exit
	done  chan struct{} // closed when the goroutine has exited

	mu     sync.RWMutex // guards closed against sends racing Close
	closed bool

	insert *sql.Stmt // insertPlanSQL, prepared once; nil until the first batch
}

// ObservePlanBatches has f called with the number of plans in each
// committed batch (fitbot_plan_batch_rows). It may be called at any time;
// f must not block, as the plan writer calls it.
func (db *DB) ObservePlanBatches(f func(rows int)) {
	db.batchObserver.Store(&f)
}

// writer returns the plan writer, starting it on first use.
func (db *DB) writer() *planWriter {
	db.planOnce.Do(func() {
		db.plans = &planWriter{queue: make(chan *planRow, planQueue), stop: make(chan struct{}), done: make(chan struct{})}
		go db.writePlans(db.plans)
	})
	return db.plans
}

// enqueue hands a row to the writer and waits for its commit; after
// Close it returns errClosed. A context
// that ends first returns its error; the row may then still be written
// (it was not acknowledged, so nothing was promised about it).
func (w *planWriter) enqueue(ctx context.Context, row *planRow) (int64, error) {
	if w == nil { // Close ran before any plan was saved
		return 0, errClosed
	}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return 0, errClosed
	}
	select {
	case w.queue <- row:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return 0, fmt.Errorf("waiting for the plan writer: %w", ctx.Err())
	}
	select {
	case r := <-row.result:
		return r.id, r.err
	case <-ctx.Done():
		return 0, fmt.Errorf("waiting for the plan's commit: %w", ctx.Err())
	}
}

// close stops taking plans, lets the writer finish what is queued, and
// waits for it. Safe to call on a writer never started (nil).
func (w *planWriter) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.stop)
	}
	w.mu.Unlock()
	<-w.done
}

// writePlans is the writer goroutine: it blocks for one row, takes
// whatever else is queued up to maxBatch, and writes them together.
func (db *DB) writePlans(w *planWriter) {
	defer close(w.done)
	defer func() {
		if w.insert != nil {
			w.insert.Close()
		}
	}()
	batch := make([]*planRow, 0, maxBatch)
	for {
		var first *planRow
		select {
		case first = <-w.queue:
		case <-w.stop:
			// Close holds the lock while closing stop, so no send is in
			// flight any more: drain what is queued and exit.
			for {
				select {
				case r := <-w.queue:
					batch = append(batch, r)
					if len(batch) == maxBatch {
						db.writeBatch(w, batch)
						batch = batch[:0]
					}
				default:
					if len(batch) > 0 {
						db.writeBatch(w, batch)
					}
					return
				}
			}
		}
		batch = append(batch, first)
		// The goroutines that answered at the same moment as first's are
		// about to queue; one yield lets them, and they share the commit.
		runtime.Gosched()
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-w.queue:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		db.writeBatch(w, batch)
		clear(batch)
		batch = batch[:0]
	}
}

// writeBatch writes the rows whose callers still wait in one
// transaction and tells each caller its id; it refuses them all when
// the database file is gone (checkFile). When the transaction fails,
// each row is tried again in a transaction of its own, so that one bad
// row does not fail the others.
func (db *DB) writeBatch(w *planWriter, rows []*planRow) {
	live := rows[:0:0]
	for _, r := range rows {
		if err := r.ctx.Err(); err != nil {
			r.result <- planResult{err: fmt.Errorf("before the plan was written: %w", err)}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	if err := db.checkFile(); err != nil {
		db.writes.note(err, db.now())
		for _, r := range live {
			r.result <- planResult{err: err}
		}
		return
	}
	ids, err := db.insertPlans(w, live)
	db.writes.note(err, db.now())
	if err == nil {
		if f := db.batchObserver.Load(); f != nil {
			(*f)(len(live))
		}
		for i, r := range live {
			r.result <- planResult{id: ids[i]}
		}
		return
	}
	if len(live) == 1 {
		live[0].result <- planResult{err: err}
		return
	}
	for _, r := range live {
		ids, err := db.insertPlans(w, []*planRow{r})
		db.writes.note(err, db.now())
		if err != nil {
			r.result <- planResult{err: err}
			continue
		}
		if f := db.batchObserver.Load(); f != nil {
			(*f)(1)
		}
		r.result <- planResult{id: ids[0]}
	}
}

// insertPlans inserts rows in one transaction and returns their ids.
// The timeout bounds BEGIN IMMEDIATE, which waits for the write lock;
// the inserts and the commit run without a cancellable context (see the
// top of this file).
func (db *DB) insertPlans(w *planWriter, rows []*planRow) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	if w.insert == nil {
		query := insertPlanSQL
		if db.postgres {
			query += " RETURNING id"
		}
		stmt, err := db.rw.PrepareContext(ctx, query)
		if err != nil {
			return nil, db.wrap("prepare plan insert", err)
		}
		w.insert = stmt
	}
	ids := make([]int64, len(rows))
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		stmt := tx.Stmt(w.insert) // the writer's statement, on the one writer connection
		defer stmt.Close()
		for i, r := range rows {
			id, err := db.insertPlan(stmt, r.args)
			if err != nil {
				return db.wrap("insert plan", err)
			}
			ids[i] = id
		}
		return nil
	})
	return ids, err
}

// insertPlan runs the prepared insert with args and returns the new id.
// On SQLite an Exec whose id is the last insert rowid costs about a
// quarter less than a query that returns it (no rows to open, scan and
// reset; BENCHMARKS.md).
func (db *DB) insertPlan(stmt *sql.Stmt, args []any) (int64, error) {
	if db.postgres {
		var id int64
		err := stmt.QueryRowContext(context.Background(), args...).Scan(&id)
		return id, err
	}
	res, err := stmt.ExecContext(context.Background(), args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}
