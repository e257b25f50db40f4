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

// testQuestion is the question the client tests send.
const testQuestion = "can 8 h100s crunch llama 70b for 200 users"

// TestClientRequest: what a Reader sends to each kind of server (the key
// or none, the configured model or the default, a Qwen thinking model
// served by vLLM), and what it reads back from that server's shape.
func TestClientRequest(t *testing.T) {
	tests := []struct {
		name, file, key, model string
	}{
		{"openai strict", "reading_openai_strict.json", testKey, "gpt-4o-mini"},
		{"ollama without a key", "reading_ollama_fenced.json", "", "gemma4:12b"},
		{"vllm with a token", "reading_vllm_think.json", "token-abc123", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"},
		{"default model", "reading_openai_strict.json", testKey, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, ok(tt.file))
			c := New(Config{BaseURL: srv.srv.URL + "/v1", Model: tt.model, APIKey: tt.key}, srv.srv.Client(), nil)
			r, err := NewReader(c, testSpec, checkTest)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Read(context.Background(), testQuestion, testRequest{}); err != nil {
				t.Fatalf("Read: %v", err)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			checkRequest(t, reqs[0], tt.key, tt.model, testQuestion)
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
	if sys.Role != openai.ChatMessageRoleSystem || sys.Content != testSpec.Prompt {
		t.Errorf("system message changed: role %q, content %q", sys.Role, sys.Content)
	}
	quoted, _ := json.Marshal(question)
	if user.Role != openai.ChatMessageRoleUser || !strings.Contains(user.Content, string(quoted)) {
		t.Errorf("user message = %q, want it to contain the quoted question %s", user.Content, quoted)
	}

	raw := rawRequest(t, s)
	rf, _ := raw["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != readingName || js["strict"] != true {
		t.Fatalf("response_format = %v, want a strict json_schema named %s", rf, readingName)
	}
	schema, _ := js["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	wantKeys := []string{"understood", "question_back", "request"}
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
	request, _ := props["request"].(map[string]any)
	method, _ := request["properties"].(map[string]any)["method"].(map[string]any)
	if diff := cmp.Diff([]any{"", "full", "lora", "qlora", "inference"}, method["enum"]); diff != "" {
		t.Errorf("method enum (-want +got):\n%s", diff)
	}
}

// TestClientFailures covers every way a call can fail and the error the
// faces get for it: each is ErrUnavailable (a refusal too: the model gave
// no reading), and the asker is told the model was unavailable.
func TestClientFailures(t *testing.T) {
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
			wantIs: errRefused, wantRequests: 1, wantInError: "refused",
		},
		{
			name: "a reply of another schema", replies: []reply{ok("openai_structured.json")},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "not the requested JSON",
		},
		{
			name: "malformed JSON content", replies: []reply{ok("openai_malformed.json")},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "reply is not JSON",
		},
		{
			name: "content missing required keys", replies: []reply{{status: 200,
				body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"understood\":true,\"request\":{\"model\":\"llama-3.1-8b\"}}"},"finish_reason":"stop"}]}`}},
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
			name: "timeout", replies: []reply{{status: 200, file: "reading_openai_strict.json", delay: 5 * time.Second}},
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
				body: `{"error":{"message":"Invalid schema for response_format 'fitbot_reading'","type":"invalid_request_error","param":"response_format","code":null}}`}},
			wantIs: ErrUnavailable, wantRequests: 1, wantInError: "Invalid schema",
		},
		{
			name: "429 asking for longer than the deadline leaves is not retried",
			replies: []reply{{status: http.StatusTooManyRequests, file: "openai_error_429.json",
				header: map[string]string{"Retry-After": "30"}}, ok("reading_openai_strict.json")},
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
			r := newTestReader(t, srv, tt.timeout)
			start := time.Now()
			_, err := r.Read(context.Background(), testQuestion, testRequest{})
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

// TestClientRetriesAfter429 checks the one retry and that it waits for
// Retry-After before sending again.
func TestClientRetriesAfter429(t *testing.T) {
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
				ok("reading_openai_strict.json"))
			got, err := newTestReader(t, srv, 0).Read(context.Background(), testQuestion, testRequest{})
			if err != nil {
				t.Fatalf("Read after a 429: %v", err)
			}
			if got.Model != "llama-3.1-70b" {
				t.Errorf("got model %q after a retry, want llama-3.1-70b", got.Model)
			}
			reqs := srv.requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			if string(reqs[0].body) != string(reqs[1].body) {
				t.Errorf("retry sent a different body:\n%s\n%s", reqs[0].body, reqs[1].body)
			}
			checkRequest(t, reqs[1], testKey, "", testQuestion)
		})
	}
}

// TestRetryWaits measures the wait between the two attempts directly.
func TestRetryWaits(t *testing.T) {
	var times []time.Time
	srv := newFakeServer(t,
		reply{status: http.StatusServiceUnavailable, body: "overloaded", header: map[string]string{"Retry-After": "1"}},
		ok("reading_openai_strict.json"))
	c := New(Config{BaseURL: srv.srv.URL + "/v1"}, &http.Client{Transport: recordTimes(&times, srv.srv.Client().Transport)}, nil)
	r, err := NewReader(c, testSpec, checkTest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(context.Background(), testQuestion, testRequest{}); err != nil {
		t.Fatalf("Read after a 503: %v", err)
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

// TestClientAzure checks Azure mode: deployment path, api-version and
// the api-key header instead of a bearer token. The Azure host name is
// routed to the fake server by the transport.
func TestClientAzure(t *testing.T) {
	srv := newFakeServer(t, ok("reading_openai_strict.json"))
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
	r, err := NewReader(New(cfg, &http.Client{Transport: toFake}, nil), testSpec, checkTest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(context.Background(), testQuestion, testRequest{}); err != nil {
		t.Fatalf("Read: %v", err)
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
