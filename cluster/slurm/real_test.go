package slurm

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/cluster"
)

// realSlurm is the throwaway Slurm .ci/slurm.sh starts: FITBOT_TEST_SLURM
// is slurmrestd's URL, FITBOT_TEST_SLURM_TOKEN a token from `scontrol
// token`, SLURM_CONF its configuration (for sbatch and scontrol). The
// test is skipped without them.
func realSlurm(t *testing.T) (url, tok string) {
	url, tok = os.Getenv("FITBOT_TEST_SLURM"), os.Getenv("FITBOT_TEST_SLURM_TOKEN")
	if url == "" || tok == "" || os.Getenv("SLURM_CONF") == "" {
		t.Skip("FITBOT_TEST_SLURM, FITBOT_TEST_SLURM_TOKEN and SLURM_CONF name no Slurm (.ci/slurm.sh starts one)")
	}
	return url, tok
}

// slurmCmd runs a Slurm command and fails the test when it fails.
func slurmCmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestRealSlurm submits jobs to a real slurmctld, drains and downs its
// node, and reads each state through slurmrestd (URL and token alone)
// and through `sinfo --json`.
func TestRealSlurm(t *testing.T) {
	url, tok := realSlurm(t)
	const node = "fitbot-node1"
	t.Cleanup(func() {
		exec.Command("scancel", "--name=fitbot-test").Run()
		exec.Command("scontrol", "update", "nodename="+node, "state=resume").Run()
	})
	exec.Command("scancel", "--name=fitbot-test").Run()
	exec.Command("scontrol", "update", "nodename="+node, "state=resume").Run()

	rest := New(Config{URL: url, Token: tok}, &http.Client{Timeout: 10 * time.Second}, nil)
	sinfo := New(Config{Sinfo: "sinfo"}, nil, nil)
	read := func(s *Source) cluster.Snapshot {
		t.Helper()
		snap, err := s.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	// waitFor reads until ok holds (the scheduler acts within seconds).
	waitFor := func(what string, ok func(cluster.Snapshot) bool) cluster.Snapshot {
		t.Helper()
		var snap cluster.Snapshot
		for range 60 {
			snap = read(rest)
			if ok(snap) {
				return snap
			}
			time.Sleep(500 * time.Millisecond)
		}
		t.Fatalf("%s: never; last read %+v (pending %+v)", what, snap.Nodes, snap.Pending)
		return snap
	}
	ours := func(s cluster.Snapshot) []cluster.Pending {
		var out []cluster.Pending
		for _, p := range s.Pending {
			if strings.HasSuffix(p.Name, " fitbot-test") {
				out = append(out, p)
			}
		}
		return out
	}

	idle := waitFor("the node idle", func(s cluster.Snapshot) bool {
		return len(s.Nodes) == 1 && s.Nodes[0].GPUsFree == 8 && len(ours(s)) == 0
	})
	if n := idle.Nodes[0]; n.GPU != "h100" || n.GPUsTotal != 8 || n.Unavailable != "" || rest.version == "" {
		t.Errorf("idle node %+v, version %q", n, rest.version)
	}

	for _, gres := range []string{"gpu:h100:3", "gpu:h100:3", "gpu:h100:4"} {
		slurmCmd(t, "sbatch", "--job-name=fitbot-test", "--output=/dev/null", "--time=5", "--gres="+gres, "--wrap", "sleep 60")
	}
	busy := waitFor("two jobs running, one pending with a start estimate", func(s cluster.Snapshot) bool {
		p := ours(s)
		return s.Nodes[0].GPUsFree == 2 && len(p) == 1 && p[0].StartEstimate != nil
	})
	p := ours(busy)[0]
	if p.GPUs != 4 || p.Partition != "gpu" || time.Since(p.Since) > time.Minute || time.Until(*p.StartEstimate) > 6*time.Minute {
		t.Errorf("pending %+v (estimate %v)", p, *p.StartEstimate)
	}
	if busy.StartEstimate == nil || !strings.Contains(busy.QueueLine(), "Slurm expects the last to start at") {
		t.Errorf("queue line %q", busy.QueueLine())
	}
	if s := read(sinfo); s.Nodes[0].GPUsFree != 2 || s.Pending != nil {
		t.Errorf("sinfo --json: %+v", s.Nodes)
	}

	slurmCmd(t, "scontrol", "update", "nodename="+node, "state=drain", "reason=fitbot test")
	waitFor("draining", func(s cluster.Snapshot) bool { return s.Nodes[0].Unavailable == "draining" && s.Nodes[0].GPUsFree == 0 })
	slurmCmd(t, "scancel", "--name=fitbot-test")
	waitFor("drained", func(s cluster.Snapshot) bool { return s.Nodes[0].Unavailable == "drained" && len(ours(s)) == 0 })
	slurmCmd(t, "scontrol", "update", "nodename="+node, "state=down", "reason=fitbot test")
	down := waitFor("down", func(s cluster.Snapshot) bool { return s.Nodes[0].Unavailable == "down" })
	if down.Free["h100"] != 0 {
		t.Errorf("free on a down node: %v", down.Free)
	}
	if s := read(sinfo); s.Nodes[0].Unavailable != "down" {
		t.Errorf("sinfo --json on a down node: %+v", s.Nodes)
	}
}
