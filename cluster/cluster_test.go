package cluster

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// TestCatalogGPU maps the product names clusters report to catalog
// cards: GFD's nvidia.com/gpu.product values (NVIDIA/k8s-device-plugin
// docs/gpu-feature-discovery) and Slurm gres types (AutoDetect=nvml
// lower-cases the name and joins words with "_").
func TestCatalogGPU(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		product string
		memory  int64
		want    string
	}{
		{"NVIDIA-H100-80GB-HBM3", 81559 * mib, "h100"},
		{"NVIDIA-A100-SXM4-80GB", 0, "a100-80"},
		{"NVIDIA-A100-SXM4-40GB", 0, "a100-40"},
		{"NVIDIA-A100-PCIE-40GB", 0, "a100-40-pcie"},
		{"Tesla-T4", 15360 * mib, "t4"},
		{"NVIDIA-GeForce-RTX-4090", 0, "rtx-4090"},
		{"NVIDIA-L40S", 0, "l40s"},
		{"NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", 0, "h100"},
		{"A100-SXM4-40GB-MIG-1g.5gb", 0, "a100-40"},
		{"nvidia_a100-sxm4-80gb", 0, "a100-80"},
		{"h100", 0, "h100"},
		{"AMD-Instinct-MI300X", 0, "mi300x"},
		// The AMD GPU operator's product-name label: libdrm's amdgpu.ids
		// name with spaces as "_" (ROCm/k8s-device-plugin cmd/k8s-node-labeller).
		{"Instinct_MI300X", 0, "mi300x"},
		{"AMD_Instinct_MI300X", 0, "mi300x"},
		{"AMD_Instinct_MI300X_HF", 0, "mi300x"},
		{"AMD_Instinct_MI300X_VF", 0, "mi300x"},
		{"AMD_Instinct_MI325X", 0, "mi325x"},
		{"Instinct_MI210", 0, "mi210"},
		{"AMD_Instinct_MI100", 0, ""},
		{"a100", 40960 * mib, "a100-40"},
		{"a100", 81920 * mib, "a100-80"},
		{"NVIDIA-Quadro-Imaginary-9000", 0, ""},
		{"", 0, ""},
	} {
		if got := CatalogGPU(tc.product, tc.memory); got != tc.want {
			t.Errorf("CatalogGPU(%q, %d) = %q, want %q", tc.product, tc.memory, got, tc.want)
		}
	}
}

func snapshot() Snapshot {
	return NewSnapshot("test", time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC), []Node{
		{Name: "gpu-7", GPU: "h100", GPUsTotal: 8, GPUsFree: 2},
		{Name: "gpu-3", GPU: "h100", GPUsTotal: 8, GPUsFree: 1},
		{Name: "gpu-9", GPU: "h100", GPUsTotal: 8, GPUsFree: 8, Unavailable: "cordoned"},
		{Name: "a-1", GPU: "l40s", GPUsTotal: 4, GPUsFree: 4},
		{Name: "a-2", GPU: "l40s", GPUsTotal: 4, GPUsFree: 3},
		{Name: "cpu-1"},
	})
}

func TestNewSnapshotCountsFreeOnAvailableNodes(t *testing.T) {
	s := snapshot()
	if s.Nodes[0].Name != "a-1" {
		t.Errorf("nodes not sorted: first %q", s.Nodes[0].Name)
	}
	if got := s.Free["h100"]; got != 3 {
		t.Errorf("free h100 = %d, want 3 (the cordoned node's 8 are not free)", got)
	}
	if got := s.Free["l40s"]; got != 7 {
		t.Errorf("free l40s = %d, want 7", got)
	}
	if len(s.Free) != 2 {
		t.Errorf("free = %v, want two cards (a CPU node counts none)", s.Free)
	}
	cards := s.Cards()
	if len(cards) != 2 || cards[0].GPU != "l40s" || cards[1].Total != 24 || cards[1].Unavailable != 1 {
		t.Errorf("cards = %+v", cards)
	}
}

func TestPlace(t *testing.T) {
	s := snapshot()
	for _, tc := range []struct {
		need        Need
		nodes       string
		missing     string
		fabricWords string
	}{
		{Need{GPU: "h100", GPUs: 1}, "gpu-3:1", "", "NVLink"},
		{Need{GPU: "h100", GPUs: 2}, "gpu-7:2", "", "one node (gpu-7)"},
		{Need{GPU: "h100", GPUs: 4}, "", "needs 4 free H100s on one node; the most free is 2 on gpu-7", ""},
		{Need{GPU: "l40s", GPUs: 6, Nodes: 2}, "a-2:3,a-1:3", "", "2 nodes"},
		{Need{GPU: "l40s", GPUs: 8, Nodes: 2}, "", "needs 2 nodes with 4 free L40Ss each; only 1 has (a-1)", ""},
		{Need{GPU: "b200", GPUs: 1}, "", "the cluster has no B200", ""},
		{Need{MemoryBytes: 40 << 30, GPUs: 4}, "a-1:4", "", ""},
		{Need{MemoryBytes: 80 << 30, GPUs: 1}, "", "the cluster has no GPU with 80 GiB", ""},
	} {
		p := Place(s, tc.need)
		var got []string
		for _, u := range p.Nodes {
			got = append(got, u.Node+":"+itoa(u.GPUs))
		}
		if g := strings.Join(got, ","); g != tc.nodes {
			t.Errorf("Place(%+v) nodes = %q, want %q", tc.need, g, tc.nodes)
		}
		if p.Missing != tc.missing {
			t.Errorf("Place(%+v) missing = %q, want %q", tc.need, p.Missing, tc.missing)
		}
		if !strings.Contains(p.Fabric, tc.fabricWords) {
			t.Errorf("Place(%+v) fabric = %q, want it to say %q", tc.need, p.Fabric, tc.fabricWords)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// needs is a fake estimator: the job fits when the GPUs' memory in all
// reaches need bytes.
func needs(need int64) func(sizing.Query) (sizing.Answer, error) {
	return func(q sizing.Query) (sizing.Answer, error) {
		g, _, err := sizing.LookupGPU(q.GPU)
		if err != nil {
			return sizing.Answer{}, err
		}
		return sizing.Answer{Fits: int64(q.GPUs)*g.MemoryBytes >= need}, nil
	}
}

func TestOnCluster(t *testing.T) {
	s := snapshot()
	for _, tc := range []struct {
		name    string
		q       sizing.Query
		need    int64
		placed  bool
		gpu     string
		gpus    int
		nodes   int
		noteHas string
	}{
		{"one small card", sizing.Query{}, 40 << 30, true, "l40s", 1, 0, "1× L40S on a-2"},
		{"least memory on one node", sizing.Query{}, 150 << 30, true, "h100", 2, 0, "2× H100 on gpu-7"},
		{"named card", sizing.Query{GPU: "h100"}, 150 << 30, true, "h100", 2, 0, "2× H100 on gpu-7"},
		{"across nodes", sizing.Query{}, 250 << 30, true, "l40s", 6, 2, "3× L40S on each of a-2, a-1"},
		{"named card short", sizing.Query{GPU: "h100"}, 300 << 30, false, "h100", 0, 0, "needs 4 free H100s on one node; the most free is 2 on gpu-7"},
		{"too big", sizing.Query{}, 5000 << 30, false, "", 0, 0, "Answered on the cheapest cloud option instead"},
	} {
		f := OnCluster(s, tc.q, needs(tc.need))
		if f.Placed != tc.placed || f.Query.GPU != tc.gpu || f.Query.GPUs != tc.gpus || f.Query.Nodes != tc.nodes {
			t.Errorf("%s: placed %v on %d× %q over %d nodes, want %v on %d× %q over %d (%s)", tc.name, f.Placed, f.Query.GPUs, f.Query.GPU, f.Query.Nodes,
				tc.placed, tc.gpus, tc.gpu, tc.nodes, f.Note)
		}
		if !strings.Contains(f.Note, tc.noteHas) || !strings.Contains(f.Note, "read 15:04:05 UTC") {
			t.Errorf("%s: note %q, want it to say %q and when it was read", tc.name, f.Note, tc.noteHas)
		}
	}
}

type countingSource struct {
	reads int
	err   error
}

func (c *countingSource) Read(context.Context) (Snapshot, error) {
	c.reads++
	return snapshot(), c.err
}

func TestCacheKeepsAnswersAndFailuresForTheTTL(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	src := &countingSource{err: errors.New("down")}
	c := NewCache(src, 10*time.Second, func() time.Time { return now })
	for range 5 {
		if _, err := c.Read(context.Background()); err == nil {
			t.Fatal("the failure was not returned")
		}
	}
	if src.reads != 1 {
		t.Errorf("reads = %d within the TTL, want 1 (a failure is kept too)", src.reads)
	}
	now = now.Add(11 * time.Second)
	src.err = nil
	if _, err := c.Read(context.Background()); err != nil || src.reads != 2 {
		t.Errorf("after the TTL: err %v, reads %d, want a fresh read", err, src.reads)
	}
}

// FuzzCatalogGPU: any product name maps to a catalog id or to "", never
// panics, and a name that maps is stable under its own id.
func FuzzCatalogGPU(f *testing.F) {
	for _, s := range []string{"NVIDIA-H100-80GB-HBM3", "Tesla-T4", "A100-SXM4-40GB-MIG-1g.5gb", "nvidia_a100-sxm4-80gb", "--MIG-", ""} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, product string, memory int64) {
		id := CatalogGPU(product, memory)
		if id == "" {
			return
		}
		if CardMemory(id) == 0 {
			t.Errorf("CatalogGPU(%q) = %q, not a catalog card", product, id)
		}
	})
}

func TestAsked(t *testing.T) {
	for q, want := range map[string]bool{
		"can we run llama-3.1-70b qlora on our cluster right now?": true,
		"llama 3.1 8b lora on free gpus":                           true,
		"can we run mistral 7b now":                                true,
		"what's currently free":                                    true,
		"13b lora on the cluster":                                  true,
		"llama 3.1 8b lora on 2 h100":                              false,
		"known issues":                                             false,
		"nowhere 7b":                                               false,
	} {
		if got := Asked(q); got != want {
			t.Errorf("Asked(%q) = %v, want %v", q, got, want)
		}
	}
}

// slowSource answers when release is closed.
type slowSource struct{ release chan struct{} }

func (s slowSource) Read(context.Context) (Snapshot, error) {
	<-s.release
	return snapshot(), nil
}

func TestCacheAskerWithADeadlineDoesNotStopTheRead(t *testing.T) {
	src := slowSource{release: make(chan struct{})}
	c := NewCache(src, time.Minute, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.Read(ctx)
	var ce *Error
	if !errors.As(err, &ce) || ce.Kind != FaultUnreachable {
		t.Fatalf("err = %v, want an unreachable *Error when the asker's deadline passes", err)
	}
	close(src.release)
	s, err := c.Read(context.Background())
	if err != nil || len(s.Nodes) == 0 {
		t.Errorf("the next asker got %v, %d nodes: want the read that went on", err, len(s.Nodes))
	}
}

// TestNotFreeNowSaysSoFirst: a job that free GPUs do not hold is never
// placed on a node's total; the lead says what is missing, the nodes
// that would hold it when free, and the queue ahead of it.
func TestNotFreeNowSaysSoFirst(t *testing.T) {
	s := snapshot()
	for i := range s.Nodes {
		s.Nodes[i].Partitions = []string{"gpu"}
	}
	s.Nodes[0].Partitions = []string{"l40s"} // a-1 sorts first
	start := time.Date(2026, 12, 1, 16, 30, 0, 0, time.UTC)
	s.SetPending([]Pending{
		{Name: "7 train", GPUs: 8, Since: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC), Partition: "gpu", StartEstimate: &start},
		{Name: "8 other", GPUs: 2, Since: time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC), Partition: "l40s", StartEstimate: &start},
	})
	f := OnCluster(s, sizing.Query{GPU: "h100", GPUs: 8}, needs(300<<30))
	if f.Placed || f.Placement.FreeNow || f.Query.GPUs != 8 || len(f.Placement.Nodes) != 0 {
		t.Fatalf("placed %+v on 8 H100 with at most 2 free", f.Placement)
	}
	want := "Not free on the cluster now: needs 8 free H100s on one node; the most free is 2 on gpu-7. When free: gpu-3, gpu-7, gpu-9 (cordoned). 1 job waits ahead; the scheduler expects the last to start at Dec 1 16:30 UTC."
	if got := f.Lead(s); got != want {
		t.Errorf("lead\n got %q\nwant %q", got, want)
	}
	if f.Placement.Ahead != 1 || f.Placement.StartEstimate == nil || !f.Placement.StartEstimate.Equal(start) {
		t.Errorf("placement %+v", f.Placement)
	}
	placed := OnCluster(s, sizing.Query{}, needs(150<<30))
	if !placed.Placement.FreeNow || placed.Lead(s) != "" {
		t.Errorf("a placed job: %+v, lead %q", placed.Placement, placed.Lead(s))
	}
}

func TestQueueLine(t *testing.T) {
	s := snapshot()
	if s.QueueLine() != "" {
		t.Errorf("no queue read: %q", s.QueueLine())
	}
	s.SetPending(nil)
	if s.QueueLine() != "Queue: nothing waits for GPUs." {
		t.Errorf("empty queue: %q", s.QueueLine())
	}
	s.SetPending([]Pending{{Name: "a", GPUs: 4, Since: time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)}})
	if s.QueueLine() != "Queue: 1 job waits for 4 GPUs (the oldest since Dec 1 14:00 UTC); the scheduler gives no start time for all of them." || s.StartEstimate != nil {
		t.Errorf("queue line %q", s.QueueLine())
	}
	if Estimate(time.Unix(0, 0), time.Now()) != nil || Estimate(time.Now().Add(365*24*time.Hour), time.Now()) != nil {
		t.Error("a placeholder start time was kept")
	}
}
