package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeModel is an OpenAI-compatible server replaying one recorded reply
// with status, counting the calls.
func fakeModel(t *testing.T, status int, file string) *atomic.Int64 {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "openai", file))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-cli-0123456789")
	return &calls
}

// TestFitAsksTheLanguageModel: on the command line as in Slack, words
// the grammar leaves unused go to a configured model; what it reads
// shapes the answer, which says so, and --json carries interpreted. When
// the model fails, the asker is told and the grammar's reading stands.
func TestFitAsksTheLanguageModel(t *testing.T) {
	const q = "llama 3.1 8b lora on a 4090 with paged optimizers"
	words := strings.Fields(q)

	calls := fakeModel(t, http.StatusOK, "request_paged_optimizers.json")
	code, out, errOut := runFit(t, append([]string{"--json"}, words...)...)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Request     struct{ Optimizer string }
		Assumptions []string
		Interpreted map[string]any
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]any{"by": "model", "unused_words": []any{"paged", "optimizers"}}
	if diff := cmp.Diff(want, got.Interpreted); diff != "" || calls.Load() != 1 {
		t.Errorf("interpreted (-want +got):\n%s\nmodel asked %d times", diff, calls.Load())
	}
	if got.Request.Optimizer != "adamw-8bit" || len(got.Assumptions) == 0 || !strings.Contains(got.Assumptions[0], "interpreted by the language model") {
		t.Errorf("optimizer %q, assumptions %q: want the model's adamw-8bit, said first", got.Request.Optimizer, got.Assumptions)
	}

	fakeModel(t, http.StatusInternalServerError, "error_500.json")
	code, out, errOut = runFit(t, append([]string{"--json"}, words...)...)
	if code != exitOK || !strings.Contains(errOut, "the language model was unavailable") {
		t.Fatalf("exit %d, stderr %q: want the grammar's answer and the model's failure said", code, errOut)
	}
	got.Interpreted = nil
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Interpreted["by"] != "grammar" || !strings.Contains(got.Interpreted["model_error"].(string), "HTTP 500") || strings.Contains(out, "sk-test-cli") {
		t.Errorf("interpreted %v: want by grammar with the model's error, no key", got.Interpreted)
	}

	calls = fakeModel(t, http.StatusOK, "request_paged_optimizers.json")
	if code, _, errOut := runFit(t, "13B", "lora", "4090"); code != exitOK || calls.Load() != 0 {
		t.Errorf("a question the grammar reads whole: exit %d (%s), model asked %d times", code, errOut, calls.Load())
	}
}
