package answer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// countingEstimator is the estimator with a count of the estimates asked.
type countingEstimator struct {
	Fixed
	answers, asks int
}

func (c *countingEstimator) Answer(ctx context.Context, q sizing.Query) (sizing.Answer, error) {
	c.answers++
	return c.Fixed.Answer(ctx, q)
}

func (c *countingEstimator) Ask(ctx context.Context, p reading.Request) (sizing.AskAnswer, error) {
	c.asks++
	return c.Fixed.Ask(ctx, p)
}

// keeper records the plans kept, numbering them from 1; err fails them.
type keeper struct {
	kept []plan.Summary
	who  []Who
	err  error
}

func (k *keeper) KeepPlan(_ context.Context, who Who, s plan.Summary) (int64, error) {
	if k.err != nil {
		return 0, k.err
	}
	k.kept, k.who = append(k.kept, s), append(k.who, who)
	return int64(len(k.kept)), nil
}

// reader is a language model that reads every question as one parse, or
// fails with err; it counts its reads.
type reader struct {
	words  string // read as sizing.Parse reads these words
	err    error
	reads  int
	thread reading.Request // the thread's request of the last ReadFollowUp
}

func (r *reader) ReadFollowUp(ctx context.Context, text string, thread reading.Request) (reading.Request, error) {
	r.thread = thread
	return r.Read(ctx, text, thread)
}

func (r *reader) Read(_ context.Context, _ string, _ reading.Request) (reading.Request, error) {
	r.reads++
	if r.err != nil {
		return reading.Request{}, r.err
	}
	return reading.Parse(r.words)
}

func handleService() (*Service, *countingEstimator, *keeper) {
	est := &countingEstimator{Fixed: Fixed{&sizing.Estimator{}}}
	k := &keeper{}
	return &Service{Estimator: est, Asker: est, Plans: k}, est, k
}

// TestHandleKinds: each kind of question comes back as its typed result,
// with only its own answer set.
func TestHandleKinds(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		text string
		kind Kind
	}{
		{"13b lora rtx-4090", KindFit},
		{"what 2x4090 lora", KindLargest},
		{"which gpu 13b lora", KindWhichGPU},
		{"13b lora on a100 vs h100", KindCompare},
		{"how much is an h100 per hour", KindPrices},
		{"thanks!", KindChat},
		{"help", KindHelp},
		{"what's free on our cluster right now", KindCluster},
		{"the quick brown fox", KindClarify},
	} {
		s, _, _ := handleService()
		r, err := s.Handle(ctx, Who{Team: "T1"}, c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if r.Kind != c.kind {
			t.Errorf("%q: kind %q, want %q (err %v)", c.text, r.Kind, c.kind, r.Err)
		}
		set := 0
		for _, p := range []bool{r.Fit != nil, r.Ask != nil, r.Compare != nil, r.Prices != nil} {
			if p {
				set++
			}
		}
		want := map[Kind]int{KindFit: 1, KindLargest: 1, KindWhichGPU: 1, KindCompare: 1}[c.kind]
		if set != want {
			t.Errorf("%q: %d answers set, want %d", c.text, set, want)
		}
		if (c.kind == KindClarify) != (r.Err != nil) {
			t.Errorf("%q: kind %q with err %v", c.text, r.Kind, r.Err)
		}
	}
}

// TestHandleAnswersOnce: a fit question is estimated once and an ask
// searched once; the kept plan's id is in the result.
func TestHandleAnswersOnce(t *testing.T) {
	ctx := context.Background()
	s, est, k := handleService()
	r, err := s.Handle(ctx, Who{Team: "T1", User: "U1", Keep: true}, "13b lora rtx-4090")
	if err != nil || r.Fit == nil {
		t.Fatalf("Handle: %+v, %v", r, err)
	}
	if est.answers != 1 {
		t.Errorf("a fit question was estimated %d times, want 1", est.answers)
	}
	if r.PlanID != 1 || len(k.kept) != 1 || k.who[0].User != "U1" || k.kept[0].Question != "13b lora rtx-4090" {
		t.Errorf("kept plan %d, %+v, want plan 1 of the question asked by U1", r.PlanID, k.kept)
	}
	r, err = s.Handle(ctx, Who{Keep: true}, "which gpu 13b lora")
	if err != nil || r.Ask == nil || r.Ask.WhichGPU == nil {
		t.Fatalf("Handle: %+v, %v", r, err)
	}
	if est.asks != 1 || r.PlanID != 2 || k.kept[1].Kind != plan.KindWhichGPU {
		t.Errorf("asks %d, plan %d (%v), want 1 search kept as which_gpu plan 2", est.asks, r.PlanID, k.kept[1].Kind)
	}
}

// TestHandleKeepsOnlyWhenAsked: no Keep, no plan; a failing keeper
// leaves the answer standing with the error beside it; a comparison is
// never kept.
func TestHandleKeepsOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	s, _, k := handleService()
	if r, _ := s.Handle(ctx, Who{}, "13b lora rtx-4090"); r.PlanID != 0 || len(k.kept) != 0 {
		t.Errorf("kept plan %d without Keep", r.PlanID)
	}
	if r, _ := s.Handle(ctx, Who{Keep: true}, "13b lora on a100 vs h100"); r.Compare == nil || r.PlanID != 0 || len(k.kept) != 0 {
		t.Errorf("a comparison: %+v kept %d plans", r.Kind, len(k.kept))
	}
	k.err = errors.New("disk full")
	r, _ := s.Handle(ctx, Who{Keep: true}, "13b lora rtx-4090")
	if r.Fit == nil || r.PlanID != 0 || r.PlanErr == nil || !strings.Contains(r.PlanErr.Error(), "disk full") {
		t.Errorf("a failed keep: fit %v, plan %d, err %v", r.Fit != nil, r.PlanID, r.PlanErr)
	}
}

// TestHandleModelFallback: the language model is asked only for words
// the grammar could not read (or read with words left over), and its
// reading is answered and marked interpreted; its question back is a
// clarify result.
func TestHandleModelFallback(t *testing.T) {
	ctx := context.Background()
	s, _, _ := handleService()
	m := &reader{words: "llama-3.1-8b qlora rtx-4090"}
	s.Reader = m
	r, err := s.Handle(ctx, Who{}, "13b lora rtx-4090")
	if err != nil || r.Kind != KindFit || r.Interpreted || m.reads != 0 {
		t.Errorf("a question the grammar reads: kind %q interpreted %v, %d model reads", r.Kind, r.Interpreted, m.reads)
	}
	r, err = s.Handle(ctx, Who{}, "can we tune the big llama thing on a gaming card")
	if err != nil || r.Kind != KindFit || !r.Interpreted || m.reads != 1 {
		t.Fatalf("a question only the model reads: kind %q interpreted %v, %d model reads, err %v", r.Kind, r.Interpreted, m.reads, r.Err)
	}
	if r.Fit.Answer.Request.GPU != "rtx-4090" {
		t.Errorf("answered on %q, want the model's rtx-4090", r.Fit.Answer.Request.GPU)
	}
	m.err = fmt.Errorf("llm: %w", &NotUnderstood{QuestionBack: "Which model do you mean?"})
	r, _ = s.Handle(ctx, Who{}, "can we tune the big one on our box")
	var nu *NotUnderstood
	if r.Kind != KindClarify || !errors.As(r.Err, &nu) || nu.QuestionBack != "Which model do you mean?" {
		t.Errorf("the model's question back: kind %q, err %v", r.Kind, r.Err)
	}
	m.err = errors.New("timeout")
	r, _ = s.Handle(ctx, Who{}, "can we tune the big one on our box")
	var in *sizing.InputError
	if r.Kind != KindClarify || !errors.As(r.Err, &in) {
		t.Errorf("a model that failed: kind %q, err %v; want the grammar's input error", r.Kind, r.Err)
	}
}

// TestHandleUnsure: a question whose words ask one of two things alike
// comes back as a clarify result carrying both, with nothing answered
// and no plan kept; a clear question near it is answered.
func TestHandleUnsure(t *testing.T) {
	ctx := context.Background()
	s, est, k := handleService()
	r, err := s.Handle(ctx, Who{Team: "T1", Keep: true}, "what is an h100 selling for")
	if err != nil {
		t.Fatal(err)
	}
	want := []reading.Alternative{
		{Label: "what renting the h100 costs (cloud prices per hour)", Words: "prices h100"},
		{Label: "what buying the h100 costs, against renting it", Words: "h100 purchase price"},
	}
	if r.Kind != KindClarify || !slices.Equal(r.Alternatives, want) || r.Err != nil {
		t.Errorf("Handle = kind %q, alternatives %+v, err %v; want clarify with %+v", r.Kind, r.Alternatives, r.Err, want)
	}
	if r.Fit != nil || r.Ask != nil || r.Prices != nil || est.answers+est.asks != 0 || len(k.kept) != 0 {
		t.Errorf("an unsure question was answered: %+v (estimates %d, kept %d)", r, est.answers+est.asks, len(k.kept))
	}
	for _, a := range want {
		if r, _ := s.Handle(ctx, Who{Team: "T1"}, a.Words); len(r.Alternatives) > 0 {
			t.Errorf("the alternative %q asks which again: %+v", a.Words, r.Alternatives)
		}
	}
}

// TestFollowUpAsksTheModel: a follow-up is the grammar's reading merged
// over the thread's request; the model is asked, with that request, only
// when the grammar leaves words unused, and its reading then answers; when
// it fails, the grammar's reading stands with the model's error.
func TestFollowUpAsksTheModel(t *testing.T) {
	ctx := context.Background()
	s, _, _ := handleService()
	const thread = "llama-3.1-8b lora rtx-4090"
	in, ok := s.FollowUp(ctx, thread, "bump context to 32k")
	if !ok || in.Interpreted || in.Question.Parsed.Query.SeqLen != 32768 {
		t.Errorf("without a model: ok %v interpreted %v, %q; want the grammar's seq 32768", ok, in.Interpreted, sizing.Format(in.Question.Parsed.Query))
	}
	m := &reader{words: "llama-3.1-8b lora 2xrtx-4090 seq 32768"}
	s.Reader = m
	if in, ok := s.FollowUp(ctx, thread, "and with 2 of them"); !ok || in.Interpreted || m.reads != 0 {
		t.Errorf("a follow-up the grammar reads whole: ok %v interpreted %v, %d model reads", ok, in.Interpreted, m.reads)
	}
	if _, ok := s.FollowUp(ctx, thread, "nice, thanks"); ok || m.reads != 0 {
		t.Errorf("thanks: ok %v, %d model reads; want it left alone", ok, m.reads)
	}
	in, ok = s.FollowUp(ctx, thread, "bump context to 32k, distributed")
	if !ok || !in.Interpreted || m.reads != 1 || in.Question.Parsed.Query.GPUs != 2 || m.thread.Query.SeqLen != 32768 {
		t.Fatalf("bump, distributed: ok %v interpreted %v, %d reads, %q (the model had %q); want the model asked with the merged request",
			ok, in.Interpreted, m.reads, sizing.Format(in.Question.Parsed.Query), sizing.Format(m.thread.Query))
	}
	if n := in.Question.Parsed.Notes; len(n) == 0 || !strings.HasPrefix(n[0], "interpreted by the language model as a change to the thread's question") || slices.ContainsFunc(n, func(s string) bool { return strings.HasPrefix(s, "not used") }) {
		t.Errorf("notes %q: want the model's reading said first and no word called not used", n)
	}
	m.err = errors.New("llm: HTTP 500")
	in, ok = s.FollowUp(ctx, thread, "bump context to 32k, distributed")
	if !ok || in.Interpreted || in.ModelError == nil || in.Question.Parsed.Query.SeqLen != 32768 {
		t.Errorf("model down: ok %v interpreted %v err %v, %q; want the grammar's reading and the error", ok, in.Interpreted, in.ModelError, sizing.Format(in.Question.Parsed.Query))
	}
}
