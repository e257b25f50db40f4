package answer

import (
	"context"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// flatPrices prices every card at $2 a GPU-hour.
type flatPrices struct{}

func (flatPrices) GPUHourPrice(string) (sizing.Price, bool) {
	return sizing.Price{USDPerGPUHour: 2, Provider: "test", Market: "on_demand"}, true
}

// TestAnswersTheQuestionAsked: phrasings people type get an
// answer to what they asked, through the one answer service: how many of
// a card (the fewest that fit, with time and cost), a serving plan on the
// card for a count of people, and a cost per month.
func TestAnswersTheQuestionAsked(t *testing.T) {
	ctx := context.Background()
	est := Fixed{&sizing.Estimator{Prices: flatPrices{}}}
	s := &Service{Estimator: est, Asker: est, Machines: teamMachines{}}

	q := s.Resolve(ctx, "T1", s.Read("how many a100s do i need to full finetune a 70b"))
	if q.Kind() != KindFit || !q.SameForEveryTeam() {
		t.Fatalf("count ask: kind %s, same for every team %v; want a fit question that names its card", q.Kind(), q.SameForEveryTeam())
	}
	f, err := s.Fit(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	a := f.Answer
	if a.Fewest == nil || !a.Fewest.Found || !a.Fits || a.Request.GPU != "a100-80" || a.Request.GPUs != 16 || a.Request.Nodes != 2 {
		t.Errorf("how many a100s: fewest %+v, fits %v on %d× %s over %d machines; want the fewest A100s that fit, 16 over 2",
			a.Fewest, a.Fits, a.Request.GPUs, a.Request.GPU, a.Request.Nodes)
	}
	if a.Throughput.TokensPerSecond == nil || a.Throughput.USDPerHour == nil || *a.Throughput.USDPerHour != 32 {
		t.Errorf("how many a100s: throughput %+v, want a speed and 16 × $2/h", a.Throughput)
	}

	for _, c := range []struct {
		text, gpu string
		users     int
	}{
		{"serve llama 3.1 8b to 1000 users, how many l40s", "l40s", 1000},
		{"deploy qwen2.5 32b instruct with vllm on an h100 for 40 users", "h100", 40},
	} {
		q := s.Resolve(ctx, "T1", s.Read(c.text))
		if q.Kind() != Kind(sizing.IntentServe) {
			t.Errorf("%q: kind %s, want serve", c.text, q.Kind())
			continue
		}
		ask, err := s.AskAnswer(ctx, q)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		sv := ask.Serve
		if sv == nil || sv.Mode != "plan" || sv.Users != c.users || len(sv.Options) == 0 || !sv.MeetsTargets {
			t.Errorf("%q: %+v, want a plan that serves %d users", c.text, sv, c.users)
			continue
		}
		for _, o := range sv.Options {
			if o.GPU != c.gpu {
				t.Errorf("%q: an option on %s, want only %s", c.text, o.GPU, c.gpu)
			}
		}
	}

	q = s.Resolve(ctx, "T1", s.Read("monthly cost to serve phi 4 on an a10g"))
	f, err = s.Fit(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Answer.Throughput.USDPerMonth; m == nil || *m != 2*730 {
		t.Errorf("monthly: usd_per_month %v, want $2/h × 730 h", m)
	}
	for _, alt := range f.Answer.Alternatives {
		if alt.USDPerMonth == nil || *alt.USDPerMonth != *alt.USDPerHour*730 {
			t.Errorf("monthly: alternative %q has usd_per_month %v", alt.Why, alt.USDPerMonth)
		}
	}
}
