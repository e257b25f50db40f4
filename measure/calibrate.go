package measure

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pair is one measured run beside what fitbot said of its plan.
type Pair struct {
	PlanID    int64  `json:"plan_id"`
	Method    string `json:"method"` // full, lora, qlora, inference
	GPU       string `json:"gpu"`    // catalog GPU id
	Params    int64  `json:"params"`
	Predicted Run    `json:"predicted"`
	Measured  Run    `json:"measured"`
}

// Kind is what makes two runs alike enough to learn from each other: the
// method, the card's family (an A100 40 GB and 80 GB are one family) and
// the model's size band.
type Kind struct {
	Method string `json:"method"`
	Family string `json:"family"`
	Band   string `json:"size_band"`
}

// sizeBands are the upper bounds of the model size bands, in parameters:
// about a factor of three apart, so a 7B and an 8B model share one and a
// 7B and a 70B never do.
var sizeBands = []struct {
	below int64
	name  string
}{
	{3e9, "under 3B"}, {10e9, "3-10B"}, {35e9, "10-35B"}, {100e9, "35-100B"}, {math.MaxInt64, "100B and up"},
}

// KindOf is the kind of a run of method on gpu for a model of params.
func KindOf(method, gpu string, params int64) Kind {
	band := ""
	for _, b := range sizeBands {
		if params < b.below {
			band = b.name
			break
		}
	}
	return Kind{Method: method, Family: CardFamily(gpu), Band: band}
}

// Kind is the pair's kind.
func (p Pair) Kind() Kind { return KindOf(p.Method, p.GPU, p.Params) }

// formSuffixes are the form factors a card family spans.
var formSuffixes = []string{"-pcie", "-nvl", "-sxm"}

// CardFamily is a catalog GPU id without its form factor and memory
// size: a100-80-pcie and a100-40 are a100, m3-max-128 is m3-max, while
// rtx-4090 stays itself (its digits are the model, not a memory size).
func CardFamily(gpu string) string {
	for _, s := range formSuffixes {
		gpu = strings.TrimSuffix(gpu, s)
	}
	i := strings.LastIndexByte(gpu, '-')
	if i <= 0 {
		return gpu
	}
	size, err := strconv.Atoi(gpu[i+1:])
	if err != nil || size > 512 || !strings.ContainsAny(gpu[:i], "0123456789") {
		return gpu
	}
	return gpu[:i]
}

// Stats is how far a set of measured runs were from fitbot's figures,
// as ratios measured / fitbot (1.04 is 4% above fitbot's figure). The
// spread is the sample standard deviation of the ratios (0 for one run).
type Stats struct {
	Runs              int     `json:"runs"`
	MemoryRuns        int     `json:"memory_runs"`
	MemoryRatioMean   float64 `json:"memory_ratio_mean,omitempty"`
	MemoryRatioSpread float64 `json:"memory_ratio_spread,omitempty"`
	SpeedRuns         int     `json:"speed_runs"`
	SpeedRatioMean    float64 `json:"speed_ratio_mean,omitempty"`
	SpeedRatioSpread  float64 `json:"speed_ratio_spread,omitempty"`
	PlanIDs           []int64 `json:"plan_ids"`
}

// MemoryRatio is the pair's measured peak over fitbot's; ok is false
// when either is unknown.
func (p Pair) MemoryRatio() (float64, bool) {
	if p.Measured.PeakBytes <= 0 || p.Predicted.PeakBytes <= 0 {
		return 0, false
	}
	return float64(p.Measured.PeakBytes) / float64(p.Predicted.PeakBytes), true
}

// SpeedRatio is the pair's measured speed over fitbot's: tokens per
// second where both are known, else fitbot's hours over the measured
// ones (the same tokens in fewer hours is faster).
func (p Pair) SpeedRatio() (float64, bool) {
	switch {
	case p.Measured.TokensPerSecond > 0 && p.Predicted.TokensPerSecond > 0:
		return p.Measured.TokensPerSecond / p.Predicted.TokensPerSecond, true
	case p.Measured.Hours > 0 && p.Predicted.Hours > 0:
		return p.Predicted.Hours / p.Measured.Hours, true
	}
	return 0, false
}

// Summarize is the statistics of pairs.
func Summarize(pairs []Pair) Stats {
	var mem, speed []float64
	s := Stats{Runs: len(pairs)}
	for _, p := range pairs {
		s.PlanIDs = append(s.PlanIDs, p.PlanID)
		if r, ok := p.MemoryRatio(); ok {
			mem = append(mem, r)
		}
		if r, ok := p.SpeedRatio(); ok {
			speed = append(speed, r)
		}
	}
	s.MemoryRuns, s.SpeedRuns = len(mem), len(speed)
	s.MemoryRatioMean, s.MemoryRatioSpread = meanSpread(mem)
	s.SpeedRatioMean, s.SpeedRatioSpread = meanSpread(speed)
	return s
}

// Like is the statistics of the pairs of kind k.
func Like(pairs []Pair, k Kind) Stats {
	var same []Pair
	for _, p := range pairs {
		if p.Kind() == k {
			same = append(same, p)
		}
	}
	return Summarize(same)
}

func meanSpread(v []float64) (mean, spread float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// Line says the statistics in one sentence: "On 6 measured runs like
// this here, peak memory was 4% ± 3% above fitbot's figure and speed 12%
// ± 5% below." It is "" when no run measured either figure.
func (s Stats) Line() string {
	sum := s.Summary()
	if sum == "" {
		return ""
	}
	runs := "run"
	if s.Runs != 1 {
		runs = "runs"
	}
	return fmt.Sprintf("On %d measured %s like this here, %s.", s.Runs, runs, sum)
}

// Summary is Line without the runs it counts: "peak memory was 4% ± 3%
// above fitbot's figure and speed 12% ± 5% below fitbot's"; "" when no
// run measured either figure.
func (s Stats) Summary() string {
	var parts []string
	if s.MemoryRuns > 0 {
		parts = append(parts, "peak memory was "+offBy(s.MemoryRatioMean, s.MemoryRatioSpread, s.MemoryRuns, "fitbot's figure"))
	}
	if s.SpeedRuns > 0 {
		what := "fitbot's"
		if len(parts) == 0 {
			what = "fitbot's figure"
		}
		parts = append(parts, "speed "+offBy(s.SpeedRatioMean, s.SpeedRatioSpread, s.SpeedRuns, what))
	}
	return strings.Join(parts, " and ")
}

// offBy writes a ratio as a percentage above or below: "4% ± 3% above
// fitbot's figure".
func offBy(mean, spread float64, n int, what string) string {
	pct := math.Round((mean - 1) * 100)
	word := "above"
	if pct < 0 {
		word, pct = "below", -pct
	}
	pm := ""
	if n > 1 {
		pm = fmt.Sprintf(" ± %.0f%%", math.Round(spread*100))
	}
	if pct == 0 {
		return "within 1% of " + what + pm
	}
	return fmt.Sprintf("%.0f%%%s %s %s", pct, pm, word, what)
}

// WouldNotFit reports whether a predicted per-GPU total that fits in
// capacity would not fit at the team's measured memory error: the mean
// ratio plus one spread, so a single high run is enough to warn.
func (s Stats) WouldNotFit(predicted, capacity int64) bool {
	if s.MemoryRuns == 0 || predicted <= 0 || capacity <= 0 {
		return false
	}
	return float64(predicted)*(s.MemoryRatioMean+s.MemoryRatioSpread) > float64(capacity)
}

// OffBy is how far a run must be from fitbot's figure to be listed as
// off (calibration, the weekly digest): 15%.
const OffBy = 0.15

// Off reports whether the run is more than by (0.15: 15%) from fitbot's
// memory or speed figure.
func (p Pair) Off(by float64) bool {
	if r, ok := p.MemoryRatio(); ok && math.Abs(r-1) > by {
		return true
	}
	r, ok := p.SpeedRatio()
	return ok && math.Abs(r-1) > by
}

// Relative writes a ratio measured / fitbot as "7% above", "10% below"
// or "within 1%".
func Relative(r float64) string {
	pct := math.Round((r - 1) * 100)
	switch {
	case pct > 0:
		return fmt.Sprintf("%.0f%% above", pct)
	case pct < 0:
		return fmt.Sprintf("%.0f%% below", -pct)
	}
	return "within 1%"
}
