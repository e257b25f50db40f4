package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// reply is one canned answer of the fake server: a status, headers, and a
// body read from testdata (or given inline), optionally after a delay.
type reply struct {
	status int
	header map[string]string
	file   string // under testdata/
	body   string // used when file is empty
	delay  time.Duration
}

// seen is one request as the fake server received it.
type seen struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// fakeServer replays replies in order (the last one repeats) and records
// every request.
type fakeServer struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	seen    []seen
}

func newFakeServer(t testing.TB, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.seen)
	f.seen = append(f.seen, seen{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body})
	rep := f.replies[min(n, len(f.replies)-1)]
	f.mu.Unlock()
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	payload := []byte(rep.body)
	if rep.file != "" {
		var err error
		payload, err = os.ReadFile(filepath.Join("testdata", rep.file))
		if err != nil {
			f.t.Errorf("fake server: %v", err)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(payload)
}

// requests returns what the server received so far.
func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

// chatRequest decodes a recorded request body.
func chatRequest(t *testing.T, s seen) openai.ChatCompletionRequest {
	t.Helper()
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(s.body, &req); err != nil {
		t.Fatalf("request body is not a chat-completions request: %v\n%s", err, s.body)
	}
	return req
}

// rawRequest decodes a recorded request body generically, to see keys
// go-openai's types would hide.
func rawRequest(t *testing.T, s seen) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(s.body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}

// ok is a 200 reply with a testdata body.
func ok(file string) reply { return reply{status: http.StatusOK, file: file} }
