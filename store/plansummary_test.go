package store

import (
	"context"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestPlanSummaryRoundTrip saves a real answer's summary (the estimator
// with the default price sheet), finds it again by another name of the
// model and reads back the same summary.
func TestPlanSummaryRoundTrip(t *testing.T) {
	const question = "can we lora Mistral-7B-v0.1 on a 4090?"
	parsed, err := reading.Parse(question)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := (&sizing.Estimator{Prices: pricing.DefaultSheet()}).Answer(parsed.Query)
	if err != nil {
		t.Fatal(err)
	}
	s := plan.FromAnswer(question, parsed.Query, answer)
	p := NewPlan(Who{Source: SourceSlack, Team: "T0001", Channel: "C0002", User: "U0003"}, s)

	db := openTest(t)
	ctx := context.Background()
	if _, err := db.SavePlan(ctx, &p); err != nil {
		t.Fatal(err)
	}
	key, err := plan.ModelKeyFor("mistral 7b")
	if err != nil {
		t.Fatal(err)
	}
	found, err := db.PlansForModel(ctx, AllPlans(), key, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].ID != p.ID || found[0].CreatedAt != testNow || found[0].User != "U0003" {
		t.Fatalf("PlansForModel(%q) = %+v, want the saved plan made at %v by U0003", key, found, testNow)
	}
	if diff := cmp.Diff(s, found[0].Summary); diff != "" {
		t.Errorf("the summary read back differs (-saved +read):\n%s", diff)
	}
}
