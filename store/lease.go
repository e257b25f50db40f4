package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Lease is a named lease as stored: who holds it and until when. A lease
// whose Expires has passed is free, whoever is named in Holder.
type Lease struct {
	Name     string
	Holder   string    // the last holder; it no longer holds the lease once Expires has passed
	Acquired time.Time // when Holder's current term began (UTC)
	Expires  time.Time // when the lease is free again unless renewed (UTC)
	// Term is the fencing token: 1 for the first holder, one more each
	// time the lease changes hands (or is taken again after running out);
	// a renewal keeps it. Work started under term N is stale once the
	// lease reads a higher term.
	Term int64
}

// HeldBy reports whether holder holds the lease at time t.
func (l Lease) HeldBy(holder string, t time.Time) bool {
	return l.Holder == holder && t.Before(l.Expires)
}

// AcquireLease takes the lease name for holder until ttl from the store's
// clock, or renews it when holder already has it. It succeeds only when
// the lease is free (never taken, expired or released) or held by holder;
// otherwise it changes nothing and reports false. Either way it returns
// the lease as it stands after the attempt.
//
// The check and the write are one statement in one immediate transaction,
// so two processes on one database file never both win. Expiry is judged
// by the clock of the process asking, so instances sharing a lease need
// clocks that agree to well within ttl.
func (db *DB) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (Lease, bool, error) {
	if err := checkLeaseArgs(name, holder); err != nil {
		return Lease{}, false, err
	}
	if ttl <= 0 {
		return Lease{}, false, fmt.Errorf("acquire lease %q: ttl %v is not positive", name, ttl)
	}
	now := db.now()
	var (
		lease Lease
		won   bool
	)
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		// The DO UPDATE's WHERE is the whole rule: the row changes only when
		// its lease has run out or is the caller's own. A renewal keeps the
		// start of the term.
		res, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, acquired_at, expires_at, term)
			VALUES (?1, ?2, ?3, ?4, 1)
			ON CONFLICT (name) DO UPDATE SET
				holder = excluded.holder,
				acquired_at = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ?3
					THEN leases.acquired_at ELSE excluded.acquired_at END,
				term = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ?3
					THEN leases.term ELSE leases.term + 1 END,
				expires_at = excluded.expires_at
			WHERE leases.holder = excluded.holder OR leases.expires_at <= ?3`,
			name, holder, formatTime(now), formatTime(now.Add(ttl)))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		won = n == 1
		lease, err = scanLease(tx.QueryRowContext(ctx, leaseQuery, name))
		return err
	})
	if err != nil {
		return Lease{}, false, db.wrap(fmt.Sprintf("acquire lease %q", name), err)
	}
	return lease, won, nil
}

// ReleaseLease gives up holder's lease name at once, so that another
// holder can take it without waiting for it to expire. Releasing a lease
// holder does not hold (any more) changes nothing and is not an error.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if err := checkLeaseArgs(name, holder); err != nil {
		return err
	}
	now := formatTime(db.now())
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE leases SET expires_at = ?1
			WHERE name = ?2 AND holder = ?3 AND expires_at > ?1`, now, name, holder)
		return err
	})
	if err != nil {
		return db.wrap(fmt.Sprintf("release lease %q", name), err)
	}
	return nil
}

// ReadLease returns the lease name as stored, or ErrNotFound when it has
// never been taken.
func (db *DB) ReadLease(ctx context.Context, name string) (Lease, error) {
	lease, err := scanLease(db.ro.QueryRowContext(ctx, leaseQuery, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, fmt.Errorf("lease %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Lease{}, db.wrap(fmt.Sprintf("read lease %q", name), err)
	}
	return lease, nil
}

const leaseQuery = `SELECT name, holder, acquired_at, expires_at, term FROM leases WHERE name = ?`

func scanLease(row *sql.Row) (Lease, error) {
	var (
		l                 Lease
		acquired, expires string
		err               error
	)
	if err = row.Scan(&l.Name, &l.Holder, &acquired, &expires, &l.Term); err != nil {
		return Lease{}, err
	}
	if l.Acquired, err = parseTime(acquired); err != nil {
		return Lease{}, err
	}
	if l.Expires, err = parseTime(expires); err != nil {
		return Lease{}, err
	}
	return l, nil
}

func checkLeaseArgs(name, holder string) error {
	switch {
	case name == "":
		return errors.New("lease: empty name")
	case holder == "":
		return fmt.Errorf("lease %q: empty holder", name)
	}
	return nil
}
