package sizing

import (
	"fmt"
	"strconv"
	"strings"
)

// maxFewestMachines is how many machines a count ask ("how many a100s")
// tries before it says none is enough: 128 machines of 8 hold a 1T
// full fine-tune on 80 GB cards with room to spare.
const maxFewestMachines = 128

// FewestGPUs is how a count ask was answered: the fewest of the named
// card that fit the question, counting 1, 2, 4 and 8 in one machine,
// then whole machines, with the ZeRO stage (and the parallel layout) the
// answer picks at that count, and gradient checkpointing turned on when
// the question left it unsaid and it saves cards.
type FewestGPUs struct {
	// Found is false when no count up to Tried fits; the answer is then
	// for one card, with its alternatives.
	Found bool `json:"found"`
	GPUs  int  `json:"gpus"`
	Nodes int  `json:"nodes"`
	// GradCheckpointing is true when the count needs checkpointing that
	// the question did not ask for.
	GradCheckpointing bool `json:"grad_checkpointing"`
	// FewerGPUs is the count below GPUs the search tried, and
	// FewerTotalBytes its smallest per-GPU total (with checkpointing
	// when that was free to choose); zero when GPUs is 1.
	FewerGPUs       int   `json:"fewer_gpus,omitempty"`
	FewerTotalBytes int64 `json:"fewer_total_bytes,omitempty"`
	// Tried is the largest count the search tried.
	Tried int `json:"tried"`
}

// fewestCounts are the counts a count ask tries on a card: 1, 2, 4 and 8
// within one machine, then every whole number of machines up to
// maxFewestMachines.
func fewestCounts(g *GPU) []int {
	per := MaxPerNode(*g)
	out := make([]int, 0, 4+maxFewestMachines)
	for _, c := range countSteps {
		if c <= per {
			out = append(out, c)
		}
	}
	if per > countSteps[len(countSteps)-1] {
		out = append(out, per)
	}
	if g.UnifiedMemory && per == 1 {
		return out
	}
	for m := 2; m <= maxFewestMachines; m++ {
		out = append(out, m*per)
	}
	return out
}

// fewest answers a count ask: q with GPUs (and checkpointing, when it
// saves cards and was not said) set to the fewest of q.GPU that fit, and
// how they were found. A question that cannot be resolved is returned as
// it is, for Answer to report.
func (e *Estimator) fewest(q Query) (Query, *FewestGPUs) {
	q.GPUs, q.Nodes = 1, 0
	first, err := resolve(q)
	if err != nil {
		q.GPUs = 0
		return q, nil
	}
	g := first.gpu
	mayCheckpoint := first.req.Method != MethodInference && q.GradCheckpointing == nil && !first.req.GradCheckpointing
	f := &FewestGPUs{}
	fits := func(qn Query) (int64, bool) {
		rs, err := resolve(qn)
		if err != nil {
			return 0, false
		}
		total := rs.memory(&rs.req).TotalBytes
		return total, total <= rs.gpu.MemoryBytes
	}
	for _, n := range fewestCounts(&g) {
		qn := q
		qn.GPUs = n
		f.Tried = n
		total, ok := fits(qn)
		if !ok && mayCheckpoint {
			on := true
			qn.GradCheckpointing = &on
			var with int64
			if with, ok = fits(qn); ok || (with > 0 && with < total) {
				total = with
			}
		}
		if ok {
			f.Found, f.GPUs = true, n
			f.Nodes = (n + MaxPerNode(g) - 1) / MaxPerNode(g)
			f.GradCheckpointing = qn.GradCheckpointing != nil && q.GradCheckpointing == nil
			return qn, f
		}
		if total > 0 {
			f.FewerGPUs, f.FewerTotalBytes = n, total
		}
	}
	return q, f
}

// fewestNote says how a count ask was answered, for the assumptions.
func fewestNote(f *FewestGPUs, g *GPU) string {
	per := MaxPerNode(*g)
	var within []string
	for _, n := range fewestCounts(g) {
		if n > per {
			break
		}
		within = append(within, strconv.Itoa(n))
	}
	steps := strings.Join(within, ", ")
	if k := len(within); k > 1 {
		steps = strings.Join(within[:k-1], ", ") + " and " + within[k-1]
	}
	s := fmt.Sprintf("how many: the fewest %s that fit, counting %s in one machine", g.Name, steps)
	if f.Tried > per {
		s += fmt.Sprintf(", then whole machines of %d", per)
	}
	if !f.Found {
		return s + fmt.Sprintf(", up to %d: none fits as asked, so the answer is for one, with the ways that fit", f.Tried)
	}
	if f.GradCheckpointing {
		s += "; gradient checkpointing on, though not asked: it lets fewer cards fit"
	}
	return s
}
