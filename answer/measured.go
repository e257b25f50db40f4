package answer

import (
	"fmt"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// checkMeasured says first, right under the verdict (Targets), the MFU a
// speed the asker measured is ("I get 3500 tok/s per gpu": 17.6% MFU on
// an H100), beside the MFU fitbot's own estimate assumes; when the answer
// counts no FLOPs per token it says the MFU is not computed, never
// dropping the speed.
func checkMeasured(a *sizing.Answer, perGPU float64) {
	if perGPU <= 0 {
		return
	}
	speed := display.Commas(int64(perGPU+0.5)) + " tokens/s per GPU"
	m := a.Measured
	if m == nil {
		a.Targets = append([]string{fmt.Sprintf("MFU of %s not computed: fitbot counts no FLOPs per token for this model", speed)}, a.Targets...)
		return
	}
	line := fmt.Sprintf("%s is %s MFU on the %s (%s GFLOPs a token, %s TFLOPS dense %s)",
		speed, percent(m.MFU), display.GPUName(a.Request.GPU), display.Decimal(m.FLOPsPerToken/1e9), display.Commas(int64(m.PeakFLOPS/1e12+0.5)), m.Peak)
	if own := a.Throughput.MFU; own != nil && *own > 0 {
		line += fmt.Sprintf("; fitbot's own estimate is %s", percent(*own))
	}
	if m.MFU > 1 {
		line += ": more than the card's peak, so the speed is likely over several GPUs (say \"per gpu\" or how many)"
	}
	a.Targets = append([]string{line}, a.Targets...)
}

// percent writes a share as a percentage to one decimal: "17.6%".
func percent(v float64) string { return display.Decimal(v*100) + "%" }
