package bot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestTeamHardware: a team names its machines, lists and removes them,
// and questions about "our box", or with no GPU at all, are sized on
// them with the assumption said.
func TestTeamHardware(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer, c.Hardware = reading.Parse, Fixed{&sizing.Estimator{}}, db })
	ask := func(text string) string { return messageJSON(t, h.Command(ctx, slash(text))) }
	steps := []struct {
		text    string
		want    []string
		notWant []string
	}{
		{"hardware", []string{"The team has named no machines yet"}, nil},
		{"13b qlora", []string{"QLoRA on 1×"}, []string{"the team's"}},
		{"hardware add our box: 2x rtx-4090, 128 GB RAM", []string{"Saved *our box*: 2× RTX 4090 24 GB, 128 GB RAM"}, nil},
		{"hardware add the cluster: 4 nodes of 8 h100", []string{"Saved *the cluster*: 4 machines of 8× H100 SXM 80 GB"}, nil},
		{"hardware", []string{"*our box*: 2× RTX 4090 24 GB, 128 GB RAM", "*the cluster*: 4 machines of 8× H100"}, nil},
		{"can we qlora llama 3 8b on our box?", []string{"on 2× RTX 4090 24 GB", `\"our box\" is the team's 2× RTX 4090 24 GB, 128 GB RAM`}, nil},
		{"llama 3.1 70b full on the cluster", []string{"32× H100", `\"the cluster\" is the team's 4 machines of 8× H100 SXM 80 GB`}, nil},
		{"13b qlora", []string{"2× RTX 4090", `no GPU named: sized on \"our box\"`, "the smallest of the team's 2 machines it fits on"}, nil},
		{"13b qlora 4090", []string{"1× RTX 4090"}, []string{"the team's"}},
		{"hardware add box: 13b lora 4090", []string{"is a question, not hardware"}, nil},
		{"hardware remove our box", []string{"Removed our box"}, nil},
		{"hardware remove our box", []string{"The team has no machine named “our box”"}, nil},
		{"hardwre", []string{"There is no subcommand “hardwre”"}, nil},
	}
	for _, s := range steps {
		got := ask(s.text)
		for _, w := range s.want {
			if !strings.Contains(got, w) {
				t.Errorf("/fit %s: reply lacks %s:\n%s", s.text, w, got)
			}
		}
		for _, w := range s.notWant {
			if strings.Contains(got, w) {
				t.Errorf("/fit %s: reply has %s:\n%s", s.text, w, got)
			}
		}
	}
	other := slash("hardware")
	other.TeamID = "T0OTHER"
	if got := messageJSON(t, h.Command(ctx, other)); !strings.Contains(got, "no machines yet") {
		t.Errorf("another team sees the machines:\n%s", got)
	}
}

// liveCluster is a cluster read once: snap, or err.
type liveCluster struct {
	snap cluster.Snapshot
	err  error
}

func (c liveCluster) Read(context.Context) (cluster.Snapshot, error) { return c.snap, c.err }

// TestClusterCommand: `/fit cluster` lists the live cluster's GPUs; a
// refused read says why and lists the team's static machines; a question
// about the cluster names the node.
func TestClusterCommand(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.SaveMachine(ctx, "T1DC2JH3J", sizing.Machine{Name: "our box", GPU: "rtx-4090", GPUs: 2, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	snap := cluster.NewSnapshot("kubernetes (context lab)", testNow, []cluster.Node{
		{Name: "gpu-1", GPU: "h100", GPUsTotal: 8, GPUsFree: 2},
		{Name: "gpu-2", GPU: "h100", GPUsTotal: 8, GPUsFree: 8, Unavailable: "cordoned"},
		{Name: "gpu-4", GPU: "a100-80", MIG: []cluster.MIG{{Profile: "1g.10gb", Total: 7, Free: 4}}},
	})
	for _, tc := range []struct {
		name    string
		cluster ClusterReader
		text    string
		want    []string
	}{
		{"listed", liveCluster{snap: snap}, "cluster", []string{"The team's cluster", "*H100 SXM 80 GB*: 2 free of 16 on 2 nodes (1 not taking work)", "`gpu-2` h100 _cordoned_ (8 GPUs)", "MIG 1g.10gb 4 of 7 free", "from kubernetes (context lab)"}},
		{"refused", liveCluster{err: &cluster.Error{Source: "Kubernetes", Kind: cluster.FaultForbidden, Detail: "the API server refused to list nodes"}}, "cluster", []string{"Kubernetes cluster forbidden", "*our box*: 2× RTX 4090"}},
		{"none", nil, "cluster", []string{"no cluster is configured", "*our box*"}},
		{"question", liveCluster{snap: snap}, "can we run llama-3.1-70b qlora on our cluster right now?", []string{"1× H100 on gpu-1", "1× H100 SXM 80 GB"}},
		{"what's free", liveCluster{snap: snap}, "what's free on our cluster right now?", []string{"The team's cluster", "*H100 SXM 80 GB*: 2 free of 16"}},
	} {
		h := newTestHandler(t, func(c *Config) {
			c.Parse, c.Answer, c.Hardware, c.Cluster = reading.Parse, Fixed{&sizing.Estimator{}}, db, tc.cluster
		})
		got := messageJSON(t, h.Command(ctx, slash(tc.text)))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: /fit %s lacks %q:\n%s", tc.name, tc.text, w, got)
			}
		}
	}
}
