package measure

import (
	"math"
	"testing"
)

func TestCardFamily(t *testing.T) {
	for in, want := range map[string]string{
		"a100-80": "a100", "a100-40-pcie": "a100", "h100-nvl": "h100", "h100": "h100",
		"rtx-4090": "rtx-4090", "v100-32": "v100", "m3-max-128": "m3-max", "rtx-4070-ti-super": "rtx-4070-ti-super",
	} {
		if got := CardFamily(in); got != want {
			t.Errorf("CardFamily(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	if KindOf("lora", "a100-80", 7e9) != KindOf("lora", "a100-40", 8e9) {
		t.Error("7B and 8B LoRA on A100s are not alike")
	}
	if KindOf("lora", "a100-80", 7e9) == KindOf("lora", "a100-80", 70e9) {
		t.Error("7B and 70B are alike")
	}
	if KindOf("lora", "h100", 7e9) == KindOf("qlora", "h100", 7e9) {
		t.Error("LoRA and QLoRA are alike")
	}
}

func pair(id int64, predGiB, measGiB, predTPS, measTPS float64) Pair {
	return Pair{PlanID: id, Method: "lora", GPU: "a100-80", Params: 8e9,
		Predicted: Run{PeakBytes: int64(predGiB * GiB), TokensPerSecond: predTPS},
		Measured:  Run{PeakBytes: int64(measGiB * GiB), TokensPerSecond: measTPS}}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]Pair{pair(1, 50, 52, 1000, 900), pair(2, 50, 53, 1000, 860), pair(3, 50, 51, 0, 0)})
	if s.Runs != 3 || s.MemoryRuns != 3 || s.SpeedRuns != 2 {
		t.Fatalf("counts %+v", s)
	}
	if math.Abs(s.MemoryRatioMean-1.04) > 1e-9 || math.Abs(s.MemoryRatioSpread-0.02) > 1e-9 {
		t.Errorf("memory %v ± %v, want 1.04 ± 0.02", s.MemoryRatioMean, s.MemoryRatioSpread)
	}
	if math.Abs(s.SpeedRatioMean-0.88) > 1e-9 {
		t.Errorf("speed %v, want 0.88", s.SpeedRatioMean)
	}
	want := "On 3 measured runs like this here, peak memory was 4% ± 2% above fitbot's figure and speed 12% ± 3% below fitbot's."
	if got := s.Line(); got != want {
		t.Errorf("Line:\n got %q\nwant %q", got, want)
	}
}

func TestSpeedFromHours(t *testing.T) {
	p := Pair{Predicted: Run{Hours: 10}, Measured: Run{Hours: 12.5}}
	if r, ok := p.SpeedRatio(); !ok || math.Abs(r-0.8) > 1e-9 {
		t.Errorf("10 h predicted, 12.5 h measured: ratio %v %v, want 0.8", r, ok)
	}
}

func TestOneRunLine(t *testing.T) {
	s := Summarize([]Pair{pair(7, 50, 45, 0, 0)})
	if got, want := s.Line(), "On 1 measured run like this here, peak memory was 10% below fitbot's figure."; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if (Stats{}).Line() != "" {
		t.Error("no runs, a line")
	}
}

func TestWouldNotFit(t *testing.T) {
	s := Summarize([]Pair{pair(1, 50, 55, 0, 0), pair(2, 50, 56, 0, 0)})
	if !s.WouldNotFit(75*GiB, 80*GiB) {
		t.Error("75 GiB at +11% fits 80 GiB?")
	}
	if s.WouldNotFit(60*GiB, 80*GiB) {
		t.Error("60 GiB at +11% does not fit 80 GiB?")
	}
	if (Stats{}).WouldNotFit(79*GiB, 80*GiB) {
		t.Error("no runs, a warning")
	}
}
