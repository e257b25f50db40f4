package hub

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// memCache is an in-memory Cache; the store's SQLite one is tested in store.
type memCache struct {
	mu      sync.Mutex
	entries map[string]Entry
	puts    int
}

func (m *memCache) HubModel(_ context.Context, repo string) (Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[strings.ToLower(repo)]
	return e, ok, nil
}

func (m *memCache) PutHubModel(_ context.Context, e Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]Entry{}
	}
	m.entries[strings.ToLower(e.Repo)] = e
	m.puts++
	return nil
}

func (m *memCache) HubModelsNamed(_ context.Context, key string) ([]Entry, error) {
	all, _ := m.HubModels(context.Background())
	var out []Entry
	for _, e := range all {
		if _, name, _ := strings.Cut(e.Repo, "/"); NameKey(name) == key {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(strings.ToLower(a.Repo), strings.ToLower(b.Repo)) })
	return out, nil
}

func (m *memCache) RecentHubModels(ctx context.Context, limit int) ([]Entry, error) {
	all, _ := m.HubModels(ctx)
	slices.SortFunc(all, func(a, b Entry) int { return b.FetchedAt.Compare(a.FetchedAt) })
	return all[:min(limit, len(all))], nil
}

func (m *memCache) HubModels(context.Context) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Entry
	for _, e := range m.entries {
		out = append(out, e)
	}
	return out, nil
}

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func TestResolveReadsModelAndCachesIt(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	cache := &memCache{}
	now := t0
	r := &Resolver{Client: hub.client(""), Cache: cache, Now: func() time.Time { return now }}
	res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
	if err != nil {
		t.Fatal(err)
	}
	total, _ := res.Model.ParamCount()
	if total != 14_768_307_200 || res.Model.ID != "Qwen/Qwen3-14B" {
		t.Errorf("model %s with %d parameters, want Qwen/Qwen3-14B with 14768307200", res.Model.ID, total)
	}
	if want := "Qwen/Qwen3-14B from the Hugging Face Hub (revision 8268fe3, fetched just now)"; res.Note != want {
		t.Errorf("note = %q, want %q", res.Note, want)
	}
	if cache.puts != 1 || cache.entries["qwen/qwen3-14b"].ETag == "" {
		t.Errorf("cache holds %+v after %d puts, want the entry with its ETag", cache.entries, cache.puts)
	}

	// Fresh: answered from the cache without asking the Hub.
	asked := len(hub.requests())
	now = t0.Add(time.Hour)
	if _, err := r.Resolve(context.Background(), "qwen/qwen3-14b"); err != nil {
		t.Fatal(err)
	}
	if n := len(hub.requests()); n != asked {
		t.Errorf("a fresh cached entry asked the Hub %d times", n-asked)
	}

	// Stale, same revision: the model info is asked, config.json is not.
	now = t0.Add(48 * time.Hour)
	if _, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B"); err != nil {
		t.Fatal(err)
	}
	reqs := hub.requests()[asked:]
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].URL.Path, "/api/models/") {
		t.Errorf("refresh asked %d requests, want the model info only", len(reqs))
	}
	if got := cache.entries["qwen/qwen3-14b"].FetchedAt; !got.Equal(now) {
		t.Errorf("fetched at %v after the refresh, want %v", got, now)
	}
}

func TestResolveConditionalConfigFetch(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	cfg := publicRoutes()["/Qwen/Qwen3-14B/resolve/8268fe3026cb304910457689366670e803a6fd56/config.json"]
	hub.set("/Qwen/Qwen3-14B/resolve/8268fe3026cb304910457689366670e803a6fd56/config.json", cfg)
	cache := &memCache{}
	r := &Resolver{Client: hub.client(""), Cache: cache, Now: func() time.Time { return t0 }}
	if err := cache.PutHubModel(context.Background(), Entry{Repo: "Qwen/Qwen3-14B", Revision: "0000000", FetchedAt: t0.Add(-72 * time.Hour),
		Config: []byte(`{"model_type":"qwen3","hidden_size":5120,"intermediate_size":17408,"num_hidden_layers":40,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"vocab_size":151936}`),
		ETag:   cfg.headers["ETag"]}); err != nil {
		t.Fatal(err)
	}
	res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
	if err != nil {
		t.Fatal(err)
	}
	var sawIfNoneMatch bool
	for _, q := range hub.requests() {
		if strings.HasSuffix(q.URL.Path, "/config.json") {
			sawIfNoneMatch = q.Header.Get("If-None-Match") == cfg.headers["ETag"]
		}
	}
	if !sawIfNoneMatch || res.Entry.Revision != "8268fe3026cb304910457689366670e803a6fd56" || len(res.Entry.Config) == 0 {
		t.Errorf("conditional fetch: If-None-Match sent %v, entry %s with %d config bytes", sawIfNoneMatch, res.Entry.Revision, len(res.Entry.Config))
	}
}

func TestCacheAnswersWhenTheHubIsDown(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	cache := &memCache{}
	now := t0
	r := &Resolver{Client: hub.client(""), Cache: cache, Now: func() time.Time { return now }}
	if _, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B"); err != nil {
		t.Fatal(err)
	}
	for _, down := range []route{{status: 503}, {status: 429, headers: map[string]string{"Retry-After": "60"}}, {delay: 3 * time.Second}} {
		hub.set("/api/models/Qwen/Qwen3-14B", down)
		now = t0.Add(72 * time.Hour)
		r.Client.Timeout = 100 * time.Millisecond
		res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
		if err != nil {
			t.Fatalf("Hub down (%d): %v", down.status, err)
		}
		if !strings.Contains(res.Note, "fetched 3 days ago") || !strings.Contains(res.Note, "used its copy") {
			t.Errorf("note %q should say the copy is 3 days old and why it was used", res.Note)
		}
	}

	// Offline entirely: the server is gone.
	hub.srv.Close()
	res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
	if err != nil || !strings.Contains(res.Note, "could not be reached") {
		t.Errorf("offline: note %q, err %v", res.Note, err)
	}

	// Without a cached copy the Hub's refusal stands.
	if _, err := r.Resolve(context.Background(), "deepseek-ai/DeepSeek-V3.1"); err == nil {
		t.Error("an uncached repo resolved with the Hub down")
	}
}

func TestBackgroundRefreshAnswersAtOnce(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	hub.set("/api/models/Qwen/Qwen3-14B", route{file: "info_qwen3-14b.json", delay: 300 * time.Millisecond})
	cache := &memCache{}
	old := Entry{Repo: "Qwen/Qwen3-14B", Revision: "8268fe3026cb304910457689366670e803a6fd56", FetchedAt: t0.Add(-72 * time.Hour)}
	old.Config, _ = readTestdata("config_qwen3-14b.json")
	_ = cache.PutHubModel(context.Background(), old)
	r := &Resolver{Client: hub.client(""), Cache: cache, Background: true, Now: func() time.Time { return t0 }}
	start := time.Now()
	res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Errorf("a stale entry took %v to answer; it should answer from the cache at once", took)
	}
	if !strings.Contains(res.Note, "fetched 3 days ago") {
		t.Errorf("note = %q", res.Note)
	}
	r.Wait()
	if e := cache.entries["qwen/qwen3-14b"]; !e.FetchedAt.Equal(t0) {
		t.Errorf("after the background refresh the entry was fetched at %v, want %v", e.FetchedAt, t0)
	}
}

func TestFindPrefersTheExactName(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	r := &Resolver{Client: hub.client("")}
	repo, note, err := r.Find(context.Background(), "qwen3 1.7b")
	if err != nil {
		t.Fatal(err)
	}
	if repo != "Qwen/Qwen3-1.7B" || !strings.Contains(note, "most downloaded match") {
		t.Errorf("Find = %q (%q), want Qwen/Qwen3-1.7B", repo, note)
	}
	q := hub.requests()[0].URL.Query()
	if q.Get("search") != "qwen3-1.7b" || q.Get("sort") != "downloads" || q.Get("direction") != "-1" {
		t.Errorf("search asked %v", q)
	}
	if _, _, err := r.Find(context.Background(), "nosuch 9b"); err == nil {
		t.Error("a name the Hub lacks was found")
	}
}

func TestPick(t *testing.T) {
	hits := []Hit{{"unsloth/Qwen3-14B-GGUF", 9}, {"Qwen/Qwen3-14B", 5}, {"x/Qwen3-14B", 1}}
	tests := []struct {
		key, want string
	}{
		{"qwen314b", "Qwen/Qwen3-14B"},
		{"qwen3", "unsloth/Qwen3-14B-GGUF"},
	}
	for _, tt := range tests {
		if got := pick(hits, tt.key); got != tt.want {
			t.Errorf("pick(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
	if got := pick(nil, "x"); got != "" {
		t.Errorf("pick(nil) = %q", got)
	}
}

func TestResolveParsed(t *testing.T) {
	hub := newFakeHub(t, publicRoutes())
	r := &Resolver{Client: hub.client(""), Cache: &memCache{}, Now: func() time.Time { return t0 }}
	tests := []struct {
		question   string
		wantModel  string
		wantParams int64
		wantNote   string
		wantErr    string
	}{
		{"Qwen/Qwen3-1.7B lora h100", "Qwen/Qwen3-1.7B", 1_720_574_976, "Qwen/Qwen3-1.7B from the Hugging Face Hub (revision 70d244c, fetched just now)", ""},
		{"https://huggingface.co/Qwen/Qwen3-1.7B lora h100", "Qwen/Qwen3-1.7B", 1_720_574_976, "also holds the tied output embedding, which is loaded once", ""},
		{"can <https://huggingface.co/Qwen/Qwen3-1.7B|Qwen3-1.7B> lora on an h100", "Qwen/Qwen3-1.7B", 1_720_574_976, "from the Hugging Face Hub", ""},
		{"qwen3 1.7b lora h100", "Qwen/Qwen3-1.7B", 1_720_574_976, `"qwen3 1.7b" taken as Qwen/Qwen3-1.7B, the most downloaded match on the Hugging Face Hub`, ""},
		// The catalog's own model, named by its Hub id, is the catalog's: no Hub.
		{"Qwen/Qwen3-14B lora h100", "qwen3-14b", 14_768_307_200, "", ""},
		{"google/gemma-3n-E4B-it inference h100", "", 0, "", "gated"},
		{"nosuch/model-7b lora h100", "", 0, "", "not a model on the Hugging Face Hub"},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			p, perr := reading.Parse(tt.question)
			p, err := r.ResolveParsed(context.Background(), tt.question, p, perr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ans, err := (&sizing.Estimator{}).Answer(p.Query)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Request.Model != tt.wantModel || ans.Request.Params != tt.wantParams {
				t.Errorf("request model %q params %d, want %q %d", ans.Request.Model, ans.Request.Params, tt.wantModel, tt.wantParams)
			}
			all := strings.Join(sizing.MergeAssumptions(p.Notes, ans.Assumptions), "\n")
			if !strings.Contains(all, tt.wantNote) {
				t.Errorf("assumptions lack %q:\n%s", tt.wantNote, all)
			}
		})
	}
}

func TestResolveParsedKeepsTheParsersErrorForAnUnknownName(t *testing.T) {
	hub := newFakeHub(t, map[string]route{
		"/api/models?direction=-1&limit=20&search=qwen9-14b&sort=downloads": {file: "search_empty.json"},
	})
	r := &Resolver{Client: hub.client("")}
	p, perr := reading.Parse("qwen9 14b lora h100")
	if perr == nil || p.Missing.Words != "qwen9 14b" {
		t.Fatalf("parse of an unknown name: %+v, %v", p.Missing, perr)
	}
	_, err := r.ResolveParsed(context.Background(), "qwen9 14b lora h100", p, perr)
	if err != perr {
		t.Errorf("err = %v, want the parser's own %v", err, perr)
	}
	if len(hub.requests()) != 1 {
		t.Errorf("asked the Hub %d times, want one search", len(hub.requests()))
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"}, {90 * time.Second, "1 minute ago"}, {5 * time.Hour, "5 hours ago"}, {50 * time.Hour, "2 days ago"},
	}
	for _, tt := range tests {
		if got := Age(tt.d); got != tt.want {
			t.Errorf("Age(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
