package main

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestAltCost: an alternative's line ends with its price per hour, run
// time and run cost as far as they are known.
func TestAltCost(t *testing.T) {
	tests := []struct {
		name              string
		perHour, h, total *float64
		want              string
	}{
		// 0.33 $/h × 852 h = $281.16 (35.5 days).
		{"budget and price", new(0.33), new(852.0), new(281.16), " — $0.33/h · 35.5 days · $281"},
		{"no budget", new(0.33), nil, nil, " — $0.33/h"},
		{"budget, no price", nil, new(30.0), nil, " — 30.0 h"},
		{"nothing known", nil, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := altCost(sizing.Alternative{USDPerHour: tt.perHour, Hours: tt.h, USDTotal: tt.total})
			if got != tt.want {
				t.Errorf("altCost = %q, want %q", got, tt.want)
			}
		})
	}
}
