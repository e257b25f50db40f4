package sizing

import (
	"testing"
)

func TestFormatCount(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{999, "999"},
		{1e6, "1m"},
		{1_000_001, "1.000001m"},
		{125e6, "125m"},
		{1.3e9, "1.3b"},
		{70_553_706_496, "70.553706496b"},
		{1e15, "1000t"},
	}
	for _, tt := range tests {
		if got := FormatCount(tt.n); got != tt.want {
			t.Errorf("formatCount(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
