package digest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// TestDigestRepricesHubPlans: a plan for a Hugging Face Hub model is
// re-priced through the Parse the digest is given (the bot's resolver);
// without one it keeps its problem in words.
func TestDigestRepricesHubPlans(t *testing.T) {
	hubPlan := Plan{ID: 50, CreatedAt: digestEnd.Add(-24 * time.Hour), Summary: plan.Summary{
		Question: "/fit Qwen/Qwen3-1.7B lora h100", Canonical: "hf.co/Qwen/Qwen3-1.7B lora h100", ModelKey: "hub:qwen/qwen3-1.7b",
		GPU: "h100", GPUs: 1, Fits: true, USDPerHour: new(2.69)}}
	resolve := func(q string) (reading.Request, error) {
		p, err := reading.Parse(q)
		if err != nil || p.Hub == "" {
			t.Fatalf("Parse(%q) = hub %q, %v", q, p.Hub, err)
		}
		m := sizing.BareModel(1_720_574_976, 0) // the resolver's model stands in; the digest only re-prices it
		m.ID = p.Hub
		p.Query.Arch = &m
		return p, nil
	}
	for _, tt := range []struct {
		name    string
		parse   plan.Parser
		problem string
	}{
		{"with the resolver", resolve, ""},
		{"without", nil, "Qwen/Qwen3-1.7B"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := digestInput(false)
			in.Plans, in.Parse = []Plan{hubPlan}, tt.parse
			d := Build(in, DefaultConfig())
			if len(d.Plans) != 1 {
				t.Fatalf("plans = %+v", d.Plans)
			}
			got := d.Plans[0]
			if tt.problem == "" && (got.Problem != "" || got.NowUSDPerHour == nil) {
				t.Errorf("not re-priced: problem %q", got.Problem)
			}
			if tt.problem != "" && !strings.Contains(got.Problem, tt.problem) {
				t.Errorf("problem = %q, want it to name %s", got.Problem, tt.problem)
			}
		})
	}
}

// TestDigestRepricesEveryQuestionAndListsTheLargestChanges: every
// distinct question of the window is answered again, however many; the
// list keeps MaxPlans of them, the changed ones first, and the tally
// counts them all (repeats through Asked included).
func TestDigestRepricesEveryQuestionAndListsTheLargestChanges(t *testing.T) {
	in := digestInput(false)
	in.Plans = nil
	for i := range 30 {
		in.Plans = append(in.Plans, Plan{ID: int64(100 + i), CreatedAt: digestEnd.Add(-time.Duration(i+1) * time.Hour), Asked: 1 + i%2,
			Summary: plan.Summary{Question: "q", Canonical: fmt.Sprintf("llama-3.1-8b lora %dxh100 seq %d", 1+i%8, 1024+i),
				GPU: "h100", GPUs: 1 + i%8, Fits: true, USDPerHour: new(float64(1 + i%8))}})
	}
	cfg := DefaultConfig()
	cfg.MaxPlans = 4
	d := Build(in, cfg)
	if d.PlansRepriced != 30 || d.PlansSaved != 45 {
		t.Errorf("tally %+v, want 30 questions re-priced standing for 45 plans", d.PlanTally)
	}
	if len(d.Plans) != 4 {
		t.Fatalf("%d plans listed, want MaxPlans 4", len(d.Plans))
	}
	changed := 0
	for i, p := range d.Plans {
		if p.Changed() {
			changed++
		} else if i < min(d.PlansChanged, 4) {
			t.Errorf("plan %d listed unchanged before a changed one", i)
		}
	}
	if d.PlansChanged == 0 || d.PlansChanged > 30 {
		t.Errorf("%d plans changed, want some of the 30 (the week's h100 price is not each plan's price then)", d.PlansChanged)
	}
}
