//go:build cgo

package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/fakeclock"
	"github.com/google/go-cmp/cmp"
)

// twoHandles opens the same database twice, as two fitbot processes
// sharing a volume (or a PostgreSQL server) would, both reading clock.
func twoHandles(t *testing.T, clock *fakeclock.Clock) (a, b *DB) {
	t.Helper()
	a = openTest(t)
	b = reopen(t, a)
	a.Now, b.Now = clock.Now, clock.Now
	return a, b
}

// TestLeaseLifecycle walks one lease through everything that can happen
// to it between two processes: first take, refused take, renewal, expiry
// and takeover, release by a non-holder, release by the holder. The term
// (the fencing token) grows at each change of hands and only then.
func TestLeaseLifecycle(t *testing.T) {
	clock := fakeclock.New(testNow)
	dbA, dbB := twoHandles(t, clock)
	const ttl = 30 * time.Second
	t0 := testNow
	type step struct {
		name    string
		advance time.Duration // moved before the step
		db      *DB
		release bool // release instead of acquire
		holder  string
		wantWon bool
		want    Lease // the stored lease after the step
	}
	steps := []step{
		{name: "first take", db: dbA, holder: "a", wantWon: true,
			want: Lease{Name: "scheduler", Holder: "a", Acquired: t0, Expires: t0.Add(ttl), Term: 1}},
		{name: "other process refused while held", advance: 10 * time.Second, db: dbB, holder: "b",
			want: Lease{Name: "scheduler", Holder: "a", Acquired: t0, Expires: t0.Add(ttl), Term: 1}},
		{name: "holder renews, keeping the term's start", db: dbA, holder: "a", wantWon: true,
			want: Lease{Name: "scheduler", Holder: "a", Acquired: t0, Expires: t0.Add(10*time.Second + ttl), Term: 1}},
		{name: "refused one nanosecond before expiry", advance: ttl - time.Nanosecond, db: dbB, holder: "b",
			want: Lease{Name: "scheduler", Holder: "a", Acquired: t0, Expires: t0.Add(10*time.Second + ttl), Term: 1}},
		{name: "taken over at expiry", advance: time.Nanosecond, db: dbB, holder: "b", wantWon: true,
			want: Lease{Name: "scheduler", Holder: "b", Acquired: t0.Add(40 * time.Second), Expires: t0.Add(40*time.Second + ttl), Term: 2}},
		{name: "old holder cannot renew after losing it", advance: time.Second, db: dbA, holder: "a",
			want: Lease{Name: "scheduler", Holder: "b", Acquired: t0.Add(40 * time.Second), Expires: t0.Add(40*time.Second + ttl), Term: 2}},
		{name: "release by a non-holder changes nothing", db: dbA, release: true, holder: "a",
			want: Lease{Name: "scheduler", Holder: "b", Acquired: t0.Add(40 * time.Second), Expires: t0.Add(40*time.Second + ttl), Term: 2}},
		{name: "holder releases", advance: time.Second, db: dbB, release: true, holder: "b",
			want: Lease{Name: "scheduler", Holder: "b", Acquired: t0.Add(40 * time.Second), Expires: t0.Add(42 * time.Second), Term: 2}},
		{name: "free at once after release", db: dbA, holder: "a", wantWon: true,
			want: Lease{Name: "scheduler", Holder: "a", Acquired: t0.Add(42 * time.Second), Expires: t0.Add(42*time.Second + ttl), Term: 3}},
	}
	ctx := context.Background()
	for _, s := range steps {
		clock.Advance(s.advance)
		if s.release {
			if err := s.db.ReleaseLease(ctx, "scheduler", s.holder); err != nil {
				t.Fatalf("%s: ReleaseLease: %v", s.name, err)
			}
		} else {
			got, won, err := s.db.AcquireLease(ctx, "scheduler", s.holder, ttl)
			if err != nil {
				t.Fatalf("%s: AcquireLease: %v", s.name, err)
			}
			if won != s.wantWon {
				t.Errorf("%s: AcquireLease won = %v, want %v", s.name, won, s.wantWon)
			}
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("%s: AcquireLease returned (-want +got):\n%s", s.name, diff)
			}
		}
		// Both processes read the same row.
		for _, db := range []*DB{dbA, dbB} {
			got, err := db.ReadLease(ctx, "scheduler")
			if err != nil {
				t.Fatalf("%s: ReadLease: %v", s.name, err)
			}
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("%s: stored lease (-want +got):\n%s", s.name, diff)
			}
		}
	}
}

func TestLeaseHeldBy(t *testing.T) {
	l := Lease{Name: "scheduler", Holder: "a", Expires: testNow}
	for _, tc := range []struct {
		holder string
		at     time.Time
		want   bool
	}{
		{"a", testNow.Add(-time.Nanosecond), true},
		{"a", testNow, false},
		{"b", testNow.Add(-time.Second), false},
	} {
		if got := l.HeldBy(tc.holder, tc.at); got != tc.want {
			t.Errorf("HeldBy(%q, %v) = %v, want %v", tc.holder, tc.at, got, tc.want)
		}
	}
}

func TestLeasesAreIndependentByName(t *testing.T) {
	clock := fakeclock.New(testNow)
	db, _ := twoHandles(t, clock)
	ctx := context.Background()
	if _, won, err := db.AcquireLease(ctx, "scheduler", "a", time.Minute); err != nil || !won {
		t.Fatalf("AcquireLease(scheduler, a) = %v, %v; want won", won, err)
	}
	if _, won, err := db.AcquireLease(ctx, "other", "b", time.Minute); err != nil || !won {
		t.Errorf("AcquireLease(other, b) = %v, %v; want won: a lease on another name does not block it", won, err)
	}
}

func TestReadLeaseNeverTaken(t *testing.T) {
	db := openTest(t)
	if _, err := db.ReadLease(context.Background(), "scheduler"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadLease of a lease never taken = %v, want ErrNotFound", err)
	}
}

func TestLeaseRefusesBadArguments(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, holder string
		ttl          time.Duration
		want         string
	}{
		{"", "a", time.Second, "empty name"},
		{"scheduler", "", time.Second, "empty holder"},
		{"scheduler", "a", 0, "not positive"},
		{"scheduler", "a", -time.Second, "not positive"},
	} {
		_, won, err := db.AcquireLease(ctx, tc.name, tc.holder, tc.ttl)
		if err == nil || won || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AcquireLease(%q, %q, %v) = %v, %v; want an error containing %q", tc.name, tc.holder, tc.ttl, won, err, tc.want)
		}
	}
	if err := db.ReleaseLease(ctx, "scheduler", ""); err == nil {
		t.Error("ReleaseLease with an empty holder succeeded, want an error")
	}
	if _, err := db.ReadLease(ctx, "scheduler"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after refused calls, ReadLease = %v, want ErrNotFound (nothing written)", err)
	}
}

// TestLeaseOneWinnerUnderContention races holders in two processes for
// fresh leases at one instant: every round has exactly one winner, and the
// stored holder is that winner.
func TestLeaseOneWinnerUnderContention(t *testing.T) {
	clock := fakeclock.New(testNow)
	dbA, dbB := twoHandles(t, clock)
	ctx := context.Background()
	const rounds, perProcess = 20, 4
	for round := range rounds {
		name := fmt.Sprintf("race-%d", round)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		for i := range 2 * perProcess {
			db, holder := dbA, fmt.Sprintf("a%d", i)
			if i%2 == 1 {
				db, holder = dbB, fmt.Sprintf("b%d", i)
			}
			wg.Go(func() {
				_, won, err := db.AcquireLease(ctx, name, holder, time.Minute)
				if err != nil {
					t.Errorf("%s: AcquireLease(%s): %v", name, holder, err)
					return
				}
				if won {
					mu.Lock()
					winners = append(winners, holder)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("%s: winners = %v, want exactly one", name, winners)
		}
		got, err := dbB.ReadLease(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Holder != winners[0] {
			t.Errorf("%s: stored holder = %q, want the winner %q", name, got.Holder, winners[0])
		}
	}
}

// BenchmarkAcquireLease is the cost of one renewal: what the scheduler
// leader writes every 10 seconds and every instance tries as often.
func BenchmarkAcquireLease(b *testing.B) {
	db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
	db.Now = time.Now
	ctx := context.Background()
	for b.Loop() {
		if _, won, err := db.AcquireLease(ctx, "scheduler", "a", time.Minute); err != nil || !won {
			b.Fatalf("AcquireLease = %v, %v", won, err)
		}
	}
}
