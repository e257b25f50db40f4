package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/plan"
)

// TestServePlanKind: migration 0013 keeps the plans kept before it (the
// table is rebuilt) and takes plans of kind serve.
func TestServePlanKind(t *testing.T) {
	skipOnPostgres(t) // the rebuild is SQLite's; PostgreSQL swaps the CHECK
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	old := openAt(t, path, nil, 12)
	if _, err := old.rw.ExecContext(ctx, `INSERT INTO plans (created_at, source, team, question, canonical,
		request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes, kind, answer, channel_kind)
		VALUES ('2026-11-01T00:00:00.000000000Z', 'cli', 'T1', 'what fits a 4090', 'what rtx-4090', '{}',
		'ask:largest', 0, '', 'rtx-4090', 1, 0, 'largest', 'LoRA up to 30B', 'cli')`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db := openAt(t, path, nil, -1)
	p, err := db.Plan(ctx, AllPlans(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != plan.KindLargest || p.Answer != "LoRA up to 30B" || p.Team != "T1" {
		t.Errorf("plan kept before 0013 reads back as kind %q, answer %q, team %q", p.Kind, p.Answer, p.Team)
	}
	serve := Plan{Source: SourceCLI, Summary: plan.Summary{Kind: plan.KindServe, Question: "how many users can 2xh100 serve llama-3.1-70b",
		Canonical: "how many users llama-3.1-70b inference 2xh100", ModelKey: "llama-3.1-70b", Answer: "55 concurrent users on 2× H100 SXM 80 GB", GPU: "h100", GPUs: 2}}
	id, err := db.SavePlan(ctx, &serve)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.Plan(ctx, AllPlans(), id); err != nil || got.Kind != plan.KindServe {
		t.Errorf("serve plan read back as %q, %v", got.Kind, err)
	}
}
