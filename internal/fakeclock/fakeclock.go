// Package fakeclock is the clock tests move by hand. Several components
// (databases, schedules, a digest poster) may share one, as processes on
// one machine share the real clock. It is for tests only.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is a time that moves only when told; safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New is a clock showing t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time; pass the method value where a func() time.Time
// is wanted.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
