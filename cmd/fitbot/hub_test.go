package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// TestMain keeps every test of the package off the network and out of the
// developer's cache: a question that names a Hub model or a model the
// catalog lacks reaches HF_ENDPOINT, which is a closed port unless a test
// points it at its fake Hub, and the Hub cache goes to a temporary folder.
func TestMain(m *testing.M) {
	cache, err := os.MkdirTemp("", "fitbot-cache-")
	if err != nil {
		panic(err)
	}
	// The go build inside the soak tests finds its build cache through
	// XDG_CACHE_HOME too: pin GOCACHE to the real one first, or every test
	// run recompiles the whole module (SQLite's C code included).
	if gocache, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		os.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	os.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
	os.Unsetenv("HF_TOKEN")
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// fakeHub serves the Hub payloads of hub/testdata (their sources are in
// hub/testdata/SOURCES.md) and points HF_ENDPOINT at itself.
func fakeHub(t *testing.T) *httptest.Server {
	t.Helper()
	file := func(w http.ResponseWriter, name string) {
		b, err := os.ReadFile(filepath.Join("..", "..", "hub", "testdata", name))
		if err != nil {
			t.Errorf("fake hub: %v", err)
		}
		_, _ = w.Write(b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "hf_") && r.Header.Get("Authorization") != "Bearer hf_testtoken" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		p := r.URL.Path
		switch {
		case p == "/api/models" && r.URL.Query().Get("search") == "qwen3-1.7b":
			file(w, "search_qwen3-1.7b.json")
		case p == "/api/models":
			file(w, "search_empty.json")
		case p == "/api/models/Qwen/Qwen3-1.7B":
			file(w, "info_qwen3-1.7b.json")
		case strings.HasPrefix(p, "/Qwen/Qwen3-1.7B/resolve/"):
			file(w, "config_qwen3-1.7b.json")
		case p == "/api/models/google/gemma-3n-E4B-it":
			file(w, "info_gemma-3n-e4b-it_gated.json")
		case strings.HasPrefix(p, "/google/gemma-3n-E4B-it/resolve/"):
			w.Header().Set("X-Error-Code", "GatedRepo")
			w.WriteHeader(http.StatusUnauthorized)
			file(w, "gated_401_gemma.json")
		default:
			w.Header().Set("X-Error-Code", "RepoNotFound")
			w.WriteHeader(http.StatusNotFound)
			file(w, "notfound_404.json")
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return srv
}

// fitJSON runs fitbot fit --json and decodes the answer.
func fitJSON(t *testing.T, words ...string) (req map[string]any, assumptions string, code int, stderr string) {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"fit", "--json"}, words...)...)
	if code != exitOK {
		return nil, "", code, errOut
	}
	var ans struct {
		Request     map[string]any `json:"request"`
		Assumptions []string       `json:"assumptions"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return ans.Request, strings.Join(ans.Assumptions, "\n"), code, errOut
}

func TestFitHubModel(t *testing.T) {
	fakeHub(t)
	dbPath := filepath.Join(t.TempDir(), "none.db")
	t.Setenv("FITBOT_DB", dbPath)
	tests := []struct {
		words  []string
		wantIn string
	}{
		{[]string{"Qwen/Qwen3-1.7B", "lora", "h100"}, "Qwen/Qwen3-1.7B from the Hugging Face Hub (revision 70d244c"},
		{[]string{"https://huggingface.co/Qwen/Qwen3-1.7B", "lora", "h100"}, "Qwen/Qwen3-1.7B: 1,720,574,976 parameters"},
		{[]string{"qwen3", "1.7b", "lora", "h100"}, `"qwen3 1.7b" taken as Qwen/Qwen3-1.7B, the most downloaded match on the Hugging Face Hub`},
	}
	for _, tt := range tests {
		req, asm, code, errOut := fitJSON(t, tt.words...)
		if code != exitOK {
			t.Fatalf("fit %v: exit %d, %s", tt.words, code, errOut)
		}
		if req["model"] != "Qwen/Qwen3-1.7B" || req["params"] != float64(1_720_574_976) {
			t.Errorf("fit %v: request model %v params %v", tt.words, req["model"], req["params"])
		}
		if !strings.Contains(asm, tt.wantIn) {
			t.Errorf("fit %v: assumptions lack %q:\n%s", tt.words, tt.wantIn, asm)
		}
	}
	if _, err := os.Stat(dbPath); err == nil {
		t.Error("fit without a database created one; the Hub cache belongs under the user cache directory")
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "fitbot", "hub.db")); err != nil {
		t.Errorf("no Hub cache under the user cache directory: %v", err)
	}

	// fitbot models lists it.
	code, out, _ := runCmd(t, "models", "--json", "qwen3 1.7b")
	var rows []modelOutput
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != exitOK {
		t.Fatalf("models --json: exit %d, %v\n%s", code, err, out)
	}
	if len(rows) != 1 || rows[0].ID != "Qwen/Qwen3-1.7B" || rows[0].Source != "hub" || rows[0].Params != 1_720_574_976 {
		t.Errorf("models --json qwen3 1.7b = %+v", rows)
	}
}

// TestFitHubModelOffline answers from a cached entry three days old with
// the Hub gone, saying so; an uncached model gets the Hub's error.
func TestFitHubModelOffline(t *testing.T) {
	srv := fakeHub(t)
	dbPath := useDB(t)
	seed, err := store.Open(context.Background(), dbPath) // a database exists: the cache is in it
	if err != nil {
		t.Fatal(err)
	}
	seed.Close()
	if _, _, code, errOut := fitJSON(t, "Qwen/Qwen3-1.7B", "lora", "h100"); code != exitOK {
		t.Fatalf("first fit: exit %d, %s", code, errOut)
	}
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := db.HubModel(context.Background(), "Qwen/Qwen3-1.7B")
	if err != nil || !ok {
		t.Fatalf("the database did not cache the model: %v", err)
	}
	e.FetchedAt = time.Now().Add(-72 * time.Hour)
	if err := db.PutHubModel(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	db.Close()
	srv.Close()

	req, asm, code, errOut := fitJSON(t, "Qwen/Qwen3-1.7B", "lora", "h100")
	if code != exitOK {
		t.Fatalf("offline fit: exit %d, %s", code, errOut)
	}
	if req["params"] != float64(1_720_574_976) || !strings.Contains(asm, "fetched 3 days ago") || !strings.Contains(asm, "could not be reached") {
		t.Errorf("offline answer: params %v, assumptions:\n%s", req["params"], asm)
	}

	code, _, errOut = runCmd(t, "fit", "moonshotai/Kimi-Dev-72B", "inference", "h200")
	if code != exitFailure || !strings.Contains(errOut, "could not be reached") {
		t.Errorf("uncached offline: exit %d, %s", code, errOut)
	}
}

func TestFitHubRefusals(t *testing.T) {
	fakeHub(t)
	t.Setenv("FITBOT_DB", filepath.Join(t.TempDir(), "none.db"))
	tests := []struct {
		token    string
		words    []string
		wantCode int
		wantIn   []string
	}{
		{"", []string{"google/gemma-3n-E4B-it", "inference", "h100"}, exitFailure,
			[]string{"is a gated repo on the Hugging Face Hub", "Try: accept the model's terms at https://huggingface.co/google/gemma-3n-E4B-it and set HF_TOKEN"}},
		{"hf_testtoken", []string{"google/gemma-3n-E4B-it", "inference", "h100"}, exitFailure,
			[]string{"HF_TOKEN's account has not been granted access"}},
		{"", []string{"nosuch/model-7b", "lora", "h100"}, exitFailure, []string{"nosuch/model-7b is not a model on the Hugging Face Hub"}},
		{"", []string{"qwen9", "14b", "lora", "h100"}, exitUsage, []string{`"qwen9 14b" is not a model I know`}},
	}
	for _, tt := range tests {
		t.Setenv("HF_TOKEN", tt.token)
		code, out, errOut := runCmd(t, append([]string{"fit"}, tt.words...)...)
		if code != tt.wantCode {
			t.Errorf("fit %v: exit %d, want %d (%s)", tt.words, code, tt.wantCode, errOut)
		}
		for _, w := range tt.wantIn {
			if !strings.Contains(errOut, w) {
				t.Errorf("fit %v: stderr lacks %q:\n%s", tt.words, w, errOut)
			}
		}
		if strings.Contains(out+errOut, "hf_testtoken") {
			t.Errorf("fit %v printed the token", tt.words)
		}
	}
}

func TestPlansForHubModel(t *testing.T) {
	fakeHub(t)
	useDB(t)
	code, _, errOut := runCmd(t, "fit", "--save", "Qwen/Qwen3-1.7B", "lora", "h100")
	if code != exitOK {
		t.Fatalf("fit --save: exit %d, %s", code, errOut)
	}
	for _, words := range [][]string{{"Qwen/Qwen3-1.7B"}, {"hf.co/qwen/qwen3-1.7b"}, {"qwen3", "1.7b"}, {"Qwen3-1.7B"}} {
		code, out, errOut := runCmd(t, append([]string{"plans", "--json"}, words...)...)
		var plans []planOutput
		if err := json.Unmarshal([]byte(out), &plans); err != nil || code != exitOK {
			t.Fatalf("plans %v: exit %d, %v, %s", words, code, err, errOut)
		}
		if len(plans) != 1 || plans[0].Request.Model != "Qwen/Qwen3-1.7B" {
			t.Errorf("plans %v = %+v, want the one Qwen/Qwen3-1.7B plan", words, plans)
		}
	}
	code, out, errOut := runCmd(t, "plans", "show", "--json", "1")
	var r replan
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("plans show: exit %d, %v, %s", code, err, errOut)
	}
	if r.Now == nil || r.Now.Request.Params != 1_720_574_976 || r.Problem != "" {
		t.Errorf("plans show re-answered %+v (problem %q)", r.Now, r.Problem)
	}
}

// TestHubConfig: HF_ENDPOINT defaults to the public Hub and is checked;
// HF_TOKEN is a secret like the others (never printed, redacted in logs).
func TestHubConfig(t *testing.T) {
	env := validEnv()
	c, err := loadServeConfig(environOf(env), nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.HFEndpoint != "https://huggingface.co" || c.HFToken != "" {
		t.Errorf("defaults: HF_ENDPOINT %q, HF_TOKEN set %v", c.HFEndpoint, c.HFToken != "")
	}
	env["HF_ENDPOINT"] = "http://hub.mirror.internal:8080"
	env["HF_TOKEN"] = "hf_testsecretvalue"
	if c, err = loadServeConfig(environOf(env), nil, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if c.HFEndpoint != "http://hub.mirror.internal:8080" || c.HFToken.reveal() != "hf_testsecretvalue" {
		t.Errorf("HF_ENDPOINT %q, HF_TOKEN %q", c.HFEndpoint, c.HFToken.reveal())
	}
	if out := fmt.Sprintf("%+v", c); strings.Contains(out, "hf_testsecretvalue") {
		t.Errorf("the config prints HF_TOKEN: %.200s", out)
	}
	if !slices.Contains(environOf(env).secrets(), "hf_testsecretvalue") {
		t.Error("HF_TOKEN is not among the secrets the log redactor hides")
	}
	env["HF_ENDPOINT"] = "hub.mirror.internal"
	if _, err := loadServeConfig(environOf(env), nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "HF_ENDPOINT") {
		t.Errorf("a bad HF_ENDPOINT: %v", err)
	}
}
