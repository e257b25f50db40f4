package hub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// route is one canned answer of the fake Hub.
type route struct {
	status  int
	file    string // under testdata; "" for an empty body
	headers map[string]string
	delay   time.Duration
}

// fakeHub is an httptest Hub that replays testdata and records what it was asked.
type fakeHub struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	routes map[string]route // by path and raw query: "/api/models/Qwen/Qwen3-14B"
	asked  []*http.Request
}

func newFakeHub(t *testing.T, routes map[string]route) *fakeHub {
	t.Helper()
	f := &fakeHub{t: t, routes: routes}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.asked = append(f.asked, r.Clone(context.Background()))
	rt, ok := f.routes[r.URL.RequestURI()]
	if !ok {
		rt, ok = f.routes[r.URL.Path]
	}
	f.mu.Unlock()
	if !ok {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, `{"error":"Repository not found"}`, http.StatusNotFound)
		return
	}
	if rt.delay > 0 {
		select {
		case <-time.After(rt.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rt.headers {
		w.Header().Set(k, v)
	}
	if etag := rt.headers["ETag"]; etag != "" && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	status := rt.status
	if status == 0 {
		status = http.StatusOK
	}
	var body []byte
	if rt.file != "" {
		var err error
		body, err = os.ReadFile(filepath.Join("testdata", rt.file))
		if err != nil {
			f.t.Errorf("fake hub: %v", err)
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (f *fakeHub) set(path string, rt route) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = rt
}

func (f *fakeHub) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.asked...)
}

func (f *fakeHub) client(token string) *Client {
	return &Client{BaseURL: f.srv.URL, Token: token, HTTP: f.srv.Client(), Timeout: 2 * time.Second}
}

// publicRoutes serve Qwen/Qwen3-14B, DeepSeek-V3.1 (fp8) and the gated Llama 4 Scout.
func publicRoutes() map[string]route {
	return map[string]route{
		"/api/models/Qwen/Qwen3-14B": {file: "info_qwen3-14b.json"},
		"/Qwen/Qwen3-14B/resolve/8268fe3026cb304910457689366670e803a6fd56/config.json": {file: "config_qwen3-14b.json",
			headers: map[string]string{"ETag": `"6bb5a0b2c0b7c5c4e1f3"`}},
		"/api/models/deepseek-ai/DeepSeek-V3.1":                                                   {file: "info_deepseek-v3.1_fp8.json"},
		"/deepseek-ai/DeepSeek-V3.1/resolve/9e6c48c3fa6bb0e1e1de4a6ee8a1d5ae7f2a4b91/config.json": {file: "config_deepseek-v3.1.json"},
		"/api/models/meta-llama/Llama-4-Scout-17B-16E-Instruct":                                   {file: "info_llama-4-scout_gated.json"},
		"/meta-llama/Llama-4-Scout-17B-16E-Instruct/resolve/92f3b1597a195b523d8d9e5700e57e4fbb8f20d3/config.json": {
			status: http.StatusUnauthorized, file: "gated_401.json",
			headers: map[string]string{"X-Error-Code": "GatedRepo", "X-Error-Message": "Access to model meta-llama/Llama-4-Scout-17B-16E-Instruct is restricted."}},
		"/api/models?direction=-1&limit=20&search=qwen3-14b&sort=downloads":             {file: "search_qwen3-14b.json"},
		"/api/models/Qwen/Qwen3-1.7B":                                                   {file: "info_qwen3-1.7b.json"},
		"/Qwen/Qwen3-1.7B/resolve/70d244cc86ccca08cf5af4e1e306ecf908b1ad5e/config.json": {file: "config_qwen3-1.7b.json"},
		"/api/models?direction=-1&limit=20&search=qwen3-1.7b&sort=downloads":            {file: "search_qwen3-1.7b.json"},
		"/api/models/google/gemma-3n-E4B-it":                                            {file: "info_gemma-3n-e4b-it_gated.json"},
		"/google/gemma-3n-E4B-it/resolve/c1221e9c62e34a43ab7ffacd1be0ea71f126ef10/config.json": {
			status: http.StatusUnauthorized, file: "gated_401_gemma.json", headers: map[string]string{"X-Error-Code": "GatedRepo"}},
	}
}

func TestModelInfoReadsTheHubsShapes(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	tests := []struct {
		repo      string
		wantSHA   string
		wantGated string
		wantTotal int64
		wantDTs   int
	}{
		{"Qwen/Qwen3-14B", "8268fe3026cb304910457689366670e803a6fd56", "", 14_768_307_200, 1},
		{"deepseek-ai/DeepSeek-V3.1", "9e6c48c3fa6bb0e1e1de4a6ee8a1d5ae7f2a4b91", "", 684_531_386_000, 3},
		{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "92f3b1597a195b523d8d9e5700e57e4fbb8f20d3", "manual", 108_641_793_536, 1},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			info, err := hub.client("").ModelInfo(context.Background(), tt.repo)
			if err != nil {
				t.Fatal(err)
			}
			if info.ID != tt.repo || info.SHA != tt.wantSHA || info.Gated != tt.wantGated {
				t.Errorf("info = %s@%s gated %q, want %s@%s gated %q", info.ID, info.SHA, info.Gated, tt.repo, tt.wantSHA, tt.wantGated)
			}
			if info.Weights.Total != tt.wantTotal || len(info.Weights.ByDType) != tt.wantDTs {
				t.Errorf("weights = %+v, want total %d over %d dtypes", info.Weights, tt.wantTotal, tt.wantDTs)
			}
		})
	}
}

func TestClientSendsTheTokenAsBearer(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	if _, err := hub.client("hf_secret123").ModelInfo(context.Background(), "Qwen/Qwen3-14B"); err != nil {
		t.Fatal(err)
	}
	if _, err := hub.client("").ModelInfo(context.Background(), "Qwen/Qwen3-14B"); err != nil {
		t.Fatal(err)
	}
	reqs := hub.requests()
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer hf_secret123" {
		t.Errorf("Authorization with a token = %q, want Bearer hf_secret123", got)
	}
	if got := reqs[1].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization without a token = %q, want none", got)
	}
}

func TestClientRefusals(t *testing.T) {
	const repo = "Qwen/Qwen3-14B"
	tests := []struct {
		name      string
		rt        route
		token     string
		wantKind  Kind
		wantIn    []string // in Problem or Hint
		wantRetry time.Duration
	}{
		{"404", route{status: 404, file: "notfound_404.json", headers: map[string]string{"X-Error-Code": "RepoNotFound"}}, "",
			KindNotFound, []string{"Qwen/Qwen3-14B is not a model on the Hugging Face Hub", "HF_TOKEN"}, 0},
		{"401 for a missing repo", route{status: 401, file: "notfound_404.json", headers: map[string]string{"X-Error-Code": "RepoNotFound"}}, "",
			KindNotFound, []string{"not a model"}, 0},
		{"401 bad token", route{status: 401, file: "notfound_404.json"}, "hf_secret123",
			KindUnauthorized, []string{"refused HF_TOKEN", "settings/tokens"}, 0},
		{"429", route{status: 429, file: "ratelimit_429.json", headers: map[string]string{"Retry-After": "120"}}, "",
			KindRateLimited, []string{"rate-limiting", "2m0s", "HF_TOKEN raises the limit"}, 2 * time.Minute},
		{"500", route{status: 500, file: "error_500.txt"}, "",
			KindUnavailable, []string{"failing (HTTP 500)", "status.huggingface.co"}, 0},
		{"503", route{status: 503}, "", KindUnavailable, []string{"HTTP 503"}, 0},
		{"slow", route{file: "info_qwen3-14b.json", delay: time.Second}, "", KindUnreachable, []string{"did not answer within 100ms"}, 0},
		{"not JSON", route{file: "error_500.txt"}, "", KindBadAnswer, []string{"not the JSON fitbot expects"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := newFakeHub(t, map[string]route{"/api/models/" + repo: tt.rt})
			c := hub.client(tt.token)
			c.Timeout = 100 * time.Millisecond
			_, err := c.ModelInfo(context.Background(), repo)
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if he.Kind != tt.wantKind || he.RetryAfter != tt.wantRetry {
				t.Errorf("kind %s retry %v, want %s retry %v (%v)", he.Kind, he.RetryAfter, tt.wantKind, tt.wantRetry, err)
			}
			text := he.Problem + " / " + he.Hint
			for _, w := range tt.wantIn {
				if !strings.Contains(text, w) {
					t.Errorf("message %q lacks %q", text, w)
				}
			}
			if strings.Contains(text, "hf_secret123") || strings.Contains(err.Error(), "hf_secret123") {
				t.Errorf("the token leaked into %q", text)
			}
		})
	}
}

func TestGatedRepoWithoutTokenSaysToSetHFToken(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	r := &Resolver{Client: hub.client("")}
	_, err := r.Resolve(context.Background(), "meta-llama/Llama-4-Scout-17B-16E-Instruct")
	var he *Error
	if !errors.As(err, &he) || he.Kind != KindGated {
		t.Fatalf("err = %v, want a gated *Error", err)
	}
	for _, w := range []string{"gated", "meta-llama/Llama-4-Scout-17B-16E-Instruct"} {
		if !strings.Contains(he.Problem, w) {
			t.Errorf("problem %q lacks %q", he.Problem, w)
		}
	}
	if !strings.Contains(he.Hint, "set HF_TOKEN") || !strings.Contains(he.Hint, "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct") {
		t.Errorf("hint %q should say to accept the terms and set HF_TOKEN", he.Hint)
	}

	_, err = (&Resolver{Client: hub.client("hf_secret123")}).Resolve(context.Background(), "meta-llama/Llama-4-Scout-17B-16E-Instruct")
	if !errors.As(err, &he) || he.Kind != KindGated || !strings.Contains(he.Problem, "has not been granted access") {
		t.Errorf("with a token: err = %v, want gated and not granted", err)
	}
}

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
