package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
)

const testKey = "sk-test-fitbot-0123456789abcdef"

// blank is an extraction with every field unspecified, as the model is
// told to send it.
func blank() extraction {
	return extraction{Understood: true, Method: unspecified, Optimizer: unspecified, Precision: unspecified,
		Quant: unspecified, ZeROStage: unspecified, Offload: unspecified, GradCkpt: unspecified}
}

func with(f func(*extraction)) extraction {
	x := blank()
	f(&x)
	return x
}

// TestExtractReplays replays recorded replies of each server kind and
// checks both the request sent and the fields read back.
func TestExtractReplays(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		key      string
		model    string
		question string
		want     extraction
	}{
		{
			name: "openai structured output", file: "openai_structured.json", key: testKey, model: "gpt-4o-mini",
			question: "@fitbot can we fine-tune Llama 3 70B with QLoRA on two A100s?",
			want:     with(func(x *extraction) { x.Model, x.Method, x.GPU, x.GPUs = "Llama 3 70B", "qlora", "A100", 2 }),
		},
		{
			name: "ollama without a key", file: "ollama_structured.json", model: "llama3.1:8b",
			question: "will mixtral run on two 4090s in int4?",
			want: with(func(x *extraction) {
				x.Model, x.Method, x.Precision, x.GPU, x.GPUs = "mixtral", "inference", "int4", "4090", 2
			}),
		},
		{
			name: "vllm", file: "vllm_structured.json", key: "token-abc123", model: "Qwen/Qwen2.5-7B-Instruct",
			question: "can we full fine-tune Qwen2.5 7B on a single H100 with 8-bit Adam?",
			want: with(func(x *extraction) {
				x.Model, x.Method, x.Optimizer, x.GPU, x.GPUs = "Qwen2.5 7B", "full", "adamw-8bit", "H100", 1
			}),
		},
		{
			name: "llama.cpp server", file: "llamacpp_structured.json", model: "",
			question: "how much VRAM to lora a 13b at rank 16 with 4k context on a 4090",
			want: with(func(x *extraction) {
				x.ParamsBillions, x.Method, x.GPU, x.LoRARank, x.SeqLen = 13, "lora", "4090", 16, 4096
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, ok(tt.file))
			c := New(Config{BaseURL: srv.srv.URL + "/v1", Model: tt.model, APIKey: tt.key}, srv.srv.Client(), nil)
			got, info, err := c.extract(context.Background(), tt.question)
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(extraction{})); diff != "" {
				t.Errorf("extraction (-want +got):\n%s", diff)
			}
			if info.attempts != 1 || info.status != http.StatusOK || info.promptTokens == 0 {
				t.Errorf("call info = %+v, want one 200 attempt with usage", info)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			checkRequest(t, reqs[0], tt.key, tt.model, tt.question)
		})
	}
}

// checkRequest asserts what every chat-completions request must look like.
func checkRequest(t *testing.T, s seen, key, model, question string) {
	t.Helper()
	if s.method != http.MethodPost || s.path != "/v1/chat/completions" {
		t.Errorf("request = %s %s, want POST /v1/chat/completions", s.method, s.path)
	}
	if got, want := s.header.Get("Authorization"), "Bearer "+key; key != "" && got != want {
		t.Errorf("Authorization = %q, want %q", got, want)
	}
	if _, present := s.header["Authorization"]; key == "" && present {
		t.Errorf("Authorization header sent without a key: %q", s.header.Get("Authorization"))
	}
	req := chatRequest(t, s)
	wantModel := model
	if wantModel == "" {
		wantModel = DefaultModel
	}
	if req.Model != wantModel {
		t.Errorf("model = %q, want %q", req.Model, wantModel)
	}
	if req.Temperature <= 0 || req.Temperature > 1e-5 {
		t.Errorf("temperature = %g, want a tiny positive value (go-openai drops 0)", req.Temperature)
	}
	if len(req.Messages) != 2 {
		t.Fatalf("sent %d messages, want system and user", len(req.Messages))
	}
	sys, user := req.Messages[0], req.Messages[1]
	if sys.Role != openai.ChatMessageRoleSystem || sys.Content != systemPrompt {
		t.Errorf("system message changed: role %q, content %q", sys.Role, sys.Content)
	}
	quoted, _ := json.Marshal(question)
	if user.Role != openai.ChatMessageRoleUser || !strings.Contains(user.Content, string(quoted)) {
		t.Errorf("user message = %q, want it to contain the quoted question %s", user.Content, quoted)
	}

	raw := rawRequest(t, s)
	rf, _ := raw["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != schemaName || js["strict"] != true {
		t.Fatalf("response_format = %v, want a strict json_schema named %s", rf, schemaName)
	}
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	wantKeys := []string{"understood", "question_back", "model", "params_billions", "experts", "method", "optimizer",
		"precision", "quant", "gpu", "gpus", "nodes", "zero_stage", "offload", "seq_len", "micro_batch",
		"grad_checkpointing", "lora_rank", "tokens"}
	var gotKeys, gotRequired []string
	for k := range props {
		gotKeys = append(gotKeys, k)
	}
	for _, k := range required {
		gotRequired = append(gotRequired, k.(string))
	}
	slices.Sort(wantKeys)
	slices.Sort(gotKeys)
	slices.Sort(gotRequired)
	if diff := cmp.Diff(wantKeys, gotKeys); diff != "" {
		t.Errorf("schema properties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantKeys, gotRequired); diff != "" {
		t.Errorf("schema required, strict mode needs every key (-want +got):\n%s", diff)
	}
	if schema["additionalProperties"] != false {
		t.Errorf("schema additionalProperties = %v, want false", schema["additionalProperties"])
	}
	method, _ := props["method"].(map[string]any)
	if diff := cmp.Diff([]any{"unspecified", "full", "lora", "qlora", "inference"}, method["enum"]); diff != "" {
		t.Errorf("method enum (-want +got):\n%s", diff)
	}
}

// TestExtractFailures covers every way a call can fail and the error the
// bot gets for it.
func TestExtractFailures(t *testing.T) {
	rateLimited := reply{status: http.StatusTooManyRequests, file: "openai_error_429.json"}
	serverError := reply{status: http.StatusInternalServerError, file: "openai_error_500.json"}
	tests := []struct {
		name         string
		replies      []reply
		timeout      time.Duration
		wantIs       error
		wantRequests int
		wantInError  string
		maxElapsed   time.Duration
	}{
		{
			name: "refusal", replies: []reply{ok("openai_refusal.json")},
			wantIs: ErrNotUnderstood, wantRequests: 1, wantInError: "refused",
		},
		{
			name: "malformed JSON content", replies: []reply{ok("openai_malformed.json")},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "not the requested JSON",
		},
		{
			name: "content missing required keys", replies: []reply{{status: 200,
				body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"understood\":true,\"model\":\"llama 3 8b\"}"},"finish_reason":"stop"}]}`}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "validation failed",
		},
		{
			name: "no choices", replies: []reply{{status: 200, body: `{"id":"chatcmpl-2","object":"chat.completion","choices":[]}`}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "no choices",
		},
		{
			name: "cut off at the token limit", replies: []reply{{status: 200,
				body: `{"id":"chatcmpl-3","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"understood\":"},"finish_reason":"length"}]}`}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "token limit",
		},
		{
			name: "timeout", replies: []reply{{status: 200, file: "openai_structured.json", delay: 5 * time.Second}},
			timeout: 100 * time.Millisecond, wantIs: context.DeadlineExceeded, wantRequests: 1,
			wantInError: "no reply before the deadline", maxElapsed: 2 * time.Second,
		},
		{
			name: "500 twice: one retry, then unavailable", replies: []reply{serverError, serverError},
			wantIs: ErrUnavailable, wantRequests: 2, wantInError: "HTTP 500",
		},
		{
			name: "502 plain-text body from a proxy", replies: []reply{{status: http.StatusBadGateway, body: "<html>502 Bad Gateway</html>"}},
			wantIs: ErrUnavailable, wantRequests: 2, wantInError: "HTTP 502: <html>502 Bad Gateway</html>",
		},
		{
			name: "401 is not retried", replies: []reply{{status: http.StatusUnauthorized, file: "openai_error_401.json"}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "HTTP 401 invalid_api_key",
		},
		{
			name: "400 is not retried", replies: []reply{{status: http.StatusBadRequest,
				body: `{"error":{"message":"Invalid schema for response_format 'sizing_request'","type":"invalid_request_error","param":"response_format","code":null}}`}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "Invalid schema",
		},
		{
			name: "429 asking for longer than the deadline leaves is not retried",
			replies: []reply{{status: http.StatusTooManyRequests, file: "openai_error_429.json",
				header: map[string]string{"Retry-After": "30"}}, ok("openai_structured.json")},
			timeout: time.Second, wantIs: ErrUnavailable, wantRequests: 1, wantInError: "rate_limit_exceeded",
			maxElapsed: 500 * time.Millisecond,
		},
		{
			name: "429 twice", replies: []reply{rateLimited, rateLimited},
			wantIs: ErrUnavailable, wantRequests: 2, wantInError: "HTTP 429",
		},
		{
			name: "a proxy echoing the key", replies: []reply{{status: http.StatusForbidden, body: "denied for key " + testKey}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "denied for key [redacted]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.replies...)
			c := New(Config{BaseURL: srv.srv.URL + "/v1", APIKey: testKey, Timeout: tt.timeout}, srv.srv.Client(), nil)
			start := time.Now()
			_, _, err := c.extract(context.Background(), "can we fine-tune llama 3 70b on two a100s")
			elapsed := time.Since(start)
			if !errors.Is(err, tt.wantIs) {
				t.Fatalf("error = %v, want one matching %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error = %q, want it to mention %q", err, tt.wantInError)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q contains the API key", err)
			}
			if n := len(srv.requests()); n != tt.wantRequests {
				t.Errorf("server saw %d requests, want %d", n, tt.wantRequests)
			}
			if tt.maxElapsed > 0 && elapsed > tt.maxElapsed {
				t.Errorf("took %v, want at most %v", elapsed, tt.maxElapsed)
			}
		})
	}
}

// TestExtractRetriesAfter429 checks the one retry and that it waits for
// Retry-After before sending again.
func TestExtractRetriesAfter429(t *testing.T) {
	tests := []struct {
		name     string
		header   map[string]string
		minDelay time.Duration
	}{
		{"Retry-After in seconds", map[string]string{"Retry-After": "1"}, time.Second},
		{"retry-after-ms", map[string]string{"Retry-After-Ms": "300"}, 300 * time.Millisecond},
		{"no Retry-After", nil, retryBackoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t,
				reply{status: http.StatusTooManyRequests, file: "openai_error_429.json", header: tt.header},
				ok("openai_structured.json"))
			c := New(Config{BaseURL: srv.srv.URL + "/v1", APIKey: testKey}, srv.srv.Client(), nil)
			got, info, err := c.extract(context.Background(), "can we fine-tune Llama 3 70B with QLoRA on two A100s?")
			if err != nil {
				t.Fatalf("extract after a 429: %v", err)
			}
			if got.Model != "Llama 3 70B" || info.attempts != 2 {
				t.Errorf("got model %q after %d attempts, want Llama 3 70B after 2", got.Model, info.attempts)
			}
			reqs := srv.requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			if string(reqs[0].body) != string(reqs[1].body) {
				t.Errorf("retry sent a different body:\n%s\n%s", reqs[0].body, reqs[1].body)
			}
			checkRequest(t, reqs[1], testKey, "", "can we fine-tune Llama 3 70B with QLoRA on two A100s?")
		})
	}
}

// TestRetryWaits measures the wait between the two attempts directly.
func TestRetryWaits(t *testing.T) {
	var times []time.Time
	srv := newFakeServer(t,
		reply{status: http.StatusServiceUnavailable, body: "overloaded", header: map[string]string{"Retry-After": "1"}},
		ok("openai_structured.json"))
	c := New(Config{BaseURL: srv.srv.URL + "/v1"}, &http.Client{Transport: recordTimes(&times, srv.srv.Client().Transport)}, nil)
	if _, _, err := c.extract(context.Background(), "llama 3 70b qlora 2 a100"); err != nil {
		t.Fatalf("extract after a 503: %v", err)
	}
	if len(times) != 2 {
		t.Fatalf("%d attempts, want 2", len(times))
	}
	if gap := times[1].Sub(times[0]); gap < time.Second {
		t.Errorf("retried after %v, want at least the 1 s Retry-After", gap)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func recordTimes(times *[]time.Time, next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		*times = append(*times, time.Now())
		return next.RoundTrip(r)
	})
}

// TestExtractAzure checks Azure mode: deployment path, api-version and
// the api-key header instead of a bearer token. The Azure host name is
// routed to the fake server by the transport.
func TestExtractAzure(t *testing.T) {
	srv := newFakeServer(t, ok("openai_structured.json"))
	base := srv.srv.Client().Transport
	toFake := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host != "fitbot-test.openai.azure.com" {
			t.Errorf("request went to %s, want the Azure resource", r.URL.Host)
		}
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(srv.srv.URL, "http://")
		return base.RoundTrip(r)
	})
	cfg := Config{BaseURL: "https://fitbot-test.openai.azure.com/", Model: "gpt-4.1-mini", APIKey: testKey}
	if !cfg.Azure() {
		t.Fatal("Azure() = false for an openai.azure.com resource")
	}
	c := New(cfg, &http.Client{Transport: toFake}, nil)
	if _, _, err := c.extract(context.Background(), "llama 3 70b qlora on 2 a100"); err != nil {
		t.Fatalf("extract: %v", err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	s := reqs[0]
	if want := "/openai/deployments/gpt-4.1-mini/chat/completions"; s.path != want {
		t.Errorf("path = %q, want %q", s.path, want)
	}
	if want := "api-version=" + DefaultAzureAPIVersion; s.query != want {
		t.Errorf("query = %q, want %q", s.query, want)
	}
	if s.header.Get("api-key") != testKey || s.header.Get("Authorization") != "" {
		t.Errorf("headers api-key=%q Authorization=%q, want the key in api-key only",
			s.header.Get("api-key"), s.header.Get("Authorization"))
	}
}
