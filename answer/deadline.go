package answer

import (
	"fmt"
	"math"

	"github.com/fitbot/fitbot/display"
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
		at1B := sizing.RunHours(1e9, *a.Throughput.TokensPerSecond)
		a.Warnings = append([]string{fmt.Sprintf("%q not checked: no token count said (1B tokens would take about %s; say e.g. \"on 1B tokens\")", d.Words, display.Hours(at1B))}, a.Warnings...)
	case h == nil || *h <= 0:
		a.Warnings = append([]string{fmt.Sprintf("%q not checked: this answer has no run time to compare it with", d.Words)}, a.Warnings...)
	case *h > within:
		more := int(math.Ceil(*h / within))
		a.Warnings = append([]string{fmt.Sprintf("Not done %s: about %s on %s; at best %d× as many GPUs (or that many fewer tokens) would make it",
			d.Words, display.Hours(*h), display.Hardware(a.Request.GPUs, a.GPUName), more)}, a.Warnings...)
	default:
		a.Assumptions = append([]string{fmt.Sprintf("done %s: about %s on %s", d.Words, display.Hours(*h), display.Hardware(a.Request.GPUs, a.GPUName))}, a.Assumptions...)
	}
}
