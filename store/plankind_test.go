package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
)

// TestPlanKindMigration: a plan kept by the previous version (before
// 0009_plan_kinds) reads back as a fit plan with no answer line, and an
// inverse plan saved after it keeps its kind and answer.
func TestPlanKindMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fitbot.db")
	old := openAt(t, path, nil, 8)
	if _, err := old.rw.ExecContext(ctx, `INSERT INTO plans (created_at, source, question, canonical,
		request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes)
		VALUES ('2026-11-01T00:00:00.000000000Z', 'cli', '13b lora 4090', '13B lora rtx-4090', '{}',
		'bare:13000000000', 1, 'comfortable', 'rtx-4090', 1, 1000)`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db := openAt(t, path, nil, -1)
	p, err := db.Plan(ctx, AllPlans(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != plan.KindFit || p.Answer != "" || p.ModelKey != "bare:13000000000" || !p.Fits {
		t.Errorf("old plan after migrating = kind %q, answer %q, key %q, fits %v; want a fit plan as kept", p.Kind, p.Answer, p.ModelKey, p.Fits)
	}

	inv := Plan{Source: SourceCLI, Summary: plan.Summary{Kind: plan.KindLargest, Question: "what fits a 4090",
		Canonical: "rtx-4090 largest", ModelKey: "ask:largest", Answer: "LoRA up to 30B", GPU: "rtx-4090", GPUs: 1}}
	id, err := db.SavePlan(ctx, &inv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Plan(ctx, AllPlans(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != plan.KindLargest || got.Answer != "LoRA up to 30B" || got.Canonical != "rtx-4090 largest" {
		t.Errorf("inverse plan read back = kind %q, answer %q, canonical %q", got.Kind, got.Answer, got.Canonical)
	}
	listed, err := db.PlansForModel(ctx, AllPlans(), "ask:largest", 0)
	if err != nil || len(listed) != 1 || listed[0].ID != id {
		t.Errorf("PlansForModel(ask:largest) = %v, %v; want plan %d", listed, err, id)
	}

	// The digest re-prices fit plans only.
	in, err := db.DigestInput(ctx, AllPlans(), testNow.Add(time.Hour), 60*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Plans) != 1 || in.Plans[0].ID != 1 {
		t.Errorf("digest plans = %+v; want only fit plan 1", in.Plans)
	}
}

// TestSavePlanRefusesUnknownKind: a kind the table would refuse is
// refused with a message that names it, and nothing is written.
func TestSavePlanRefusesUnknownKind(t *testing.T) {
	db := openTest(t)
	p := Plan{Source: SourceCLI, Summary: plan.Summary{Kind: "biggest", Question: "q", Canonical: "q", ModelKey: "ask:biggest"}}
	if _, err := db.SavePlan(context.Background(), &p); err == nil || !strings.Contains(err.Error(), `kind "biggest"`) {
		t.Errorf("SavePlan(kind biggest) = %v; want an error naming the kind", err)
	}
}
