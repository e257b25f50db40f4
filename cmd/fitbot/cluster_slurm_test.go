package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRealSlurmCLI asks the throwaway Slurm .ci/slurm.sh starts
// (FITBOT_TEST_SLURM, FITBOT_TEST_SLURM_TOKEN, SLURM_CONF; skipped
// without them) through the CLI with nothing but the URL and the token:
// `fitbot cluster --json` gives the free GPUs and the pending job Slurm
// reports, and a "right now" question too large for what is free says so
// first.
func TestRealSlurmCLI(t *testing.T) {
	url, tok := os.Getenv("FITBOT_TEST_SLURM"), os.Getenv("FITBOT_TEST_SLURM_TOKEN")
	if url == "" || tok == "" || os.Getenv("SLURM_CONF") == "" {
		t.Skip("FITBOT_TEST_SLURM, FITBOT_TEST_SLURM_TOKEN and SLURM_CONF name no Slurm (.ci/slurm.sh starts one)")
	}
	noCluster(t)
	useDB(t)
	t.Setenv("FITBOT_SLURM_URL", url)
	t.Setenv("FITBOT_SLURM_TOKEN", tok)
	t.Setenv("FITBOT_CLUSTER_TTL", "1ms")
	cancel := func() { exec.Command("scancel", "--name=fitbot-cli-test").Run() }
	cancel()
	t.Cleanup(cancel)
	for _, gres := range []string{"gpu:h100:3", "gpu:h100:3", "gpu:h100:4"} {
		if out, err := exec.Command("sbatch", "--job-name=fitbot-cli-test", "--output=/dev/null", "--time=5", "--gres="+gres, "--wrap", "sleep 60").CombinedOutput(); err != nil {
			t.Fatalf("sbatch: %v: %s", err, out)
		}
	}
	type pending struct {
		Name          string  `json:"name"`
		GPUs          int     `json:"gpus"`
		StartEstimate *string `json:"start_estimate"`
	}
	var got struct {
		Cluster struct {
			Nodes []struct {
				GPU      string `json:"gpu"`
				GPUsFree int    `json:"gpus_free"`
			} `json:"nodes"`
			Pending []pending `json:"pending"`
		} `json:"cluster"`
	}
	ours := func() []pending {
		var out []pending
		for _, p := range got.Cluster.Pending {
			if strings.HasSuffix(p.Name, " fitbot-cli-test") {
				out = append(out, p)
			}
		}
		return out
	}
	for range 60 {
		code, out, errOut := runCmd(t, "cluster", "--json")
		if code != exitOK {
			t.Fatalf("cluster --json: exit %d\n%s\n%s", code, out, errOut)
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("cluster --json: %v\n%s", err, out)
		}
		if p := ours(); len(got.Cluster.Nodes) == 1 && got.Cluster.Nodes[0].GPUsFree == 2 && len(p) == 1 && p[0].StartEstimate != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if p := ours(); len(got.Cluster.Nodes) != 1 || got.Cluster.Nodes[0].GPU != "h100" || got.Cluster.Nodes[0].GPUsFree != 2 || len(p) != 1 || p[0].GPUs != 4 {
		t.Fatalf("cluster --json: %+v", got)
	}
	code, out, errOut := runCmd(t, "fit", "llama-3.1-70b", "inference", "bf16", "on", "4", "h100", "on", "our", "cluster", "right", "now")
	first, _, _ := strings.Cut(out, "\n")
	if code != exitOK || !strings.HasPrefix(first, "Not free on the cluster now: needs 4 free H100s on one node; the most free is 2 on fitbot-node1. When free: fitbot-node1.") ||
		!strings.Contains(first, "Slurm expects the last to start at") {
		t.Errorf("right now, 4 H100 with 2 free: exit %d, first line %q\n%s", code, first, errOut)
	}
	code, out, _ = runCmd(t, "fit", "llama-3.1-8b", "inference", "on", "our", "cluster", "right", "now")
	if code != exitOK || !strings.Contains(out, "1× H100 on fitbot-node1") {
		t.Errorf("right now, a job that fits what is free:\n%s", out)
	}
}
