package answer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

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
// both faces do: read, resolve, then the answer of its kind (fit, ask,
// comparison, prices). Any text ends in an answer that encodes as JSON
// (no NaN or infinity) or an error with a message; never a panic.
func FuzzAnswerPath(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	sheet := pricing.DefaultSheet()
	est := Fixed{&sizing.Estimator{Prices: sheet}}
	s := &Service{Estimator: est, Asker: est, PriceBook: book{sheet.Offers()},
		Now: func() time.Time { return time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC) }}
	f.Fuzz(func(t *testing.T, text string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kind, result, err := answerPath(ctx, s, text)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q (%s): an error with no message", text, kind)
			}
			return
		}
		if _, err := json.Marshal(result); err != nil {
			t.Fatalf("%q (%s): the answer does not encode: %v", text, kind, err)
		}
	})
}

// answerPath is the dispatch both faces make on a question: its kind and
// the answer of that kind, nil for the kinds that carry only words
// (greeting, chat, help, plans).
func answerPath(ctx context.Context, s *Service, text string) (Kind, any, error) {
	q := s.Resolve(ctx, "T1", s.Read(text))
	k := q.Kind()
	switch {
	case k == KindPrices:
		a, err := s.Prices(ctx, q.Route)
		return k, a, err
	case k == KindGreeting || k == KindChat || k == KindHelp || k == KindPlans:
		return k, nil, nil
	case q.Compared():
		a, err := s.Compare(ctx, q)
		return k, a, err
	case q.Ask():
		a, err := s.AskAnswer(ctx, q)
		return k, a, err
	}
	a, err := s.Fit(ctx, q)
	return k, a, err
}

// TestAnswerPathSeeds: every seed of FuzzAnswerPath reaches the kind it
// is an example of, so the fuzzer starts from every branch.
func TestAnswerPathSeeds(t *testing.T) {
	sheet := pricing.DefaultSheet()
	est := Fixed{&sizing.Estimator{Prices: sheet}}
	s := &Service{Estimator: est, Asker: est, PriceBook: book{sheet.Offers()}}
	seen := map[Kind]bool{}
	for _, text := range fuzzSeeds {
		k, _, err := answerPath(context.Background(), s, text)
		var in *sizing.InputError
		if err != nil && !errors.As(err, &in) {
			t.Logf("%q (%s): %v", text, k, err)
		}
		seen[k] = true
	}
	for _, k := range []Kind{KindFit, KindLargest, KindMaxContext, KindWhichGPU, KindBuyRent, KindPrices, KindGreeting, KindChat, KindHelp, KindPlans, KindCompare, Kind(sizing.IntentServe)} {
		if !seen[k] {
			t.Errorf("no seed of kind %s", k)
		}
	}
}
