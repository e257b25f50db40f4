package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// Need is what a sized job asks of the cluster.
type Need struct {
	GPU         string // catalog id; "" takes any card with MemoryBytes per GPU
	GPUs        int    // in all
	Nodes       int    // machines the GPUs are spread over evenly; 0 or 1: one machine
	MemoryBytes int64  // per GPU; 0: any
}

// Use is the GPUs a placement takes on one node.
type Use struct {
	Node string `json:"node"`
	GPU  string `json:"gpu"`
	GPUs int    `json:"gpus"`
}

// Placement is where a job would run now, or what is missing.
type Placement struct {
	// FreeNow reports whether free GPUs hold the job now.
	FreeNow bool   `json:"free_now"`
	Nodes   []Use  `json:"nodes,omitempty"` // empty when the job cannot be placed now
	Fabric  string `json:"fabric,omitempty"`
	Missing string `json:"missing,omitempty"` // "needs 4 free H100s on one node; the most free is 2 on gpu-7"
	// WhenFree names the nodes that would hold the job once their GPUs
	// are free (those not taking work say why), when it is not free now.
	WhenFree []string `json:"when_free,omitempty"`
	// Ahead counts the GPU jobs waiting in those nodes' partitions.
	Ahead int `json:"ahead,omitempty"`
	// StartEstimate is when the scheduler expects the last of those
	// jobs to start: the job would wait at least until then.
	StartEstimate *time.Time `json:"start_estimate,omitempty"`
}

// Placed reports whether the job has nodes.
func (p Placement) Placed() bool { return len(p.Nodes) > 0 }

// Place puts a job on the snapshot's free GPUs: on one node when need.Nodes
// is 0 or 1, the node with the fewest free GPUs that still takes it (so
// the emptiest nodes stay free for larger jobs); across need.Nodes nodes
// with an even share each otherwise. When it cannot, Missing says what
// is short.
func Place(s Snapshot, need Need) Placement {
	gpus := max(need.GPUs, 1)
	nodes := max(need.Nodes, 1)
	per := (gpus + nodes - 1) / nodes
	var fit []Node // available nodes with the card and room for a share
	var best *Node // the available node of the card with the most free
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Unavailable != "" || n.GPUsTotal == 0 || !n.takes(need) {
			continue
		}
		if best == nil || n.GPUsFree > best.GPUsFree {
			best = n
		}
		if n.GPUsFree >= per {
			fit = append(fit, *n)
		}
	}
	card := cardWords(need)
	if len(fit) < nodes {
		return Placement{Missing: missing(s, need, card, per, nodes, best, fit)}
	}
	slices.SortStableFunc(fit, func(a, b Node) int { return cmp.Compare(a.GPUsFree, b.GPUsFree) })
	p := Placement{FreeNow: true}
	for _, n := range fit[:nodes] {
		p.Nodes = append(p.Nodes, Use{Node: n.Name, GPU: n.GPU, GPUs: per})
	}
	p.Fabric = fabric(p.Nodes)
	return p
}

// takes reports whether the node's card is the one the job needs.
func (n *Node) takes(need Need) bool {
	if need.GPU != "" && n.GPU != need.GPU {
		return false
	}
	return need.MemoryBytes <= 0 || n.MemoryBytes >= need.MemoryBytes
}

// missing says what a job lacks: "needs 4 free H100s on one node; the
// most free is 2 on gpu-7".
func missing(s Snapshot, need Need, card string, per, nodes int, best *Node, fit []Node) string {
	switch {
	case best == nil && !s.has(need):
		return fmt.Sprintf("the cluster has no %s", card)
	case best == nil:
		return fmt.Sprintf("no node with %s takes work now (all cordoned, drained or down)", card)
	case nodes == 1 && best.GPUsFree == 0:
		return fmt.Sprintf("needs %s on one node; none is free", count(per, "free "+card))
	case nodes == 1:
		return fmt.Sprintf("needs %s on one node; the most free is %d on %s", count(per, "free "+card), best.GPUsFree, best.Name)
	}
	names := make([]string, 0, len(fit))
	for _, n := range fit {
		names = append(names, n.Name)
	}
	have := "none has"
	if len(fit) > 0 {
		have = fmt.Sprintf("only %d %s (%s)", len(fit), plural(len(fit), "has", "have"), strings.Join(names, ", "))
	}
	return fmt.Sprintf("needs %d nodes with %s each; %s", nodes, count(per, "free "+card), have)
}

// has reports whether any node has the card, available or not.
func (s Snapshot) has(need Need) bool {
	return slices.ContainsFunc(s.Nodes, func(n Node) bool { return n.GPUsTotal > 0 && n.takes(need) })
}

// cardWords names the card a job needs: "H100", "GPU with 40 GiB".
func cardWords(need Need) string {
	if need.GPU != "" {
		return shortName(need.GPU)
	}
	if need.MemoryBytes > 0 {
		return fmt.Sprintf("GPU with %.0f GiB", float64(need.MemoryBytes)/(1<<30))
	}
	return "GPU"
}

// shortName is a catalog card as people say it: "H100" for "H100 SXM 80
// GB", "RTX 4090" for "RTX 4090 24 GB", "H100 PCIe" for "H100 PCIe 80 GB".
func shortName(id string) string {
	g, _, err := sizing.LookupGPU(id)
	if err != nil {
		return id
	}
	f := strings.Fields(strings.Replace(g.Name, " SXM", "", 1))
	if len(f) > 2 && f[len(f)-1] == "GB" {
		f = f[:len(f)-2]
	}
	return strings.Join(f, " ")
}

// fabric states how the placed GPUs talk: the card's link within a node,
// the network between nodes.
func fabric(uses []Use) string {
	link := "the node's GPU link"
	if g, _, err := sizing.LookupGPU(uses[0].GPU); err == nil {
		link = linkWords(g.Link)
	}
	if len(uses) == 1 {
		return fmt.Sprintf("one node (%s): %s between its GPUs", uses[0].Node, link)
	}
	return fmt.Sprintf("%d nodes: %s within each, the cluster's network between them (not read from the cluster; sized on the reference system's network for this card)", len(uses), link)
}

func linkWords(link string) string {
	switch link {
	case sizing.LinkNVLink:
		return "NVLink"
	case sizing.LinkPCIe:
		return "PCIe"
	case sizing.LinkInfinityFabric:
		return "Infinity Fabric"
	}
	return link
}

// count is "4 free H100s", "1 free H100".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
