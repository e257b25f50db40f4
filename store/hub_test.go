package store

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestHubModelCache(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	if _, ok, err := db.HubModel(ctx, "Qwen/Qwen3-14B"); ok || err != nil {
		t.Fatalf("empty cache: ok %v, err %v", ok, err)
	}
	e := hub.Entry{Repo: "Qwen/Qwen3-14B", Revision: "8268fe3026cb304910457689366670e803a6fd56", FetchedAt: testNow,
		Config: []byte(`{"model_type":"qwen3"}`), Weights: sizing.HubWeights{ByDType: map[string]int64{"BF16": 14768307200}, Total: 14768307200},
		ETag: `"abc"`}
	if err := db.PutHubModel(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.HubModel(ctx, "qwen/QWEN3-14b")
	if err != nil || !ok {
		t.Fatalf("lookup in another case: ok %v, err %v", ok, err)
	}
	if d := cmp.Diff(e, got); d != "" {
		t.Errorf("round trip (-put +got):\n%s", d)
	}

	// A refresh replaces the row; a repo without config.json keeps NULL.
	e2 := hub.Entry{Repo: "Qwen/Qwen3-14B", Revision: "ffff", FetchedAt: testNow.Add(time.Hour), Gated: "auto", Weights: sizing.HubWeights{Total: 5}}
	if err := db.PutHubModel(ctx, e2); err != nil {
		t.Fatal(err)
	}
	if err := db.PutHubModel(ctx, hub.Entry{Repo: "deepseek-ai/DeepSeek-V3.1", Revision: "1", FetchedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	all, err := db.HubModels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Repo != "deepseek-ai/DeepSeek-V3.1" || all[1].Revision != "ffff" || all[1].Config != nil || all[1].Gated != "auto" {
		t.Errorf("listing = %+v", all)
	}

	for _, bad := range []hub.Entry{
		{Repo: "not a repo", Revision: "1", FetchedAt: testNow},
		{Repo: "a/b", Revision: "", FetchedAt: testNow},
		{Repo: "a/b", Revision: "1", FetchedAt: testNow, Gated: "weird"},
	} {
		if err := db.PutHubModel(ctx, bad); err == nil {
			t.Errorf("PutHubModel(%+v) was accepted", bad)
		}
	}
	if all, _ := db.HubModels(ctx); len(all) != 2 {
		t.Errorf("a refused entry was written: %d rows", len(all))
	}
}

// TestCacheAnswersWithTheHubDown resolves a model through a real SQLite
// cache, then takes the Hub down (failing, then gone) and asks again a
// week later: the cached copy answers and says how old it is.
func TestCacheAnswersWithTheHubDown(t *testing.T) {
	info, err := os.ReadFile("../hub/testdata/info_qwen3-14b.json")
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile("../hub/testdata/config_qwen3-14b.json")
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case down.Load():
			http.Error(w, "Internal Error", http.StatusInternalServerError)
		case r.URL.Path == "/api/models/Qwen/Qwen3-14B":
			_, _ = w.Write(info)
		case strings.HasSuffix(r.URL.Path, "/config.json"):
			_, _ = w.Write(config)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	path := t.TempDir() + "/fitbot.db"
	db := openAt(t, path, nil, -1)
	now := testNow
	r := &hub.Resolver{Client: &hub.Client{BaseURL: srv.URL, HTTP: srv.Client()}, Cache: db, Now: func() time.Time { return now }}
	if _, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A later run, with the Hub failing and then unreachable.
	db = openAt(t, path, nil, -1)
	r.Cache = db
	now = testNow.Add(7 * 24 * time.Hour)
	down.Store(true)
	for _, stage := range []string{"failing", "gone"} {
		if stage == "gone" {
			srv.Close()
		}
		res, err := r.Resolve(context.Background(), "Qwen/Qwen3-14B")
		if err != nil {
			t.Fatalf("Hub %s: %v", stage, err)
		}
		total, _ := res.Model.ParamCount()
		if total != 14_768_307_200 || !strings.Contains(res.Note, "fetched 7 days ago") {
			t.Errorf("Hub %s: %d parameters, note %q", stage, total, res.Note)
		}
	}
}

// TestHubModelsNamedIsOneIndexLookup finds cached repos by their name
// without the organisation, through the index, for rows written before
// the index existed (the migration's backfill) and after.
func TestHubModelsNamedIsOneIndexLookup(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	old := openAt(t, path, nil, 9) // before hub_models had name_key
	if _, err := old.rw.ExecContext(ctx, `INSERT INTO hub_models (repo_key, repo, revision, fetched_at, params_json, params_total)
		VALUES ('qwen/qwen3-14b', 'Qwen/Qwen3-14B', 'abc', ?, '{}', 0)`, formatTime(testNow)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	db := openAt(t, path, nil, -1)
	for _, e := range []hub.Entry{
		{Repo: "bigscience/bloomz-7b1", Revision: "1", FetchedAt: testNow},
		{Repo: "someone/Qwen3_14b", Revision: "2", FetchedAt: testNow},
	} {
		if err := db.PutHubModel(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		words string
		want  []string
	}{
		{"qwen3 14b", []string{"Qwen/Qwen3-14B", "someone/Qwen3_14b"}},
		{"BLOOMZ 7B1", []string{"bigscience/bloomz-7b1"}},
		{"bigscience bloomz 7b1", nil},
		{"", nil},
	} {
		entries, err := db.HubModelsNamed(ctx, hub.NameKey(tc.words))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Repo)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("HubModelsNamed(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
	// A fresh database, since the one above has the planner's statistics
	// of a three-row table (Close runs PRAGMA optimize), where a scan wins.
	plan := explain(t, openTest(t), `SELECT repo FROM hub_models WHERE name_key = ? ORDER BY repo_key`, "x")
	if !strings.Contains(plan, "hub_models_by_name") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("name lookup plan %q does not use hub_models_by_name", plan)
	}
}

// TestRecentHubModels lists the most recently fetched models first,
// through the fetched_at index.
func TestRecentHubModels(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for i, repo := range []string{"a/old", "b/newest", "c/middle"} {
		at := map[int]time.Duration{0: -3 * time.Hour, 1: 0, 2: -time.Hour}[i]
		if err := db.PutHubModel(ctx, hub.Entry{Repo: repo, Revision: "1", FetchedAt: testNow.Add(at)}); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := db.RecentHubModels(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Repo != "b/newest" || entries[1].Repo != "c/middle" {
		t.Errorf("RecentHubModels(2) = %+v, want b/newest then c/middle", entries)
	}
	if db.postgres {
		return // the plan below is SQLite's
	}
	plan := explain(t, openTest(t), `SELECT repo FROM hub_models ORDER BY fetched_at DESC LIMIT ?`, 2)
	if !strings.Contains(plan, "hub_models_by_fetched") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("recent listing plan %q does not walk hub_models_by_fetched", plan)
	}
}

// TestHubModelsMatching: a loose query (case, spaces, hyphens and
// underscores ignored; LIKE's own wildcards taken literally) finds its
// models by repo id; recent keeps the most recently fetched and counts
// every match.
func TestHubModelsMatching(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	for i, repo := range []string{"Qwen/Qwen3-1.7B", "Qwen/Qwen3-14B", "meta-llama/Llama-3.1-8B", "org/Odd-100B"} {
		e := hub.Entry{Repo: repo, Revision: "abc", FetchedAt: testNow.Add(time.Duration(i) * time.Minute)}
		if err := db.PutHubModel(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	repos := func(es []hub.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Repo)
		}
		return out
	}
	for _, tt := range []struct {
		key    string
		recent int
		want   []string
		total  int
	}{
		{"qwen3", 0, []string{"Qwen/Qwen3-1.7B", "Qwen/Qwen3-14B"}, 2},
		{"llama3.18b", 0, []string{"meta-llama/Llama-3.1-8B"}, 1},
		{"odd100b", 0, []string{"org/Odd-100B"}, 1},
		{"%", 0, nil, 0}, // LIKE's wildcards are taken literally
		{"q_en", 0, nil, 0},
		{"", 2, []string{"meta-llama/Llama-3.1-8B", "org/Odd-100B"}, 4},
		{"qwen", 1, []string{"Qwen/Qwen3-14B"}, 2},
	} {
		got, total, err := db.HubModelsMatching(ctx, tt.key, tt.recent)
		if err != nil || total != tt.total || !slices.Equal(repos(got), tt.want) {
			t.Errorf("HubModelsMatching(%q, %d) = %v, %d, %v; want %v, %d", tt.key, tt.recent, repos(got), total, err, tt.want, tt.total)
		}
	}
}
