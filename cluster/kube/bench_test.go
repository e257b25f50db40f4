package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bigCluster is a fake API server holding nodes GPU nodes (8 H100 each)
// and pods pods spread over them, five on each node holding a GPU, served in pages
// of the asked limit, JSON encoded once up front.
type bigCluster struct{ nodes, pods [][]byte }

func newBigCluster(b *testing.B, nodes, pods int) *bigCluster {
	c := &bigCluster{}
	var nl []corev1.Node
	for i := range nodes {
		nl = append(nl, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu-%04d", i), Labels: map[string]string{labelProduct: "NVIDIA-H100-80GB-HBM3", labelMemoryMiB: "81559", "kubernetes.io/hostname": fmt.Sprintf("gpu-%04d", i)}},
			Status: corev1.NodeStatus{
				Allocatable: corev1.ResourceList{resourceNVIDIA: *resource.NewQuantity(8, resource.DecimalSI), corev1.ResourceCPU: resource.MustParse("191450m"), corev1.ResourceMemory: resource.MustParse("2085601280Ki")},
				Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
			},
		})
	}
	var pl []corev1.Pod
	for i := range pods {
		pl = append(pl, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("job-%05d", i), Namespace: "ml", Labels: map[string]string{"app": "train"}},
			Spec: corev1.PodSpec{NodeName: nl[i%nodes].Name, Containers: []corev1.Container{{Name: "trainer", Image: "nvcr.io/nvidia/pytorch:24.10-py3",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{resourceNVIDIA: *resource.NewQuantity(int64(1-min(i/nodes%(pods/nodes/5), 1)), resource.DecimalSI), corev1.ResourceCPU: resource.MustParse("8")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	for start := 0; start < len(nl); start += pageSize {
		l := corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}, Items: nl[start:min(start+pageSize, len(nl))]}
		if start+pageSize < len(nl) {
			l.Continue = strconv.Itoa(start + pageSize)
		}
		c.nodes = append(c.nodes, mustJSON(b, l))
	}
	for start := 0; start < len(pl); start += pageSize {
		l := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: pl[start:min(start+pageSize, len(pl))]}
		if start+pageSize < len(pl) {
			l.Continue = strconv.Itoa(start + pageSize)
		}
		c.pods = append(c.pods, mustJSON(b, l))
	}
	return c
}

func mustJSON(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func (c *bigCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pages := c.nodes
	if r.URL.Path == "/api/v1/pods" {
		pages = c.pods
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	w.Header().Set("Content-Type", "application/json")
	w.Write(pages[start/pageSize])
}

// BenchmarkRead1000Nodes20000Pods reads a 1,000-node cluster with 20,000
// pods (5,000 of them holding a GPU) from an HTTPS fake API server in JSON
// (a real server answers in protobuf, which decodes faster): 2 pages of
// nodes and 40 of pods. The 40,000-pod case shows the memory a read
// holds does not grow with the cluster: peak-heap-MiB is the live heap
// above what the fake server's pages hold.
func BenchmarkRead1000Nodes20000Pods(b *testing.B) {
	for _, pods := range []int{20000, 40000} {
		b.Run(strconv.Itoa(pods)+"pods", func(b *testing.B) {
			srv := newTLS(b, newBigCluster(b, 1000, pods))
			src, err := New(Config{Kubeconfig: kubeconfig(b, srv, "    token: bench"), Context: "lab"})
			if err != nil {
				b.Fatal(err)
			}
			const want = 3000 // five of each node's eight GPUs held
			b.ReportAllocs()
			runtime.GC()
			peak := heapPeak()
			b.ResetTimer()
			for b.Loop() {
				s, err := src.Read(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if len(s.Nodes) != 1000 || s.Free["h100"] != want {
					b.Fatalf("read %d nodes, %d free, want %d", len(s.Nodes), s.Free["h100"], want)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
		})
	}
}

// heapPeak samples the live heap every millisecond (runtime/metrics, which
// does not stop the world) until the returned function is called, and
// returns the most seen above the heap at the start (call it after a GC).
func heapPeak() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var most uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			most = max(most, sample[0].Value.Uint64())
			select {
			case <-stop:
				done <- most - min(most, base)
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}
