// Package kube reads a Kubernetes cluster's GPU nodes through client-go:
// the nodes' allocatable GPUs and GPU Feature Discovery labels, less the
// GPU requests of the pods bound to them that have not terminated. It
// only lists nodes and pods (the ClusterRole in deploy/ grants nothing
// else) and never changes the cluster.
package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/internal/samehost"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// GPU resources the device plugins advertise, and the prefix of NVIDIA's
// MIG resources under the "mixed" strategy (nvidia.com/mig-1g.10gb).
const (
	resourceNVIDIA = corev1.ResourceName("nvidia.com/gpu")
	resourceAMD    = corev1.ResourceName("amd.com/gpu")
	migPrefix      = "nvidia.com/mig-"
)

// Labels GPU Feature Discovery (NVIDIA) and the AMD GPU operator's node
// labeller (ROCm/k8s-device-plugin cmd/k8s-node-labeller) set. The
// labeller writes each property under amd.com/ and, experimental, under
// beta.amd.com/: "amd.com/gpu.product-name=Instinct_MI300X" when the
// node's GPUs are alike, "amd.com/gpu.product-name.<NAME>=<count>" for
// each when they differ (the beta. form always has the counted keys);
// VRAM as whole GiB, "amd.com/gpu.vram=192G".
const (
	labelProduct   = "nvidia.com/gpu.product"
	labelMemoryMiB = "nvidia.com/gpu.memory"
	amdProduct     = "gpu.product-name"
	amdVRAM        = "gpu.vram"
)

// amdPrefixes are the AMD labeller's two label prefixes, stable first.
var amdPrefixes = []string{"amd.com/", "beta.amd.com/"}

// amdLabel is an AMD labeller property: the single value where the
// labeller wrote one, else the counted key with the most GPUs.
func amdLabel(labels map[string]string, prop string) string {
	for _, pfx := range amdPrefixes {
		if v := labels[pfx+prop]; v != "" {
			return v
		}
	}
	best, most := "", 0
	for _, pfx := range amdPrefixes {
		for k, v := range labels {
			name, ok := strings.CutPrefix(k, pfx+prop+".")
			if !ok || name == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err == nil && (n > most || n == most && name < best) {
				best, most = name, n
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}

// amdMemory is the AMD labeller's VRAM label in bytes ("192G"), 0 when
// absent or unreadable.
func amdMemory(labels map[string]string) int64 {
	v, ok := strings.CutSuffix(amdLabel(labels, amdVRAM), "G")
	if !ok {
		return 0
	}
	gib, err := strconv.ParseInt(v, 10, 64)
	if err != nil || gib <= 0 || gib > 1<<14 {
		return 0
	}
	return gib << 30
}

// nodePoolLabels name a node's pool on the managed services, shown as
// its partition.
var nodePoolLabels = []string{"cloud.google.com/gke-nodepool", "eks.amazonaws.com/nodegroup", "kubernetes.azure.com/agentpool", "karpenter.sh/nodepool"}

// pageSize is how many objects one list call asks for: the answer is
// read page by page, so memory stays bounded however large the cluster.
const pageSize = 500

// Config says which cluster to read.
type Config struct {
	// Kubeconfig is KUBECONFIG's value: one file or several joined with
	// the path list separator, merged as kubectl merges them.
	Kubeconfig string
	Context    string // the kubeconfig context; "" for its current one
	// InCluster reads the cluster fitbot runs in with its pod's service
	// account, when no kubeconfig is given.
	InCluster bool
}

// Lister is the two calls fitbot makes: one page of nodes, one page of
// pods (all namespaces).
type Lister interface {
	ListNodes(ctx context.Context, opts metav1.ListOptions) (*corev1.NodeList, error)
	ListPods(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error)
}

// coreLister is Lister over client-go's core group client.
type coreLister struct{ c corev1client.CoreV1Interface }

func (l coreLister) ListNodes(ctx context.Context, opts metav1.ListOptions) (*corev1.NodeList, error) {
	return l.c.Nodes().List(ctx, opts)
}

func (l coreLister) ListPods(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	return l.c.Pods(metav1.NamespaceAll).List(ctx, opts)
}

// Source is one Kubernetes cluster.
type Source struct {
	client Lister
	name   string
	now    func() time.Time
}

// New builds the client for cfg: the kubeconfig (its contexts, client
// certificates, tokens and exec credential plugins, as kubectl uses
// them), else the pod's service account.
func New(cfg Config) (*Source, error) {
	rc, name, err := restConfig(cfg)
	if err != nil {
		return nil, err
	}
	// Protobuf where the server speaks it (every API server does for core
	// objects): the lists of a large cluster decode several times faster.
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.UserAgent = "fitbot (read-only GPU capacity)"
	rc.Timeout = 30 * time.Second
	// client-go's default limit (5 requests/s, bursts of 10) would spread
	// the 40 pages of a 20,000-pod cluster over 8 s. One read is a short
	// burst of pages, and the cache allows one read per TTL.
	rc.QPS, rc.Burst = 50, 100
	// The core group's client alone: fitbot reads nodes and pods, and
	// linking every API group's client would only grow the binary.
	// The client refuses a redirect to another host: its transport adds
	// the bearer token to every request, the redirected one too.
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	hc.CheckRedirect = samehost.Refuse
	c, err := corev1client.NewForConfigAndClient(rc, hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return NewFromClient(coreLister{c}, name, nil), nil
}

// NewFromClient reads the cluster through c, named name in answers
// ("kubernetes (context prod)"); now is the clock, time.Now when nil.
func NewFromClient(c Lister, name string, now func() time.Time) *Source {
	if now == nil {
		now = time.Now
	}
	return &Source{client: c, name: name, now: now}
}

func restConfig(cfg Config) (*rest.Config, string, error) {
	if cfg.Kubeconfig == "" && cfg.InCluster {
		rc, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", fmt.Errorf("kubernetes in-cluster configuration: %w", err)
		}
		return rc, "kubernetes (in-cluster)", nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if cfg.Kubeconfig != "" {
		rules.Precedence = strings.Split(cfg.Kubeconfig, string(filepath.ListSeparator))
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: cfg.Context}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	name := cfg.Context
	if name == "" {
		if raw, err := cc.RawConfig(); err == nil {
			name = raw.CurrentContext
		}
	}
	return rc, "kubernetes (context " + name + ")", nil
}

// Read lists the nodes and the pods, page by page, and counts the GPUs.
func (s *Source) Read(ctx context.Context) (cluster.Snapshot, error) {
	at := s.now()
	nodes := map[string]*cluster.Node{}
	var order []*cluster.Node
	err := listPages(ctx, func(ctx context.Context, opts metav1.ListOptions) (string, error) {
		list, err := s.client.ListNodes(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			n := readNode(&list.Items[i])
			nodes[n.Name] = n
			order = append(order, n)
		}
		return list.Continue, nil
	})
	if err != nil {
		return cluster.Snapshot{}, s.fault("list nodes", err)
	}
	// Pods that have terminated hold nothing; the field selector lets the
	// server drop them (the filter below is for servers and fakes that
	// do not apply it).
	waiting := []cluster.Pending{}
	err = listPages(ctx, func(ctx context.Context, opts metav1.ListOptions) (string, error) {
		opts.FieldSelector = "status.phase!=Succeeded,status.phase!=Failed"
		list, err := s.client.ListPods(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range list.Items {
			p := &list.Items[i]
			if w, ok := waitingPod(p); ok {
				waiting = append(waiting, w)
				continue
			}
			n := nodes[p.Spec.NodeName]
			if n == nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue // unscheduled, on a node not listed, or done
			}
			n.GPUsFree -= int(podRequest(p, resourceNVIDIA) + podRequest(p, resourceAMD))
			for j := range n.MIG {
				n.MIG[j].Free -= int(podRequest(p, corev1.ResourceName(migPrefix+n.MIG[j].Profile)))
			}
		}
		return list.Continue, nil
	})
	if err != nil {
		return cluster.Snapshot{}, s.fault("list pods", err)
	}
	out := make([]cluster.Node, 0, len(order))
	for _, n := range order {
		for j := range n.MIG {
			n.MIG[j].Free = max(0, n.MIG[j].Free)
			if n.Unavailable != "" {
				n.MIG[j].Free = 0
			}
		}
		out = append(out, *n)
	}
	snap := cluster.NewSnapshot(s.name, at, out)
	snap.SetPending(waiting)
	return snap, nil
}

// waitingPod is a pod the scheduler has not yet bound to a node that
// asks for GPUs, as queue work ahead of any job (it may land on any
// node); Kubernetes gives no start estimate.
func waitingPod(p *corev1.Pod) (cluster.Pending, bool) {
	if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		return cluster.Pending{}, false
	}
	gpus := podRequest(p, resourceNVIDIA) + podRequest(p, resourceAMD)
	if gpus <= 0 {
		return cluster.Pending{}, false
	}
	return cluster.Pending{Name: p.Namespace + "/" + p.Name, GPUs: int(gpus), Since: p.CreationTimestamp.UTC()}, true
}

// listPages calls list with Limit and each Continue token until the
// server says there is no more.
func listPages(ctx context.Context, list func(context.Context, metav1.ListOptions) (string, error)) error {
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		next, err := list(ctx, opts)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		opts.Continue = next
	}
}

// readNode is a node's GPUs before pods are counted: allocatable GPUs,
// the card from GFD's labels, and whether the node takes work.
func readNode(k *corev1.Node) *cluster.Node {
	n := &cluster.Node{Name: k.Name}
	gpus := k.Status.Allocatable[resourceNVIDIA]
	product := k.Labels[labelProduct]
	amd := false
	if q, ok := k.Status.Allocatable[resourceAMD]; ok && q.Value() > 0 {
		gpus, amd = q, true
		product = amdLabel(k.Labels, amdProduct)
	}
	n.GPUsTotal = int(gpus.Value())
	n.GPUsFree = n.GPUsTotal
	n.Product = product
	if mib, err := strconv.ParseInt(k.Labels[labelMemoryMiB], 10, 64); err == nil && mib > 0 && mib < 1<<24 && !amd {
		n.MemoryBytes = mib << 20
	}
	if amd {
		// The labeller rounds VRAM to whole GiB: it picks a variant and
		// stands for an unknown card's memory; a known card's is the
		// catalog's.
		mem := amdMemory(k.Labels)
		n.GPU = cluster.CatalogGPU(product, mem)
		if n.GPU == "" {
			n.MemoryBytes = mem
		}
	} else {
		n.GPU = cluster.CatalogGPU(product, n.MemoryBytes)
	}
	if strings.Contains(strings.ToUpper(product), "-MIG-") {
		n.MemoryBytes = 0 // a MIG slice's memory, not the card's: the catalog's card is named instead
	}
	for name, q := range k.Status.Allocatable {
		if profile, ok := strings.CutPrefix(string(name), migPrefix); ok && q.Value() > 0 {
			n.MIG = append(n.MIG, cluster.MIG{Profile: profile, Total: int(q.Value()), Free: int(q.Value())})
		}
	}
	slices.SortFunc(n.MIG, func(a, b cluster.MIG) int { return strings.Compare(a.Profile, b.Profile) })
	for _, l := range nodePoolLabels {
		if v := k.Labels[l]; v != "" {
			n.Partitions = []string{v}
			break
		}
	}
	switch {
	case k.Spec.Unschedulable:
		n.Unavailable = "cordoned"
	case !ready(k):
		n.Unavailable = "NotReady"
	}
	return n
}

// ready reports whether the node's Ready condition is True.
func ready(k *corev1.Node) bool {
	for _, c := range k.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podRequest is what a pod holds of one resource while it lives, as the
// scheduler counts it (k8s.io/component-helpers resource.PodRequests):
// the larger of the app containers' sum and the largest init container,
// where restartable init containers (sidecars) run beside everything
// started after them and add to both. An extended resource's request
// is its limit when only the limit is given.
func podRequest(p *corev1.Pod, name corev1.ResourceName) int64 {
	var sum, sidecars, initMax int64
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		r := containerRequest(c, name)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars += r
			initMax = max(initMax, sidecars)
			continue
		}
		initMax = max(initMax, sidecars+r)
	}
	for i := range p.Spec.Containers {
		sum += containerRequest(&p.Spec.Containers[i], name)
	}
	return max(sum+sidecars, initMax)
}

func containerRequest(c *corev1.Container, name corev1.ResourceName) int64 {
	if q, ok := c.Resources.Requests[name]; ok {
		return q.Value()
	}
	if q, ok := c.Resources.Limits[name]; ok {
		return q.Value()
	}
	return 0
}

// fault turns a client error into words safe to show: what failed and
// why, never a token.
func (s *Source) fault(what string, err error) error {
	e := &cluster.Error{Source: "Kubernetes", Err: err}
	var ue *url.Error
	var ne net.Error
	re, redirected := samehost.As(err)
	switch {
	case redirected:
		e.Kind = cluster.FaultBadAnswer
		e.Detail = fmt.Sprintf("asked to %s, the API server at %s redirected fitbot to another host (%s); fitbot does not send its credentials there: check the kubeconfig's server address", what, re.From, re.To)
	case apierrors.IsForbidden(err):
		e.Kind = cluster.FaultForbidden
		e.Detail = fmt.Sprintf("the API server refused to %s for fitbot's account: grant it the read-only ClusterRole in deploy/kubernetes.yaml (docs/cluster.md)", what)
	case apierrors.IsUnauthorized(err):
		e.Kind = cluster.FaultForbidden
		e.Detail = fmt.Sprintf("the API server did not accept fitbot's credentials to %s: check the kubeconfig's user or the service account token", what)
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		e.Kind = cluster.FaultUnreachable
		e.Detail = fmt.Sprintf("the API server did not answer in time to %s", what)
	case errors.As(err, &ue):
		e.Kind = cluster.FaultUnreachable
		e.Detail = fmt.Sprintf("cannot reach the API server at %s to %s", host(ue.URL), what)
	case errors.As(err, &ne):
		e.Kind = cluster.FaultUnreachable
		e.Detail = fmt.Sprintf("cannot reach the API server to %s", what)
	default:
		e.Kind = cluster.FaultBadAnswer
		e.Detail = fmt.Sprintf("could not %s: %s", what, safeStatus(err))
	}
	return e
}

// host is a URL's scheme and host, nothing of its path or query.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the configured address"
	}
	return u.Scheme + "://" + u.Host
}

// safeStatus is an API error's reason and code, else a generic phrase:
// API servers' messages name objects, never credentials, but fitbot
// does not show text it has not checked.
func safeStatus(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		return fmt.Sprintf("%s (HTTP %d)", st.Reason, st.Code)
	}
	return "an answer fitbot could not read"
}
