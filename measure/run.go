package measure

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GiB is 2^30 bytes, the unit nvidia-smi (MiB) and PyTorch report in.
const GiB = 1 << 30

// Run is what one run used. A zero field was not measured.
type Run struct {
	PeakBytes       int64   `json:"peak_bytes,omitempty"`        // the busiest GPU's peak memory
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"` // the whole job's, all GPUs together
	Hours           float64 `json:"hours,omitempty"`             // wall clock
	TensorActive    float64 `json:"tensor_active,omitempty"`     // mean tensor-pipe activity, 0..1 (DCGM)
}

// Empty reports whether r holds no measurement at all.
func (r Run) Empty() bool {
	return r.PeakBytes == 0 && r.TokensPerSecond == 0 && r.Hours == 0 && r.TensorActive == 0
}

// ErrNothingMeasured is the error of a run that carries no figure.
var ErrNothingMeasured = errors.New("no measurement given: say a peak memory (71 GiB), a speed (3150 tok/s) or a run's hours (5.2 h)")

// Check refuses a run that cannot be true of one GPU with cardBytes of
// memory (card names the card in the message): a peak above the card's
// memory is the sum over GPUs or a typo, and a run of more than a year or
// a negative figure is a typo. cardBytes <= 0 skips the memory check.
func (r Run) Check(cardBytes int64, card string) error {
	switch {
	case r.Empty():
		return ErrNothingMeasured
	case r.PeakBytes < 0 || r.TokensPerSecond < 0 || r.Hours < 0 || r.TensorActive < 0:
		return errors.New("a measurement cannot be negative")
	case r.TensorActive > 1:
		return fmt.Errorf("tensor activity %.2f is more than 1 (it is a fraction of the time)", r.TensorActive)
	case r.Hours > 24*366:
		return fmt.Errorf("%s h is more than a year: give the run's wall-clock hours", trim(r.Hours))
	case math.IsInf(r.TokensPerSecond, 0) || math.IsNaN(r.TokensPerSecond) || math.IsNaN(r.Hours):
		return errors.New("a measurement must be a finite number")
	}
	// nvidia-smi's memory.total is a little under the catalog's usable
	// figure on some cards and a little over on others: 3% is the slack.
	if cardBytes > 0 && float64(r.PeakBytes) > 1.03*float64(cardBytes) {
		return fmt.Errorf("a peak of %s GiB is more than one %s holds (%s GiB): give the busiest GPU's peak, not the sum over GPUs",
			trim(float64(r.PeakBytes)/GiB), card, trim(float64(cardBytes)/GiB))
	}
	return nil
}

// String writes the run as it would be typed back: "peak 71 GiB, 3,150 tok/s, 5.2 h".
func (r Run) String() string {
	var parts []string
	if r.PeakBytes > 0 {
		parts = append(parts, "peak "+trim(float64(r.PeakBytes)/GiB)+" GiB")
	}
	if r.TokensPerSecond > 0 {
		parts = append(parts, commas(r.TokensPerSecond)+" tok/s")
	}
	if r.Hours > 0 {
		parts = append(parts, trim(r.Hours)+" h")
	}
	if r.TensorActive > 0 {
		parts = append(parts, "tensor active "+strconv.FormatFloat(r.TensorActive*100, 'f', 0, 64)+"%")
	}
	return strings.Join(parts, ", ")
}

// trim writes v with at most one decimal, without a trailing ".0".
func trim(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
}

// commas writes v rounded to a whole number with thousands separators.
func commas(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
