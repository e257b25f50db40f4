package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
)

// scopedPlans saves one fit plan per asker below, all for the same
// model, and returns them with their ids.
func scopedPlans(t *testing.T, db *DB) []Plan {
	t.Helper()
	askers := []Who{
		{Source: SourceSlack, Team: "TA", Channel: "CPUB", User: "UA1", Kind: ChannelPublic},
		{Source: SourceSlack, Team: "TA", Channel: "CPRIV", User: "UA1", Kind: ChannelPrivate},
		{Source: SourceSlack, Team: "TA", Channel: "DA1", User: "UA1", Kind: ChannelDM},
		{Source: SourceSlack, Team: "TA", Channel: "CPUB2", User: "UA2", Kind: ChannelPublic},
		{Source: SourceSlack, Team: "TB", Channel: "CPUB", User: "UB1", Kind: ChannelPublic},
		{Source: SourceSlack, Team: "TB", Channel: "DB1", User: "UB1", Kind: ChannelDM},
		{Source: SourceCLI},
	}
	var out []Plan
	for i, w := range askers {
		p := NewPlan(w, plan.Summary{Kind: plan.KindFit, Question: fmt.Sprintf("q%d", i), Canonical: fmt.Sprintf("7b lora rtx-4090 seq %d", 1024*(i+1)),
			ModelKey: "bare:7000000000", GPU: "rtx-4090", GPUs: 1})
		p.CreatedAt = testNow.Add(-time.Duration(len(askers)-i) * time.Hour)
		if _, err := db.SavePlan(context.Background(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestScopeReadsOnlyItsPlans: every read path (one plan by id, plans for
// a model, recent plans, the digest's plans) returns exactly the plans
// the scope reads, and a plan outside it reads as missing. The table
// states who reads what; Scope.Reads must agree with the SQL.
func TestScopeReadsOnlyItsPlans(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	plans := scopedPlans(t, db)
	// Indexes into plans of the ones each scope reads.
	cases := []struct {
		name  string
		scope Scope
		want  []int
	}{
		{"A, public channel, other user", Viewer("TA", "CPUB", "UA9"), []int{0, 3}},
		{"A, the private channel", Viewer("TA", "CPRIV", "UA9"), []int{0, 1, 3}},
		{"A, another channel, the asker", Viewer("TA", "COTHER", "UA1"), []int{0, 1, 2, 3}},
		{"A, the asker's DM", Viewer("TA", "DA1", "UA1"), []int{0, 1, 2, 3}},
		{"A, someone else's DM channel id", Viewer("TA", "DA1", "UA2"), []int{0, 2, 3}},
		{"B, same channel id and user id as A", Viewer("TB", "CPUB", "UA1"), []int{4}},
		{"B, the asker", Viewer("TB", "CX", "UB1"), []int{4, 5}},
		{"no workspace", Viewer("", "CPUB", "UA1"), nil},
		{"workspace A (command line)", Workspace("TA"), []int{0, 3}},
		{"workspace none", Workspace(""), nil},
		{"command line", CommandLine(), []int{6}},
		{"all", AllPlans(), []int{0, 1, 2, 3, 4, 5, 6}},
		{"zero scope", Scope{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want []int64
			for i := len(plans) - 1; i >= 0; i-- { // newest first
				if slices.Contains(tc.want, i) {
					want = append(want, plans[i].ID)
				}
				if got := tc.scope.Reads(plans[i]); got != slices.Contains(tc.want, i) {
					t.Errorf("Reads(plan %d) = %v", i, got)
				}
			}
			for i, p := range plans {
				_, err := db.Plan(ctx, tc.scope, p.ID)
				switch {
				case slices.Contains(tc.want, i) && err != nil:
					t.Errorf("Plan(%d): %v", p.ID, err)
				case !slices.Contains(tc.want, i) && (err == nil || err.Error() != fmt.Sprintf("plan %d: not found", p.ID)):
					t.Errorf("Plan(%d) out of scope = %v, want exactly the missing plan's error", p.ID, err)
				}
			}
			lists := map[string]func() ([]Plan, error){
				"PlansForModel": func() ([]Plan, error) { return db.PlansForModel(ctx, tc.scope, "bare:7000000000", 0) },
				"RecentPlans":   func() ([]Plan, error) { return db.RecentPlans(ctx, tc.scope, time.Time{}, 0) },
			}
			for name, list := range lists {
				got, err := list()
				if err != nil {
					t.Fatal(err)
				}
				if ids := planIDs(got); !slices.Equal(ids, want) {
					t.Errorf("%s = %v, want %v", name, ids, want)
				}
			}
			in, err := db.DigestInput(ctx, tc.scope, testNow, 90*24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			var digest []int64
			for _, p := range in.Plans {
				digest = append(digest, p.ID)
			}
			if !slices.Equal(digest, want) {
				t.Errorf("DigestInput plans = %v, want %v", digest, want)
			}
		})
	}
	missing, err := db.Plan(ctx, AllPlans(), 999)
	if err == nil || err.Error() != "plan 999: not found" {
		t.Errorf("Plan(999) = %v, %v; the out-of-scope errors above must read the same", missing, err)
	}
}

func planIDs(ps []Plan) []int64 {
	var ids []int64
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestScopeMigration: plans kept before 0011_scope_holds stay readable
// where they were asked: a Slack plan in its channel and by its asker
// (not from the rest of the workspace, as nothing said it was public), a
// DM plan in its DM, a command-line plan from the command line.
func TestScopeMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	old := openAt(t, path, nil, 10)
	for _, row := range [][]string{
		{"slack", "TA", "CPUB", "UA1"},
		{"slack", "TA", "DA1", "UA1"},
		{"cli", "", "", ""},
	} {
		if _, err := old.rw.ExecContext(ctx, `INSERT INTO plans (created_at, source, team, channel, user_id, question, canonical,
			request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes)
			VALUES ('2026-11-01T00:00:00.000000000Z', ?, ?, ?, ?, '13b lora 4090', '13B lora rtx-4090', '{}',
			'bare:13000000000', 1, 'comfortable', 'rtx-4090', 1, 1000)`, row[0], row[1], row[2], row[3]); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	db := openAt(t, path, nil, -1)
	kinds := map[int64]ChannelKind{1: ChannelPrivate, 2: ChannelDM, 3: ChannelCLI}
	for id, want := range kinds {
		p, err := db.Plan(ctx, AllPlans(), id)
		if err != nil || p.ChannelKind != want {
			t.Errorf("plan %d after migrating: kind %q, %v; want %q", id, p.ChannelKind, err, want)
		}
	}
	reads := []struct {
		scope Scope
		want  []int64
	}{
		{Viewer("TA", "CPUB", "UA9"), []int64{1}},
		{Viewer("TA", "COTHER", "UA9"), nil},
		{Viewer("TA", "COTHER", "UA1"), []int64{2, 1}},
		{Viewer("TA", "DA1", "UA9"), []int64{2}},
		{Viewer("TB", "CPUB", "UA1"), nil},
		{Workspace("TA"), nil},
		{CommandLine(), []int64{3}},
	}
	for _, r := range reads {
		got, err := db.PlansForModel(ctx, r.scope, "bare:13000000000", 0)
		if err != nil {
			t.Fatal(err)
		}
		if ids := planIDs(got); !slices.Equal(ids, r.want) {
			t.Errorf("%v reads %v, want %v", r.scope, ids, r.want)
		}
	}
}

// TestSavePlanChannelKind: the kind must match the source, and a Slack
// plan needs its workspace.
func TestSavePlanChannelKind(t *testing.T) {
	db := openTest(t)
	for _, w := range []Who{
		{Source: SourceSlack, Team: "TA", Channel: "C1", User: "U1", Kind: ChannelCLI},
		{Source: SourceCLI, Kind: ChannelPublic},
		{Source: SourceSlack, Channel: "C1", User: "U1", Kind: ChannelPublic},
		{Source: SourceSlack, Team: "TA", Channel: "C1", User: "U1", Kind: "secret"},
	} {
		p := NewPlan(w, plan.Summary{Kind: plan.KindFit, ModelKey: "bare:7000000000"})
		if _, err := db.SavePlan(context.Background(), &p); err == nil {
			t.Errorf("SavePlan(%+v) saved", w)
		}
	}
}

func TestSlackChannelKind(t *testing.T) {
	for _, tc := range []struct {
		id, name string
		want     ChannelKind
	}{
		{"C0FITBOT", "ml-infra", ChannelPublic},
		{"C0FITBOT", "privategroup", ChannelPrivate},
		{"C0FITBOT", "mpdm-a--b--c-1", ChannelPrivate},
		{"C0FITBOT", "", ChannelPrivate},
		{"G8PSS9T3V", "foobar", ChannelPrivate},
		{"D024BE91L", "directmessage", ChannelDM},
		{"D024BE91L", "", ChannelDM},
		{"", "", ChannelPrivate},
	} {
		if got := SlackChannelKind(tc.id, tc.name); got != tc.want {
			t.Errorf("SlackChannelKind(%q, %q) = %q, want %q", tc.id, tc.name, got, tc.want)
		}
	}
}
