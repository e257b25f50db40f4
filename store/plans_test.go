package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// samplePlan is a plausible saved answer: Mistral 7B with LoRA on one RTX
// 4090, priced from the default sheet.
func samplePlan(key string, at time.Time) Plan {
	usd := 0.69
	asOf := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	return Plan{
		CreatedAt: at,
		Source:    SourceSlack, Team: "T0001", Channel: "C0002", User: "U0003", ChannelKind: ChannelPublic,
		Summary: plan.Summary{Kind: plan.KindFit, Question: "can we lora mistral 7b on a 4090?",
			Canonical: "mistral-7b-v0.1 lora rtx-4090",
			Request: sizing.Request{
				Model: "mistral-7b-v0.1", Params: 7_241_732_096, ActiveParams: 7_241_732_096,
				Method: sizing.MethodLoRA, Optimizer: sizing.OptimizerAdamW, Precision: sizing.PrecisionBF16,
				GPU: "rtx-4090", GPUs: 1, Nodes: 1, Offload: sizing.OffloadNone, SeqLen: 2048, MicroBatch: 1,
				GradCheckpointing: true, LoRARank: 16,
			},
			ModelKey: key,
			Fits:     true, Headroom: string(sizing.HeadroomComfortable), GPU: "rtx-4090", GPUs: 1,
			PerGPUBytes: 19_327_352_832, USDPerHour: &usd, PriceProvider: "runpod", PriceAsOf: &asOf},
	}
}

func TestSavePlanRoundTrips(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	localTime := time.FixedZone("CET", 3600)

	priced := samplePlan("mistral-7b-v0.1", time.Date(2026, 11, 30, 2, 0, 0, 123456789, localTime))
	unpriced := samplePlan("bare:13000000000", time.Time{}) // CreatedAt from the clock
	unpriced.Source, unpriced.Team, unpriced.Channel, unpriced.User, unpriced.ChannelKind = SourceCLI, "", "", "", ChannelCLI
	unpriced.USDPerHour, unpriced.PriceProvider, unpriced.PriceAsOf = nil, "", nil
	unpriced.Fits, unpriced.Headroom = false, string(sizing.HeadroomOver)
	// A plan that brings its request's JSON (a cached reply's) is stored
	// with it and reads back the same.
	carried := samplePlan("mistral-7b-v0.1", time.Time{})
	b, err := json.Marshal(carried.Request)
	if err != nil {
		t.Fatal(err)
	}
	carried.RequestJSON = string(b)

	for _, p := range []Plan{priced, unpriced, carried} {
		saved := p
		id, err := db.SavePlan(ctx, &saved)
		if err != nil {
			t.Fatal(err)
		}
		if id == 0 || saved.ID != id {
			t.Fatalf("SavePlan = %d, and set ID %d", id, saved.ID)
		}
		want := p
		want.ID = id
		want.RequestJSON = "" // not read back
		want.CreatedAt = p.CreatedAt.UTC()
		if p.CreatedAt.IsZero() {
			want.CreatedAt = testNow
		}
		if !saved.CreatedAt.Equal(want.CreatedAt) || saved.CreatedAt.Location() != time.UTC {
			t.Errorf("SavePlan set CreatedAt %v, want %v in UTC", saved.CreatedAt, want.CreatedAt)
		}
		got, err := db.Plan(ctx, AllPlans(), id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Plan(%d) (-saved +read):\n%s", id, diff)
		}
	}
}

func TestPlanNotFound(t *testing.T) {
	db := openTest(t)
	_, err := db.Plan(context.Background(), AllPlans(), 404)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "plan 404") {
		t.Errorf("Plan(404) = %v, want ErrNotFound naming the plan", err)
	}
}

func TestSavePlanRefusesBadPlans(t *testing.T) {
	db := openTest(t)
	neg := -1.0
	for _, tc := range []struct {
		name   string
		change func(*Plan)
		want   string
	}{
		{"unknown source", func(p *Plan) { p.Source = "email" }, `source "email"`},
		{"no model", func(p *Plan) { p.ModelKey = "" }, "no model key"},
		{"negative gpus", func(p *Plan) { p.GPUs = -2 }, "negative GPUs"},
		{"negative price", func(p *Plan) { p.USDPerHour = &neg }, "negative price"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := samplePlan("mistral-7b-v0.1", testNow)
			tc.change(&p)
			if _, err := db.SavePlan(context.Background(), &p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("SavePlan = %v, want an error saying %q", err, tc.want)
			}
		})
	}
	if got, err := db.RecentPlans(context.Background(), AllPlans(), time.Time{}, 0); err != nil || len(got) != 0 {
		t.Errorf("after refused saves: %d plans, %v; want none stored", len(got), err)
	}
}

func TestPlansNewestFirst(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	base := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	// Saved out of time order, with two plans at the same instant: the
	// later id wins the tie.
	saves := []struct {
		key  string
		hour int
	}{
		{"mistral-7b-v0.1", 5}, {"llama-3.1-8b", 6}, {"mistral-7b-v0.1", 1},
		{"mistral-7b-v0.1", 9}, {"bare:13000000000", 7}, {"mistral-7b-v0.1", 9},
	}
	ids := make([]int64, len(saves))
	for i, s := range saves {
		p := samplePlan(s.key, base.Add(time.Duration(s.hour)*time.Hour))
		id, err := db.SavePlan(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	idsOf := func(plans []Plan) []int64 {
		out := []int64{}
		for _, p := range plans {
			out = append(out, p.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  func() ([]Plan, error)
		want []int64
	}{
		{"mistral", func() ([]Plan, error) { return db.PlansForModel(ctx, AllPlans(), "mistral-7b-v0.1", 10) }, []int64{ids[5], ids[3], ids[0], ids[2]}},
		{"mistral, limit 2", func() ([]Plan, error) { return db.PlansForModel(ctx, AllPlans(), "mistral-7b-v0.1", 2) }, []int64{ids[5], ids[3]}},
		{"bare 13B", func() ([]Plan, error) { return db.PlansForModel(ctx, AllPlans(), "bare:13000000000", 0) }, []int64{ids[4]}},
		{"unknown model", func() ([]Plan, error) { return db.PlansForModel(ctx, AllPlans(), "gpt-9", 0) }, []int64{}},
		{"since 06:00", func() ([]Plan, error) { return db.RecentPlans(ctx, AllPlans(), base.Add(6*time.Hour), 0) }, []int64{ids[5], ids[3], ids[4], ids[1]}},
		{"since 06:00 in another zone", func() ([]Plan, error) {
			return db.RecentPlans(ctx, AllPlans(), base.Add(6*time.Hour).In(time.FixedZone("PST", -8*3600)), 0)
		}, []int64{ids[5], ids[3], ids[4], ids[1]}},
		{"all, limit 3", func() ([]Plan, error) { return db.RecentPlans(ctx, AllPlans(), time.Time{}, 3) }, []int64{ids[5], ids[3], ids[4]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, idsOf(plans)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanLookupUsesIndex asserts what EXPLAIN QUERY PLAN says of the two
// lookups: an index search, and no sort of its own (the index's order is
// the answer's order), so they stay fast at a million plans.
func TestPlanLookupUsesIndex(t *testing.T) {
	skipOnPostgres(t) // about SQLite: its files, schema table or query planner
	db := openTest(t)
	for _, tc := range []struct {
		query string
		args  []any
		index string
	}{
		{`SELECT ` + planColumns + ` FROM plans WHERE model_key = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
			[]any{"mistral-7b-v0.1", 20}, "USING INDEX plans_by_model (model_key=?)"},
		{`SELECT ` + planColumns + ` FROM plans WHERE created_at >= ? ORDER BY created_at DESC, id DESC LIMIT ?`,
			[]any{formatTime(testNow), 20}, "USING INDEX plans_by_time (created_at>?)"},
	} {
		plan := explain(t, db, tc.query, tc.args...)
		if !strings.Contains(plan, tc.index) {
			t.Errorf("query plan %q does not use %s", plan, tc.index)
		}
		if strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("query plan %q sorts; the index order should serve ORDER BY", plan)
		}
	}
}

// explain is the EXPLAIN QUERY PLAN of a query, its steps joined by "; ".
func explain(t testing.TB, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.ro.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(steps, "; ")
}
