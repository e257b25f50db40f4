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
	whys := ""
	for _, alt := range a.Alternatives {
		if !alt.Fits || alt.TotalBytes > int64(alt.GPUs)*a.VRAMBytes {
			t.Errorf("alternative %q does not fit", alt.Why)
		}
		whys += alt.Why + "\n"
	}
	for _, want := range []string{"micro-batch 1 with 4 gradient-accumulation steps (the same global batch)", "gradient checkpointing"} {
		if !strings.Contains(whys, want) {
			t.Errorf("alternatives lack %q:\n%s", want, whys)
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
