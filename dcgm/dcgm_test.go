package dcgm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/measure"
)

var (
	runStart = time.Date(2025, 10, 1, 10, 0, 0, 0, time.UTC)
	runEnd   = runStart.Add(time.Hour)
)

// fakePrometheus answers /api/v1/query with the recorded answers: the
// framebuffer peak or the tensor activity for pod llama-lora-0, an empty
// vector for anything else, and bad_data (HTTP 400) for a query that does
// not parse. It requires token when token is set.
func fakePrometheus(t *testing.T, token string) *httptest.Server {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		r.ParseForm()
		q := r.Form.Get("query")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(q, `pod="unparsable"`):
			w.WriteHeader(http.StatusBadRequest)
			w.Write(read("bad-data.json"))
		case !strings.Contains(q, `pod="llama-lora-0"`) && !strings.Contains(q, `Hostname="gpu-node-1"`):
			w.Write(read("empty.json"))
		case strings.Contains(q, FramebufferUsed):
			w.Write(read("fb-used-peak.json"))
		default:
			w.Write(read("tensor-active.json"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunFromRecordedAnswers(t *testing.T) {
	srv := fakePrometheus(t, "s3cret")
	r, err := New(srv.URL, "s3cret", Labels{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Run(context.Background(), Window{Pod: "llama-lora-0", Namespace: "ml", From: runStart, To: runEnd})
	want := measure.Run{PeakBytes: 72704 << 20, Hours: 1, TensorActive: 0.4462809917355371}
	if err != nil || run != want {
		t.Fatalf("run = %+v, %v; want %+v", run, err, want)
	}
}

func TestRunSaysWhatWentWrong(t *testing.T) {
	srv := fakePrometheus(t, "s3cret")
	ctx := context.Background()
	w := Window{Pod: "llama-lora-0", From: runStart, To: runEnd}
	for _, c := range []struct {
		name, token string
		window      Window
		says        string
	}{
		{"wrong token", "wrong", w, "refused fitbot (HTTP 401): check FITBOT_PROMETHEUS_TOKEN"},
		{"no such pod", "s3cret", Window{Pod: "nope", From: runStart, To: runEnd}, "no DCGM_FI_DEV_FB_USED series for pod nope"},
		{"a pod and a host", "s3cret", Window{Pod: "a", Host: "b", From: runStart, To: runEnd}, "one of them"},
		{"backwards", "s3cret", Window{Pod: "a", From: runEnd, To: runStart}, "ends"},
		{"bad_data", "s3cret", Window{Pod: "unparsable", From: runStart, To: runEnd}, "bad_data: invalid parameter"},
	} {
		r, err := New(srv.URL, c.token, Labels{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Run(ctx, c.window)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
		if err != nil && strings.Contains(err.Error(), c.token) && c.token != "" {
			t.Errorf("%s: the error shows the token: %v", c.name, err)
		}
	}
}

func TestUnreachableAndSlow(t *testing.T) {
	released := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-released }))
	defer srv.Close()
	defer close(released)
	r, _ := New(srv.URL, "", Labels{}, &http.Client{Timeout: 200 * time.Millisecond})
	if _, err := r.Run(context.Background(), Window{Host: "gpu-node-1", From: runStart, To: runEnd}); err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("slow Prometheus: %v", err)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	r, _ = New(url, "", Labels{}, nil)
	if _, err := r.Run(context.Background(), Window{Host: "gpu-node-1", From: runStart, To: runEnd}); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("closed Prometheus: %v", err)
	}
	if _, err := New("prometheus:9090", "", Labels{}, nil); err == nil {
		t.Error("a URL with no scheme taken")
	}
	if _, err := New("http://user:pw@[::1", "", Labels{}, nil); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("bad URL: %v", err)
	}
}

// TestRealPrometheus reads the run from the real Prometheus that .ci/run
// starts with dcgm-exporter.om backfilled (FITBOT_TEST_PROMETHEUS is its URL).
func TestRealPrometheus(t *testing.T) {
	url := os.Getenv("FITBOT_TEST_PROMETHEUS")
	if url == "" {
		t.Skip("FITBOT_TEST_PROMETHEUS is not set: .ci/run starts a Prometheus for this test")
	}
	r, err := New(url, "", Labels{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, w := range []Window{
		{Pod: "llama-lora-0", Namespace: "ml", From: runStart, To: runEnd},
		{Pod: "llama-lora-0", From: runStart.Add(time.Minute), To: runEnd},
	} {
		run, err := r.Run(ctx, w)
		if err != nil || run.PeakBytes != 72704<<20 || run.TensorActive < 0.44 || run.TensorActive > 0.46 {
			t.Errorf("%+v: %+v, %v; want the 72,704 MiB peak (not the other pod's 80,100 nor the 79,800 after the run) and ~0.45 tensor activity", w, run, err)
		}
	}
	if _, err := r.Run(ctx, Window{Pod: `x") or vector(1) #`, From: runStart, To: runEnd}); err == nil || !strings.Contains(err.Error(), "no DCGM_FI_DEV_FB_USED series") {
		t.Errorf("a pod name with quotes is not kept inside its string: %v", err)
	}
	if run, err := r.Run(ctx, Window{Host: "gpu-node-1", From: runStart, To: runEnd}); err != nil || run.PeakBytes != 80100<<20 {
		t.Errorf("the host's peak: %+v, %v; want the serving pod's 80,100 MiB", run, err)
	}
	if _, err := r.Run(ctx, Window{Pod: "llama-lora-0", From: runEnd.Add(2 * time.Hour), To: runEnd.Add(3 * time.Hour)}); err == nil || !strings.Contains(err.Error(), "no DCGM_FI_DEV_FB_USED series") {
		t.Errorf("a window with no samples: %v", err)
	}
}
