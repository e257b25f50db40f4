package kube

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var checkedAt = time.Date(2026, 12, 1, 15, 4, 5, 0, time.UTC)

func clock() time.Time { return checkedAt }

// want is what testdata/ holds, counted (testdata/SOURCES.md).
func want(source string) cluster.Snapshot {
	const h100 = 81559 << 20
	return cluster.Snapshot{
		Source: source, CheckedAt: checkedAt,
		Nodes: []cluster.Node{
			{Name: "cpu-1", Partitions: []string{"system"}},
			{Name: "gpu-1", GPU: "h100", Product: "NVIDIA-H100-80GB-HBM3", GPUsTotal: 8, GPUsFree: 2, MemoryBytes: h100, Partitions: []string{"gpu-pool"}},
			{Name: "gpu-2", GPU: "h100", Product: "NVIDIA-H100-80GB-HBM3", GPUsTotal: 8, GPUsFree: 2, MemoryBytes: h100, Partitions: []string{"gpu-pool"}},
			{Name: "gpu-3", GPU: "h100", Product: "NVIDIA-H100-80GB-HBM3", GPUsTotal: 8, MemoryBytes: h100, Unavailable: "cordoned", Partitions: []string{"gpu-pool"}},
			{Name: "gpu-4", GPU: "a100-80", Product: "NVIDIA-A100-SXM4-80GB", MemoryBytes: 81920 << 20, Partitions: []string{"mig-pool"},
				MIG: []cluster.MIG{{Profile: "1g.10gb", Total: 7, Free: 4}}},
			{Name: "gpu-5", GPU: "l40s", Product: "NVIDIA-L40S", GPUsTotal: 4, MemoryBytes: 46068 << 20, Unavailable: "NotReady", Partitions: []string{"l40s-pool"}},
		},
		Free: map[string]int{"h100": 4, "l40s": 0},
		// The pod the scheduler could not place (PodScheduled False,
		// "Insufficient nvidia.com/gpu") waits for 8 GPUs.
		Pending: []cluster.Pending{{Name: "ml/queued-c", GPUs: 8, Since: time.Date(2026, 12, 1, 8, 59, 0, 0, time.UTC)}},
	}
}

// handFake is the Lister over testdata's pages: the first page, then the
// page its continue token names, as the API server pages a list.
type handFake struct {
	t           *testing.T
	nodes       []corev1.NodeList
	pods        []corev1.PodList
	nodeCalls   int
	podSelector string
}

func newHandFake(t *testing.T) *handFake {
	f := &handFake{t: t}
	for _, name := range []string{"nodelist-page1.json", "nodelist-page2.json"} {
		var l corev1.NodeList
		readJSON(t, name, &l)
		f.nodes = append(f.nodes, l)
	}
	for _, name := range []string{"podlist-page1.json", "podlist-page2.json"} {
		var l corev1.PodList
		readJSON(t, name, &l)
		f.pods = append(f.pods, l)
	}
	return f
}

// page is the index of the page opts asks for: 0 without a continue
// token, else the one after the page that gave it.
func page(t *testing.T, opts metav1.ListOptions, tokens []string) int {
	t.Helper()
	if opts.Limit != pageSize {
		t.Errorf("limit %d, want %d", opts.Limit, pageSize)
	}
	if opts.Continue == "" {
		return 0
	}
	for i, tok := range tokens {
		if tok == opts.Continue && i+1 < len(tokens) {
			return i + 1
		}
	}
	t.Fatalf("unknown continue token %q", opts.Continue)
	return 0
}

func (f *handFake) ListNodes(_ context.Context, opts metav1.ListOptions) (*corev1.NodeList, error) {
	f.nodeCalls++
	var tokens []string
	for _, l := range f.nodes {
		tokens = append(tokens, l.Continue)
	}
	return &f.nodes[page(f.t, opts, tokens)], nil
}

func (f *handFake) ListPods(_ context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	f.podSelector = opts.FieldSelector
	var tokens []string
	for _, l := range f.pods {
		tokens = append(tokens, l.Continue)
	}
	return &f.pods[page(f.t, opts, tokens)], nil
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestReadWithHandFake(t *testing.T) {
	f := newHandFake(t)
	got, err := NewFromClient(f, "kubernetes (fake)", clock).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want("kubernetes (fake)"), got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	if f.nodeCalls != 2 || f.podSelector != "status.phase!=Succeeded,status.phase!=Failed" {
		t.Errorf("node pages %d, pod field selector %q", f.nodeCalls, f.podSelector)
	}
}

func gpu(n int64) corev1.ResourceList {
	return corev1.ResourceList{resourceNVIDIA: *resource.NewQuantity(n, resource.DecimalSI)}
}

// TestPodRequest checks the scheduler's arithmetic for one resource
// (k8s.io/component-helpers resource.PodRequests).
func TestPodRequest(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	ctr := func(n int64) corev1.Container {
		return corev1.Container{Resources: corev1.ResourceRequirements{Requests: gpu(n)}}
	}
	limitOnly := corev1.Container{Resources: corev1.ResourceRequirements{Limits: gpu(3)}}
	sidecar := func(n int64) corev1.Container {
		c := ctr(n)
		c.RestartPolicy = &always
		return c
	}
	for _, tc := range []struct {
		name       string
		init, main []corev1.Container
		want       int64
	}{
		{"sum of containers", nil, []corev1.Container{ctr(1), ctr(2)}, 3},
		{"limit stands for the request", nil, []corev1.Container{limitOnly}, 3},
		{"largest init container wins", []corev1.Container{ctr(4), ctr(2)}, []corev1.Container{ctr(1), ctr(1)}, 4},
		{"containers win", []corev1.Container{ctr(1)}, []corev1.Container{ctr(2), ctr(2)}, 4},
		{"sidecar adds to the containers", []corev1.Container{sidecar(1)}, []corev1.Container{ctr(2)}, 3},
		{"sidecar runs beside later init containers", []corev1.Container{sidecar(2), ctr(3)}, []corev1.Container{ctr(1)}, 5},
		{"no GPUs", nil, []corev1.Container{{}}, 0},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: tc.init, Containers: tc.main}}
		if got := podRequest(p, resourceNVIDIA); got != tc.want {
			t.Errorf("%s: podRequest = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// fakeAPI is an HTTPS Kubernetes API server that replays testdata's
// pages, asserting what client-go sends: the bearer token, the page size,
// the continue token and the pods' field selector.
type fakeAPI struct {
	t        *testing.T
	token    string
	status   int // non-zero: answer every request with this Status
	requests []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.token {
		f.t.Errorf("Authorization = %q, want the bearer token", got)
	}
	if r.Method != http.MethodGet {
		f.t.Errorf("%s %s: the source may only read", r.Method, r.URL.Path)
	}
	if f.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		if f.status == http.StatusUnauthorized {
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
			return
		}
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: User \"system:serviceaccount:fitbot:fitbot\" cannot list resource \"nodes\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":%d}`, f.status)
		return
	}
	q := r.URL.Query()
	if q.Get("limit") != "500" {
		f.t.Errorf("%s: limit = %q, want 500", r.URL.Path, q.Get("limit"))
	}
	var kind string
	switch r.URL.Path {
	case "/api/v1/nodes":
		kind = "nodelist"
	case "/api/v1/pods":
		kind = "podlist"
		if q.Get("fieldSelector") != "status.phase!=Succeeded,status.phase!=Failed" {
			f.t.Errorf("pods fieldSelector = %q", q.Get("fieldSelector"))
		}
	default:
		http.NotFound(w, r)
		return
	}
	page := "page1"
	if c := q.Get("continue"); c != "" {
		var first map[string]any
		readJSON(f.t, kind+"-page1.json", &first)
		if c != first["metadata"].(map[string]any)["continue"] {
			f.t.Errorf("continue = %q, not the token page 1 gave", c)
		}
		page = "page2"
	}
	b, err := os.ReadFile(filepath.Join("testdata", kind+"-"+page+".json"))
	if err != nil {
		f.t.Fatal(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// kubeconfig writes a kubeconfig for srv: its throwaway CA, and user as
// the user's YAML.
func kubeconfig(t testing.TB, srv *httptest.Server, user string) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: reader
  user:
%s
contexts:
- name: other
  context: {cluster: nowhere, user: nobody}
- name: lab
  context: {cluster: lab, user: reader}
current-context: other
`, srv.URL, base64.StdEncoding.EncodeToString(ca), user)
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newTLS(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestReadOverHTTPSWithKubeconfigToken(t *testing.T) {
	api := &fakeAPI{t: t, token: "kube-secret-token"}
	srv := newTLS(t, api)
	path := kubeconfig(t, srv, "    token: kube-secret-token")
	src, err := New(Config{Kubeconfig: path, Context: "lab"})
	if err != nil {
		t.Fatal(err)
	}
	src.now = clock
	got, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want("kubernetes (context lab)"), got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	if len(api.requests) != 4 {
		t.Errorf("requests = %q, want two pages of nodes and two of pods", api.requests)
	}
}

// TestExecCredentialPlugin reads with a token from an exec plugin, as
// EKS, GKE and AKS kubeconfigs give them.
func TestExecCredentialPlugin(t *testing.T) {
	api := &fakeAPI{t: t, token: "token-from-plugin"}
	srv := newTLS(t, api)
	plugin := filepath.Join(t.TempDir(), "get-token")
	script := "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"token-from-plugin\"}}'\n"
	if err := os.WriteFile(plugin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	path := kubeconfig(t, srv, fmt.Sprintf("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never", plugin))
	src, err := New(Config{Kubeconfig: path, Context: "lab"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestFaultsAreClearAndCarryNoToken(t *testing.T) {
	const token = "kube-secret-token"
	for _, tc := range []struct {
		name   string
		status int
		closed bool
		kind   string
		says   string
	}{
		{"forbidden", http.StatusForbidden, false, cluster.FaultForbidden, "read-only ClusterRole"},
		{"unauthorized", http.StatusUnauthorized, false, cluster.FaultForbidden, "did not accept fitbot's credentials"},
		{"unreachable", 0, true, cluster.FaultUnreachable, "cannot reach the API server at https://127.0.0.1"},
	} {
		api := &fakeAPI{t: t, token: token, status: tc.status}
		srv := newTLS(t, api)
		path := kubeconfig(t, srv, "    token: "+token)
		if tc.closed {
			srv.Close()
		}
		src, err := New(Config{Kubeconfig: path, Context: "lab"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = src.Read(context.Background())
		var ce *cluster.Error
		if !errors.As(err, &ce) || ce.Kind != tc.kind {
			t.Errorf("%s: err = %v, want a %s cluster.Error", tc.name, err, tc.kind)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), token) {
			t.Errorf("%s: message %q: want it to say %q and never the token", tc.name, err, tc.says)
		}
	}
}

func TestMissingKubeconfigIsAnError(t *testing.T) {
	_, err := New(Config{Kubeconfig: filepath.Join(t.TempDir(), "nope"), Context: "lab"})
	if err == nil {
		t.Fatal("New with a missing kubeconfig and context succeeded")
	}
}

// TestAMDLabels reads the AMD GPU operator's labels (ROCm/k8s-device-plugin
// cmd/k8s-node-labeller: createLabels writes the plain key when a node's
// GPUs are alike, counted keys when they differ, and the beta. form of
// each): the card and its memory, and an unknown product by its name.
func TestAMDLabels(t *testing.T) {
	amd := func(n int64) corev1.ResourceList {
		return corev1.ResourceList{resourceAMD: *resource.NewQuantity(n, resource.DecimalSI)}
	}
	node := func(name string, labels map[string]string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Status: corev1.NodeStatus{Allocatable: amd(8),
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
	}
	for _, tc := range []struct {
		name    string
		labels  map[string]string
		gpu     string
		product string
		memory  int64
	}{
		{"stable and beta keys", map[string]string{
			"amd.com/gpu.product-name": "AMD_Instinct_MI300X", "amd.com/gpu.vram": "192G",
			"beta.amd.com/gpu.product-name": "AMD_Instinct_MI300X", "beta.amd.com/gpu.product-name.AMD_Instinct_MI300X": "8",
		}, "mi300x", "AMD_Instinct_MI300X", cluster.CardMemory("mi300x")},
		{"beta keys only", map[string]string{
			"beta.amd.com/gpu.product-name": "Instinct_MI210", "beta.amd.com/gpu.product-name.Instinct_MI210": "8", "beta.amd.com/gpu.vram.64G": "8",
		}, "mi210", "Instinct_MI210", cluster.CardMemory("mi210")},
		{"counted keys: the most numerous", map[string]string{
			"amd.com/gpu.product-name.AMD_Instinct_MI325X": "6", "amd.com/gpu.product-name.AMD_Instinct_MI300X": "2",
		}, "mi325x", "AMD_Instinct_MI325X", cluster.CardMemory("mi325x")},
		{"unknown product, listed by name with the label's memory", map[string]string{
			"amd.com/gpu.product-name": "AMD_Instinct_MI100", "amd.com/gpu.vram": "32G",
		}, "", "AMD_Instinct_MI100", 32 << 30},
		{"no labeller", nil, "", "", 0},
	} {
		n := readNode(node("mi-1", tc.labels))
		if n.GPU != tc.gpu || n.Product != tc.product || n.GPUsTotal != 8 {
			t.Errorf("%s: card %q product %q total %d, want %q %q 8", tc.name, n.GPU, n.Product, n.GPUsTotal, tc.gpu, tc.product)
		}
		snap := cluster.NewSnapshot("k", checkedAt, []cluster.Node{*n})
		if got := snap.Nodes[0].MemoryBytes; got != tc.memory {
			t.Errorf("%s: memory %d, want %d", tc.name, got, tc.memory)
		}
		key := tc.gpu
		if key == "" {
			key = tc.product
		}
		if tc.product != "" && snap.Free[key] != 8 {
			t.Errorf("%s: free %v, want 8 under the card or its product name", tc.name, snap.Free)
		}
	}
}

// FuzzAMDLabels: any product and VRAM label values read without a panic,
// into a memory that is 0 or whole GiB within bounds.
func FuzzAMDLabels(f *testing.F) {
	f.Add("AMD_Instinct_MI300X", "192G", "amd.com/gpu.product-name.Instinct_MI210", "8")
	f.Add("", "x", "beta.amd.com/gpu.vram.64G", "-1")
	f.Fuzz(func(t *testing.T, product, vram, key, val string) {
		labels := map[string]string{"amd.com/gpu.product-name": product, "beta.amd.com/gpu.vram": vram, key: val}
		_ = amdLabel(labels, amdProduct)
		if m := amdMemory(labels); m < 0 || m%(1<<30) != 0 || m > 1<<44 {
			t.Errorf("amdMemory(%q) = %d", vram, m)
		}
	})
}
