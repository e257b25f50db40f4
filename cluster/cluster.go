package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// Node is one machine of the cluster as read now.
type Node struct {
	Name string `json:"name"`
	// GPU is the catalog id of the node's card ("h100"), "" when the
	// card is not in fitbot's catalog (Product then says what it is).
	GPU string `json:"gpu"`
	// Product is the card as the cluster names it
	// ("NVIDIA-H100-80GB-HBM3", "gpu:h100"); "" when not said.
	Product   string `json:"product,omitempty"`
	GPUsTotal int    `json:"gpus_total"`
	// GPUsFree is what a job could be given now: the total less what
	// running and pending work holds; 0 on an unavailable node.
	GPUsFree int `json:"gpus_free"`
	// MemoryBytes is one GPU's memory: the cluster's own figure where it
	// gives one (GFD's nvidia.com/gpu.memory), else the catalog card's.
	MemoryBytes int64 `json:"memory_bytes"`
	// Unavailable says why the node takes no work ("cordoned",
	// "NotReady", "drained", "down"); "" when it does.
	Unavailable string `json:"unavailable,omitempty"`
	// Partitions are the Slurm partitions (or the Kubernetes node pool)
	// the node belongs to.
	Partitions []string `json:"partitions,omitempty"`
	// MIG lists MIG profiles present on the node ("1g.10gb") with how
	// many instances of each are free.
	MIG []MIG `json:"mig,omitempty"`
}

// MIG is one Multi-Instance GPU profile on a node.
type MIG struct {
	Profile string `json:"profile"` // "1g.10gb"
	Total   int    `json:"total"`
	Free    int    `json:"free"`
}

// Snapshot is the cluster as read at one moment. Its JSON is DESIGN.md's
// `cluster` object.
type Snapshot struct {
	Source    string    `json:"source"` // "kubernetes (context prod)", "slurm (https://slurm.example:6820)"
	CheckedAt time.Time `json:"checked_at"`
	Nodes     []Node    `json:"nodes"`
	// Free counts the free GPUs of each catalog card over the available
	// nodes; a card outside the catalog is counted under its product name.
	Free map[string]int `json:"free"`
	// Pending is what waits for GPUs, in the order the queue drains; nil
	// (JSON null) when the source does not read a queue.
	Pending []Pending `json:"pending"`
	// StartEstimate is when the scheduler expects the last pending job to
	// start; nil when it gives no estimate for each of them.
	StartEstimate *time.Time `json:"start_estimate,omitempty"`
}

// NewSnapshot orders the nodes by name, fills a node's GPU memory from
// the catalog where the cluster gave none, and counts the free GPUs.
func NewSnapshot(source string, at time.Time, nodes []Node) Snapshot {
	slices.SortFunc(nodes, func(a, b Node) int { return cmp.Compare(a.Name, b.Name) })
	free := map[string]int{}
	for i := range nodes {
		n := &nodes[i]
		if n.Unavailable != "" {
			n.GPUsFree = 0
		}
		if n.MemoryBytes == 0 {
			n.MemoryBytes = CardMemory(n.GPU)
		}
		n.GPUsFree = max(0, min(n.GPUsFree, n.GPUsTotal))
		if n.GPUsTotal > 0 {
			free[n.card()] += n.GPUsFree
		}
	}
	if nodes == nil {
		nodes = []Node{}
	}
	return Snapshot{Source: source, CheckedAt: at.UTC(), Nodes: nodes, Free: free}
}

// card is the key the node's GPUs are counted under.
func (n Node) card() string { return cmp.Or(n.GPU, n.Product, "unknown") }

// Source reads a cluster. Implementations only read; they never change it.
type Source interface {
	Read(ctx context.Context) (Snapshot, error)
}

// Fault kinds: why a cluster could not be read.
const (
	FaultUnreachable = "unreachable"   // no answer: DNS, connection, TLS, timeout
	FaultForbidden   = "forbidden"     // the credentials are refused or lack the right to list
	FaultBadAnswer   = "bad answer"    // an answer fitbot could not read
	FaultConfig      = "misconfigured" // the settings do not name a cluster fitbot can read
)

// Error is a cluster that could not be read, in words safe to show: it
// never carries a token.
type Error struct {
	Source string // "Kubernetes", "Slurm"; "" when not known
	Kind   string // one of the Fault constants
	Detail string // what went wrong, safe to show
	Err    error  // the cause, for logs and errors.Is
}

func (e *Error) Error() string {
	name := "cluster"
	if e.Source != "" {
		name = e.Source + " cluster"
	}
	return fmt.Sprintf("%s %s: %s", name, e.Kind, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// Explain is a failed read in words safe to show: an *Error's own,
// ErrNotConfigured's, else a generic phrase (an error fitbot has not
// checked may quote what it should not).
func Explain(err error) string {
	var ce *Error
	switch {
	case errors.As(err, &ce):
		return ce.Error()
	case errors.Is(err, ErrNotConfigured):
		return ErrNotConfigured.Error()
	}
	return "the cluster could not be read"
}

// indexASCIIFold is the byte index of the ASCII word sub in s, ignoring
// ASCII case, or -1. Unlike an index into strings.ToUpper(s), it is an
// index into s itself whatever else s holds (ToUpper turns an invalid
// byte into three).
func indexASCIIFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// ErrNotConfigured is a question about the cluster where none is set up.
var ErrNotConfigured = errors.New("no cluster is configured: set KUBECONFIG (or run fitbot in the cluster), or FITBOT_SLURM_URL and FITBOT_SLURM_TOKEN")

// CatalogGPU maps a card as a cluster names it ("NVIDIA-H100-80GB-HBM3",
// "Tesla-T4", "nvidia_a100-sxm4-80gb", "h100") to a catalog id; memory,
// when known (bytes per GPU), picks between variants of one name ("a100"
// 40 or 80 GB). A MIG suffix ("-MIG-1g.10gb") is dropped: the card is the
// whole GPU. It returns "" for a card fitbot does not know.
func CatalogGPU(product string, memoryBytes int64) string {
	name := strings.NewReplacer("-", " ", "_", " ").Replace(strings.TrimSpace(product))
	if i := indexASCIIFold(name, " MIG "); i >= 0 {
		name = name[:i]
	}
	name = amdVariant(name)
	if name == "" || len(name) > 100 {
		return ""
	}
	g, note, err := sizing.LookupGPU(name)
	if err != nil {
		return ""
	}
	if note == "" || memoryBytes <= 0 {
		return g.ID
	}
	// An ambiguous name: prefer the variant whose memory is nearest.
	best, bestDiff := g.ID, absDiff(g.MemoryBytes, memoryBytes)
	for _, c := range sizing.GPUs() {
		if c.Vendor != g.Vendor || !sameFamily(c.ID, g.ID) {
			continue
		}
		if d := absDiff(c.MemoryBytes, memoryBytes); d < bestDiff {
			best, bestDiff = c.ID, d
		}
	}
	return best
}

// amdVariant drops what AMD's product names add to a card's name (libdrm
// amdgpu.ids, as the AMD GPU operator's labeller writes it): a second
// name ("MI250X / MI250"), and the form or mode words OAM, HF and VF
// ("AMD Instinct MI300X VF" is an MI300X).
func amdVariant(name string) string {
	if i := strings.Index(name, " / "); i >= 0 {
		name = name[:i]
	}
	for {
		f := strings.Fields(name)
		if len(f) < 2 || !slices.ContainsFunc([]string{"OAM", "HF", "VF"}, func(w string) bool { return strings.EqualFold(f[len(f)-1], w) }) {
			return name
		}
		name = strings.Join(f[:len(f)-1], " ")
	}
}

// sameFamily reports whether two catalog ids are variants of one card
// ("a100-40", "a100-80-pcie"): the same first word, and the same form
// factor (PCIe or not).
func sameFamily(a, b string) bool {
	fa, _, _ := strings.Cut(a, "-")
	fb, _, _ := strings.Cut(b, "-")
	return fa == fb && strings.HasSuffix(a, "-pcie") == strings.HasSuffix(b, "-pcie")
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// CardMemory is a catalog card's memory per GPU, 0 for an unknown id.
func CardMemory(id string) int64 {
	if id == "" {
		return 0
	}
	g, _, err := sizing.LookupGPU(id)
	if err != nil {
		return 0
	}
	return g.MemoryBytes
}
