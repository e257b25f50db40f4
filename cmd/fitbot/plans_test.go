package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// useDB points FITBOT_DB at a fresh path in a temporary folder.
func useDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	t.Setenv("FITBOT_DB", path)
	return path
}

// seedPlans stores four plans with fixed contents (ids 1-4, oldest first)
// at path.
func seedPlans(t *testing.T, path string, plans ...store.Plan) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range plans {
		if _, err := db.SavePlan(ctx, &plans[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func day(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }

// fourPlans are the plans of the list tests, oldest first.
func fourPlans() []store.Plan {
	return []store.Plan{
		{CreatedAt: day(2, 9, 15), Source: store.SourceCLI, Summary: plan.Summary{Question: "mistral 7b lora 4090",
			Canonical: "mistral-7b-v0.1 lora rtx-4090", ModelKey: "mistral-7b-v0.1",
			Request: sizing.Request{Model: "mistral-7b-v0.1", Method: sizing.MethodLoRA, GPU: "rtx-4090", GPUs: 1},
			Fits:    true, Headroom: "comfortable", GPU: "rtx-4090", GPUs: 1, PerGPUBytes: 18_600_000_000,
			USDPerHour: new(0.69), PriceProvider: "runpod", PriceAsOf: new(day(1, 0, 0))}},
		{CreatedAt: day(10, 14, 0), Source: store.SourceSlack, Team: "T024BE7LD", Channel: "C0G9QF9GW", User: "U2147483697",
			Summary: plan.Summary{Question: "can we serve 13B for 32 users on an L4?", Canonical: "13B inference l4 batch 32", ModelKey: "bare:13000000000",
				Request: sizing.Request{Params: 13_000_000_000, Method: sizing.MethodInference, GPU: "l4", GPUs: 1},
				Fits:    false, Headroom: "does not fit", GPU: "l4", GPUs: 1, PerGPUBytes: 41_000_000_000,
				USDPerHour: new(0.80), PriceProvider: "aws", PriceAsOf: new(day(9, 12, 0))}},
		{CreatedAt: day(20, 16, 30), Source: store.SourceSlack, Team: "T024BE7LD", Channel: "C0G9QF9GW", User: "U0LAN0Z89",
			Summary: plan.Summary{Question: "@fitbot how about QLoRA on Mistral-7B-v0.1 with a T4, our old inference box in the basement?",
				Canonical: "mistral-7b-v0.1 qlora t4", ModelKey: "mistral-7b-v0.1",
				Request: sizing.Request{Model: "mistral-7b-v0.1", Method: sizing.MethodQLoRA, GPU: "t4", GPUs: 1},
				Fits:    true, Headroom: "tight", GPU: "t4", GPUs: 1, PerGPUBytes: 13_900_000_000}},
		{CreatedAt: day(28, 8, 5), Source: store.SourceCLI, Summary: plan.Summary{Question: "llama 3.1 8b full 2xa100",
			Canonical: "llama-3.1-8b full 2xa100-80", ModelKey: "llama-3.1-8b",
			Request: sizing.Request{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "a100-80", GPUs: 2},
			Fits:    true, Headroom: "comfortable", GPU: "a100-80", GPUs: 2, PerGPUBytes: 61_000_000_000,
			USDPerHour: new(3.58), PriceProvider: "lambda", PriceAsOf: new(day(27, 0, 0))}},
	}
}

// TestPlansWorkspace: on a database shared by several workspaces,
// --workspace lists and shows only that workspace's public-channel plans,
// and a plan from elsewhere (another workspace, a private channel, the
// command line) reads exactly like a missing one.
func TestPlansWorkspace(t *testing.T) {
	path := useDB(t)
	plans := fourPlans()
	plans[1].ChannelKind = store.ChannelPublic
	plans[2].ChannelKind = store.ChannelPrivate
	other := plans[1]
	other.Team, other.Question = "T0OTHER", "can workspace B's secret 13B fit?"
	seedPlans(t, path, append(plans, other)...)

	code, out, errOut := runCmd(t, "plans", "--workspace", "T024BE7LD")
	if code != exitOK || !strings.Contains(out, "can we serve 13B for 32 users") {
		t.Fatalf("plans --workspace: exit %d, %q, %q", code, out, errOut)
	}
	for _, leak := range []string{"workspace B's secret", "how about QLoRA", "mistral 7b lora 4090", "llama 3.1 8b full"} {
		if strings.Contains(out, leak) {
			t.Errorf("plans --workspace T024BE7LD lists %q:\n%s", leak, out)
		}
	}
	code, out, _ = runCmd(t, "plans", "--workspace=T024BE7LD", "13B")
	if code != exitOK || !strings.Contains(out, "for 32 users") || strings.Contains(out, "workspace B") {
		t.Errorf("plans --workspace T024BE7LD 13B: exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "plans", "show", "--workspace", "T024BE7LD", "2"); code != exitOK || !strings.Contains(out, "32 users") {
		t.Errorf("plans show 2 in its workspace: exit %d\n%s", code, out)
	}
	for _, id := range []string{"1", "3", "5"} {
		_, _, missing := runCmd(t, "plans", "show", "--workspace", "T024BE7LD", "9"+id)
		code, out, errOut := runCmd(t, "plans", "show", "--workspace", "T024BE7LD", id)
		if code != exitFailure || out != "" || errOut != strings.ReplaceAll(missing, "9"+id, id) {
			t.Errorf("plans show %s outside the workspace: exit %d, %q, %q; want the missing plan's %q", id, code, out, errOut, missing)
		}
	}
	// Without --workspace the database's owner reads every plan.
	if _, out, _ := runCmd(t, "plans"); !strings.Contains(out, "workspace B's secret") || !strings.Contains(out, "how about QLoRA") {
		t.Errorf("plans without --workspace hides plans:\n%s", out)
	}
}

func TestPlansList(t *testing.T) {
	path := useDB(t)
	seedPlans(t, path, fourPlans()...)

	code, out, errOut := runCmd(t, "plans")
	if code != exitOK || errOut != "" {
		t.Fatalf("plans: exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "plans/all.txt"), []byte(out))

	code, out, errOut = runCmd(t, "plans", "mistral", "7b")
	if code != exitOK || errOut != "" {
		t.Fatalf("plans mistral 7b: exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "plans/mistral.txt"), []byte(out))

	// Every name of the model lists the same plans; only the title
	// repeats the words asked.
	table := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest }
	for _, name := range [][]string{{"Mistral-7B-v0.1"}, {"mistral-7b"}, {"mistralai/Mistral-7B-v0.1"}, {"--limit", "5", "mistral", "7b"}} {
		code, got, errOut := runCmd(t, append([]string{"plans"}, name...)...)
		if code != exitOK || errOut != "" {
			t.Errorf("plans %v: exit %d, stderr %q", name, code, errOut)
		}
		if d := cmp.Diff(table(out), table(got)); d != "" {
			t.Errorf("plans %v lists other plans than plans mistral 7b (-want +got):\n%s", name, d)
		}
	}

	code, out, _ = runCmd(t, "plans", "13B")
	if code != exitOK || !strings.Contains(out, "Plans for 13B, newest first") || strings.Contains(out, "bare:") || !strings.Contains(out, "\n2 ") || strings.Contains(out, "\n1 ") {
		t.Errorf("plans 13B: exit %d, output:\n%s\nwant plan 2 only, named as asked", code, out)
	}

	// A family lists every model of it; the mistral plans are the
	// mistral family's.
	code, out, _ = runCmd(t, "plans", "mistral")
	if code != exitOK || !strings.Contains(out, "Plans for the mistral family, newest first") || !strings.Contains(out, "\n3 ") || !strings.Contains(out, "\n1 ") || strings.Contains(out, "\n2 ") {
		t.Errorf("plans mistral: exit %d, output:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "plans", "gemma")
	if code != exitOK || out != "No plans yet for the gemma family.\n" {
		t.Errorf("plans gemma: exit %d, output %q", code, out)
	}

	code, out, _ = runCmd(t, "plans", "qwen2.5 7b")
	if code != exitOK || out != "No plans yet for qwen2.5-7b (\"qwen2.5 7b\").\n" {
		t.Errorf("plans qwen2.5 7b: exit %d, output %q", code, out)
	}
}

func TestPlansJSON(t *testing.T) {
	path := useDB(t)
	plans := fourPlans()
	seedPlans(t, path, plans...)
	// Flags may follow the words.
	code, out, errOut := runCmd(t, "plans", "mistral-7b", "--json", "--limit", "1")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, out)
	}
	if len(got) != 1 {
		t.Fatalf("%d plans, want 1 (--limit 1)", len(got))
	}
	var keys []string
	for k := range got[0] {
		keys = append(keys, k)
	}
	wantKeys := []string{"answer", "canonical", "channel", "created_at", "fits", "gpu", "gpus", "headroom", "id", "kind", "model_key",
		"per_gpu_total_bytes", "price_as_of", "price_provider", "question", "request", "source", "team", "usd_per_hour", "user"}
	slices.Sort(keys)
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Errorf("JSON keys (-want +got):\n%s", d)
	}
	for k, want := range map[string]any{
		"id": 3.0, "created_at": "2026-11-20T16:30:00Z", "model_key": "mistral-7b-v0.1", "user": "U0LAN0Z89",
		"fits": true, "headroom": "tight", "usd_per_hour": nil, "price_as_of": nil, "per_gpu_total_bytes": 13.9e9, "kind": "fit", "answer": "",
	} {
		if got[0][k] != want {
			t.Errorf("%s = %v, want %v", k, got[0][k], want)
		}
	}

	_, out, _ = runCmd(t, "plans", "--json", "gemma 2 9b")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("no plans as JSON = %q, want []", out)
	}
}

func TestPlansBadInput(t *testing.T) {
	path := useDB(t)
	for _, tc := range []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"plans", "gpt-9"}, exitUsage, `"gpt-9" is not a model I know`},
		{[]string{"plans", "rtx", "4090"}, exitUsage, "names no model"},
		{[]string{"plans", "--limit", "0"}, exitUsage, "not a number from 1 to 1000"},
		{[]string{"plans", "--limit"}, exitUsage, "--limit needs a number"},
		{[]string{"plans", "--verbose"}, exitUsage, "unknown flag --verbose"},
		{[]string{"plans", "show"}, exitUsage, "needs one plan id"},
		{[]string{"plans", "show", "latest"}, exitUsage, `"latest" is not a plan id`},
		{[]string{"plans", "show", "-3"}, exitUsage, "unknown flag -3"},
		{[]string{"plans", "show", "7"}, exitFailure, "there is no plan 7"},
		{[]string{"plans", "--workspace"}, exitUsage, "--workspace needs a Slack team id"},
		{[]string{"plans", "--workspace", "acme"}, exitUsage, `--workspace "acme" is not a Slack team id`},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.inStderr) || !strings.Contains(errOut, "Try: ") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and a problem saying %q with a hint",
				tc.args, code, out, errOut, tc.code, tc.inStderr)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a failed or read-only command created the database")
	}

	// With no database, listing says so and creates none.
	code, out, _ := runCmd(t, "plans", "mistral 7b")
	if code != exitOK || !strings.Contains(out, "No plans yet: there is no database at "+path) {
		t.Errorf("plans with no database: exit %d, %q", code, out)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("plans created an empty database")
	}
}

func TestPlansRefusesForeignFile(t *testing.T) {
	path := useDB(t)
	if err := os.WriteFile(path, []byte("gpu,price\nh100,2.49\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "plans")
	if code != exitFailure || !strings.Contains(errOut, path) || !strings.Contains(errOut, "is not a SQLite database") ||
		!strings.Contains(errOut, "Try: point FITBOT_DB at fitbot's database") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != "gpu,price\nh100,2.49\n" {
		t.Errorf("the file was changed: %q", data)
	}
}

// TestFitSave: fit --save keeps the answer as a plan that plans lists,
// after the text answer or beside the JSON one (on stderr, so stdout stays
// one JSON object); a question that cannot be answered saves nothing.
func TestFitSave(t *testing.T) {
	path := useDB(t)
	code, out, errOut := runCmd(t, "fit", "--save", "mistral", "7b", "lora", "4090")
	if code != exitOK || errOut != "" || !strings.HasSuffix(out, "\nsaved as plan 1 (fitbot plans show 1 re-answers it later)\n") {
		t.Fatalf("fit --save: exit %d, stderr %q, stdout ends %q", code, errOut, out[max(0, len(out)-80):])
	}
	code, out, errOut = runCmd(t, "fit", "13B", "qlora", "t4", "--json", "--save")
	var answer sizing.Answer
	if err := json.Unmarshal([]byte(out), &answer); err != nil || code != exitOK {
		t.Fatalf("fit --json --save: exit %d, stdout is not one JSON answer (%v)", code, err)
	}
	if errOut != "saved as plan 2 (fitbot plans show 2 re-answers it later)\n" {
		t.Errorf("fit --json --save: stderr %q", errOut)
	}
	if code, _, _ := runCmd(t, "fit", "--save", "gpt-9", "lora", "4090"); code != exitUsage {
		t.Errorf("fit --save gpt-9: exit %d, want %d", code, exitUsage)
	}

	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plans, err := db.RecentPlans(context.Background(), store.AllPlans(), time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct{ Source, Question, Canonical, ModelKey, GPU string }
	var got []summary
	for _, p := range plans {
		got = append(got, summary{p.Source, p.Question, p.Canonical, p.ModelKey, p.GPU})
	}
	want := []summary{
		{"cli", "13B qlora t4", "13b qlora t4", "bare:13000000000", "t4"},
		{"cli", "mistral 7b lora 4090", "mistral-7b-v0.1 lora rtx-4090", "mistral-7b-v0.1", "rtx-4090"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("saved plans, newest first (-want +got):\n%s", d)
	}
	if plans[0].CreatedAt.Before(plans[1].CreatedAt) {
		t.Errorf("plan 2 made at %v, before plan 1 at %v", plans[0].CreatedAt, plans[1].CreatedAt)
	}
}
