package reading

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
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
func CheapestWay(p Request, answer func(sizing.Query) (sizing.Answer, error)) Request {
	q := p.Query
	if !p.MethodImplied || q.Method != sizing.MethodFull || !q.Cheapest || p.Intent != sizing.IntentFit ||
		q.GPU != "" || q.UnknownGPU != "" || q.Quant != "" || q.Precision != "" {
		return p
	}
	full, err := answer(q)
	if err != nil || !full.Fits {
		return p
	}
	i := slices.IndexFunc(full.Alternatives, func(a sizing.Alternative) bool {
		return (a.Method == sizing.MethodLoRA || a.Method == sizing.MethodQLoRA) && a.USDPerHour != nil
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
func methodWords(m sizing.Method) string {
	if m == sizing.MethodQLoRA {
		return "QLoRA"
	}
	return "LoRA"
}

// configWords is "1× RTX 3090 24 GB": a count and the card's name.
func configWords(gpu string, n int) string {
	name := gpu
	if g, _, err := sizing.LookupGPU(gpu); err == nil {
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
		s += fmt.Sprintf(", $%s for the run", sizing.Commas(int64(*total+0.5)))
	}
	return s
}

// smallCardBytes is the most memory a card has that AdaptersOnCards
// fine-tunes with adapters when no method is said: 48 GB.
const smallCardBytes = 48 << 30

// AdaptersOnCards puts a comparison of two small cards (48 GB or less)
// that leaves the method unsaid ("4090 or 3090 for finetuning 7b") on the
// method such a card fine-tunes with alone: when a full fine-tune does
// not fit one of either card, both options become LoRA, or QLoRA when
// LoRA does not fit one of each, with a note in place of the parser's
// "taken as full fine-tuning". Otherwise, for larger cards (a full
// fine-tune over a node of them is what they are rented for), and when a
// count, method or setting was said, the options are returned as they are
// (compared 8× RTX 4090 over two machines against 3090s).
// answer estimates a Query.
func AdaptersOnCards(opts [2]Request, answer func(sizing.Query) (sizing.Answer, error)) [2]Request {
	for _, p := range opts {
		q := p.Query
		if !p.MethodImplied || q.Method != sizing.MethodFull || q.GPU == "" || q.GPUs > 0 || q.Nodes > 0 || q.FromScratch {
			return opts
		}
		if g, _, err := sizing.LookupGPU(q.GPU); err != nil || g.MemoryBytes > smallCardBytes {
			return opts
		}
	}
	fitsOne := func(m sizing.Method) bool {
		for _, p := range opts {
			q := p.Query
			q.Method, q.GPUs = m, 1
			a, err := answer(q)
			if err == nil && !a.Fits && q.GradCheckpointing == nil {
				on := true // as the comparison itself tries before calling it too small
				q.GradCheckpointing = &on
				a, err = answer(q)
			}
			if err != nil || !a.Fits {
				return false
			}
		}
		return true
	}
	if fitsOne(sizing.MethodFull) {
		return opts
	}
	way := sizing.MethodLoRA
	if !fitsOne(way) {
		if way = sizing.MethodQLoRA; !fitsOne(way) {
			return opts
		}
	}
	for i := range opts {
		p := &opts[i]
		p.Query.Method, p.Query.GPUs, p.MethodImplied = way, 1, false
		p.Notes = slices.DeleteFunc(slices.Clone(p.Notes), func(n string) bool { return strings.HasSuffix(n, fullImpliedNote) })
		p.Notes = append(p.Notes, fmt.Sprintf("no method said, and a full fine-tune does not fit one of each card: compared as %s on one card each, the way such cards fine-tune (say full to compare full fine-tunes)", methodWords(way)))
	}
	return opts
}
