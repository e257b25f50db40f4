package main

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// noCluster clears every cluster setting the machine running the tests
// may have, so that only what a test sets is read.
func noCluster(t *testing.T) {
	t.Helper()
	for _, name := range []string{"FITBOT_CLUSTER", "KUBECONFIG", "FITBOT_KUBE_CONTEXT", "KUBERNETES_SERVICE_HOST",
		"FITBOT_SLURM_URL", "FITBOT_SLURM_TOKEN", "FITBOT_SLURM_USER", "FITBOT_SLURM_API_VERSION", "FITBOT_SLURM_SINFO", "FITBOT_CLUSTER_TTL"} {
		t.Setenv(name, "")
	}
}

const slurmToken = "eyJhbGciOiJIUzI1NiJ9.cli-secret"

// fakeSlurm serves cluster/slurm's recorded node list
// (cluster/slurm/testdata/SOURCES.md) to the right token.
func fakeSlurm(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-SLURM-USER-TOKEN") != slurmToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.ServeFile(w, r, filepath.Join("..", "..", "cluster", "slurm", "testdata", "nodes-v0.0.42.json"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeKube is an HTTPS API server serving cluster/kube's recorded
// NodeList and PodList pages (cluster/kube/testdata/SOURCES.md), and
// the kubeconfig that reaches it with a bearer token.
func fakeKube(t *testing.T) (kubeconfig string) {
	dir := filepath.Join("..", "..", "cluster", "kube", "testdata")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer kube-cli-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		kind := map[string]string{"/api/v1/nodes": "nodelist", "/api/v1/pods": "podlist"}[r.URL.Path]
		page := "page1"
		if r.URL.Query().Get("continue") != "" {
			page = "page2"
		}
		w.Header().Set("Content-Type", "application/json")
		http.ServeFile(w, r, filepath.Join(dir, kind+"-"+page+".json"))
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: reader\n  user:\n    token: kube-cli-token\ncontexts:\n- name: lab\n  context: {cluster: lab, user: reader}\ncurrent-context: lab\n",
		srv.URL, base64.StdEncoding.EncodeToString(ca))
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClusterCommand: `fitbot cluster` lists both fakes' GPUs, in text
// and in DESIGN.md's JSON.
func TestClusterCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T)
		text  []string
		free  map[string]int
	}{
		{"kubernetes", func(t *testing.T) { t.Setenv("KUBECONFIG", fakeKube(t)) },
			[]string{"Cluster: kubernetes (context lab)", "H100 SXM 80 GB", "4 free of   24 on 3 nodes (1 not taking work)", "gpu-3", "cordoned", "MIG 1g.10gb 4 free of 7", "and 1 node without GPUs"},
			map[string]int{"h100": 4, "l40s": 0}},
		{"slurm", func(t *testing.T) {
			t.Setenv("FITBOT_SLURM_URL", fakeSlurm(t).URL)
			t.Setenv("FITBOT_SLURM_TOKEN", slurmToken)
		}, []string{"Cluster: slurm (http://127.0.0.1", "10 free of   40 on 5 nodes (3 not taking work)", "dgx-03", "drained", "[gpu, long]"},
			map[string]int{"h100": 10, "a100-80": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noCluster(t)
			useDB(t)
			tc.setup(t)
			code, out, errOut := runCmd(t, "cluster")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range tc.text {
				if !strings.Contains(out, want) {
					t.Errorf("text lacks %q:\n%s", want, out)
				}
			}
			// The same list; the time it was read may be a second later.
			readAt := regexp.MustCompile(`read \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)
			if code, free, _ := runCmd(t, "fit", "what's", "free", "on", "our", "cluster", "right", "now?"); code != exitOK ||
				readAt.ReplaceAllString(free, "read T") != readAt.ReplaceAllString(out, "read T") {
				t.Errorf("fit what's free on our cluster: exit %d, want the cluster's list:\n%s", code, free)
			}
			code, out, errOut = runCmd(t, "cluster", "--json")
			if code != exitOK {
				t.Fatalf("--json: exit %d: %s", code, errOut)
			}
			var got struct {
				Kind    string `json:"kind"`
				Cluster struct {
					Source    string `json:"source"`
					CheckedAt string `json:"checked_at"`
					Nodes     []struct {
						Name        string `json:"name"`
						GPU         string `json:"gpu"`
						GPUsTotal   *int   `json:"gpus_total"`
						GPUsFree    *int   `json:"gpus_free"`
						MemoryBytes *int64 `json:"memory_bytes"`
					} `json:"nodes"`
					Free map[string]int `json:"free"`
				} `json:"cluster"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("--json is not JSON: %v\n%s", err, out)
			}
			c := got.Cluster
			if got.Kind != "cluster" || c.Source == "" || c.CheckedAt == "" || len(c.Nodes) == 0 || c.Nodes[0].GPUsTotal == nil || c.Nodes[0].GPUsFree == nil || c.Nodes[0].MemoryBytes == nil {
				t.Errorf("--json lacks DESIGN.md's keys:\n%s", out)
			}
			if fmt.Sprint(c.Free) != fmt.Sprint(tc.free) {
				t.Errorf("free = %v, want %v", c.Free, tc.free)
			}
		})
	}
}

// TestFitOnTheCluster: the question answers on both fakes, naming
// the node, and its JSON carries the cluster object.
func TestFitOnTheCluster(t *testing.T) {
	question := []string{"can", "we", "run", "llama-3.1-70b", "qlora", "on", "our", "cluster", "right", "now?"}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T)
		node  string
	}{
		{"kubernetes", func(t *testing.T) { t.Setenv("KUBECONFIG", fakeKube(t)) }, "1× H100 on gpu-1"},
		{"slurm", func(t *testing.T) {
			t.Setenv("FITBOT_SLURM_URL", fakeSlurm(t).URL)
			t.Setenv("FITBOT_SLURM_TOKEN", slurmToken)
		}, "1× H100 on dgx-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noCluster(t)
			useDB(t)
			tc.setup(t)
			code, out, errOut := runCmd(t, append([]string{"fit"}, question...)...)
			if code != exitOK || !strings.Contains(out, tc.node) || !strings.Contains(out, "1× H100 SXM 80 GB") {
				t.Errorf("exit %d, want the answer on %s:\n%s\n%s", code, tc.node, out, errOut)
			}
			code, out, _ = runCmd(t, append([]string{"fit", "--json"}, question...)...)
			var got struct {
				Fits    bool `json:"fits"`
				Cluster struct {
					Source string `json:"source"`
				} `json:"cluster"`
				Placement struct {
					Nodes []struct {
						Node string `json:"node"`
					} `json:"nodes"`
				} `json:"cluster_placement"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK {
				t.Fatalf("exit %d, %v:\n%s", code, err, out)
			}
			if !got.Fits || got.Cluster.Source == "" || len(got.Placement.Nodes) != 1 {
				t.Errorf("fit --json on the cluster: %+v", got)
			}
		})
	}
}

// TestClusterFaults: a refused token or an unset cluster is a clear
// message (never the token) with the team's static machines listed.
func TestClusterFaults(t *testing.T) {
	noCluster(t)
	useDB(t)
	if code, _, _ := runCmd(t, "hardware", "add", "our", "box:", "2x", "rtx-4090"); code != exitOK {
		t.Fatal("hardware add failed")
	}
	code, out, errOut := runCmd(t, "cluster")
	if code != exitUsage || !strings.Contains(errOut, "no cluster is configured") || !strings.Contains(out, "our box: 2× RTX 4090") {
		t.Errorf("no cluster: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("FITBOT_SLURM_URL", fakeSlurm(t).URL)
	t.Setenv("FITBOT_SLURM_TOKEN", "wrong-token-value")
	code, out, errOut = runCmd(t, "cluster")
	if code != exitFailure || !strings.Contains(errOut, "slurmrestd refused fitbot's token") || !strings.Contains(out, "our box") {
		t.Errorf("refused token: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "wrong-token-value") {
		t.Error("the token was printed")
	}
	code, out, errOut = runCmd(t, "fit", "llama-3.1-8b", "lora", "on", "our", "cluster")
	if code != exitOK || !strings.Contains(out, "The cluster could not be read") || !strings.Contains(out, "RTX 4090") {
		t.Errorf("fit with the cluster refused: exit %d, want the team's machines and the reason\n%s\n%s", code, out, errOut)
	}
}
