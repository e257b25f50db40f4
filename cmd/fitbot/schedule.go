package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/fitbot/fitbot/store"
)

// The schedules' defaults, used when a spec is left empty. A spec without
// CRON_TZ is read in UTC.
const (
	scheduleRefreshDefault = "0 */6 * * *"
	scheduleDigestDefault  = "CRON_TZ=UTC 0 9 * * MON"
)

// The scheduler lease: the row in the database that makes one instance the
// leader, the only one that runs the schedules' jobs. The leader renews it
// every leaseRenew; when the leader stops it releases the lease, and when
// it dies the lease expires after leaseTTL and another instance takes over
// at its next renewal.
const (
	schedulerLease = "scheduler"
	leaseTTL       = 30 * time.Second
	leaseRenew     = 10 * time.Second
	leaseRelease   = 5 * time.Second // how long stop waits for the release to be written
)

// scheduleConfig is what the schedules need of the configuration: the
// cron specs (FITBOT_REFRESH_CRON, FITBOT_DIGEST_CRON; empty for the
// default) and a name for this instance in the lease and the logs (the
// host name when empty).
type scheduleConfig struct{ RefreshCron, DigestCron, Instance string }

// scheduleJobs are the jobs the schedules run.
type scheduleJobs struct {
	Refresh func(context.Context) error
	// Digest builds and posts the digest for the week ending at now; it
	// must be idempotent per channel and week, because it runs at every
	// start and takeover as well as on its schedule. Nil when no digest
	// channel is configured.
	Digest func(ctx context.Context, now time.Time) error
}

// leaseStore is what the schedules need of the store.
type leaseStore interface {
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (store.Lease, bool, error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

var _ leaseStore = (*store.DB)(nil)

// startSchedules runs the price refresh and the digest on their cron
// specs, as long as this instance holds the scheduler lease in db; when
// several instances share db, exactly one of them runs the jobs. Each job
// recovers from panics and skips a run while its previous run is still
// going. The digest also runs whenever this instance becomes the leader,
// at start or on taking over, so that a digest missed while no leader was
// up is posted.
//
// ctx bounds the start only; the schedules run until stop is called. stop
// takes no new runs, waits for running jobs until its ctx is done (then
// cancels them and returns an error), and releases the lease when no job
// is left running. A bad spec is an error naming its variable.
func startSchedules(ctx context.Context, sc scheduleConfig, db *store.DB, jobs scheduleJobs, logger *slog.Logger) (stop func(context.Context) error, err error) {
	holder, err := leaseHolder(sc.Instance)
	if err != nil {
		return nil, err
	}
	s, err := newSchedules(sc, db, jobs, logger, scheduleOptions{holder: holder, ttl: leaseTTL, renew: leaseRenew, now: time.Now})
	if err != nil {
		return nil, err
	}
	s.start(ctx)
	return s.stop, nil
}

// parseCronSpec reads a five-field cron spec (minute hour day-of-month
// month day-of-week, optionally after CRON_TZ=Zone) or a descriptor such
// as @daily or @every 6h. robfig/cron v3.0.1 panics on a time zone with no
// fields after it ("CRON_TZ=UTC"); that is an error here.
func parseCronSpec(spec string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("cron spec %q: want five fields (minute hour day-of-month month day-of-week) after the time zone, e.g. \"CRON_TZ=UTC 0 9 * * MON\"", spec)
		}
	}()
	sched, err = cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("cron spec %q: %w", spec, err)
	}
	return sched, nil
}

// leaseHolder names this process in the lease: the instance name (the
// host name when empty) and a random suffix, so that two processes given
// the same name, or a restart that finds its predecessor's lease not yet
// expired, are never taken for one another.
func leaseHolder(instance string) (string, error) {
	if instance == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "fitbot"
		}
		instance = host
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("scheduler lease holder: %w", err)
	}
	return instance + "/" + hex.EncodeToString(b[:]), nil
}

// scheduleOptions are the knobs tests turn.
type scheduleOptions struct {
	holder     string
	ttl, renew time.Duration
	now        func() time.Time
}

// schedules is the cron, its jobs, and this instance's standing in the
// scheduler lease.
type schedules struct {
	cron   *cron.Cron
	leases leaseStore
	log    *slog.Logger
	opt    scheduleOptions

	// The jobs as cron runs them (skip-if-still-running, recover); the
	// digest is nil when there is none. The catch-up run goes through the
	// same wrapped job, so it never overlaps a scheduled one.
	refresh, digest     cron.Job
	refreshID, digestID cron.EntryID

	base   context.Context // parent of every term; cancelled when stop runs out of time
	cancel context.CancelFunc
	quit   chan struct{} // closed by stop: the renewal loop ends
	looped chan struct{} // closed when the renewal loop has ended

	// tickMu serialises lease writes, so that stop's release is the last
	// of them.
	tickMu sync.Mutex

	mu       sync.Mutex
	started  bool
	term     context.Context         // non-nil while this instance leads; jobs run under it
	endTerm  context.CancelCauseFunc // ends term
	expires  time.Time               // when the lease runs out unless renewed, by this instance's clock
	leader   string                  // the holder last seen leading, for logging changes only
	stopping bool
	running  sync.WaitGroup // jobs in flight
}

// newSchedules builds the cron and its jobs; nothing runs until start.
func newSchedules(sc scheduleConfig, leases leaseStore, jobs scheduleJobs, logger *slog.Logger, opt scheduleOptions) (*schedules, error) {
	if jobs.Refresh == nil {
		return nil, errors.New("schedules: no refresh job")
	}
	refreshSpec := cmp.Or(sc.RefreshCron, scheduleRefreshDefault)
	refreshAt, err := parseCronSpec(refreshSpec)
	if err != nil {
		return nil, fmt.Errorf("FITBOT_REFRESH_CRON: %w", err)
	}
	digestSpec := cmp.Or(sc.DigestCron, scheduleDigestDefault)
	digestAt, err := parseCronSpec(digestSpec)
	if err != nil {
		return nil, fmt.Errorf("FITBOT_DIGEST_CRON: %w", err)
	}
	log := logger.With("component", "schedule", "instance", opt.holder)
	s := &schedules{
		cron:   cron.New(cron.WithLocation(time.UTC), cron.WithLogger(cronLogger{log})),
		leases: leases,
		log:    log,
		opt:    opt,
		quit:   make(chan struct{}),
		looped: make(chan struct{}),
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.refresh = s.wrap("refresh", refreshSpec, jobs.Refresh)
	s.refreshID = s.cron.Schedule(refreshAt, s.refresh)
	if jobs.Digest != nil {
		s.digest = s.wrap("digest", digestSpec, func(ctx context.Context) error {
			return jobs.Digest(ctx, s.opt.now())
		})
		s.digestID = s.cron.Schedule(digestAt, s.digest)
	}
	return s, nil
}

// wrap makes a job cron can run: it runs only on the leader, under the
// leader's term, and is logged with its outcome and duration.
//
// The chain is SkipIfStillRunning outside Recover, in that order: in
// robfig/cron v3.0.1 SkipIfStillRunning gives its token back only when the
// job returns, so a panic that unwound through it would leave the job
// skipped for good. The chain is built per job (rather than with
// cron.WithChain) so that skip and panic logs name the job.
func (s *schedules) wrap(name, spec string, run func(context.Context) error) cron.Job {
	log := s.log.With("job", name, "spec", spec)
	inner := cron.FuncJob(func() {
		ctx, ok := s.begin(log)
		if !ok {
			return
		}
		defer s.running.Done()
		start := time.Now()
		log.Info("job started")
		if err := run(ctx); err != nil {
			log.Error("job failed", "err", err, "duration", time.Since(start))
			return
		}
		log.Info("job done", "duration", time.Since(start))
	})
	cl := cronLogger{log}
	return cron.NewChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)).Then(inner)
}

// begin confirms the lease just before a job runs and registers the job
// as running. It returns the term's context, or false when this instance
// is not the leader or is stopping.
func (s *schedules) begin(log *slog.Logger) (context.Context, bool) {
	s.tick()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopping:
		return nil, false
	case s.term == nil:
		log.Debug("job skipped: another instance is the scheduler leader", "leader", s.leader)
		return nil, false
	}
	s.running.Add(1)
	return s.term, true
}

// start takes the lease if it is free, starts the renewal loop and the
// cron. A failure to reach the database is logged and retried at the next
// renewal; it does not stop the start.
func (s *schedules) start(ctx context.Context) {
	if ctx.Err() == nil {
		s.tick()
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	go s.renewLoop()
	s.cron.Start()
}

// renewLoop renews the lease, or tries to take it, every opt.renew until
// stop.
func (s *schedules) renewLoop() {
	defer close(s.looped)
	t := time.NewTicker(s.opt.renew)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
			s.tick()
		}
	}
}

// tick tries to take or renew the lease and updates this instance's
// standing: a new term when it won the lease (and a catch-up digest), the
// end of the term when another instance holds it, or when the database
// cannot be reached and the lease has run out meanwhile.
func (s *schedules) tick() {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return
	}
	asked := s.opt.now()
	lease, won, err := s.leases.AcquireLease(s.base, schedulerLease, s.opt.holder, s.opt.ttl)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		if s.term != nil && !s.opt.now().Before(s.expires) {
			s.log.Error("scheduler lease lost: could not renew it before it expired; jobs stop", "err", err)
			s.endTermLocked(fmt.Errorf("scheduler lease expired unrenewed: %w", err))
			return
		}
		s.log.Warn("scheduler lease: could not reach the database; will retry", "err", err)
	case won:
		s.expires = asked.Add(s.opt.ttl)
		s.leader = s.opt.holder
		if s.term != nil {
			return
		}
		s.term, s.endTerm = context.WithCancelCause(s.base)
		s.log.Info("scheduler leader: this instance runs the refresh and the digest", "term", lease.Term, "lease_expires", lease.Expires)
		if s.digest != nil {
			go s.digest.Run() // catch up on a digest missed while no leader ran
		}
	default:
		if s.term != nil {
			s.log.Warn("scheduler lease taken by another instance; jobs stop here", "leader", lease.Holder)
			s.endTermLocked(fmt.Errorf("scheduler lease taken by %s", lease.Holder))
		} else if s.leader != lease.Holder {
			s.log.Info("another instance is the scheduler leader", "leader", lease.Holder, "lease_expires", lease.Expires)
		}
		s.leader = lease.Holder
	}
}

// endTermLocked cancels the running jobs' context and marks this instance
// as not leading. s.mu must be held.
func (s *schedules) endTermLocked(cause error) {
	s.endTerm(cause)
	s.term, s.endTerm = nil, nil
}

// stop takes no new runs, waits for running jobs until ctx is done, and
// releases the lease when none is left running. Once ctx is done, running
// jobs are cancelled and the lease is left to expire, so that no other
// instance starts a job while one here may still be finishing. A second
// call does nothing.
func (s *schedules) stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return nil
	}
	s.stopping = true
	s.mu.Unlock()

	idle := make(chan struct{})
	cronStopped := s.cron.Stop()
	go func() {
		<-cronStopped.Done()
		s.running.Wait()
		close(idle)
	}()
	var err error
	select {
	case <-idle:
	case <-ctx.Done():
		err = fmt.Errorf("stop schedules: jobs still running were cancelled: %w", context.Cause(ctx))
		s.log.Warn("stop: jobs still running were cancelled; the scheduler lease is left to expire", "lease_ttl", s.opt.ttl)
	}
	close(s.quit)
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if started {
		<-s.looped
	}
	s.cancel()
	// Holding tickMu, no renewal can land after the release below.
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	s.mu.Lock()
	leading := s.term != nil
	if leading {
		s.endTermLocked(errors.New("schedules stopped"))
	}
	s.mu.Unlock()
	if err != nil || !leading {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseRelease)
	defer cancel()
	if rerr := s.leases.ReleaseLease(rctx, schedulerLease, s.opt.holder); rerr != nil {
		return fmt.Errorf("stop schedules: %w", rerr)
	}
	s.log.Info("scheduler lease released")
	return nil
}

// cronLogger sends robfig/cron's logs to slog: its routine messages
// (schedule, wake, run) at debug level, a skipped run at info, errors
// (a recovered panic, with its stack) at error.
type cronLogger struct{ log *slog.Logger }

// Info logs one of cron's routine messages.
func (l cronLogger) Info(msg string, keysAndValues ...any) {
	level := slog.LevelDebug
	if msg == "skip" {
		level, msg = slog.LevelInfo, "run skipped: the previous run is still going"
	}
	l.log.Log(context.Background(), level, "cron: "+msg, keysAndValues...)
}

// Error logs an error cron met, such as a panic it recovered.
func (l cronLogger) Error(err error, msg string, keysAndValues ...any) {
	l.log.Error("cron: "+msg, append([]any{"err", err}, keysAndValues...)...)
}
