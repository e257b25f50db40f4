package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
	missing, need := shortfall(s, q, answer)
	f := Fit{Query: q, Placement: Placement{Missing: missing}}
	if need.GPUs > 0 {
		f.Placement.WhenFree = whenFree(s, need)
		ahead := s.Ahead(partitionsOf(s, f.Placement.WhenFree))
		f.Placement.Ahead = len(ahead)
		f.Placement.StartEstimate = lastStart(ahead)
	}
	f.Note = fmt.Sprintf("Not on the cluster now: %s (%s). Answered on the cheapest cloud option instead.", f.Placement.Missing, read)
	return f
}

// Lead is the line a "right now" answer starts with when free GPUs do
// not hold the job: what is missing, the nodes that would hold it when
// free, the queue ahead of it; "" when the job is placed.
func (f Fit) Lead(s Snapshot) string {
	p := f.Placement
	if p.FreeNow {
		return ""
	}
	line := "Not free on the cluster now: " + p.Missing + "."
	if len(p.WhenFree) > 0 {
		line += " When free: " + strings.Join(p.WhenFree, ", ") + "."
	}
	if s.Pending != nil {
		switch {
		case p.Ahead == 0:
			line += " Nothing waits ahead of it."
		case p.StartEstimate != nil:
			line += fmt.Sprintf(" %d %s ahead; %s expects the last to start at %s.", p.Ahead, plural(p.Ahead, "job waits", "jobs wait"), s.scheduler(), clockWords(*p.StartEstimate))
		default:
			line += fmt.Sprintf(" %d %s ahead, with no start time for all of them.", p.Ahead, plural(p.Ahead, "job waits", "jobs wait"))
		}
	}
	return line
}

// maxWhenFree bounds the nodes a Lead names.
const maxWhenFree = 4

// whenFree names the nodes whose GPUs, all free, would hold the job's
// share on one node: "gpu-3", "gpu-4 (drained)"; the nodes taking work
// first, at most maxWhenFree, then "and N more".
func whenFree(s Snapshot, need Need) []string {
	per := (need.GPUs + max(need.Nodes, 1) - 1) / max(need.Nodes, 1)
	var up, out []string
	for _, n := range s.Nodes {
		if !n.takes(need) || n.GPUsTotal < per || n.GPUsTotal == 0 {
			continue
		}
		if n.Unavailable == "" {
			up = append(up, n.Name)
		} else {
			out = append(out, n.Name+" ("+n.Unavailable+")")
		}
	}
	all := append(up, out...)
	if len(all) > maxWhenFree {
		all = append(all[:maxWhenFree:maxWhenFree], fmt.Sprintf("and %d more", len(all)-maxWhenFree))
	}
	return all
}

// partitionsOf gathers the partitions of the named nodes (a WhenFree
// entry may carry a reason after the name).
func partitionsOf(s Snapshot, names []string) []string {
	var out []string
	for _, n := range s.Nodes {
		for _, name := range names {
			if name == n.Name || strings.HasPrefix(name, n.Name+" (") {
				for _, p := range n.Partitions {
					if !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
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
func shortfall(s Snapshot, q sizing.Query, answer func(sizing.Query) (sizing.Answer, error)) (string, Need) {
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
		return "the cluster has no available GPU fitbot knows" + unknownCards(s), Need{}
	}
	g, _, err := sizing.LookupGPU(id)
	if err != nil {
		return "the cluster has no available GPU fitbot knows" + unknownCards(s), Need{}
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
		return msg, Need{}
	}
	n := Need{GPU: id, GPUs: need}
	return Place(s, n).Missing, n
}

// unknownCards names the cards the cluster has that fitbot's catalog
// lacks: " (it has 8× AMD_Instinct_MI400X, not in fitbot's catalog)".
func unknownCards(s Snapshot) string {
	var names []string
	for _, c := range s.Cards() {
		if c.GPU == c.Name && CardMemory(c.GPU) == 0 {
			names = append(names, fmt.Sprintf("%d× %s", c.Total, c.Name))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (it has " + strings.Join(names, ", ") + ", not in fitbot's catalog)"
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
