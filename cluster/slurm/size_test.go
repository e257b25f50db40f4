package slurm

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOversizedAnswerRefused: an answer over maxBody is refused as such,
// after reading at most maxBody+1 bytes of it, never read to its end.
func TestOversizedAnswerRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		w.Write([]byte(`{"nodes":[`))
		for range 4 * maxBody >> 20 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`]}`))
	}))
	t.Cleanup(srv.Close)
	_, err := New(Config{URL: srv.URL, Token: "t"}, nil, nil).Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "MiB; fitbot reads no more") {
		t.Errorf("oversized answer: %v", err)
	}
}
