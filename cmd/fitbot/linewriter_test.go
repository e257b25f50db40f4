package main

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingWriter records what it was given and in how many writes.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	block  chan struct{} // when set, each write waits for a receive
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.block != nil {
		<-c.block
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

// TestLineWriterKeepsEveryLine writes from many goroutines: after Close
// every line is there once, whole, each goroutine's in its own order,
// in fewer writes than lines.
func TestLineWriterKeepsEveryLine(t *testing.T) {
	under := &countingWriter{}
	l := newLineWriter(under)
	const writers, each = 16, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				fmt.Fprintf(l, "{\"w\":%d,\"i\":%d}\n", w, i)
			}
		})
	}
	wg.Wait()
	l.Close()
	lines := strings.Split(strings.TrimSuffix(under.buf.String(), "\n"), "\n")
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	next := make([]int, writers)
	for _, line := range lines {
		var w, i int
		if _, err := fmt.Sscanf(line, "{\"w\":%d,\"i\":%d}", &w, &i); err != nil {
			t.Fatalf("torn line %q: %v", line, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
	t.Logf("%d lines in %d writes", len(lines), under.writes)
	if under.writes >= len(lines) {
		t.Errorf("%d lines took %d writes: nothing was gathered", len(lines), under.writes)
	}
	fmt.Fprintln(l, "after close")
	if !strings.HasSuffix(under.buf.String(), "after close\n") {
		t.Error("a write after Close was lost")
	}
}

// TestLineWriterBoundsWhatWaits: with the underlying writer stalled, a
// writer waits once maxPending bytes are queued, and goes on when the
// stall ends; nothing is lost.
func TestLineWriterBoundsWhatWaits(t *testing.T) {
	under := &countingWriter{block: make(chan struct{})}
	l := newLineWriter(under)
	line := strings.Repeat("x", 1023) + "\n"
	wrote := make(chan int)
	go func() {
		n := 0
		for range 3 * maxPending / len(line) {
			l.Write([]byte(line))
			n++
		}
		wrote <- n
	}()
	// The first write reaches the stalled writer; behind it the queue
	// fills to maxPending, and there the goroutine must wait.
	queued := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.buf)
	}
	// The signal is the goroutine itself waiting in Write for room (its
	// stack), not a pause: all lines written first is the failure.
	for deadline := time.Now().Add(10 * time.Second); !waitingForRoom(); time.Sleep(time.Millisecond) {
		select {
		case n := <-wrote:
			t.Fatalf("all %d lines queued while the writer was stalled", n)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Write waits for room after 10 s; %d bytes queued", queued())
		}
	}
	if q := queued(); q < maxPending || q >= maxPending+len(line) {
		t.Errorf("%d bytes queued behind a stalled writer, want the queue full at %d", q, maxPending)
	}
	close(under.block)
	n := <-wrote
	l.Close()
	if got, want := under.buf.Len(), n*len(line); got != want {
		t.Errorf("%d bytes written, want %d", got, want)
	}
}

// waitingForRoom reports whether a goroutine waits in lineWriter.Write
// for the flusher to take the queue.
func waitingForRoom() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("sync.(*Cond).Wait")) && bytes.Contains(g, []byte("(*lineWriter).Write")) {
			return true
		}
	}
	return false
}
