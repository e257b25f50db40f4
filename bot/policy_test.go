package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestLimiterTurnKeepsRecentBuckets: the generations turn each minute,
// and a user drained just before a turn is still limited just after it;
// only a bucket left alone for a minute (full again) is forgotten.
func TestLimiterTurnKeepsRecentBuckets(t *testing.T) {
	l := newLimiter(2)
	t0 := testNow
	l.allow("U0", t0) // starts the first generation at t0
	steps := []struct {
		user  string
		after time.Duration
		want  bool
	}{
		{"U1", 50 * time.Second, true},
		{"U1", 50 * time.Second, true},
		{"U1", 50 * time.Second, false},
		{"U2", 61 * time.Second, true},  // turns: U1 is now in the older generation
		{"U1", 70 * time.Second, false}, // 20 s refilled 0.67 of a token: still none
		{"U1", 81 * time.Second, true},  // 31 s: one token back
		{"U1", 81 * time.Second, false},
	}
	for i, s := range steps {
		if got := l.allow(s.user, t0.Add(s.after)); got != s.want {
			t.Errorf("step %d (%s at +%v): allow = %v, want %v", i+1, s.user, s.after, got, s.want)
		}
	}
	// Two quiet minutes later both generations have turned away every
	// bucket, and each user starts full.
	later := t0.Add(4 * time.Minute)
	l.allow("U3", later)
	l.allow("U3", later.Add(time.Minute))
	if n := len(l.cur) + len(l.prev); n != 1 {
		t.Errorf("after two quiet minutes the limiter holds %d buckets, want 1 (U3)", n)
	}
	for i := range 2 {
		if !l.allow("U1", later.Add(time.Minute)) {
			t.Errorf("token %d of 2: a user idle for minutes must have a full bucket", i+1)
		}
	}
}

// TestLimiterKeyIsACopy: the bucket's key must not share memory with the
// caller's string, which slash.go slices out of the request's form body.
func TestLimiterKeyIsACopy(t *testing.T) {
	l := newLimiter(5)
	body := "token=x&team_id=T1&user_id=U0123ABCD&text=13b+lora+4090"
	user := body[strings.Index(body, "U0123"):strings.Index(body, "&text")]
	l.allow(user, testNow)
	for k := range l.cur {
		if k != user {
			t.Fatalf("key %q, want %q", k, user)
		}
		if unsafe.StringData(k) == unsafe.StringData(user) {
			t.Error("the limiter keeps the caller's string, and with it the whole form body")
		}
	}
}

// TestLimiterCostFlatInUsers: a request costs the same with 100 users as
// with 100,000 (the limiter that scanned its map on every request once it
// was full cost ~1,000 times more at 100,000), allocates at most a copy
// of a new user's id, and holds at most two generations of buckets.
func TestLimiterCostFlatInUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two benchmarks of a second each")
	}
	run := func(users int) (nsPerOp float64, allocsPerOp int64, tracked int) {
		ids := make([]string, users)
		for i := range ids {
			ids[i] = fmt.Sprintf("U%08d", i)
		}
		var l *limiter
		res := testing.Benchmark(func(b *testing.B) {
			l = newLimiter(30)
			at := testNow
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				// 1,000 requests a second: every user of 100,000 asks
				// within two minutes, so the generations turn.
				l.allow(ids[i%users], at.Add(time.Duration(i)*time.Millisecond))
			}
		})
		return float64(res.T.Nanoseconds()) / float64(res.N), res.AllocsPerOp(), len(l.cur) + len(l.prev)
	}
	// Up to three tries, so that another process on the machine slowing
	// one run does not decide the test; a scan fails all three.
	var smallNs, bigNs float64
	var smallAllocs, bigAllocs int64
	var bigTracked int
	for try := 1; try <= 3; try++ {
		smallNs, smallAllocs, _ = run(100)
		bigNs, bigAllocs, bigTracked = run(100_000)
		t.Logf("try %d: 100 users %.0f ns/op, %d allocs/op; 100,000 users %.0f ns/op, %d allocs/op, %d buckets",
			try, smallNs, smallAllocs, bigNs, bigAllocs, bigTracked)
		// A map of 20,000 buckets misses the CPU cache where one of 100
		// does not; a few times is that, a thousand would be a scan.
		if bigNs <= 10*smallNs {
			break
		}
	}
	if bigNs > 10*smallNs {
		t.Errorf("a request costs %.0f ns with 100,000 users against %.0f ns with 100: not flat", bigNs, smallNs)
	}
	if smallAllocs != 0 || bigAllocs > 2 {
		t.Errorf("allocations per request: %d with 100 users (want 0), %d with 100,000 (want at most 2)", smallAllocs, bigAllocs)
	}
	if bigTracked > 2*maxTrackedUsers {
		t.Errorf("the limiter holds %d buckets, more than two generations of %d", bigTracked, maxTrackedUsers)
	}
}
