package main

import (
	"io"
	"sync"
)

// lineWriter gathers the log lines serve writes and hands them to the
// underlying writer in as few writes as the load allows: Write appends
// to a buffer and returns, and one goroutine writes whatever has
// gathered, at once (there is no timer). At rest each line goes out as
// soon as it is written; under load the lines of many answers share one
// write(2). Every line is kept and in order: a writer waits when
// maxPending bytes are already waiting (a stalled stderr holds the
// answers back rather than fitbot's memory growing), and Close writes
// what is left before it returns.
type lineWriter struct {
	w io.Writer

	mu     sync.Mutex
	room   sync.Cond // signalled when the flusher takes the buffer
	buf    []byte
	closed bool
	wake   chan struct{} // one pending signal; closed by Close
	done   chan struct{} // closed when the flusher has written the last bytes
}

// maxPending is how many bytes may wait before Write waits for the
// flusher.
const maxPending = 1 << 20

func newLineWriter(w io.Writer) *lineWriter {
	l := &lineWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.room.L = &l.mu
	go l.flush()
	return l
}

// Write queues p, a whole line as slog writes it. After Close it writes
// through.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	for len(l.buf) >= maxPending && !l.closed {
		l.room.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	select {
	case l.wake <- struct{}{}:
	default: // the flusher is already due to run
	}
	l.mu.Unlock()
	return len(p), nil
}

// flush is the goroutine that writes what has gathered.
func (l *lineWriter) flush() {
	defer close(l.done)
	var spare []byte
	for {
		_, open := <-l.wake
		l.mu.Lock()
		out := l.buf
		l.buf = spare[:0]
		l.room.Broadcast()
		l.mu.Unlock()
		if len(out) > 0 {
			// A failed write of the log has no one to tell; slog drops
			// the error the same way.
			_, _ = l.w.Write(out)
		}
		spare = out
		if !open {
			return
		}
	}
}

// Close writes what is queued and stops the flusher; later writes go
// straight through.
func (l *lineWriter) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.wake)
		l.room.Broadcast()
	}
	l.mu.Unlock()
	<-l.done
	return nil
}
