package display

import (
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// AskSummary is an answer to a question that runs the other way round in
// one line, as a kept plan shows it: "1× RTX 4090 24 GB: LoRA up to 20B,
// inference int4 up to 33B", "longest context 32,768 tokens",
// "7 cards fit; cheapest 1× L4 24 GB", "rent: ... $120 a month vs $300
// to own". "" for an answer of no known kind.
func AskSummary(a sizing.AskAnswer) string {
	switch {
	case a.Largest != nil:
		l := a.Largest
		var rows []string
		for _, r := range l.Rows {
			if r.MaxParams > 0 && r.Note == "" {
				rows = append(rows, rowLabel(r)+" up to "+Params(r.MaxParams))
			}
		}
		if len(rows) == 0 {
			return Hardware(l.GPUs, l.GPUName) + ": nothing fits"
		}
		return Hardware(l.GPUs, l.GPUName) + ": " + strings.Join(rows, ", ")
	case a.MaxContext != nil:
		if a.MaxContext.MaxTokens == 0 {
			return "no context fits"
		}
		return fmt.Sprintf("longest context %s tokens (bound by %s)", Commas(int64(a.MaxContext.MaxTokens)), a.MaxContext.Bound)
	case a.WhichGPU != nil:
		w := a.WhichGPU
		if w.FitsNothing || len(w.Options) == 0 {
			return "no card fits within one machine"
		}
		o := w.Options[0]
		return fmt.Sprintf("%d cards fit; cheapest %s", len(w.Options), Hardware(o.GPUs, o.GPUName))
	case a.Serve != nil:
		return ServeSummary(a)
	case a.BuyRent != nil:
		r := a.BuyRent
		s := fmt.Sprintf("%s: %s, %s a month to own", r.Verdict, Hardware(r.GPUs, r.GPUName), USD(r.OwnUSDPerMonth))
		if r.OnDemand != nil {
			s += fmt.Sprintf(", %s a month on demand", USD(r.OnDemand.USDPerMonth))
		}
		return s
	}
	return ""
}

// rowLabel names a largest-model row: its label, or its method.
func rowLabel(r sizing.LargestRow) string {
	if r.Label != "" {
		return r.Label
	}
	return string(r.Method)
}
