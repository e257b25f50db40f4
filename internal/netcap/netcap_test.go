package netcap

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestCapHoldsAndFrees: with a cap of 4, four idle connections hold every
// slot; a fifth is closed at once (not left waiting); once one idle
// connection goes away, a request is served again.
func TestCapHoldsAndFrees(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	ln := Wrap(raw, 4, func() { refused.Add(1) })
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := raw.Addr().String()

	var idle []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	deadline := time.Now().Add(2 * time.Second)
	for ln.Open() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if ln.Open() != 4 {
		t.Fatalf("%d connections held, want 4", ln.Open())
	}
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
		t.Errorf("a connection over the cap: read %d bytes, %v after %v; want it closed at once", n, err, time.Since(start))
	}
	if refused.Load() != 1 || ln.Refused() != 1 {
		t.Errorf("refused %d/%d, want 1", refused.Load(), ln.Refused())
	}

	idle[0].Close()
	deadline = time.Now().Add(2 * time.Second)
	for ln.Open() > 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("a request once a slot is free: %v", err)
	}
	resp.Body.Close()
	for _, c := range idle[1:] {
		c.Close()
	}
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
