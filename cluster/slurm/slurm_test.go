package slurm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/google/go-cmp/cmp"
)

var checkedAt = time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC)

func clock() time.Time { return checkedAt }

const token = "eyJhbGciOiJIUzI1NiJ9.slurm-secret"

func want(source string) cluster.Snapshot {
	h100 := cluster.CardMemory("h100")
	a100 := cluster.CardMemory("a100-80")
	return cluster.Snapshot{
		Source: source, CheckedAt: checkedAt,
		Nodes: []cluster.Node{
			{Name: "a100-01", GPU: "a100-80", Product: "gpu:nvidia_a100-sxm4-80gb", GPUsTotal: 4, GPUsFree: 3, MemoryBytes: a100, Partitions: []string{"a100"}},
			{Name: "dgx-01", GPU: "h100", Product: "gpu:h100", GPUsTotal: 8, GPUsFree: 2, MemoryBytes: h100, Partitions: []string{"gpu", "long"}},
			{Name: "dgx-02", GPU: "h100", Product: "gpu:h100", GPUsTotal: 8, GPUsFree: 8, MemoryBytes: h100, Partitions: []string{"gpu", "long"}},
			{Name: "dgx-03", GPU: "h100", Product: "gpu:h100", GPUsTotal: 8, MemoryBytes: h100, Unavailable: "drained", Partitions: []string{"gpu"}},
			{Name: "dgx-04", GPU: "h100", Product: "gpu:h100", GPUsTotal: 8, MemoryBytes: h100, Unavailable: "draining", Partitions: []string{"gpu"}},
			{Name: "dgx-05", GPU: "h100", Product: "gpu:h100", GPUsTotal: 8, MemoryBytes: h100, Unavailable: "down", Partitions: []string{"gpu"}},
			{Name: "login-01", Partitions: []string{"debug"}},
		},
		Free: map[string]int{"h100": 10, "a100-80": 3},
	}
}

// fakeSlurmrestd replays testdata's node list, asserting the path and
// the authentication headers.
func fakeSlurmrestd(t *testing.T, status int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-SLURM-USER-TOKEN") != token || r.Header.Get("X-SLURM-USER-NAME") != "fitbot" {
			t.Errorf("headers token %q user %q", r.Header.Get("X-SLURM-USER-TOKEN"), r.Header.Get("X-SLURM-USER-NAME"))
		}
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusOK && r.URL.Path == "/openapi/v3" {
			w.Write([]byte(`{"openapi":"3.0.3","paths":{"/slurm/v0.0.41/nodes/":{},"/slurm/v0.0.42/nodes/":{},"/slurm/v0.0.42/jobs/":{}}}`))
			return
		}
		if status == http.StatusOK && r.URL.Path == "/slurm/v0.0.42/jobs/" {
			w.Write([]byte(`{"jobs":[],"errors":[],"warnings":[]}`))
			return
		}
		if r.Method != http.MethodGet || r.URL.Path != "/slurm/v0.0.42/nodes/" && status == http.StatusOK {
			t.Errorf("request %s %s, want GET /slurm/v0.0.42/nodes/", r.Method, r.URL.Path)
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			w.Write([]byte(`{"errors":[{"description":"Authentication failure","error_number":1007,"error":"Protocol authentication error","source":"slurmrestd"}],"warnings":[],"meta":{}}`))
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", "nodes-v0.0.42.json"))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReadFromSlurmrestd(t *testing.T) {
	srv := fakeSlurmrestd(t, http.StatusOK)
	got, err := New(Config{URL: srv.URL + "/", Token: token, User: "fitbot"}, srv.Client(), clock).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := want("slurm (" + srv.URL + ")")
	w.Pending = []cluster.Pending{}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

func sinfoOutputFile(t *testing.T) func(context.Context, string, ...string) ([]byte, error) {
	return func(_ context.Context, name string, args ...string) ([]byte, error) {
		if name != "/usr/bin/sinfo" || strings.Join(args, " ") != "--json" {
			t.Errorf("ran %s %v, want /usr/bin/sinfo --json", name, args)
		}
		return os.ReadFile(filepath.Join("testdata", "sinfo.json"))
	}
}

func TestSinfoGivesTheSameNodes(t *testing.T) {
	s := New(Config{Sinfo: "/usr/bin/sinfo"}, nil, clock)
	s.run = sinfoOutputFile(t)
	got, err := s.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want("slurm (sinfo)"), got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

func TestRefusedTokenFallsBackToSinfo(t *testing.T) {
	srv := fakeSlurmrestd(t, http.StatusUnauthorized)
	s := New(Config{URL: srv.URL, Token: token, User: "fitbot"}, srv.Client(), clock)
	_, err := s.Read(context.Background())
	var ce *cluster.Error
	if !errors.As(err, &ce) || ce.Kind != cluster.FaultForbidden || !strings.Contains(err.Error(), "renew FITBOT_SLURM_TOKEN") {
		t.Errorf("err = %v, want a forbidden cluster.Error that says what to do", err)
	}
	if err != nil && strings.Contains(err.Error(), token) {
		t.Errorf("the error shows the token: %v", err)
	}
	s = New(Config{URL: srv.URL, Token: token, User: "fitbot", Sinfo: "/usr/bin/sinfo"}, srv.Client(), clock)
	s.run = sinfoOutputFile(t)
	got, err := s.Read(context.Background())
	if err != nil || got.Source != "slurm (sinfo; slurmrestd failed)" || got.Free["h100"] != 10 {
		t.Errorf("with sinfo beside: %v, %q, free %v", err, got.Source, got.Free)
	}
}

func TestUnreachableSlurmrestd(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := New(Config{URL: srv.URL + "/?token=" + token, Token: token}, nil, clock).Read(context.Background())
	var ce *cluster.Error
	if !errors.As(err, &ce) || ce.Kind != cluster.FaultUnreachable {
		t.Fatalf("err = %v, want an unreachable cluster.Error", err)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "?") {
		t.Errorf("the error shows the URL's query or the token: %v", err)
	}
}

func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		states []string
		want   string
	}{
		{[]string{"IDLE"}, ""},
		{[]string{"MIXED"}, ""},
		{[]string{"ALLOCATED"}, ""},
		{[]string{"IDLE", "DRAIN"}, "drained"},
		{[]string{"ALLOCATED", "DRAIN"}, "draining"},
		{[]string{"DOWN", "DRAIN"}, "down"},
		{[]string{"IDLE", "NOT_RESPONDING"}, "not responding"},
		{[]string{"IDLE", "POWERED_DOWN"}, "powered down"},
		{[]string{"FUTURE"}, "not ready"},
	} {
		if got := unavailable(tc.states); got != tc.want {
			t.Errorf("unavailable(%v) = %q, want %q", tc.states, got, tc.want)
		}
	}
}

func TestParseGres(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]int
	}{
		{"gpu:h100:8(S:0-1)", map[string]int{"h100": 8}},
		{"gpu:h100:3(IDX:0,2,5)", map[string]int{"h100": 3}},
		{"gpu:h100:0(IDX:N/A),mps:0", map[string]int{"h100": 0}},
		{"gpu:a100:2(S:0),gpu:h100:4(S:1)", map[string]int{"a100": 2, "h100": 4}},
		{"gpu:4", map[string]int{untyped: 4}},
		{"mps:400,shard:8", map[string]int{}},
		{"gpu:h100:1K", map[string]int{"h100": 1024}},
		{"(null)", map[string]int{}},
		{"", map[string]int{}},
		{"gpu:h100:x", map[string]int{}},
	} {
		if diff := cmp.Diff(tc.want, parseGres(tc.in)); diff != "" {
			t.Errorf("parseGres(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// FuzzParseGres: any string reads without a panic into non-negative
// counts.
func FuzzParseGres(f *testing.F) {
	for _, s := range []string{"gpu:h100:8(S:0-1)", "gpu:a100:2(IDX:0,2),mps:400", "gpu:4", "((,)", "gpu::", "gpu:x:-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for typ, n := range parseGres(s) {
			if n < 0 || typ == "" {
				t.Errorf("parseGres(%q) gave %q: %d", s, typ, n)
			}
		}
	})
}

// FuzzParseSinfo: any bytes either fail to parse or give named records.
func FuzzParseSinfo(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "sinfo.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"sinfo":[{"nodes":{"nodes":["a","a"]},"partition":{"name":"p*"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := parseSinfo(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if seen[r.Name] {
				t.Errorf("node %q twice", r.Name)
			}
			seen[r.Name] = true
		}
		snapshot("fuzz", checkedAt, recs)
	})
}

// TestOlderAPIVersion reads v0.0.38's node shape (one lower-case state,
// flags apart), served by Slurm 22.05.
func TestOlderAPIVersion(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slurm/v0.0.38/jobs/" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path != "/slurm/v0.0.38/nodes/" {
			t.Errorf("path %s", r.URL.Path)
		}
		http.ServeFile(w, r, filepath.Join("testdata", "nodes-v0.0.38.json"))
	}))
	defer srv.Close()
	got, err := New(Config{URL: srv.URL, Token: token, APIVersion: "v0.0.38"}, srv.Client(), clock).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Pending != nil {
		t.Errorf("pending = %v, want nil: the server has no jobs endpoint", got.Pending)
	}
	if len(got.Nodes) != 2 || got.Nodes[0].GPUsFree != 2 || got.Nodes[0].GPU != "a100-80" || got.Nodes[1].Unavailable != "drained" {
		t.Errorf("nodes = %+v", got.Nodes)
	}
}
