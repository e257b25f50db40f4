//go:build cgo

package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGroupCommitConcurrentSaves saves many plans at once, so that the
// writer batches them: every caller gets its own id, and that id reads
// back the caller's own plan.
func TestGroupCommitConcurrentSaves(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	const n = 300
	ids := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p := samplePlan(fmt.Sprintf("model-%d", i%5), testNow)
			p.Question = fmt.Sprintf("question %d", i)
			ids[i], errs[i] = db.SavePlan(ctx, &p)
		})
	}
	wg.Wait()
	seen := map[int64]int{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("save %d: %v", i, errs[i])
		}
		if j, dup := seen[ids[i]]; dup {
			t.Fatalf("saves %d and %d both got id %d", j, i, ids[i])
		}
		seen[ids[i]] = i
		got, err := db.Plan(ctx, AllPlans(), ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("question %d", i); got.Question != want {
			t.Errorf("plan %d is %q, want %q", ids[i], got.Question, want)
		}
	}
}

// TestCloseWritesQueuedPlans closes the database while plans are being
// saved: every save that returned an id is in the file when it is
// opened again, and every other save returned an error.
func TestCloseWritesQueuedPlans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	ids := make(chan int64, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			p := samplePlan("model", testNow)
			p.Question = fmt.Sprintf("question %d", i)
			id, err := db.SavePlan(context.Background(), &p)
			if err == nil {
				ids <- id
			} else if !errors.Is(err, errClosed) {
				t.Errorf("save %d: %v, want a saved plan or %v", i, err, errClosed)
			}
		})
	}
	close(start)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(ids)
	db = openAt(t, path, nil, -1)
	acked := 0
	for id := range ids {
		acked++
		if _, err := db.Plan(context.Background(), AllPlans(), id); err != nil {
			t.Errorf("acknowledged plan %d: %v", id, err)
		}
	}
	t.Logf("%d of %d saves acknowledged before Close", acked, n)
}

// TestSavePlanAfterClose is refused with errClosed, whether or not a
// plan was saved before.
func TestSavePlanAfterClose(t *testing.T) {
	for _, saveFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("saved before ", saveFirst), func(t *testing.T) {
			db, err := Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
			if err != nil {
				t.Fatal(err)
			}
			p := samplePlan("model", testNow)
			if saveFirst {
				if _, err := db.SavePlan(context.Background(), &p); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SavePlan(context.Background(), &p); !errors.Is(err, errClosed) {
				t.Errorf("SavePlan after Close: %v, want %v", err, errClosed)
			}
		})
	}
}

// TestSavePlanCanceledContext returns the context's error and writes
// nothing.
func TestSavePlanCanceledContext(t *testing.T) {
	db := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := samplePlan("canceled", testNow)
	if _, err := db.SavePlan(ctx, &p); !errors.Is(err, context.Canceled) {
		t.Fatalf("SavePlan with a canceled context: %v, want context.Canceled", err)
	}
	// A later save on a live context goes through the same writer, so
	// the canceled one, had it been queued, has been dealt with by now.
	q := samplePlan("live", testNow)
	if _, err := db.SavePlan(context.Background(), &q); err != nil {
		t.Fatal(err)
	}
	plans, err := db.PlansForModel(context.Background(), AllPlans(), "canceled", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 0 {
		t.Errorf("a save with a canceled context wrote %d plans", len(plans))
	}
}

// TestGroupCommitGroups saves from 64 goroutines at once: the writer
// must put several plans in each transaction, and the batch observer
// (fitbot_plan_batch_rows) must count every acknowledged plan once.
func TestGroupCommitGroups(t *testing.T) {
	db := openTest(t)
	var mu sync.Mutex
	var batches, rows int
	db.ObservePlanBatches(func(n int) {
		mu.Lock()
		batches, rows = batches+1, rows+n
		mu.Unlock()
	})
	const writers, each = 64, 10
	var acked atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			<-start
			for j := range each {
				p := samplePlan("grouped", testNow)
				p.Question = fmt.Sprintf("question %d.%d", i, j)
				if _, err := db.SavePlan(context.Background(), &p); err != nil {
					t.Errorf("save %d.%d: %v", i, j, err)
					return
				}
				acked.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d plans in %d transactions (%.1f a commit)", rows, batches, float64(rows)/float64(batches))
	if int64(rows) != acked.Load() {
		t.Errorf("the observer counted %d rows, %d plans were acknowledged", rows, acked.Load())
	}
	if batches == 0 || rows/batches < 4 {
		t.Errorf("%d plans took %d transactions: 64 writers at once must share commits", rows, batches)
	}
	var inFile int64
	if err := db.ro.QueryRow(`SELECT count(*) FROM plans WHERE model_key = 'grouped'`).Scan(&inFile); err != nil {
		t.Fatal(err)
	}
	if inFile != acked.Load() {
		t.Errorf("%d plans in the file, %d acknowledged", inFile, acked.Load())
	}
}

// BenchmarkSavePlanParallel is the bot under a burst: 64 goroutines per
// CPU saving at once, which the writer groups into shared commits.
//
//	go test ./store -run '^$' -bench 'SavePlan' -benchtime 3000x
func BenchmarkSavePlanParallel(b *testing.B) {
	db := openTest(b)
	ctx := context.Background()
	b.SetParallelism(64)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := samplePlan("bench", testNow)
			if _, err := db.SavePlan(ctx, &p); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
