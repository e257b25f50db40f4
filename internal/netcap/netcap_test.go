package netcap

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// capped serves "ok" on a listener capped at limit, with the server's
// ConnState wired to it, and returns it and its address.
func capped(t *testing.T, limit int) (*Listener, string) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Wrap(raw, limit, nil)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 5 * time.Second, ConnState: ln.ConnState}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln, raw.Addr().String()
}

// dialN opens n connections to addr and waits until ln holds want.
func dialN(t *testing.T, ln *Listener, addr string, n, want int, first string) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if first != "" {
			io.WriteString(c, first)
		}
		cs = append(cs, c)
	}
	t.Cleanup(func() {
		for _, c := range cs {
			c.Close()
		}
	})
	deadline := time.Now().Add(2 * time.Second)
	for ln.Open() != want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if ln.Open() != want {
		t.Fatalf("%d connections held, want %d", ln.Open(), want)
	}
	return cs
}

// TestIdleMakeRoom: with a cap of 8 and 8 connections open that sent
// nothing (and more arriving), a request is still served: the oldest
// idle connections are closed to admit it, the newest idle ones are kept.
func TestIdleMakeRoom(t *testing.T) {
	ln, addr := capped(t, 8)
	idle := dialN(t, ln, addr, 12, 8, "")
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("a request at the cap with every connection idle: %v", err)
	}
	resp.Body.Close()
	if ln.Evicted() < 5 || ln.Refused() != 0 {
		t.Errorf("evicted %d, refused %d; want the oldest idle ones evicted, none refused", ln.Evicted(), ln.Refused())
	}
	idle[0].SetReadDeadline(time.Now().Add(time.Second))
	if _, err := idle[0].Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("the oldest idle connection is still open (%v)", err)
	}
	if ln.Open() > 8 {
		t.Errorf("%d connections held over the cap of 8", ln.Open())
	}
}

// TestBusyAreNotEvicted: connections in the middle of a request are
// never closed to admit others; with every slot busy, a new connection
// is refused at once, and a slot frees when one goes away.
func TestBusyAreNotEvicted(t *testing.T) {
	ln, addr := capped(t, 4)
	busy := dialN(t, ln, addr, 4, 4, "GET / HTTP/1.1\r\nHost: x\r\n") // headers not finished
	time.Sleep(50 * time.Millisecond)                                 // the server has read their first bytes
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	n, err := c.Read(make([]byte, 64))
	c.Close()
	if n != 0 || err == nil || time.Since(start) > time.Second {
		t.Errorf("a connection over the cap of busy ones: read %d bytes, %v after %v; want it closed at once", n, err, time.Since(start))
	}
	if ln.Refused() != 1 || ln.Evicted() != 0 {
		t.Errorf("refused %d, evicted %d; want 1 and 0", ln.Refused(), ln.Evicted())
	}
	busy[0].Close()
	deadline := time.Now().Add(2 * time.Second)
	for ln.Open() > 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("a request once a slot is free: %v", err)
	}
	resp.Body.Close()
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

func TestDefaultUnderTheLimit(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		want  int
	}{{1024, 512}, {0, 512}, {100, 64}, {1 << 20, 4096}, {4096, 2048}} {
		if got := defaultFor(tc.limit); got != tc.want {
			t.Errorf("defaultFor(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if d := Default(); d < 64 || d > 4096 {
		t.Errorf("Default() = %d", d)
	}
}
