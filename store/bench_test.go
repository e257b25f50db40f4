package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/measure"
)

// BenchmarkSavePlan is one plan written and committed (WAL,
// synchronous=NORMAL) through the single writer.
func BenchmarkSavePlan(b *testing.B) {
	db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
	ctx := context.Background()
	p := samplePlan("mistral-7b-v0.1", time.Time{})
	for b.Loop() {
		p.ID, p.CreatedAt = 0, time.Time{}
		if _, err := db.SavePlan(ctx, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// millionPlans is the size of the lookup benchmark's database.
const (
	millionPlans = 1_000_000
	benchModels  = 500 // 2,000 plans per model
)

// BenchmarkPlanLookup looks up the newest 20 plans for one model, and the
// newest 20 of the last day, in a database of a million plans (built once
// per run in a temporary folder, with one recursive insert). Target: under
// a millisecond.
func BenchmarkPlanLookup(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a database of a million plans")
	}
	db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
	ctx := context.Background()
	start := time.Now()
	if err := fillPlans(ctx, db, millionPlans); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d plans in %v", millionPlans, time.Since(start).Round(time.Millisecond))

	key := "model-123"
	plan := explain(b, db, `SELECT `+planColumns+` FROM plans WHERE model_key = ? ORDER BY created_at DESC, id DESC LIMIT ?`, key, 20)
	b.Logf("EXPLAIN QUERY PLAN: %s", plan)
	if !strings.Contains(plan, "USING INDEX plans_by_model") || strings.Contains(plan, "TEMP B-TREE") {
		b.Fatalf("the lookup does not use the index: %s", plan)
	}

	b.Run("PlansForModel", func(b *testing.B) {
		for b.Loop() {
			plans, err := db.PlansForModel(ctx, AllPlans(), key, 20)
			if err != nil || len(plans) != 20 {
				b.Fatalf("PlansForModel = %d plans, %v", len(plans), err)
			}
		}
	})
	b.Run("RecentPlans", func(b *testing.B) {
		since := benchEpoch.Add(time.Duration(millionPlans-1440) * time.Minute)
		for b.Loop() {
			plans, err := db.RecentPlans(ctx, AllPlans(), since, 20)
			if err != nil || len(plans) != 20 {
				b.Fatalf("RecentPlans = %d plans, %v", len(plans), err)
			}
		}
	})
}

// benchEpoch is when the benchmark's first plan was made; one follows
// every minute.
var benchEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// fillPlans inserts n plans in one transaction with one recursive
// statement, spread over benchModels models and one a minute.
func fillPlans(ctx context.Context, db *DB, n int) error {
	p := samplePlan("", time.Time{})
	reqJSON := `{"model":"mistral-7b-v0.1","params":7241732096,"method":"lora","gpu":"rtx-4090","gpus":1}`
	return db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`
		WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO plans (created_at, source, team, channel, user_id, question, canonical,
			request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes, usd_per_hour,
			price_provider, price_as_of)
		SELECT strftime('%%Y-%%m-%%dT%%H:%%M:%%S.000000000Z', %d + i * 60, 'unixepoch'),
			'slack', 'T0001', 'C0002', 'U0003', ?, ?, ?, 'model-' || (i %% %d), 1, 'comfortable',
			'rtx-4090', 1, ?, 0.69, 'runpod', NULL
		FROM n`, n-1, benchEpoch.Unix(), benchModels),
			p.Question, p.Canonical, reqJSON, p.PerGPUBytes)
		return err
	})
}

// BenchmarkMeasuredRuns is what every fit answer and cacheable Slack
// question pays for the team's measured runs: one viewer's read in a
// database of 100,000 plans of one workspace, with none of them measured
// and with 200 measured.
func BenchmarkMeasuredRuns(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a database of 100,000 plans")
	}
	db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
	ctx := context.Background()
	if err := fillPlans(ctx, db, 100_000); err != nil {
		b.Fatal(err)
	}
	viewer := Viewer("T0001", "C0002", "U0003")
	cond, args := viewer.where()
	plan := explain(b, db, `SELECT r.id FROM plan_runs r CROSS JOIN plans p WHERE p.id = r.plan_id AND `+cond+` ORDER BY r.recorded_at DESC, r.id DESC LIMIT 1`, args...)
	b.Logf("EXPLAIN QUERY PLAN: %s", plan)
	if !strings.HasPrefix(plan, "SCAN r") {
		b.Fatalf("the plans drive the read of measured runs: %s", plan)
	}
	read := func(b *testing.B, limit, want int) {
		for b.Loop() {
			runs, err := db.MeasuredRuns(ctx, viewer, limit)
			if err != nil || len(runs) != want {
				b.Fatalf("MeasuredRuns = %d runs, %v; want %d", len(runs), err, want)
			}
		}
	}
	b.Run("none/HasRuns", func(b *testing.B) { read(b, 1, 0) })
	b.Run("none/all", func(b *testing.B) { read(b, 0, 0) })
	for id := int64(1); id <= 200; id++ {
		r := PlanRun{PlanID: id * 400, Via: ViaCLI, Measured: measure.Run{PeakBytes: 20 * measure.GiB, TokensPerSecond: 3150}}
		if err := db.SaveMeasuredRun(ctx, AllPlans(), &r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("200/HasRuns", func(b *testing.B) { read(b, 1, 1) })
	b.Run("200/all", func(b *testing.B) { read(b, 0, 200) })
}
