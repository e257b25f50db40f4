package cluster

import (
	"context"
	"sync"
	"time"
)

// DefaultTTL is how long a snapshot is reused: long enough that a busy
// channel asks the API server once, short enough to read as "now".
const DefaultTTL = 15 * time.Second

// readTimeout bounds one read of the cluster, so that an API server that
// does not answer delays an answer by seconds, not minutes.
const readTimeout = 20 * time.Second

// Cache keeps a Source's last snapshot, or its last failure, for a TTL.
// Callers that arrive while a read is under way wait for it and share it,
// so the source is read at most once per TTL however many ask.
type Cache struct {
	src Source
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	at   time.Time // when the kept result was read; zero: none yet
	snap Snapshot
	err  error
}

// NewCache keeps src's answers for ttl (DefaultTTL when ttl <= 0); now is
// the clock (time.Now when nil).
func NewCache(src Source, ttl time.Duration, now func() time.Time) *Cache {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Cache{src: src, ttl: ttl, now: now}
}

// Read returns the kept snapshot while it is younger than the TTL, and
// reads the source again otherwise. A failure is kept for the TTL too:
// an API server that is down is not asked again on every question.
func (c *Cache) Read(ctx context.Context) (Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && c.now().Sub(c.at) < c.ttl {
		return c.snap, c.err
	}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	snap, err := c.src.Read(rctx)
	if ctx.Err() != nil {
		return snap, err // the asker went away: keep nothing from a cut-short read
	}
	c.at, c.snap, c.err = c.now(), snap, err
	return snap, err
}
