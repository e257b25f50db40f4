// Package netcap caps the connections a listener holds open, so that idle
// or slow clients cannot take every file descriptor of the process (the
// database, outbound calls to Slack and the health listener need some
// too). At the cap, a new connection takes the place of the oldest one
// that is idle (connected, or kept alive, with no request under way): a
// crowd of idle connections cannot keep a signed request or a probe out.
// When every connection is busy with a request, a new one is closed at
// once: the client sees the refusal immediately instead of waiting in the
// kernel's backlog, and the backlog never fills with connections nobody
// will serve.
//
// A connection is idle from its accept until the first bytes of a
// request arrive, and between requests once the http.Server reports it
// so: set the server's ConnState to the listener's ConnState.
package netcap

import (
	"container/list"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// Listener is a net.Listener that holds at most Max connections open.
type Listener struct {
	net.Listener
	max      int64
	open     atomic.Int64
	refused  atomic.Int64
	evicted  atomic.Int64
	onRefuse func() // called for each refused connection; may be nil

	mu   sync.Mutex
	idle list.List // of *conn, the longest idle first
}

// Wrap caps ln at limit open connections (limit < 1 means 1); onRefuse,
// when not nil, is called for each connection closed for want of a slot.
func Wrap(ln net.Listener, limit int, onRefuse func()) *Listener {
	return &Listener{Listener: ln, max: int64(max(limit, 1)), onRefuse: onRefuse}
}

// Accept returns the next connection under the cap. At the cap, the
// longest idle connection is closed to make room; with none idle, the
// new connection is closed and counted, and Accept waits for the next.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max || l.evictIdle() {
			nc := &conn{Conn: c, l: l}
			l.setIdle(nc, true)
			return nc, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		if l.onRefuse != nil {
			l.onRefuse()
		}
		c.Close()
	}
}

// evictIdle closes the longest idle connection, giving back its slot
// for the caller's new one, and reports whether there was one.
func (l *Listener) evictIdle() bool {
	l.mu.Lock()
	e := l.idle.Front()
	if e == nil {
		l.mu.Unlock()
		return false
	}
	c := l.idle.Remove(e).(*conn)
	c.elem = nil
	c.idle.Store(false)
	c.evicted = true // its slot is given back here, not by its Close
	l.mu.Unlock()
	l.open.Add(-1)
	l.evicted.Add(1)
	c.Conn.Close()
	return true
}

// setIdle marks c idle (the newest idle) or busy.
func (l *Listener) setIdle(c *conn, idle bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.elem != nil {
		l.idle.Remove(c.elem)
		c.elem = nil
	}
	if idle && !c.closed && !c.evicted {
		c.elem = l.idle.PushBack(c)
	}
	c.idle.Store(c.elem != nil)
}

// ConnState is an http.Server ConnState hook: it tells the listener
// which of its connections are idle (new, or kept alive between
// requests) and which are busy with a request.
func (l *Listener) ConnState(c net.Conn, state http.ConnState) {
	nc, ok := c.(*conn)
	if !ok || nc.l != l {
		return
	}
	switch state {
	case http.StateNew, http.StateIdle:
		l.setIdle(nc, true)
	case http.StateActive, http.StateHijacked:
		l.setIdle(nc, false)
	}
}

// Open is the number of connections held now.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed for want of a slot.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Evicted is the number of idle connections closed to admit new ones.
func (l *Listener) Evicted() int64 { return l.evicted.Load() }

// conn gives its slot back when closed, once, unless it was evicted
// (evictIdle gave it back).
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
	idle atomic.Bool // c.elem != nil, read without the lock
	// Under l.mu:
	elem    *list.Element // in l.idle while idle
	closed  bool
	evicted bool
}

// Read marks c busy as soon as a request's first bytes arrive (the
// server reports StateActive only once the headers are whole).
func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.idle.Load() {
		c.l.setIdle(c, false)
	}
	return n, err
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		if c.elem != nil {
			c.l.idle.Remove(c.elem)
			c.elem = nil
			c.idle.Store(false)
		}
		c.closed = true
		evicted := c.evicted
		c.l.mu.Unlock()
		if !evicted {
			c.l.open.Add(-1)
		}
	})
	return err
}

// Default is a cap for a listener under the process's open-file limit:
// half of it, so the database, outbound calls and the other listener keep
// the rest, between 64 and 4096; 512 when the limit is unknown.
func Default() int { return defaultFor(fdLimit()) }

func defaultFor(limit uint64) int {
	if limit == 0 {
		return 512
	}
	return int(min(max(limit/2, 64), 4096))
}
