package pricing

import (
	"testing"
	"time"
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
		if got := retryAfter(tt.header); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
