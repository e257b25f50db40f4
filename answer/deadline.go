package answer

import (
	"fmt"
	"math"

	"github.com/fitbot/fitbot/sizing"
)

// checkDeadline checks the run's time against the time the question
// asked for ("in a week"): a run that takes longer, or one with no time
// to check (no tokens said), is said first among the warnings; one that
// is done in time is said first among the assumptions.
func checkDeadline(a *sizing.Answer, d sizing.Deadline) {
	if d.Within <= 0 {
		return
	}
	within := d.Within.Hours()
	h := a.Throughput.Hours
	switch {
	case (h == nil || *h <= 0) && a.Request.Method != sizing.MethodInference && a.Throughput.TokensPerSecond != nil && *a.Throughput.TokensPerSecond > 0:
		at1B := 1e9 / *a.Throughput.TokensPerSecond / 3600
		a.Warnings = append([]string{fmt.Sprintf("%q not checked: no token count said (1B tokens would take about %s; say e.g. \"on 1B tokens\")", d.Words, hours(at1B))}, a.Warnings...)
	case h == nil || *h <= 0:
		a.Warnings = append([]string{fmt.Sprintf("%q not checked: this answer has no run time to compare it with", d.Words)}, a.Warnings...)
	case *h > within:
		more := int(math.Ceil(*h / within))
		a.Warnings = append([]string{fmt.Sprintf("Not done %s: about %s on %s; at best %d× as many GPUs (or that many fewer tokens) would make it",
			d.Words, hours(*h), on(*a), more)}, a.Warnings...)
	default:
		a.Assumptions = append([]string{fmt.Sprintf("done %s: about %s on %s", d.Words, hours(*h), on(*a))}, a.Assumptions...)
	}
}

// hours is a run's time as the answers write it: minutes under an hour,
// hours under two days, days past that.
func hours(h float64) string {
	switch {
	case h < 1:
		return fmt.Sprintf("%.0f min", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f h", h)
	default:
		return fmt.Sprintf("%.1f days", h/24)
	}
}

// on is the answer's hardware: "8× H100 SXM 80 GB".
func on(a sizing.Answer) string {
	return fmt.Sprintf("%d× %s", max(a.Request.GPUs, 1), a.GPUName)
}
