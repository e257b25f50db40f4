package sizing

import (
	"strings"
	"testing"
)

// TestNonFittingGetsAlternatives: a training question that does not fit
// for its activations gets the changes people make (checkpointing, a
// smaller micro-batch with accumulation, more cards), not nothing.
func TestNonFittingGetsAlternatives(t *testing.T) {
	p, err := Parse("qwen2.5 14b lora seq 8k batch 4 4090")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits || len(a.Alternatives) == 0 {
		t.Fatalf("fits %v with %d alternatives, want a non-fitting answer with alternatives", a.Fits, len(a.Alternatives))
	}
	for _, alt := range a.Alternatives {
		g, _, err := LookupGPU(alt.GPU)
		if err != nil || !alt.Fits || alt.TotalBytes > g.MemoryBytes {
			t.Errorf("alternative %q does not fit its card", alt.Why)
		}
		if !strings.Contains(alt.Why, "micro-batch 1 with 4 gradient-accumulation steps (the same global batch)") || strings.Contains(alt.Why, "the same card") && alt.GPU != "rtx-4090" {
			t.Errorf("alternative %q does not say the smaller micro-batch, or names the wrong card", alt.Why)
		}
	}
}

func TestCheaperRunNeedsASaving(t *testing.T) {
	tests := []struct {
		perHour, hours, askedPerHour, askedHours float64
		want                                     bool
	}{
		{0.75, 32, 2.40, 10, false}, // $24 against $24: the same cost is not cheaper
		{0.75, 30, 2.40, 10, true},
		{2.39, 0, 2.40, 0, false},
		{2.00, 0, 2.40, 0, true},
		{1.00, 0, 2.40, 10, false}, // unknown duration against a known one
	}
	for _, tt := range tests {
		if got := cheaperRun(tt.perHour, tt.hours, tt.askedPerHour, tt.askedHours); got != tt.want {
			t.Errorf("cheaperRun(%v, %v, %v, %v) = %v, want %v", tt.perHour, tt.hours, tt.askedPerHour, tt.askedHours, got, tt.want)
		}
	}
}
