package display

import (
	"fmt"
	"math"

	"github.com/fitbot/fitbot/sizing"
)

// Job is the line that answers a batch job of documents on an answer's
// cards, said first under the verdict: "5M documents of 512 tokens
// (2.56B tokens): 5.6 h on 1× RTX 4090 24 GB at 128k tokens/s, $1.89";
// "" when the answer is no job.
func Job(a sizing.Answer) string {
	if a.Job == nil {
		return ""
	}
	return JobLine(*a.Job, Hardware(a.Request.GPUs, a.GPUName))
}

// WhichGPUJob is a which-GPU answer's job line, on its cheapest option
// ("Cheapest for the job: ..."); "" when the answer is no job.
func WhichGPUJob(w *sizing.WhichGPUResult) string {
	if w == nil || w.Job == nil || len(w.Options) == 0 {
		return ""
	}
	o := w.Options[0]
	return "Cheapest for the job: " + JobLine(*w.Job, Hardware(o.GPUs, o.GPUName))
}

// JobLine says a batch job's size, time and cost on hardware: with
// documents every month, the time and cost a month and the share of the
// cards' month it keeps busy, or how many such configurations keep up
// when one cannot.
func JobLine(j sizing.JobCost, hardware string) string {
	month := ""
	if j.Monthly {
		month = " a month"
	}
	s := fmt.Sprintf("%s documents of %s tokens%s (%s tokens): %s%s on %s at %s tokens/s",
		Count(float64(j.Documents)), Commas(int64(j.DocumentTokens)), month, Count(float64(j.Tokens)),
		Hours(j.Hours), month, hardware, Rate(j.TokensPerSecond))
	if j.USD != nil {
		s += ", " + USD(*j.USD) + month
	} else {
		s += ", no price known"
	}
	switch {
	case !j.Monthly:
	case j.BusyShare > 1:
		s += fmt.Sprintf("; more than a month's work: %d× as many cards keep up", int(math.Ceil(j.BusyShare)))
	default:
		s += fmt.Sprintf(", busy %s of the month", Percent(j.BusyShare))
	}
	return s
}

// Rate shows a speed briefly, to three significant digits: "128k",
// "76.5k", "1.2M", "950".
func Rate(v float64) string {
	switch {
	case v >= 1e6:
		return Count(v)
	case v >= 1e3:
		k := v / 1e3
		if k >= 100 {
			return fmt.Sprintf("%.0fk", k)
		}
		return TrimZero(fmt.Sprintf("%.1f", k)) + "k"
	}
	return TrimZero(fmt.Sprintf("%.0f", v))
}

// Percent shows a share as a percentage: one decimal under 10%
// ("2.5%"), whole above ("38%"), "<0.1%" for less.
func Percent(share float64) string {
	p := share * 100
	switch {
	case p < 0.1:
		return "<0.1%"
	case p < 10:
		return TrimZero(fmt.Sprintf("%.1f", p)) + "%"
	}
	return fmt.Sprintf("%.0f%%", p)
}
