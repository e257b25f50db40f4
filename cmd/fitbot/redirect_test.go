package main

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// thief is another host: it answers every request with an empty node
// list (what a cluster with no GPUs looks like) and records the
// credentials it was sent.
type thief struct {
	*httptest.Server
	mu  sync.Mutex
	got []string
}

func newThief(t *testing.T) *thief {
	th := &thief{}
	th.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		th.mu.Lock()
		th.got = append(th.got, r.Header.Get("Authorization")+r.Header.Get("X-SLURM-USER-TOKEN"))
		th.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[],"nodes":[],"errors":[]}`))
	}))
	t.Cleanup(th.Close)
	return th
}

func (th *thief) requests() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.got...)
}

// TestClusterRedirectRefused: the API server and slurmrestd answer with a
// 302 to another host. fitbot follows neither: the other host sees no
// request, the token stays home, and `fitbot cluster` says the cluster
// redirected it, never that it has no GPUs.
func TestClusterRedirectRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, to string)
		say   string
	}{
		{"kubernetes", func(t *testing.T, to string) {
			srv := httptest.NewUnstartedServer(http.RedirectHandler(to+"/api/v1/nodes", http.StatusFound))
			srv.TLS = &tls.Config{}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
			cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: reader\n  user:\n    token: kube-cli-token\ncontexts:\n- name: lab\n  context: {cluster: lab, user: reader}\ncurrent-context: lab\n",
				srv.URL, base64.StdEncoding.EncodeToString(ca))
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("KUBECONFIG", path)
		}, "the API server at https://127.0.0.1"},
		{"slurm", func(t *testing.T, to string) {
			srv := httptest.NewServer(http.RedirectHandler(to+"/slurm/v0.0.42/nodes/", http.StatusFound))
			t.Cleanup(srv.Close)
			t.Setenv("FITBOT_SLURM_URL", srv.URL)
			t.Setenv("FITBOT_SLURM_TOKEN", slurmToken)
		}, "slurmrestd at http://127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noCluster(t)
			useDB(t)
			th := newThief(t)
			tc.setup(t, th.URL)
			code, out, errOut := runCmd(t, "cluster")
			if code == exitOK || !strings.Contains(errOut, tc.say) || !strings.Contains(errOut, "redirected fitbot to another host ("+th.URL+")") {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if strings.Contains(out+errOut, "no GPUs") {
				t.Errorf("the redirect was read as an empty cluster:\n%s%s", out, errOut)
			}
			if got := th.requests(); len(got) > 0 {
				t.Errorf("the other host was asked %d times, with credentials %q", len(got), got)
			}
		})
	}
}
