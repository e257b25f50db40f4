package store

import (
	"github.com/fitbot/fitbot/measure"

	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
)

// ErrClaimLost means a digest's claim was no longer the caller's when it
// came to record the outcome: its claim had run out and another poster
// took the digest over.
var ErrClaimLost = errors.New("digest claim lost to another poster")

// SentDigest is the record of one channel's digest for one week.
type SentDigest struct {
	Channel   string
	WeekStart time.Time
	WeekEnd   time.Time
	ClaimedBy string    // the poster holding the post; "" after a failed post released it
	ClaimedAt time.Time // when ClaimedBy took it (UTC)
	Attempts  int       // claims taken, the first included
	LastError string    // why the last failed post failed, "" otherwise
	PostedAt  time.Time // zero until posted
	TS        string    // the Slack message timestamp, "" until posted
}

// Posted reports whether the digest went out.
func (d SentDigest) Posted() bool { return d.TS != "" }

// ClaimDigest records that holder is about to post channel's digest of
// the week starting at weekStart, and reports whether holder may post it.
// It may when no record exists (the INSERT wins), or when the record was
// never completed and is free: released by a failed post, or claimed more
// than ttl ago by a poster that must have died. A posted digest, or one
// another poster claimed less than ttl ago, is not taken. Either way it
// returns the record as it stands after the attempt.
//
// The check and the write are one statement in one immediate
// transaction, so two posters, in one process or two sharing the file,
// never both win.
func (db *DB) ClaimDigest(ctx context.Context, channel string, weekStart, weekEnd time.Time, holder string, ttl time.Duration) (SentDigest, bool, error) {
	switch {
	case channel == "" || holder == "":
		return SentDigest{}, false, fmt.Errorf("claim digest: empty channel %q or holder %q", channel, holder)
	case !weekEnd.After(weekStart):
		return SentDigest{}, false, fmt.Errorf("claim digest for %s: week end %v is not after its start %v", channel, weekEnd, weekStart)
	case ttl <= 0:
		return SentDigest{}, false, fmt.Errorf("claim digest for %s: ttl %v is not positive", channel, ttl)
	}
	now := db.now()
	var (
		rec SentDigest
		won bool
	)
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO digests (channel, week_start, week_end, claimed_by, claimed_at, attempts)
			VALUES (?1, ?2, ?3, ?4, ?5, 1)
			ON CONFLICT (channel, week_start) DO UPDATE SET
				claimed_by = excluded.claimed_by,
				claimed_at = excluded.claimed_at,
				attempts = digests.attempts + 1
			WHERE digests.slack_ts IS NULL AND (digests.claimed_by = '' OR digests.claimed_at <= ?6)`,
			channel, formatTime(weekStart), formatTime(weekEnd), holder, formatTime(now), formatTime(now.Add(-ttl)))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		won = n == 1
		rec, err = scanDigest(tx.QueryRowContext(ctx, `SELECT `+digestColumns+` FROM digests WHERE channel = ? AND week_start = ?`,
			channel, formatTime(weekStart)))
		return err
	})
	if err != nil {
		return SentDigest{}, false, db.wrap("claim digest for "+channel, err)
	}
	return rec, won, nil
}

// MarkDigestPosted completes holder's claim with the Slack message
// timestamp and the digest as posted (JSON). It fails with ErrClaimLost
// when the claim is no longer holder's.
func (db *DB) MarkDigestPosted(ctx context.Context, channel string, weekStart time.Time, holder, ts string, payload []byte) error {
	if ts == "" {
		return fmt.Errorf("mark digest for %s posted: empty message timestamp", channel)
	}
	return db.finishClaim(ctx, "mark digest for "+channel+" posted", `UPDATE digests
		SET slack_ts = ?, posted_at = ?, payload_json = ?, last_error = ''
		WHERE channel = ? AND week_start = ? AND claimed_by = ? AND slack_ts IS NULL`,
		ts, formatTime(db.now()), string(payload), channel, formatTime(weekStart), holder)
}

// ReleaseDigest gives up holder's claim after a failed post, keeping why
// it failed, so that the next attempt may take it at once. It fails with
// ErrClaimLost when the claim is no longer holder's.
func (db *DB) ReleaseDigest(ctx context.Context, channel string, weekStart time.Time, holder, reason string) error {
	return db.finishClaim(ctx, "release digest for "+channel, `UPDATE digests SET claimed_by = '', last_error = ?
		WHERE channel = ? AND week_start = ? AND claimed_by = ? AND slack_ts IS NULL`,
		reason, channel, formatTime(weekStart), holder)
}

func (db *DB) finishClaim(ctx context.Context, op, query string, args ...any) error {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return db.wrap(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", op, ErrClaimLost)
	}
	return nil
}

// Digest returns channel's digest record for the week starting at
// weekStart, or an error wrapping ErrNotFound.
func (db *DB) Digest(ctx context.Context, channel string, weekStart time.Time) (SentDigest, error) {
	rec, err := scanDigest(db.ro.QueryRowContext(ctx, `SELECT `+digestColumns+` FROM digests WHERE channel = ? AND week_start = ?`,
		channel, formatTime(weekStart)))
	if errors.Is(err, sql.ErrNoRows) {
		return SentDigest{}, fmt.Errorf("digest for %s, week of %s: %w", channel, weekStart.UTC().Format(time.DateOnly), ErrNotFound)
	}
	if err != nil {
		return SentDigest{}, db.wrap("digest for "+channel, err)
	}
	return rec, nil
}

// digestColumns are the columns scanDigest reads, in its order.
const digestColumns = `channel, week_start, week_end, claimed_by, claimed_at, attempts, last_error, posted_at, slack_ts`

func scanDigest(s scanner) (SentDigest, error) {
	var (
		d                   SentDigest
		start, end, claimed string
		posted, ts          sql.NullString
	)
	if err := s.Scan(&d.Channel, &start, &end, &d.ClaimedBy, &claimed, &d.Attempts, &d.LastError, &posted, &ts); err != nil {
		return SentDigest{}, err
	}
	var err error
	for _, p := range []struct {
		s string
		t *time.Time
	}{{start, &d.WeekStart}, {end, &d.WeekEnd}, {claimed, &d.ClaimedAt}, {posted.String, &d.PostedAt}} {
		if p.s == "" {
			continue
		}
		if *p.t, err = parseTime(p.s); err != nil {
			return SentDigest{}, err
		}
	}
	d.TS = ts.String
	return d, nil
}

// RunsBetween returns every refresh run (imports included) started in
// [from, to), oldest first: the digest's source health.
func (db *DB) RunsBetween(ctx context.Context, from, to time.Time) ([]pricing.Run, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT `+runColumns+` FROM price_runs
		WHERE started_at >= ? AND started_at < ? ORDER BY started_at, id`, formatTime(from), formatTime(to))
	if err != nil {
		return nil, db.wrap("price runs", err)
	}
	defer rows.Close()
	var runs []pricing.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, db.wrap("price runs", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("price runs", err)
	}
	return runs, nil
}

// DigestInput reads what the digest of the week ending at weekEnd is
// computed from: the prices observed and the refresh runs of the two
// weeks before weekEnd, the plans that scope reads saved in the
// planWindow before it, and the default sheet for GPUs no provider priced.
func (db *DB) DigestInput(ctx context.Context, scope Scope, weekEnd time.Time, planWindow time.Duration) (digest.Input, error) {
	from := weekEnd.Add(-2 * digest.Week)
	obs, err := db.ObservationsBetween(ctx, from, weekEnd)
	if err != nil {
		return digest.Input{}, err
	}
	runs, err := db.RunsBetween(ctx, from, weekEnd)
	if err != nil {
		return digest.Input{}, err
	}
	plans, err := db.digestPlans(ctx, scope, weekEnd.Add(-planWindow), weekEnd)
	if err != nil {
		return digest.Input{}, db.wrap("plans for the digest", err)
	}
	held, err := db.HoldsBetween(ctx, weekEnd.Add(-digest.Week), weekEnd)
	if err != nil {
		return digest.Input{}, err
	}
	measured, err := db.RunsRecordedBetween(ctx, scope, weekEnd.Add(-digest.Week), weekEnd)
	if err != nil {
		return digest.Input{}, err
	}
	pairs := make([]measure.Pair, len(measured))
	for i, r := range measured {
		pairs[i] = r.Pair()
	}
	return digest.Input{WeekEnd: weekEnd, Observations: obs, Runs: runs, Plans: plans, Held: held, Measured: pairs, Fallback: pricing.DefaultSheet()}, nil
}

// digestPlans reads every distinct question that scope reads saved in
// [from, to) as its
// newest plan, with the number of times it was saved: the digest
// re-prices each of them, so a busy week costs one row per question, not
// one per ask. Only fit plans: an inverse plan (largest model, which
// GPU...) has no one configuration and price to move.
func (db *DB) digestPlans(ctx context.Context, scope Scope, from, to time.Time) ([]digest.Plan, error) {
	cond, args := scope.where()
	rows, err := db.ro.QueryContext(ctx, `SELECT `+planColumns+`, asked FROM (
			SELECT *, row_number() OVER question AS newest, count(*) OVER (PARTITION BY coalesce(nullif(canonical, ''), question)) AS asked
			FROM plans WHERE created_at >= ? AND created_at < ? AND kind = 'fit' AND `+cond+`
			WINDOW question AS (PARTITION BY coalesce(nullif(canonical, ''), question) ORDER BY created_at DESC, id DESC)) AS plan_window
		WHERE newest = 1 ORDER BY created_at DESC, id DESC`, append([]any{formatTime(from), formatTime(to)}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []digest.Plan
	for rows.Next() {
		var asked int
		p, err := scanPlan(withExtra{rows, []any{&asked}})
		if err != nil {
			return nil, err
		}
		out = append(out, digest.Plan{ID: p.ID, CreatedAt: p.CreatedAt, Summary: p.Summary, Asked: asked})
	}
	return out, rows.Err()
}

// withExtra scans a row of a plan's columns followed by more columns
// into scanPlan's destinations and then extra.
type withExtra struct {
	scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.scanner.Scan(append(dest, w.extra...)...) }
