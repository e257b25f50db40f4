// Package ratelog logs a failure that repeats (every plan write on a full
// disk, every event id recorded on a read-only database) once per
// interval with a count, instead of once per request: the first failure
// is logged at once, the next ones within the interval are counted, and
// the first one after it is logged with how many were left out. A
// success after failures is logged once.
package ratelog

import (
	"log/slog"
	"sync"
	"time"
)

// DefaultInterval is how often a repeated failure is logged.
const DefaultInterval = 10 * time.Second

// Limiter logs the failures of several kinds (keys), each at most once per
// Interval. Its zero value is ready: DefaultInterval and time.Now.
type Limiter struct {
	Interval time.Duration    // zero: DefaultInterval
	Now      func() time.Time // nil: time.Now

	mu    sync.Mutex
	state map[string]*failures
}

// failures is one key's run of failures.
type failures struct {
	first   time.Time // the run's first failure
	logged  time.Time // when a line was last written
	total   int64     // failures in the run
	skipped int64     // failures since the last line
}

// Error logs msg at ERROR for key, with args, unless a line for key was
// written less than Interval ago: then it only counts. A line carries
// "repeated" (failures left out since the previous line) and "failing"
// (failures in the run) once there are any.
func (l *Limiter) Error(log *slog.Logger, key, msg string, args ...any) {
	now := l.now()
	l.mu.Lock()
	if l.state == nil {
		l.state = map[string]*failures{}
	}
	f := l.state[key]
	if f == nil {
		f = &failures{first: now}
		l.state[key] = f
	}
	f.total++
	if !f.logged.IsZero() && now.Sub(f.logged) < l.interval() {
		f.skipped++
		l.mu.Unlock()
		return
	}
	skipped, total, first := f.skipped, f.total, f.first
	f.logged, f.skipped = now, 0
	l.mu.Unlock()
	if total > 1 {
		args = append(args, "repeated", skipped, "failing", total, "since", first)
	}
	log.Error(msg, args...)
}

// OK ends key's run of failures; when there was one, it logs msg at INFO
// with how many failures it had.
func (l *Limiter) OK(log *slog.Logger, key, msg string) {
	l.mu.Lock()
	f := l.state[key]
	delete(l.state, key)
	l.mu.Unlock()
	if f != nil {
		log.Info(msg, "failed", f.total, "since", f.first)
	}
}

func (l *Limiter) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

func (l *Limiter) interval() time.Duration {
	if l.Interval <= 0 {
		return DefaultInterval
	}
	return l.Interval
}
