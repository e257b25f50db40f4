package pricing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", -1},
		{"0", 0},
		{"3", 3 * time.Second},
		{"3600", maxRetryAfter},
		{"-1", -1},
		{"soon", -1},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(http.Header{"Retry-After": {tt.header}}); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestSnippetKeepsCharactersWhole: an error body quoted in a run's error
// (stored, then shown in Slack) is cut between characters, never inside one.
func TestSnippetKeepsCharactersWhole(t *testing.T) {
	for _, body := range []string{strings.Repeat("é", 300), "x" + strings.Repeat("価格", 150)} {
		got := snippet([]byte(body), nil)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > 200 {
			t.Errorf("snippet of %d bytes = %q: valid %v, %d runes; want valid UTF-8 of at most 200 runes",
				len(body), got, utf8.ValidString(got), utf8.RuneCountInString(got))
		}
	}
}

// TestStalledDownloadFailsFast: the fault report's truncated catalog —
// headers and part of the body, then nothing with the connection left
// open — is given up once nothing arrives for bodyStall, not held until
// the refresh's 3-minute timeout, and the error says how much came.
func TestStalledDownloadFailsFast(t *testing.T) {
	old := bodyStall
	bodyStall = 200 * time.Millisecond
	t.Cleanup(func() { bodyStall = old })
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", "1000000")
		w.Write(make([]byte, 4096))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultRefreshTimeout)
	defer cancel()
	_, err := providerCall(ctx, srv.Client(), providerRequest{provider: "gpuhunt:nebius", method: http.MethodGet, url: srv.URL + "/nebius/v1.csv.zip"})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "the download stalled: 4096 of 1000000 bytes, then nothing for 200ms") {
		t.Fatalf("err = %v", err)
	}
	if took > 2*time.Second {
		t.Errorf("a stalled download held the refresh for %v", took)
	}
}
