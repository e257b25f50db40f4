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
// does not answer is asked again after seconds, not minutes.
const readTimeout = 20 * time.Second

// Cache keeps a Source's last snapshot, or its last failure, for a TTL.
// A read runs on its own, bounded by readTimeout rather than by the
// asker's context: askers that arrive while it is under way share it, an
// asker with a short deadline (a Slack acknowledgement) stops waiting
// without stopping it, and its result is kept for whoever asks next. So
// the source is read at most once per TTL however many ask.
type Cache struct {
	src Source
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	at       time.Time // when the kept result was read; zero: none yet
	snap     Snapshot
	err      error
	inflight chan struct{} // closed when the read under way ends; nil: none
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
// an API server that is down is not asked again on every question. When
// ctx ends first, Read returns an unreachable *Error and the read goes on.
func (c *Cache) Read(ctx context.Context) (Snapshot, error) {
	c.mu.Lock()
	if !c.at.IsZero() && c.now().Sub(c.at) < c.ttl {
		defer c.mu.Unlock()
		return c.snap, c.err
	}
	if c.inflight == nil {
		done := make(chan struct{})
		c.inflight = done
		go c.read(done)
	}
	done := c.inflight
	c.mu.Unlock()
	select {
	case <-done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.snap, c.err
	case <-ctx.Done():
		return Snapshot{}, &Error{Kind: FaultUnreachable, Detail: "no answer in time; it is still being read, so ask again in a moment", Err: ctx.Err()}
	}
}

// read reads the source and keeps the result.
func (c *Cache) read(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	snap, err := c.src.Read(ctx)
	cancel()
	c.mu.Lock()
	c.at, c.snap, c.err, c.inflight = c.now(), snap, err, nil
	c.mu.Unlock()
	close(done)
}
