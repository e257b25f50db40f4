package cluster

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fitbot/fitbot/sizing"
)

// Fit is a question put on the cluster's free GPUs.
type Fit struct {
	// Query is the question on the GPUs chosen; the question as asked
	// when nothing free takes it (the answer then picks a cloud card).
	Query     sizing.Query
	Placed    bool
	Placement Placement
	Note      string // said in the answer: where it runs, or what is missing
}

// maxSpread is the most nodes a job is spread over when no one node
// takes it.
const maxSpread = 16

// OnCluster sizes a question on the free GPUs of the snapshot: the
// smallest set of one card on one node that the job fits (the card
// with the least memory in all, so large nodes stay free), then across
// nodes with an even share on each; answer is the estimator. A question
// that names a card or a count keeps them. When nothing free takes the
// job the query is returned as asked and the note says what is missing
// and that the answer falls back to the cloud.
func OnCluster(s Snapshot, q sizing.Query, answer func(sizing.Query) (sizing.Answer, error)) Fit {
	cards := freeCards(s, q.GPU)
	read := fmt.Sprintf("%s, read %s", s.Source, s.CheckedAt.Format("15:04:05 UTC"))
	type choice struct {
		q     sizing.Query
		need  Need
		total int64 // GPU memory taken in all
	}
	var one, spread *choice
	for _, c := range cards {
		for _, n := range counts(c.maxOne, q.GPUs) {
			qq := q
			qq.GPU, qq.GPUs, qq.Nodes, qq.GPUMemoryBytes = c.id, n, 0, 0
			if a, err := answer(qq); err == nil && a.Fits {
				ch := &choice{q: qq, need: Need{GPU: c.id, GPUs: n}, total: int64(n) * c.memory}
				if one == nil || ch.total < one.total {
					one = ch
				}
				break
			}
		}
		if one != nil || spread != nil {
			continue
		}
		for k := 2; k <= min(len(c.free), maxSpread); k++ {
			per := c.free[k-1] // the k-th most free: every one of the top k has at least this many
			if q.GPUs > 0 {
				if q.GPUs%k != 0 || q.GPUs/k > per {
					continue
				}
				per = q.GPUs / k
			}
			qq := q
			qq.GPU, qq.GPUs, qq.Nodes, qq.GPUMemoryBytes = c.id, k*per, k, 0
			if a, err := answer(qq); err == nil && a.Fits {
				spread = &choice{q: qq, need: Need{GPU: c.id, GPUs: k * per, Nodes: k}}
				break
			}
		}
	}
	best := cmp.Or(one, spread)
	if best != nil {
		p := Place(s, best.need)
		if p.Placed() {
			return Fit{Query: best.q, Placed: true, Placement: p,
				Note: fmt.Sprintf("On the cluster's free GPUs now: %s; %s (%s).", usesWords(p.Nodes), p.Fabric, read)}
		}
	}
	f := Fit{Query: q, Placement: Placement{Missing: shortfall(s, q, answer)}}
	f.Note = fmt.Sprintf("Not on the cluster now: %s (%s). Answered on the cheapest cloud option instead.", f.Placement.Missing, read)
	return f
}

// card is one catalog card with free GPUs on available nodes.
type card struct {
	id     string
	memory int64
	maxOne int   // the most free on one node
	free   []int // free GPUs per node, most first
}

// freeCards lists the cards with free GPUs, least memory first; only
// want when a card was named.
func freeCards(s Snapshot, want string) []card {
	by := map[string]*card{}
	var out []*card
	for _, n := range s.Nodes {
		if n.Unavailable != "" || n.GPU == "" || n.GPUsFree == 0 || (want != "" && n.GPU != want) {
			continue
		}
		c := by[n.GPU]
		if c == nil {
			c = &card{id: n.GPU, memory: cmp.Or(CardMemory(n.GPU), n.MemoryBytes)}
			by[n.GPU] = c
			out = append(out, c)
		}
		c.maxOne = max(c.maxOne, n.GPUsFree)
		c.free = append(c.free, n.GPUsFree)
	}
	slices.SortFunc(out, func(a, b *card) int { return cmp.Or(cmp.Compare(a.memory, b.memory), cmp.Compare(a.id, b.id)) })
	cards := make([]card, 0, len(out))
	for _, c := range out {
		slices.SortFunc(c.free, func(a, b int) int { return cmp.Compare(b, a) })
		cards = append(cards, *c)
	}
	return cards
}

// counts are the GPU counts tried on one node, fewest first: the asked
// count alone when one was asked, else 1, 2, 4, 8... and the node's most.
func counts(most, asked int) []int {
	if asked > 0 {
		if asked <= most {
			return []int{asked}
		}
		return nil
	}
	var out []int
	for n := 1; n < most; n *= 2 {
		out = append(out, n)
	}
	return append(out, most)
}

// shortfall says what the job lacks on the cluster: for the card with
// the most free GPUs on one node (the asked card when one was named),
// the fewest of it one node would need and the most free now.
func shortfall(s Snapshot, q sizing.Query, answer func(sizing.Query) (sizing.Answer, error)) string {
	id := q.GPU
	if id == "" {
		bestFree := -1
		for _, n := range s.Nodes {
			if n.GPU != "" && n.Unavailable == "" && n.GPUsFree > bestFree {
				id, bestFree = n.GPU, n.GPUsFree
			}
		}
	}
	if id == "" {
		return "the cluster has no available GPU fitbot knows"
	}
	g, _, err := sizing.LookupGPU(id)
	if err != nil {
		return "the cluster has no available GPU fitbot knows"
	}
	need := q.GPUs
	if need == 0 {
		for n := 1; n <= max(g.MaxPerNode, 1); n *= 2 {
			qq := q
			qq.GPU, qq.GPUs, qq.Nodes = id, n, 0
			if a, err := answer(qq); err == nil && a.Fits {
				need = n
				break
			}
		}
	}
	if need == 0 {
		most, on := 0, ""
		for _, n := range s.Nodes {
			if n.GPU == id && n.Unavailable == "" && n.GPUsFree > most {
				most, on = n.GPUsFree, n.Name
			}
		}
		msg := fmt.Sprintf("needs more than one node of %d %ss, and the free ones do not add up to enough nodes", g.MaxPerNode, shortName(id))
		if on != "" {
			msg += fmt.Sprintf(" (the most free on one node is %d on %s)", most, on)
		}
		return msg
	}
	return Place(s, Need{GPU: id, GPUs: need}).Missing
}

// usesWords is "2 × H100 on gpu-3", "4 × H100 on each of gpu-1, gpu-2".
func usesWords(uses []Use) string {
	if len(uses) == 1 {
		return fmt.Sprintf("%d× %s on %s", uses[0].GPUs, shortName(uses[0].GPU), uses[0].Node)
	}
	names := ""
	for i, u := range uses {
		if i > 0 {
			names += ", "
		}
		names += u.Node
	}
	return fmt.Sprintf("%d× %s on each of %s", uses[0].GPUs, shortName(uses[0].GPU), names)
}
