// Package retry is fitbot's one way of trying a call again: a bounded
// number of attempts, the server's Retry-After when it names a wait,
// exponential backoff when it does not, and never a wait past a cap or
// the context's deadline. The Slack poster, the provider price fetchers
// and the language-model client each decide what is worth another try;
// this package decides how long to wait and when to give up.
package retry

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Policy bounds the tries of one call.
type Policy struct {
	Attempts int           // tries in all, the first included; below 1 means 1
	Backoff  time.Duration // the first wait when the server names none; doubled after each use
	MaxWait  time.Duration // a longer single wait gives up instead; 0 means no cap
	// Sleep waits d or until ctx is done; nil means Sleep. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Try makes one attempt. A nil error is success. Otherwise again says
// whether another try could help, and wait how long the server asked to
// wait first (negative: it named no wait, so the policy's backoff is
// used).
type Try func(attempt int) (again bool, wait time.Duration, err error)

// WaitTooLongError is the last attempt's error when the wait before the
// next one would pass the policy's MaxWait or the context's deadline. It
// reads as that error and unwraps to it.
type WaitTooLongError struct {
	Wait time.Duration
	Err  error
}

func (e *WaitTooLongError) Error() string { return e.Err.Error() }
func (e *WaitTooLongError) Unwrap() error { return e.Err }

// Do calls try until it succeeds, says another try cannot help, the
// attempts run out, or the wait is too long (a *WaitTooLongError), and
// returns the last error. When ctx ends during a wait, the error wraps
// ctx's error and names the failure that was being retried.
func (p Policy) Do(ctx context.Context, try Try) error {
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	backoff := p.Backoff
	for attempt := 1; ; attempt++ {
		again, wait, err := try(attempt)
		if err == nil || !again || attempt >= p.Attempts {
			return err
		}
		if wait < 0 {
			wait = backoff
			backoff *= 2
		}
		if p.MaxWait > 0 && wait > p.MaxWait || !fitsDeadline(ctx, wait) {
			return &WaitTooLongError{Wait: wait, Err: err}
		}
		if serr := sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (retrying after: %w)", serr, err)
		}
	}
}

// fitsDeadline reports whether waiting d leaves ctx's deadline ahead.
func fitsDeadline(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > d
}

// Sleep waits d or until ctx is done, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxAfter bounds what After returns, so that an absurd header cannot
// overflow a time.Duration; callers cap it further.
const maxAfter = 24 * time.Hour

// After reads how long a server asks to wait: Retry-After-Ms (OpenAI,
// Azure) in milliseconds, else Retry-After in seconds or as an HTTP date
// (relative to now, and 0 when already past). ok is false when neither
// header is usable; the wait is at most a day.
func After(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return seconds(ms / 1000), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return seconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxAfter), true
	}
	return 0, false
}

// seconds converts non-negative seconds to a duration, at most maxAfter.
func seconds(s float64) time.Duration {
	if s >= maxAfter.Seconds() || math.IsInf(s, 1) {
		return maxAfter
	}
	return time.Duration(s * float64(time.Second))
}
