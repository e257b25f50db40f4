package pricing

import (
	"net/http"
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
