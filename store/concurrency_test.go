package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrentSavesAndLookups is the bot and a CLI user at once, harder:
// many goroutines save and look up plans through two *DB handles (two
// processes' worth of connection pools) on one database. Every call must
// succeed — no "database is locked" — and every plan must be there after.
func TestConcurrentSavesAndLookups(t *testing.T) {
	db := openTest(t)
	handles := []*DB{db, reopen(t, db)}
	const (
		workers = 16
		each    = 25
	)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := handles[w%len(handles)]
			key := fmt.Sprintf("model-%d", w%4)
			for i := range each {
				p := samplePlan(key, testNow.Add(time.Duration(w*each+i)*time.Second))
				p.Question = fmt.Sprintf("worker %d question %d", w, i)
				id, err := db.SavePlan(ctx, &p)
				if err != nil {
					errs <- err
					return
				}
				got, err := db.Plan(ctx, AllPlans(), id)
				if err != nil {
					errs <- err
					return
				}
				if got.Question != p.Question {
					errs <- fmt.Errorf("plan %d reads back %q, saved %q", id, got.Question, p.Question)
				}
				if _, err := db.PlansForModel(ctx, AllPlans(), key, 20); err != nil {
					errs <- err
					return
				}
				if _, err := db.RecentPlans(ctx, AllPlans(), testNow, 20); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := handles[1].ro.QueryRow("SELECT count(*) FROM plans").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != workers*each {
		t.Errorf("plans stored = %d, want %d", n, workers*each)
	}
}
