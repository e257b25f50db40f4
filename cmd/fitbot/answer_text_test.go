package main

import (
	"strings"
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

// TestSpeedLineSameCardWay: an answer that does not fit as asked but
// fits on the same card with one change times both (gave
// only the bf16 decode that cannot run).
func TestSpeedLineSameCardWay(t *testing.T) {
	asked, way := 12.27, 22.49
	a := sizing.Answer{Request: sizing.Request{Method: sizing.MethodInference, GPU: "l40s", GPUs: 1},
		Throughput:   sizing.Throughput{TokensPerSecond: &asked},
		Alternatives: []sizing.Alternative{{GPU: "l40s", GPUs: 1, Fits: true, Why: "fp8 weights on the same card: 29.4 GiB per GPU", TokensPerSecond: &way}}}
	want := "Speed: 12.27 tokens/s decode as asked · 22.49 tokens/s decode with fp8 weights on the same card (no price known for this card)"
	if got := speedLine(a); got != want {
		t.Errorf("speedLine = %q, want %q", got, want)
	}
	a.Fits = true
	if got := speedLine(a); strings.Contains(got, "same card") {
		t.Errorf("speedLine (fits) = %q, want the asked speed alone", got)
	}
}

// TestHostGiB: host memory keeps a tenth below 10 GiB, so that Whisper
// small's half-gigabyte checkpoint never reads "0 GiB".
func TestHostGiB(t *testing.T) {
	for _, c := range []struct {
		bytes int64
		want  string
	}{
		{1 << 29, "0.5 GiB"},
		{9 << 30, "9.0 GiB"},
		{627 << 30, "627 GiB"},
	} {
		if got := hostGiB(c.bytes); got != c.want {
			t.Errorf("hostGiB(%d) = %q, want %q", c.bytes, got, c.want)
		}
	}
}
