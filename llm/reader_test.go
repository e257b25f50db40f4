package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testRequest stands for a reader's request type: an intent, names from
// catalogs, a count, an optional stage and words the model never sets.
type testRequest struct {
	Intent    string   `json:"intent"`
	Model     string   `json:"model"`
	GPU       string   `json:"gpu"`
	GPUs      int      `json:"gpus"`
	Method    string   `json:"method"`
	ZeROStage *int     `json:"zero_stage"`
	Unused    []string `json:"unused_words,omitempty"`
}

// checkTest keeps the grammar's unused words and bounds the GPUs.
func checkTest(grammar, r testRequest) (testRequest, error) {
	r.Unused = grammar.Unused
	if r.GPUs < 0 || r.GPUs > 4096 {
		return r, fmt.Errorf("%d GPUs is more than 4096", r.GPUs)
	}
	return r, nil
}

var testSpec = Spec{
	Enums: map[string][]string{
		"intent": {"fit", "serve", "prices", "plans"},
		"model":  {"llama-3.1-8b", "llama-3.1-70b"},
		"gpu":    {"h100", "a100-80", "rtx-4090"},
		"method": {"full", "lora", "qlora", "inference"},
	},
	Skip:   []string{"unused_words"},
	About:  map[string]string{"gpus": "total GPUs; 0 when not said"},
	Prompt: "You read questions for a test.",
}

func newTestReader(t testing.TB, srv *fakeServer, timeout time.Duration) *Reader[testRequest] {
	t.Helper()
	c := New(Config{BaseURL: srv.srv.URL + "/v1", APIKey: testKey, Timeout: timeout}, srv.srv.Client(), nil)
	r, err := NewReader(c, testSpec, checkTest)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReaderReplays replays the reply shapes of each server kind: the
// model's request comes back typed and validated, whatever wraps it.
func TestReaderReplays(t *testing.T) {
	tests := []struct {
		file string
		want testRequest
	}{
		{"reading_openai_strict.json", testRequest{Intent: "serve", Model: "llama-3.1-70b", GPU: "h100", GPUs: 8, Method: "inference", Unused: []string{"crunch"}}},
		{"reading_ollama_fenced.json", testRequest{Intent: "prices", GPU: "h100", Unused: []string{"crunch"}}},
		{"reading_vllm_think.json", testRequest{Intent: "fit", Model: "llama-3.1-70b", GPU: "a100-80", GPUs: 2, Method: "qlora", Unused: []string{"crunch"}}},
		{"reading_vllm_think_opened_by_prompt.json", testRequest{Intent: "plans", Model: "llama-3.1-8b", Unused: []string{"crunch"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			srv := newFakeServer(t, ok(tt.file))
			grammar := testRequest{Model: "llama-3.1-70b", Unused: []string{"crunch"}}
			got, err := newTestReader(t, srv, 0).Read(context.Background(), "can 8 h100s crunch llama 70b for 200 users", grammar)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			reqs := srv.requests()
			if len(reqs) != 1 || reqs[0].path != "/v1/chat/completions" {
				t.Fatalf("requests %+v, want one to /v1/chat/completions", reqs)
			}
			raw := rawRequest(t, reqs[0])
			format := raw["response_format"].(map[string]any)
			js := format["json_schema"].(map[string]any)
			if js["strict"] != true || js["name"] != readingName {
				t.Errorf("json_schema = %v, want strict %s", js, readingName)
			}
			props := js["schema"].(map[string]any)["properties"].(map[string]any)["request"].(map[string]any)["properties"].(map[string]any)
			if _, ok := props["unused_words"]; ok {
				t.Error("the schema lets the model set a skipped field")
			}
			if diff := cmp.Diff([]any{"", "h100", "a100-80", "rtx-4090"}, props["gpu"].(map[string]any)["enum"]); diff != "" {
				t.Errorf("gpu enum (-want +got):\n%s", diff)
			}
			user := chatRequest(t, reqs[0]).Messages[1].Content
			if !strings.Contains(user, `Question: "can 8 h100s crunch llama 70b for 200 users"`) || !strings.Contains(user, `"unused_words":["crunch"]`) {
				t.Errorf("user message does not carry the question and the grammar's reading:\n%s", user)
			}
		})
	}
}

// TestReaderFailures: each way the model gives no usable reading, and
// what the caller is told.
func TestReaderFailures(t *testing.T) {
	serverError := reply{status: http.StatusInternalServerError, file: "openai_error_500.json"}
	tests := []struct {
		name         string
		replies      []reply
		question     string
		timeout      time.Duration
		wantIs       error
		wantInError  string
		wantRequests int
	}{
		{"not understood asks back", []reply{ok("reading_openai_not_understood.json")}, "", 0,
			ErrNotUnderstood, "Which model do you want to run, and on which GPUs?", 1},
		{"refusal", []reply{ok("openai_refusal.json")}, "", 0, ErrUnavailable, "refused", 1},
		{"a reading validate refuses", []reply{ok("reading_openai_over_bounds.json")}, "", 0,
			ErrUnavailable, "its reading does not hold: 100000 GPUs is more than 4096", 1},
		{"a reply of the old schema", []reply{ok("openai_structured.json")}, "", 0,
			ErrUnavailable, "not the requested JSON", 1},
		{"a reply setting a field the model may not set", []reply{{status: 200, body: `{"id":"chatcmpl-4","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"understood\":true,\"question_back\":\"\",\"request\":{\"intent\":\"fit\",\"model\":\"\",\"gpu\":\"\",\"gpus\":0,\"method\":\"\",\"zero_stage\":null,\"unused_words\":[\"x\"]}}"},"finish_reason":"stop"}]}`}}, "", 0,
			ErrUnavailable, `it sets "request.unused_words"`, 1},
		{"5xx twice", []reply{serverError, serverError}, "", 0, ErrUnavailable, "HTTP 500", 2},
		{"timeout", []reply{{status: 200, file: "reading_openai_strict.json", delay: 5 * time.Second}}, "", 100 * time.Millisecond,
			context.DeadlineExceeded, "no reply before the deadline", 1},
		{"too long to send", []reply{ok("reading_openai_strict.json")}, strings.Repeat("h100 ", MaxQuestionBytes), 0,
			ErrNotUnderstood, "too long", 0},
		{"nothing to send", []reply{ok("reading_openai_strict.json")}, " \x00 \t", 0,
			ErrNotUnderstood, "Which model", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.replies...)
			q := tt.question
			if q == "" {
				q = "what's an h100 going for"
			}
			_, err := newTestReader(t, srv, tt.timeout).Read(context.Background(), q, testRequest{})
			if !errors.Is(err, tt.wantIs) {
				t.Fatalf("error = %v, want one matching %v", err, tt.wantIs)
			}
			msg := err.Error()
			var nu *NotUnderstoodError
			if errors.As(err, &nu) {
				msg = nu.QuestionBack
			}
			if !strings.Contains(msg, tt.wantInError) || strings.Contains(msg, testKey) {
				t.Errorf("error %q, want it to say %q and not the key", msg, tt.wantInError)
			}
			if n := len(srv.requests()); n != tt.wantRequests {
				t.Errorf("%d requests, want %d", n, tt.wantRequests)
			}
		})
	}
}

func TestNewReaderRefusesASpecThatDoesNotFit(t *testing.T) {
	c := New(Config{}, nil, nil)
	spec := testSpec
	spec.Enums = map[string][]string{"card": {"h100"}}
	if _, err := NewReader(c, spec, checkTest); err == nil || !strings.Contains(err.Error(), `"request.card"`) {
		t.Errorf("a spec naming no field: err = %v", err)
	}
	spec = testSpec
	spec.Prompt = ""
	if _, err := NewReader(c, spec, checkTest); err == nil {
		t.Error("a spec without a prompt is accepted")
	}
}

// TestReaderReadFollowUp: a message in a thread is sent with the
// thread's request, as a change to it; the reply is checked as Read's.
func TestReaderReadFollowUp(t *testing.T) {
	srv := newFakeServer(t, ok("reading_openai_strict.json"))
	thread := testRequest{Intent: "serve", Model: "llama-3.1-70b", GPU: "h100", GPUs: 2, Unused: []string{"crunch"}}
	got, err := newTestReader(t, srv, 0).ReadFollowUp(context.Background(), "and what if 8 of them crunch it", thread)
	if err != nil {
		t.Fatalf("ReadFollowUp: %v", err)
	}
	if got.GPUs != 8 || got.Model != "llama-3.1-70b" || !slices.Equal(got.Unused, thread.Unused) {
		t.Errorf("read %+v, want the thread's model on 8 GPUs, the grammar's unused words kept", got)
	}
	user := chatRequest(t, srv.requests()[0]).Messages[1].Content
	for _, want := range []string{"in the thread of fitbot's answer", `Message: "and what if 8 of them crunch it"`, `"gpus":2`} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
}
