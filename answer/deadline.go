package answer

import (
	"fmt"
	"math"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// checkHostRAM checks the host RAM an offload answer counts per machine
// against the machine's memory the question gave ("with 64gb ram"): a
// shortfall is the first warning, since an offload run holds its states
// there; the GPU verdict stands. Without offload the checkpoint can be
// streamed to the GPU shard by shard, so nothing is said; nothing either
// when no memory was given.
func checkHostRAM(a *sizing.Answer, have int64) {
	if o := a.Request.Offload; have <= 0 || a.HostRAMBytes <= have || o == "" || o == sizing.OffloadNone {
		return
	}
	a.Warnings = append([]string{fmt.Sprintf("Host RAM may run short: this counts %s per machine (the larger of the bf16 checkpoint and the %s-offloaded states with a 1.5× margin), more than the %d GB said",
		display.GiB(a.HostRAMBytes), a.Request.Offload, have>>30)}, a.Warnings...)
}

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
		at1B := sizing.RunHours(sizing.RoundRunTokens, *a.Throughput.TokensPerSecond)
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
