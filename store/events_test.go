package store

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSeeEventOnce checks the dedupe rule Slack's retries need: the first
// delivery of an event id is taken, a retry within the ttl is not, and a
// record older than the ttl no longer blocks the id.
func TestSeeEventOnce(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	const ttl = time.Hour

	steps := []struct {
		name  string
		at    time.Duration // after the first delivery
		id    string
		first bool
	}{
		{"first delivery", 0, "Ev01", true},
		{"retry 1, at once", time.Second, "Ev01", false},
		{"retry 3, five minutes on", 5 * time.Minute, "Ev01", false},
		{"another event", 5 * time.Minute, "Ev02", true},
		{"just inside the ttl", ttl - time.Nanosecond, "Ev01", false},
		{"past the ttl", ttl + time.Minute, "Ev01", true},
		{"a retry of the renewed record", ttl + 2*time.Minute, "Ev01", false},
	}
	start := now
	for _, s := range steps {
		now = start.Add(s.at)
		first, err := db.SeeEvent(ctx, s.id, ttl)
		if err != nil {
			t.Fatalf("%s: SeeEvent(%s): %v", s.name, s.id, err)
		}
		if first != s.first {
			t.Errorf("%s: SeeEvent(%s) = %v, want %v", s.name, s.id, first, s.first)
		}
	}
}

// TestSeeEventRacingDeliveries sends one event id from many goroutines
// at once: exactly one of them may answer.
func TestSeeEventRacingDeliveries(t *testing.T) {
	db := openTest(t)
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			first, err := db.SeeEvent(context.Background(), "Ev0RACE", time.Hour)
			if err != nil {
				t.Error(err)
			}
			if first {
				firsts.Add(1)
			}
		})
	}
	wg.Wait()
	if got := firsts.Load(); got != 1 {
		t.Errorf("%d deliveries were taken as first, want exactly 1", got)
	}
}

func TestSeeEventRefusesBadArguments(t *testing.T) {
	db := openTest(t)
	if _, err := db.SeeEvent(context.Background(), "", time.Hour); err == nil {
		t.Error("SeeEvent with an empty id succeeded")
	}
	if _, err := db.SeeEvent(context.Background(), "Ev01", 0); err == nil {
		t.Error("SeeEvent with a zero ttl succeeded")
	}
	first, err := db.SeeEvent(context.Background(), "Ev01", time.Hour)
	if err != nil || !first {
		t.Errorf("after refused calls, SeeEvent(Ev01) = %v, %v; want true (nothing was written)", first, err)
	}
}

// TestForgetEvents deletes by age and leaves the recent ids blocking.
func TestForgetEvents(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	for i, id := range []string{"EvOld1", "EvOld2", "EvNew"} {
		now = now.Add(time.Duration(i) * time.Hour)
		if _, err := db.SeeEvent(ctx, id, 48*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.ForgetEvents(ctx, now.Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("ForgetEvents deleted %d ids, want 2", n)
	}
	if first, _ := db.SeeEvent(ctx, "EvNew", 48*time.Hour); first {
		t.Error("EvNew was forgotten; only older ids should go")
	}
	if first, _ := db.SeeEvent(ctx, "EvOld1", 48*time.Hour); !first {
		t.Error("EvOld1 is still recorded after ForgetEvents")
	}
}

// BenchmarkSeeEvent records new event ids, one immediate transaction
// each: the cost the dedupe adds to every mention and DM.
func BenchmarkSeeEvent(b *testing.B) {
	db := openTest(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := db.SeeEvent(ctx, "Ev"+strconv.Itoa(i), time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}
