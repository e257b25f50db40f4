// Package netcap caps the connections a listener holds open, so that idle
// or slow clients cannot take every file descriptor of the process (the
// database, outbound calls to Slack and the health listener need some
// too). A connection accepted over the cap is closed at once: the client
// sees the refusal immediately instead of waiting in the kernel's backlog,
// and the backlog never fills with connections nobody will serve.
package netcap

import (
	"net"
	"sync"
	"sync/atomic"
)

// Listener is a net.Listener that holds at most Max connections open.
type Listener struct {
	net.Listener
	max      int64
	open     atomic.Int64
	refused  atomic.Int64
	onRefuse func() // called for each refused connection; may be nil
}

// Wrap caps ln at limit open connections (limit < 1 means 1); onRefuse,
// when not nil, is called for each connection closed for want of a slot.
func Wrap(ln net.Listener, limit int, onRefuse func()) *Listener {
	return &Listener{Listener: ln, max: int64(max(limit, 1)), onRefuse: onRefuse}
}

// Accept returns the next connection under the cap; one over it is
// closed and counted, and Accept waits for the next.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &conn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		if l.onRefuse != nil {
			l.onRefuse()
		}
		c.Close()
	}
}

// Open is the number of connections held now.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed for want of a slot.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// conn gives its slot back when closed, once.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
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
