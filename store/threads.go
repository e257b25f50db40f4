package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RememberThread records that the latest answer in a Slack thread was
// for the question canonical (sizing.Format of it), so that a message in
// the thread is read against it. A later answer in the same thread
// replaces it.
func (db *DB) RememberThread(ctx context.Context, team, channel, threadTS, canonical string) error {
	if channel == "" || threadTS == "" || canonical == "" {
		return fmt.Errorf("remember thread %q in %q: channel, thread and question are required", threadTS, channel)
	}
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO answer_threads (team, channel, thread_ts, canonical, updated_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (team, channel, thread_ts) DO UPDATE SET canonical = excluded.canonical, updated_at = excluded.updated_at`,
			team, channel, threadTS, canonical, formatTime(db.now()))
		return err
	})
	if err != nil {
		return db.wrap("remember thread "+threadTS, err)
	}
	return nil
}

// ThreadQuestion returns the question of the latest answer in a thread;
// ok is false when fitbot answered nothing there.
func (db *DB) ThreadQuestion(ctx context.Context, team, channel, threadTS string) (canonical string, ok bool, err error) {
	err = db.ro.QueryRowContext(ctx, `SELECT canonical FROM answer_threads WHERE team = ? AND channel = ? AND thread_ts = ?`,
		team, channel, threadTS).Scan(&canonical)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, db.wrap("thread "+threadTS, err)
	}
	return canonical, true, nil
}

// ForgetThreads deletes the threads last answered before a time and
// returns how many went.
func (db *DB) ForgetThreads(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM answer_threads WHERE updated_at < ?`, formatTime(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, db.wrap("forget threads", err)
	}
	return n, nil
}
