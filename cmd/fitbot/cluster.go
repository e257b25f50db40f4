package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/cluster/kube"
	"github.com/fitbot/fitbot/cluster/slurm"
)

const clusterUsage = `Usage: fitbot cluster [--json]

Lists the team's live cluster: GPUs by card and by node, free and total,
and when they were read. Free GPUs are those no running or pending job
holds, on nodes that take work (cordoned, NotReady, drained and down
nodes count none). fitbot only reads the cluster.

A question that asks about it ("on our cluster", "right now", "free")
is sized on the free GPUs and names the nodes:
  fitbot fit can we run llama-3.1-70b qlora on our cluster right now

Kubernetes: KUBECONFIG (and FITBOT_KUBE_CONTEXT), or the pod's service
account when fitbot runs in the cluster. Slurm: FITBOT_SLURM_URL and
FITBOT_SLURM_TOKEN (slurmrestd), or FITBOT_SLURM_SINFO (sinfo --json).
See docs/cluster.md.
`

// slurmHTTPTimeout bounds one slurmrestd request.
const slurmHTTPTimeout = 20 * time.Second

// clusterSource is the team's cluster as the settings name it; nil when
// none is configured. A configuration that cannot be used is a
// *cluster.Error of kind FaultConfig.
func (a *app) clusterSource() (cluster.Source, error) {
	if errs := a.env.check("FITBOT_CLUSTER", "FITBOT_SLURM_URL", "FITBOT_SLURM_API_VERSION"); len(errs) > 0 {
		return nil, &cluster.Error{Source: "fitbot", Kind: cluster.FaultConfig, Detail: settingsProblem(errs), Err: errors.Join(errs...)}
	}
	kind := a.env.get("FITBOT_CLUSTER")
	inCluster := a.env.get("KUBERNETES_SERVICE_HOST") != ""
	kubeSet := a.env.get("KUBECONFIG") != "" || a.env.get("FITBOT_KUBE_CONTEXT") != "" || inCluster
	slurmSet := a.env.get("FITBOT_SLURM_URL") != "" || a.env.get("FITBOT_SLURM_SINFO") != ""
	switch {
	case kind == "kubernetes" || kind == "auto" && kubeSet:
		src, err := kube.New(kube.Config{Kubeconfig: a.env.get("KUBECONFIG"), Context: a.env.get("FITBOT_KUBE_CONTEXT"), InCluster: inCluster})
		if err != nil {
			return nil, &cluster.Error{Source: "Kubernetes", Kind: cluster.FaultConfig, Detail: err.Error(), Err: err}
		}
		return src, nil
	case kind == "slurm" && !slurmSet:
		return nil, &cluster.Error{Source: "Slurm", Kind: cluster.FaultConfig, Detail: "FITBOT_CLUSTER=slurm needs FITBOT_SLURM_URL (slurmrestd) or FITBOT_SLURM_SINFO"}
	case kind == "slurm" || kind == "auto" && slurmSet:
		return slurm.New(slurm.Config{
			URL: a.env.get("FITBOT_SLURM_URL"), Token: a.env.get("FITBOT_SLURM_TOKEN"), User: a.env.get("FITBOT_SLURM_USER"),
			APIVersion: a.env.get("FITBOT_SLURM_API_VERSION"), Sinfo: a.env.get("FITBOT_SLURM_SINFO"),
		}, &http.Client{Timeout: slurmHTTPTimeout}, nil), nil
	}
	return nil, nil
}

// liveCluster is the cluster for the answer service: nil when the
// settings name none; otherwise read on the first question that asks
// about it (a configuration that cannot be used fails that read, and the
// answer says so), then cached for FITBOT_CLUSTER_TTL.
func (a *app) liveCluster() answer.Cluster {
	if a.env.get("FITBOT_CLUSTER") == "off" || !a.clusterNamed() {
		return nil
	}
	return &lazyCluster{a: a}
}

// clusterNamed reports whether the settings name a cluster, without
// reading anything.
func (a *app) clusterNamed() bool {
	for _, name := range []string{"KUBECONFIG", "FITBOT_KUBE_CONTEXT", "KUBERNETES_SERVICE_HOST", "FITBOT_SLURM_URL", "FITBOT_SLURM_SINFO"} {
		if a.env.get(name) != "" {
			return true
		}
	}
	return a.env.get("FITBOT_CLUSTER") != "auto"
}

// lazyCluster builds the source and its cache on the first read.
type lazyCluster struct {
	a     *app
	once  sync.Once
	cache *cluster.Cache
	err   error
}

// Read implements answer.Cluster.
func (l *lazyCluster) Read(ctx context.Context) (cluster.Snapshot, error) {
	l.once.Do(func() {
		src, err := l.a.clusterSource()
		switch {
		case err != nil:
			l.err = err
		case src == nil:
			l.err = cluster.ErrNotConfigured
		default:
			ttl, _ := time.ParseDuration(l.a.env.get("FITBOT_CLUSTER_TTL"))
			l.cache = cluster.NewCache(src, ttl, nil)
		}
	})
	if l.err != nil {
		return cluster.Snapshot{}, l.err
	}
	return l.cache.Read(ctx)
}

// clusterJSON is `fitbot cluster --json`: DESIGN.md's cluster object
// (with `kind` "cluster", as every JSON answer of `fit` has a kind).
type clusterJSON struct {
	Kind    string           `json:"kind"`
	Cluster cluster.Snapshot `json:"cluster"`
}

// clusterCommand is `fitbot cluster`.
func (a *app) clusterCommand(ctx context.Context, args []string) error {
	asJSON := false
	for _, arg := range args {
		switch arg {
		case "-h", "-help", "--help":
			fmt.Fprint(a.stdout, clusterUsage)
			return nil
		case "--json", "-json":
			asJSON = true
		default:
			return usageError(fmt.Sprintf("cluster does not take %q", arg), "fitbot cluster --json")
		}
	}
	return a.showCluster(ctx, asJSON)
}

// showCluster reads the cluster and lays it out, as text or as JSON.
func (a *app) showCluster(ctx context.Context, asJSON bool) error {
	src, err := a.clusterSource()
	if err == nil && src == nil {
		err = cluster.ErrNotConfigured
	}
	var snap cluster.Snapshot
	if err == nil {
		snap, err = src.Read(ctx)
	}
	if err != nil {
		return a.clusterFailed(ctx, err)
	}
	if asJSON {
		return a.writeJSON(clusterJSON{Kind: "cluster", Cluster: snap})
	}
	writeCluster(a.stdout, snap)
	return nil
}

// clusterFailed says why the cluster could not be read and lists the
// team's static machines, which questions fall back to.
func (a *app) clusterFailed(ctx context.Context, err error) error {
	problem := cluster.Explain(err)
	ms, merr := a.machines(ctx)
	if merr == nil && len(ms) > 0 {
		fmt.Fprintln(a.stdout, "The team's machines (static, from fitbot hardware):")
		for _, m := range ms {
			fmt.Fprintf(a.stdout, "  %s: %s\n", m.Name, m.Hardware())
		}
	}
	if errors.Is(err, cluster.ErrNotConfigured) {
		return usageError(problem, "KUBECONFIG=$HOME/.kube/config fitbot cluster (docs/cluster.md)")
	}
	return failure(problem, "docs/cluster.md lists the settings and the read-only RBAC fitbot needs")
}

// writeCluster lays out a snapshot: when, by card, then by node.
func writeCluster(w io.Writer, s cluster.Snapshot) {
	fmt.Fprintf(w, "Cluster: %s, read %s\n", s.Source, s.CheckedAt.Format("2006-01-02 15:04:05 UTC"))
	cards := s.Cards()
	if len(cards) == 0 {
		fmt.Fprintf(w, "No GPUs on its %d nodes.\n", len(s.Nodes))
		return
	}
	fmt.Fprintln(w, "\nFree GPUs by card:")
	for _, c := range cards {
		line := fmt.Sprintf("  %-24s %4d free of %4d on %d %s", c.Name, c.Free, c.Total, c.Nodes, plural(c.Nodes, "node", "nodes"))
		if c.Unavailable > 0 {
			line += fmt.Sprintf(" (%d not taking work)", c.Unavailable)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\nBy node:")
	other := 0
	for _, n := range s.Nodes {
		if n.GPUsTotal == 0 && len(n.MIG) == 0 {
			other++
			continue
		}
		name := n.GPU
		if name == "" {
			name = n.Product
		}
		state := fmt.Sprintf("%d free", n.GPUsFree)
		if n.Unavailable != "" {
			state = n.Unavailable
		}
		line := fmt.Sprintf("  %-16s %d× %-12s %s", n.Name, n.GPUsTotal, name, state)
		if n.GPUsTotal == 0 {
			line = fmt.Sprintf("  %-16s %-15s %s", n.Name, name, "MIG only")
			if n.Unavailable != "" {
				line += ", " + n.Unavailable
			}
		}
		for _, m := range n.MIG {
			line += fmt.Sprintf("; MIG %s %d free of %d", m.Profile, m.Free, m.Total)
		}
		if len(n.Partitions) > 0 {
			line += " [" + strings.Join(n.Partitions, ", ") + "]"
		}
		fmt.Fprintln(w, line)
	}
	if other > 0 {
		fmt.Fprintf(w, "  and %d %s without GPUs\n", other, plural(other, "node", "nodes"))
	}
	if line := s.QueueLine(); line != "" {
		fmt.Fprintln(w, "\n"+line)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
