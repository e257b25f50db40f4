package answer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/sizing"
)

// liveCluster is a cluster read once: snap, or err.
type liveCluster struct {
	snap cluster.Snapshot
	err  error
}

func (c liveCluster) Read(context.Context) (cluster.Snapshot, error) { return c.snap, c.err }

func clusterOf(free ...int) liveCluster {
	var nodes []cluster.Node
	for i, f := range free {
		nodes = append(nodes, cluster.Node{Name: "gpu-" + string(rune('1'+i)), GPU: "h100", GPUsTotal: 8, GPUsFree: f})
	}
	return liveCluster{snap: cluster.NewSnapshot("kubernetes (context lab)", time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC), nodes)}
}

func TestOnCluster(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		text     string
		cluster  Cluster
		placed   bool
		gpus     int
		noteHas  string
		machines bool // sized on the team's machines instead
	}{
		{"fits on one node", "can we run llama-3.1-70b qlora on our cluster right now?", clusterOf(1, 2), true, 1, "1× H100 on gpu-1", false},
		{"too little free", "llama-3.1-70b lora on our cluster right now", clusterOf(1, 2, 0), false, 0, "the most free is 2 on gpu-2", false},
		{"unreadable", "llama-3.1-8b lora on our cluster", liveCluster{err: &cluster.Error{Source: "Kubernetes", Kind: cluster.FaultForbidden, Detail: "the API server refused to list nodes"}}, false, 8, "The cluster could not be read (Kubernetes cluster forbidden", true},
		{"none configured", "llama-3.1-8b lora right now", nil, false, 8, "No live cluster is configured", true},
	} {
		est := Fixed{&sizing.Estimator{}}
		s := &Service{Estimator: est, Asker: est, Machines: teamMachines{}}
		if tc.cluster != nil {
			s.Cluster = tc.cluster
		}
		q := s.Resolve(ctx, "T1", s.Read(tc.text))
		if q.Err != nil {
			t.Fatalf("%s: %v", tc.name, q.Err)
		}
		f, err := s.Fit(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		notes := strings.Join(f.Answer.Assumptions, " | ")
		if !strings.Contains(notes, tc.noteHas) {
			t.Errorf("%s: assumptions %q, want them to say %q", tc.name, notes, tc.noteHas)
		}
		if tc.machines {
			if f.OnCluster != nil || q.Parsed.Query.GPU != "h100" {
				t.Errorf("%s: sized on %d× %q, want the team's machines", tc.name, q.Parsed.Query.GPUs, q.Parsed.Query.GPU)
			}
			continue
		}
		if f.OnCluster == nil || f.OnCluster.Placed != tc.placed {
			t.Fatalf("%s: OnCluster = %+v, want placed %v", tc.name, f.OnCluster, tc.placed)
		}
		if tc.placed && (q.Parsed.Query.GPU != "h100" || q.Parsed.Query.GPUs != tc.gpus || !f.Answer.Fits) {
			t.Errorf("%s: sized on %d× %q (fits %v), want %d× h100", tc.name, q.Parsed.Query.GPUs, q.Parsed.Query.GPU, f.Answer.Fits, tc.gpus)
		}
		if !tc.placed && (!f.Answer.GPUChosen || !strings.Contains(notes, "cheapest cloud option")) {
			t.Errorf("%s: not placed, want the cheapest cloud card said as such: chosen %v, %q", tc.name, f.Answer.GPUChosen, notes)
		}
	}
}

func TestClusterProblemNeverShowsAnUnknownError(t *testing.T) {
	if got := cluster.Explain(errors.New("Bearer abc123 rejected")); strings.Contains(got, "abc123") {
		t.Errorf("Explain showed an unchecked error: %q", got)
	}
}

// TestCloudAskedIsNotOnTheTeamsMachines: a question that says it rents
// ("cloud credits", a provider) is sized on the cloud's cards, unless it
// names one of the team's machines.
func TestCloudAskedIsNotOnTheTeamsMachines(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		text string
		gpu  string // "" for the cloud's choice
	}{
		{"we have ~$2k in cloud credits left. could i do a full finetune of qwen2.5 14b on 300M tokens with that?", ""},
		{"llama-3.1-8b lora on 100M tokens on runpod", ""},
		{"llama-3.1-8b lora on 100M tokens", "h100"},
		{"could the 4090 do a 1b lora or should we rent?", "rtx-4090"},
	} {
		est := Fixed{&sizing.Estimator{}}
		s := &Service{Estimator: est, Asker: est, Machines: teamMachines{}}
		q := s.Resolve(ctx, "T1", s.Read(tc.text))
		if q.Err != nil {
			t.Fatalf("%q: %v", tc.text, q.Err)
		}
		if got := q.Parsed.Query.GPU; got != tc.gpu {
			t.Errorf("%q: sized on %q, want %q", tc.text, got, tc.gpu)
		}
	}
}
