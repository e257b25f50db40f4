package answer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// fuzzSeeds are questions of every kind, as people type them.
var fuzzSeeds = []string{
	"13B lora 4090",
	"can we fine-tune Llama 3 70B with QLoRA on two A100s?",
	"llama 3.1 70b qlora on 2 a100 for 3 epochs of 500M tokens by friday under $2000",
	"how many users can 2xh100 serve llama-3.1-70b",
	"gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each",
	"what 2x4090 lora",
	"llama-3.1-8b inference l4 max context",
	"which gpu 13b lora on 1B tokens",
	"13B lora 4090 buy-vs-rent 3 jobs/week 5h",
	"h100 or h200 for serving llama 3.1 70b, which is cheaper per user",
	"lora vs full finetune for llama 3.1 8b on an a100",
	"is the h200 cheaper than the h100 this week?",
	"8x h100 for a week",
	"prices spot h100",
	"plans mistral 7b",
	"hello there",
	"thanks!",
	"help",
	"flux.1-dev lora 4090 1024px batch 4",
	"embed 5M documents with bge-large",
	"llama 3.1 405b full on 2048 h100 tp 8 pp 16 on 15T tokens",
	"Qwen/Qwen3-1.7B lora h100",
	"can we run llama-3.1-70b qlora on our cluster right now?",
	"",
	"7b 0x4090 -1 epochs of 1e400 tokens at $-3/hr",
}

// FuzzAnswerPath drives a question's whole path through the service, as
// both faces do: Service.Handle reads, resolves, dispatches (fit, ask,
// comparison, prices, the kinds of words only) and keeps. Any text ends
// in a result whose answer encodes as JSON (no NaN or infinity), or a
// clarify result or an error with a message; never a panic.
func FuzzAnswerPath(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	sheet := pricing.DefaultSheet()
	est := Fixed{&sizing.Estimator{Prices: sheet}}
	kept := &countingKeeper{}
	s := &Service{Estimator: est, Asker: est, PriceBook: book{sheet.Offers()}, Plans: kept,
		Now: func() time.Time { return time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC) }}
	f.Fuzz(func(t *testing.T, text string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		before := kept.n.Load()
		r, result, err := answerPath(ctx, s, text)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q (%s): an error with no message", text, r.Kind)
			}
			return
		}
		if _, err := json.Marshal(result); err != nil {
			t.Fatalf("%q (%s): the answer does not encode: %v", text, r.Kind, err)
		}
		if keeps := r.Fit != nil || r.Ask != nil; keeps != (kept.n.Load() == before+1) || keeps != (r.PlanID != 0) {
			t.Fatalf("%q (%s): kept %d plans (plan id %d), want one exactly for a fit or ask answer", text, r.Kind, kept.n.Load()-before, r.PlanID)
		}
	})
}

// countingKeeper is a PlanKeeper that counts the plans it keeps.
type countingKeeper struct{ n atomic.Int64 }

func (k *countingKeeper) KeepPlan(context.Context, Who, plan.Summary) (int64, error) {
	return k.n.Add(1), nil
}

// answerPath is Service.Handle on text, asked to keep its answer: the
// result and the answer of its kind (nil for the kinds that carry only
// words: greeting, chat, help, plans, cluster), or why there is none
// (a clarify result's Err, or the error of Handle itself).
func answerPath(ctx context.Context, s *Service, text string) (Result, any, error) {
	r, err := s.Handle(ctx, Who{Team: "T1", Keep: true}, text)
	switch {
	case err != nil:
		return r, nil, err
	case r.Kind == KindClarify:
		if r.Err == nil {
			return r, nil, errors.New("a clarify result without a reason")
		}
		return r, nil, r.Err
	case r.Fit != nil:
		return r, r.Fit, nil
	case r.Ask != nil:
		return r, r.Ask, nil
	case r.Compare != nil:
		return r, r.Compare, nil
	case r.Prices != nil:
		return r, r.Prices, nil
	}
	return r, nil, nil
}

// TestAnswerPathSeeds: every seed of FuzzAnswerPath reaches the kind it
// is an example of, so the fuzzer starts from every branch.
func TestAnswerPathSeeds(t *testing.T) {
	sheet := pricing.DefaultSheet()
	est := Fixed{&sizing.Estimator{Prices: sheet}}
	s := &Service{Estimator: est, Asker: est, PriceBook: book{sheet.Offers()}}
	seen := map[Kind]bool{}
	for _, text := range fuzzSeeds {
		r, _, err := answerPath(context.Background(), s, text)
		var in *sizing.InputError
		if err != nil && !errors.As(err, &in) {
			t.Logf("%q (%s): %v", text, r.Kind, err)
		}
		seen[r.Question.Kind()] = true
	}
	for _, k := range []Kind{KindFit, KindLargest, KindMaxContext, KindWhichGPU, KindBuyRent, KindPrices, KindGreeting, KindChat, KindHelp, KindPlans, KindCompare, Kind(sizing.IntentServe)} {
		if !seen[k] {
			t.Errorf("no seed of kind %s", k)
		}
	}
}
