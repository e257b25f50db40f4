package pricing

import (
	"testing"
	"time"
)

func TestSourceBehind(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	good := func(provider string, age time.Duration) Run {
		return Run{Provider: provider, Status: RunOK, AsOf: now.Add(-age), Finished: now.Add(-age)}
	}
	fresh, old := good("runpod", time.Hour), good("runpod", SourceMaxAge+time.Minute)
	failed := Run{Provider: "runpod", Status: RunFailed}
	frozen := good("aws", time.Hour)
	frozen.PublishedAt = now.Add(-ListPriceMaxAge - time.Hour)
	imported := good(ImportProvider("sheet.csv"), 90*24*time.Hour)
	tests := []struct {
		name     string
		last     Run
		lastGood *Run
		want     bool
	}{
		{"refreshed an hour ago", fresh, &fresh, false},
		{"last good run older than SourceMaxAge", old, &old, true},
		{"never refreshed", failed, nil, true},
		{"latest run failed", failed, &fresh, true},
		{"feed stopped publishing", frozen, &frozen, true},
		{"an imported sheet, however old", imported, &imported, false},
	}
	for _, tt := range tests {
		if got := SourceBehind(tt.last.Provider, tt.last, tt.lastGood, now); got != tt.want {
			t.Errorf("%s: SourceBehind = %v, want %v", tt.name, got, tt.want)
		}
	}
}
