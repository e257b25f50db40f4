package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SeeEvent records that the Slack event id was taken now and reports
// whether this is its first delivery: false when id was already recorded
// less than ttl ago. A record older than ttl counts as gone (the cleanup
// may not have run yet), so the event is taken again and the record
// renewed.
//
// The check and the write are one statement in one immediate transaction,
// so two deliveries racing, in one process or two sharing the file, never
// both see true.
func (db *DB) SeeEvent(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if id == "" {
		return false, errors.New("see event: empty event id")
	}
	if ttl <= 0 {
		return false, fmt.Errorf("see event %s: ttl %v is not positive", id, ttl)
	}
	now := db.now()
	var first bool
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO slack_events (event_id, seen_at) VALUES (?1, ?2)
			ON CONFLICT (event_id) DO UPDATE SET seen_at = excluded.seen_at
			WHERE slack_events.seen_at <= ?3`,
			id, formatTime(now), formatTime(now.Add(-ttl)))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		first = n == 1
		return err
	})
	if err != nil {
		return false, db.wrap("see event "+id, err)
	}
	return first, nil
}

// ForgetEvents deletes the event ids recorded before t and returns how
// many went.
func (db *DB) ForgetEvents(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM slack_events WHERE seen_at < ?`, formatTime(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, db.wrap("forget events", err)
	}
	return n, nil
}
