package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fitbot/fitbot/internal/fakeclock"
	"github.com/fitbot/fitbot/store"
)

// schedStart is the tests' "now": Monday 30 November 2026, 01:02:03 UTC.
var schedStart = time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)

// TestCronSpecNext pins when each spec fires. The DST and descriptor rows
// are the verified Next() values in shared/reference/slack.md §4.2 (from
// Friday 2026-03-27 12:00 UTC; EU summer time starts Sunday 2026-03-29);
// the default rows are worked by hand from a calendar (2026-11-30 is a
// Monday).
func TestCronSpecNext(t *testing.T) {
	march27 := time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC)
	utc := func(y int, mo time.Month, d, h, mi int) time.Time { return time.Date(y, mo, d, h, mi, 0, 0, time.UTC) }
	for _, tc := range []struct {
		spec       string
		from       time.Time
		next, then time.Time
	}{
		{scheduleRefreshDefault, schedStart, utc(2026, 11, 30, 6, 0), utc(2026, 11, 30, 12, 0)},
		{scheduleRefreshDefault, utc(2026, 11, 30, 18, 0), utc(2026, 12, 1, 0, 0), utc(2026, 12, 1, 6, 0)},
		{scheduleDigestDefault, schedStart, utc(2026, 11, 30, 9, 0), utc(2026, 12, 7, 9, 0)},
		{scheduleDigestDefault, utc(2026, 11, 30, 9, 0), utc(2026, 12, 7, 9, 0), utc(2026, 12, 14, 9, 0)},
		{scheduleDigestDefault, utc(2026, 12, 31, 12, 0), utc(2027, 1, 4, 9, 0), utc(2027, 1, 11, 9, 0)},
		{"CRON_TZ=Europe/Berlin 0 9 * * MON", march27, utc(2026, 3, 30, 7, 0), utc(2026, 4, 6, 7, 0)},
		{"@weekly", march27, utc(2026, 3, 29, 0, 0), utc(2026, 4, 5, 0, 0)},
		{"CRON_TZ=America/New_York @weekly", march27, utc(2026, 3, 29, 4, 0), utc(2026, 4, 5, 4, 0)},
		{"0 9 * * 1", march27, utc(2026, 3, 30, 9, 0), utc(2026, 4, 6, 9, 0)},
		// 02:30 on 29 March does not exist in Berlin: that run is skipped.
		{"CRON_TZ=Europe/Berlin 30 2 * * SUN", march27, utc(2026, 4, 5, 0, 30), utc(2026, 4, 12, 0, 30)},
		{"@every 6h", schedStart, schedStart.Add(6 * time.Hour), schedStart.Add(12 * time.Hour)},
	} {
		sched, err := parseCronSpec(tc.spec)
		if err != nil {
			t.Errorf("parseCronSpec(%q): %v", tc.spec, err)
			continue
		}
		next := sched.Next(tc.from)
		then := sched.Next(next)
		if !next.Equal(tc.next) || !then.Equal(tc.then) {
			t.Errorf("%q from %v: next %v then %v, want %v then %v", tc.spec, tc.from, next.UTC(), then.UTC(), tc.next, tc.then)
		}
	}
}

func TestCronSpecErrors(t *testing.T) {
	for _, spec := range []string{
		"TZ=UTC",      // panics in robfig/cron v3.0.1
		"CRON_TZ=UTC", // likewise
		"TZ=",
		"",
		"0 9 * *",
		"0 0 9 * * MON", // seconds are not accepted
		"60 * * * *",
		"0 9 * * FUNDAY",
		"CRON_TZ=Mars/Olympus 0 9 * * MON",
		"@fortnightly",
	} {
		sched, err := parseCronSpec(spec)
		if err == nil || sched != nil {
			t.Errorf("parseCronSpec(%q) = %v, %v; want an error", spec, sched, err)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", spec)) {
			t.Errorf("parseCronSpec(%q) error %q does not quote the spec", spec, err)
		}
	}
}

// FuzzParseCronSpec: no spec panics, and an accepted spec never fires
// before the time it is asked from.
func FuzzParseCronSpec(f *testing.F) {
	for _, s := range []string{scheduleRefreshDefault, scheduleDigestDefault, "TZ=UTC", "CRON_TZ=UTC ", "TZ=", "@every 1h30m",
		"*/5 * * * *", "0 0 29 2 *", "CRON_TZ=Asia/Kolkata 30 9 * * 1-5", "@every -1s", "TZ=UTC @daily", "0-59/0 * * * *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		sched, err := parseCronSpec(spec)
		if err != nil {
			return
		}
		if next := sched.Next(schedStart); !next.IsZero() && !next.After(schedStart) {
			t.Errorf("%q: Next(%v) = %v, not after it", spec, schedStart, next)
		}
	})
}

func TestSchedulesRefuseBadConfig(t *testing.T) {
	refresh := func(context.Context) error { return nil }
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		sc   scheduleConfig
		jobs scheduleJobs
		want string
	}{
		{"bad refresh spec", scheduleConfig{RefreshCron: "TZ=UTC"}, scheduleJobs{Refresh: refresh}, `FITBOT_REFRESH_CRON: cron spec "TZ=UTC"`},
		{"bad digest spec", scheduleConfig{DigestCron: "0 9 * * FUNDAY"}, scheduleJobs{Refresh: refresh}, `FITBOT_DIGEST_CRON: cron spec "0 9 * * FUNDAY"`},
		{"no refresh job", scheduleConfig{}, scheduleJobs{}, "schedules: no refresh job"},
	} {
		// The configuration is checked before the database is touched.
		stop, err := startSchedules(ctx, tc.sc, nil, tc.jobs, slog.New(slog.DiscardHandler))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || stop != nil {
			t.Errorf("%s: startSchedules error = %v, want one starting %q", tc.name, err, tc.want)
		}
	}
}

// TestScheduleEntries checks the wiring: the jobs are on the cron with the
// configured specs (the defaults when empty), without starting it.
func TestScheduleEntries(t *testing.T) {
	jobs := &countingJobs{}
	for _, tc := range []struct {
		name                    string
		sc                      scheduleConfig
		digest                  bool
		nextRefresh, nextDigest time.Time
	}{
		{"defaults", scheduleConfig{}, true,
			time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
		{"configured", scheduleConfig{RefreshCron: "@hourly", DigestCron: "CRON_TZ=Europe/Berlin 0 9 * * FRI"}, true,
			time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC), time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC)},
		{"no digest channel", scheduleConfig{}, false, time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC), time.Time{}},
	} {
		sj := jobs.jobs()
		if !tc.digest {
			sj.Digest = nil
		}
		s, err := newSchedules(tc.sc, &fakeLeases{}, sj, slog.New(slog.DiscardHandler), testScheduleOptions("a", nil))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		entries := s.cron.Entries()
		if want := 1 + btoi(tc.digest); len(entries) != want {
			t.Fatalf("%s: %d cron entries, want %d", tc.name, len(entries), want)
		}
		if got := s.cron.Entry(s.refreshID).Schedule.Next(schedStart); !got.Equal(tc.nextRefresh) {
			t.Errorf("%s: refresh next = %v, want %v", tc.name, got, tc.nextRefresh)
		}
		if !tc.digest {
			if s.digest != nil {
				t.Errorf("%s: a digest job without a digest", tc.name)
			}
			continue
		}
		if got := s.cron.Entry(s.digestID).Schedule.Next(schedStart); !got.Equal(tc.nextDigest) {
			t.Errorf("%s: digest next = %v, want %v", tc.name, got.UTC(), tc.nextDigest)
		}
	}
}

// TestOnlyTheLeaderRuns runs three instances on one database file through
// two handovers: a clean stop (the lease is released and the next job on
// another instance takes it) and a crash (the lease expires and another
// instance takes it; the old leader, back, finds it gone and runs nothing).
func TestOnlyTheLeaderRuns(t *testing.T) {
	clock := fakeclock.New(schedStart)
	path := filepath.Join(t.TempDir(), "fitbot.db")
	var (
		jobs = map[string]*countingJobs{"a": {}, "b": {}, "c": {}}
		logs = map[string]*schedLog{}
		s    = map[string]*schedules{}
	)
	for _, name := range []string{"a", "b", "c"} {
		db := openSchedDB(t, path, clock)
		var logger *slog.Logger
		logs[name], logger = newSchedLog()
		s[name] = newTestSchedules(t, db, jobs[name].jobs(), logger, testScheduleOptions(name, clock.Now))
	}
	ctx := context.Background()

	s["a"].tick() // a starts first and leads
	jobs["a"].waitDigest(t, clock.Now())
	s["b"].tick()
	s["a"].refresh.Run()
	s["b"].refresh.Run()
	s["b"].digest.Run()

	if err := s["a"].stop(ctx); err != nil { // clean stop: released
		t.Fatalf("a stop: %v", err)
	}
	clock.Advance(time.Second)
	s["a"].refresh.Run() // stopped: runs nothing
	s["b"].refresh.Run() // takes the free lease: catch-up digest and the refresh
	jobs["b"].waitDigest(t, clock.Now())

	clock.Advance(leaseTTL) // b dies without renewing
	s["c"].tick()
	jobs["c"].waitDigest(t, clock.Now())
	s["b"].refresh.Run() // b comes back: the lease is c's
	s["c"].refresh.Run()

	got := map[string][2]int{}
	for name, j := range jobs {
		got[name] = j.counts()
	}
	want := map[string][2]int{"a": {1, 1}, "b": {1, 1}, "c": {1, 1}} // {refreshes, digests}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs per instance {refresh, digest} (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"a": "scheduler lease released",
		"b": "scheduler lease taken by another instance",
		"c": "scheduler leader: this instance runs the refresh and the digest",
	} {
		if !strings.Contains(logs[name].String(), want) {
			t.Errorf("log of %s lacks %q:\n%s", name, want, logs[name])
		}
	}
}

// TestLostLeaseCancelsRunningJob: a job running when its instance loses
// the lease is cancelled, with the reason.
func TestLostLeaseCancelsRunningJob(t *testing.T) {
	clock := fakeclock.New(schedStart)
	path := filepath.Join(t.TempDir(), "fitbot.db")
	started, cause := make(chan struct{}), make(chan error, 1)
	slow := scheduleJobs{Refresh: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ctx.Err()
	}}
	logA, loggerA := newSchedLog()
	a := newTestSchedules(t, openSchedDB(t, path, clock), slow, loggerA, testScheduleOptions("a", clock.Now))
	b := newTestSchedules(t, openSchedDB(t, path, clock), (&countingJobs{}).jobs(), slog.New(slog.DiscardHandler), testScheduleOptions("b", clock.Now))
	done := make(chan struct{})
	go func() { a.refresh.Run(); close(done) }()
	<-started
	clock.Advance(leaseTTL) // a's renewals stall
	b.tick()                // b takes the expired lease
	a.tick()                // a learns it
	select {
	case err := <-cause:
		if err == nil || !strings.Contains(err.Error(), "scheduler lease taken by b") {
			t.Errorf("job cancelled because %v, want the lease taken by b", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the running job was not cancelled when the lease was lost")
	}
	<-done
	if !strings.Contains(logA.String(), `"msg":"job failed"`) {
		t.Errorf("a's log lacks the failed job:\n%s", logA)
	}
}

// TestLeaseUnreachable: while the database cannot be reached the leader
// keeps running until its lease would have expired, then stops running
// jobs; when the database is back it leads again.
func TestLeaseUnreachable(t *testing.T) {
	clock := fakeclock.New(schedStart)
	leases := &fakeLeases{}
	jobs := &countingJobs{}
	sj := jobs.jobs()
	sj.Digest = nil
	log, logger := newSchedLog()
	s := newTestSchedules(t, leases, sj, logger, testScheduleOptions("a", clock.Now))
	s.refresh.Run() // leads
	leases.setErr(errors.New("database is locked"))
	clock.Advance(leaseTTL - time.Second)
	s.refresh.Run() // renewal failed, but the lease still holds
	clock.Advance(time.Second)
	s.refresh.Run() // the lease has run out: no run
	leases.setErr(nil)
	s.refresh.Run() // back
	if got := jobs.counts()[0]; got != 3 {
		t.Errorf("refresh ran %d times, want 3 (not once the lease had run out unrenewed)", got)
	}
	for _, want := range []string{"could not reach the database; will retry", "could not renew it before it expired"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestPanickingJobRecoversAndRunsAgain: a panic in a job is logged with
// its stack and the job's name, and does not stop the job's next run. (In
// robfig/cron v3.0.1, Recover outside SkipIfStillRunning would leave the
// job skipped forever after one panic.)
func TestPanickingJobRecoversAndRunsAgain(t *testing.T) {
	var calls int
	sj := scheduleJobs{Refresh: func(context.Context) error {
		calls++
		if calls == 1 {
			panic("provider table out of range")
		}
		return nil
	}}
	log, logger := newSchedLog()
	s, err := newSchedules(scheduleConfig{}, &fakeLeases{}, sj, logger, testScheduleOptions("a", fakeclock.New(schedStart).Now))
	if err != nil {
		t.Fatal(err)
	}
	s.refresh.Run()
	s.refresh.Run()
	if calls != 2 {
		t.Errorf("refresh ran %d times, want 2: a panic must not stop later runs", calls)
	}
	if !log.hasLine(`"msg":"cron: panic"`, `"job":"refresh"`, `"err":"provider table out of range"`, `goroutine `) {
		t.Errorf("log lacks the panic with the job's name, the value and the stack:\n%s", log)
	}
	s.mu.Lock()
	running := s.term != nil
	s.mu.Unlock()
	if err := s.stop(context.Background()); err != nil || !running {
		t.Errorf("after a panic: leading %v, stop = %v; want leading and a clean stop (the job was counted out)", running, err)
	}
}

// TestSkipIfStillRunning: a run that comes while the previous one is still
// going is skipped, for the catch-up digest as for a scheduled run.
func TestSkipIfStillRunning(t *testing.T) {
	release := make(chan struct{})
	started := make(chan time.Time, 4)
	var (
		mu   sync.Mutex
		runs int
	)
	sj := scheduleJobs{
		Refresh: func(context.Context) error { return nil },
		Digest: func(_ context.Context, now time.Time) error {
			mu.Lock()
			runs++
			mu.Unlock()
			started <- now
			<-release
			return nil
		},
	}
	log, logger := newSchedLog()
	s, err := newSchedules(scheduleConfig{}, &fakeLeases{}, sj, logger, testScheduleOptions("a", fakeclock.New(schedStart).Now))
	if err != nil {
		t.Fatal(err)
	}
	s.tick() // leads: the catch-up digest starts
	if now := <-started; !now.Equal(schedStart) {
		t.Errorf("catch-up digest for %v, want %v", now, schedStart)
	}
	s.digest.Run() // the scheduled run comes while the catch-up is going
	close(release)
	if err := s.stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Errorf("digest ran %d times, want 1", runs)
	}
	if !log.hasLine(`"msg":"cron: run skipped: the previous run is still going"`, `"job":"digest"`) {
		t.Errorf("log lacks the skipped digest:\n%s", log)
	}
}

// TestStopWaitsForRunningJob: stop waits for a running job, then releases
// the lease so that another instance can lead at once.
func TestStopWaitsForRunningJob(t *testing.T) {
	clock := fakeclock.New(schedStart)
	db := openSchedDB(t, filepath.Join(t.TempDir(), "fitbot.db"), clock)
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool // the job has returned
	sj := scheduleJobs{Refresh: func(ctx context.Context) error {
		close(started)
		<-release
		finished.Store(true)
		return ctx.Err()
	}}
	s, err := newSchedules(scheduleConfig{}, db, sj, slog.New(slog.DiscardHandler), testScheduleOptions("a", clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	go s.refresh.Run()
	<-started
	// stop reports, as it returns, whether the job had returned by then:
	// the order is the signal, not a pause.
	type stopped struct {
		err         error
		jobFinished bool
	}
	done := make(chan stopped, 1)
	go func() {
		err := s.stop(context.Background())
		done <- stopped{err, finished.Load()}
	}()
	for !s.isStopping() {
		time.Sleep(time.Millisecond) // until stop is under way
	}
	close(release)
	if r := <-done; r.err != nil || !r.jobFinished {
		t.Fatalf("stop = %v, job finished before it returned: %v; want nil after the job", r.err, r.jobFinished)
	}
	lease, err := db.ReadLease(context.Background(), schedulerLease)
	if err != nil {
		t.Fatal(err)
	}
	if lease.HeldBy("a", clock.Now()) {
		t.Errorf("after stop the lease is still held: %+v", lease)
	}
	if err := s.stop(context.Background()); err != nil {
		t.Errorf("second stop = %v, want nil", err)
	}
}

// TestStopDeadlineCancelsJob: when stop's context ends first, the running
// job is cancelled and the lease is left to expire rather than released,
// so no other instance starts a job while this one may still be finishing.
func TestStopDeadlineCancelsJob(t *testing.T) {
	clock := fakeclock.New(schedStart)
	db := openSchedDB(t, filepath.Join(t.TempDir(), "fitbot.db"), clock)
	started, finished := make(chan struct{}), make(chan error, 1)
	sj := scheduleJobs{Refresh: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		finished <- ctx.Err()
		return ctx.Err()
	}}
	s, err := newSchedules(scheduleConfig{}, db, sj, slog.New(slog.DiscardHandler), testScheduleOptions("a", clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	go s.refresh.Run()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if err := s.stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stop = %v, want the deadline exceeded", err)
	}
	if err := <-finished; !errors.Is(err, context.Canceled) {
		t.Errorf("job's context ended with %v, want canceled", err)
	}
	lease, err := db.ReadLease(context.Background(), schedulerLease)
	if err != nil {
		t.Fatal(err)
	}
	if want := schedStart.Add(leaseTTL); lease.Holder != "a" || !lease.Expires.Equal(want) {
		t.Errorf("lease after an overdue stop = %+v, want a's until %v", lease, want)
	}
}

// TestStartSchedules goes through the real entry point and renewal loop:
// the first instance leads at once and posts its catch-up digest, the
// second waits; when the first stops, the second's renewal loop takes
// over and catches up. No job waits on the cron.
func TestStartSchedules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fitbot.db")
	ctx := context.Background()
	ja, jb := &countingJobs{}, &countingJobs{}

	dbA, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer dbA.Close()
	stopA, err := startSchedules(ctx, scheduleConfig{Instance: "a"}, dbA, ja.jobs(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ja.waitDigest(t, time.Time{})

	dbB := openSchedDB(t, path, nil)
	b, err := newSchedules(scheduleConfig{Instance: "b"}, dbB, jb.jobs(), slog.New(slog.DiscardHandler),
		scheduleOptions{holder: "b", ttl: leaseTTL, renew: 2 * time.Millisecond, now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	b.start(ctx)
	lease, err := dbB.ReadLease(ctx, schedulerLease)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lease.Holder, "a/") {
		t.Errorf("lease holder = %q, want a/<random>", lease.Holder)
	}
	if err := stopA(ctx); err != nil {
		t.Fatal(err)
	}
	jb.waitDigest(t, time.Time{})
	if err := b.stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := [2]int{ja.counts()[1], jb.counts()[1]}; got != [2]int{1, 1} {
		t.Errorf("digests {a, b} = %v, want one each", got)
	}
}

func TestLeaseHolder(t *testing.T) {
	h1, err := leaseHolder("fitbot-7d9f")
	if err != nil {
		t.Fatal(err)
	}
	h2, err := leaseHolder("fitbot-7d9f")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h1, "fitbot-7d9f/") || len(h1) != len("fitbot-7d9f/")+8 || h1 == h2 {
		t.Errorf("leaseHolder twice = %q, %q; want fitbot-7d9f/<8 hex digits>, different each time", h1, h2)
	}
	if h, err := leaseHolder(""); err != nil || strings.HasPrefix(h, "/") {
		t.Errorf("leaseHolder(\"\") = %q, %v; want the host name first", h, err)
	}
}

// --- helpers ---

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newTestSchedules builds schedules that the test stops at its end, before
// the databases close.
func newTestSchedules(t *testing.T, leases leaseStore, jobs scheduleJobs, logger *slog.Logger, opt scheduleOptions) *schedules {
	t.Helper()
	s, err := newSchedules(scheduleConfig{}, leases, jobs, logger, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(context.Background()) })
	return s
}

// testScheduleOptions are the production lease timings with a fixed
// holder and the given clock; the renewal loop is not started unless the
// test calls start.
func testScheduleOptions(holder string, now func() time.Time) scheduleOptions {
	if now == nil {
		now = time.Now
	}
	return scheduleOptions{holder: holder, ttl: leaseTTL, renew: leaseRenew, now: now}
}

// openSchedDB opens the database at path as one process would, reading
// clock (the real one when nil).
func openSchedDB(t *testing.T, path string, clock *fakeclock.Clock) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if clock != nil {
		db.Now = clock.Now
	}
	return db
}

// countingJobs counts the runs of its jobs; digests also go to a channel
// so that a test can wait for the catch-up run.
type countingJobs struct {
	mu                 sync.Mutex
	refreshes, digests int
	digested           chan time.Time
}

func (j *countingJobs) jobs() scheduleJobs {
	j.mu.Lock()
	if j.digested == nil {
		j.digested = make(chan time.Time, 16)
	}
	j.mu.Unlock()
	return scheduleJobs{
		Refresh: func(context.Context) error {
			j.mu.Lock()
			defer j.mu.Unlock()
			j.refreshes++
			return nil
		},
		Digest: func(_ context.Context, now time.Time) error {
			j.mu.Lock()
			j.digests++
			j.mu.Unlock()
			j.digested <- now
			return nil
		},
	}
}

func (j *countingJobs) counts() [2]int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return [2]int{j.refreshes, j.digests}
}

// waitDigest waits for one digest run, for the week ending at want (any
// time when want is zero).
func (j *countingJobs) waitDigest(t *testing.T, want time.Time) {
	t.Helper()
	select {
	case now := <-j.digested:
		if !want.IsZero() && !now.Equal(want) {
			t.Errorf("digest for %v, want %v", now, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no digest run")
	}
}

// fakeLeases is a lease store that grants every request, or fails with
// err while it is set.
type fakeLeases struct {
	mu  sync.Mutex
	err error
}

func (f *fakeLeases) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeLeases) AcquireLease(_ context.Context, name, holder string, ttl time.Duration) (store.Lease, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return store.Lease{}, false, f.err
	}
	return store.Lease{Name: name, Holder: holder}, true, nil
}

func (f *fakeLeases) ReleaseLease(context.Context, string, string) error { return nil }

// schedLog is a log the schedules write to from several goroutines.
type schedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func newSchedLog() (*schedLog, *slog.Logger) {
	l := &schedLog{}
	return l, slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *schedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// hasLine reports whether one line of the log holds every part.
func (l *schedLog) hasLine(parts ...string) bool {
	for line := range strings.Lines(l.String()) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

func (l *schedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// isStopping reports whether stop has begun.
func (s *schedules) isStopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopping
}
