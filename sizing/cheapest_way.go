package sizing

import (
	"fmt"
	"slices"
	"strings"
)

// fullImpliedNote ends the note the parser adds when a training verb
// ("fine tune") and no method's name set a full fine-tune.
const fullImpliedNote = "taken as full fine-tuning (say lora or qlora for adapters)"

// CheapestWay answers a question that asks the cheapest way to train and
// leaves the method unsaid ("cheapest way to fine tune phi-3 mini") on its
// cheapest way: when an adapter method (LoRA or QLoRA, the answer's
// cheaper ways) costs less than the full fine-tune the verb was read as,
// the question becomes that method, and a note says so with both prices
// in place of the parser's "taken as full fine-tuning". A method, card,
// weight format or precision said keeps the question as asked, as does
// one whose estimate fails or that nothing cheaper fits. answer estimates
// a Query (Estimator.Answer, or a caller's wrapper of it).
func CheapestWay(p Parsed, answer func(Query) (Answer, error)) Parsed {
	q := p.Query
	if !p.MethodImplied || q.Method != MethodFull || !q.Cheapest || p.Intent != IntentFit ||
		q.GPU != "" || q.UnknownGPU != "" || q.Quant != "" || q.Precision != "" {
		return p
	}
	full, err := answer(q)
	if err != nil || !full.Fits {
		return p
	}
	i := slices.IndexFunc(full.Alternatives, func(a Alternative) bool {
		return (a.Method == MethodLoRA || a.Method == MethodQLoRA) && a.USDPerHour != nil
	})
	if i < 0 || full.Throughput.USDPerHour == nil {
		return p
	}
	way := full.Alternatives[i]
	p.Query.Method, p.MethodImplied = way.Method, false
	p.Notes = slices.DeleteFunc(slices.Clone(p.Notes), func(n string) bool { return strings.HasSuffix(n, fullImpliedNote) })
	p.Notes = append(p.Notes, fmt.Sprintf("cheapest way: %s on %s (%s); a full fine-tune needs %s at %s (say full to size it)",
		methodWords(way.Method), configWords(way.GPU, way.GPUs), wayCost(way.USDPerHour, way.USDTotal),
		configWords(full.Request.GPU, full.Request.GPUs), wayCost(full.Throughput.USDPerHour, full.Throughput.USDTotal)))
	return p
}

// methodWords names an adapter method in a note.
func methodWords(m Method) string {
	if m == MethodQLoRA {
		return "QLoRA"
	}
	return "LoRA"
}

// configWords is "1× RTX 3090 24 GB": a count and the card's name.
func configWords(gpu string, n int) string {
	name := gpu
	if g, _, err := LookupGPU(gpu); err == nil {
		name = g.Name
	}
	return fmt.Sprintf("%d× %s", n, name)
}

// wayCost is a configuration's price for all its GPUs: by the hour, and
// the whole run when a token budget timed it.
func wayCost(perHour, total *float64) string {
	s := fmt.Sprintf("$%.2f/h", *perHour)
	switch {
	case total != nil && *total < 1000:
		s += fmt.Sprintf(", $%.2f for the run", *total)
	case total != nil:
		s += fmt.Sprintf(", $%s for the run", commas(int64(*total+0.5)))
	}
	return s
}
