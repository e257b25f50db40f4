package plan

import (
	"errors"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// askedPlan is the plan of an inverse question as kept today, with its
// one-line answer in older words.
func askedPlan(t *testing.T, question string) Summary {
	t.Helper()
	p, err := reading.Parse(question)
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	return FromAsk(question, p, a, "the answer, as an older fitbot worded it")
}

// TestReask: an inverse plan asked again is compared by its figures,
// never by the line that shows it: new wording is no change, a moved
// figure, card or verdict is.
func TestReask(t *testing.T) {
	est := &sizing.Estimator{}
	for _, q := range []string{"what 2x4090 lora", "llama-3.1-8b inference l4 max context", "which gpu 13b lora", "13b lora 4090 buy-vs-rent 3 jobs/week 5h"} {
		d := Reask(askedPlan(t, q), nil, func(p reading.Request) (sizing.AskAnswer, error) { return est.Ask(p.Query, p.Intent, p.Workload) })
		if d.Now == nil || d.Changed.Any() {
			t.Errorf("%q asked again with the same estimator: now %v, changed %+v (problem %q); want unchanged", q, d.Now != nil, d.Changed, d.Problem)
		}
	}
	moved := func(change func(*sizing.AskAnswer)) AskFunc {
		return func(p reading.Request) (sizing.AskAnswer, error) {
			a, err := est.Ask(p.Query, p.Intent, p.Workload)
			change(&a)
			return a, err
		}
	}
	tests := []struct {
		question string
		change   func(*sizing.AskAnswer)
		want     AskChanged
	}{
		{"what 2x4090 lora", func(a *sizing.AskAnswer) { a.Request.Params += 1e9 }, AskChanged{Figure: true}},
		{"llama-3.1-8b inference l4 max context", func(a *sizing.AskAnswer) { a.Request.SeqLen /= 2 }, AskChanged{Figure: true}},
		{"which gpu 13b lora", func(a *sizing.AskAnswer) { a.Request.GPU, a.Request.GPUs = "h200", 1 }, AskChanged{Hardware: true}},
		{"13b lora 4090 buy-vs-rent 3 jobs/week 5h", func(a *sizing.AskAnswer) {
			a.BuyRent.Verdict = map[string]string{"buy": "rent", "rent": "buy"}[a.BuyRent.Verdict]
		}, AskChanged{Verdict: true}},
	}
	for _, tt := range tests {
		if d := Reask(askedPlan(t, tt.question), nil, moved(tt.change)); d.Changed != tt.want {
			t.Errorf("%q: changed %+v, want %+v", tt.question, d.Changed, tt.want)
		}
	}
	// A buy-or-rent plan kept before its verdict was: compared without it.
	old := askedPlan(t, "13b lora 4090 buy-vs-rent 3 jobs/week 5h")
	old.Headroom = ""
	if d := Reask(old, nil, moved(func(a *sizing.AskAnswer) { a.BuyRent.Verdict = "neither" })); d.Changed.Any() {
		t.Errorf("a plan without a kept verdict: changed %+v", d.Changed)
	}
}

// TestReaskProblems: a question read as another kind today, or one the
// asker refuses, comes back without an answer and with the cause.
func TestReaskProblems(t *testing.T) {
	then := askedPlan(t, "what 2x4090 lora")
	then.Canonical = "13b lora 4090" // reads as a fit question today
	if d := Reask(then, nil, func(p reading.Request) (sizing.AskAnswer, error) {
		return (&sizing.Estimator{}).Ask(p.Query, p.Intent, p.Workload)
	}); d.Now != nil || d.Err == nil || d.Problem == "" {
		t.Errorf("another kind: now %v, err %v, problem %q", d.Now, d.Err, d.Problem)
	}
	refused := errors.New("no asker")
	d := Reask(askedPlan(t, "what 2x4090 lora"), nil, func(reading.Request) (sizing.AskAnswer, error) { return sizing.AskAnswer{}, refused })
	if d.Now != nil || !errors.Is(d.Err, refused) {
		t.Errorf("refused: now %v, err %v", d.Now, d.Err)
	}
}
