package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestParseAsk reads the other-way-round questions: the intent, the Query
// the rest of the words give, and the workload.
func TestParseAsk(t *testing.T) {
	for _, tt := range []struct {
		in     string
		intent sizing.Intent
		q      sizing.Query
		w      sizing.Workload
		note   string // one of the notes, when the reading assumed something
	}{
		{in: "what 2x4090 lora", intent: sizing.IntentLargest, q: sizing.Query{Method: sizing.MethodLoRA, GPU: "rtx-4090", GPUs: 2}},
		{in: "what can a T4 full fine-tune at 128k context", intent: sizing.IntentLargest, q: sizing.Query{Method: sizing.MethodFull, GPU: "t4", SeqLen: 131072}},
		{in: "What's the biggest model we can QLoRA on two A100s?", intent: sizing.IntentLargest, q: sizing.Query{Method: sizing.MethodQLoRA, GPU: "a100-80", GPUs: 2}, note: "a100"},
		{in: "llama-3.1-8b inference l4 max context", intent: sizing.IntentMaxContext, q: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodInference, GPU: "l4"}},
		{in: "llama-3.1-8b lora 4090 max seq", intent: sizing.IntentMaxContext, q: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodLoRA, GPU: "rtx-4090"}},
		{in: "how much context can Llama 3.1 8B serve on an L4 with an fp8 kv cache and 4 users?", intent: sizing.IntentMaxContext,
			q: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodInference, GPU: "l4", KVPrecision: sizing.PrecisionFP8, MicroBatch: 4}},
		{in: "llama 3.1 8b on an L4, max context 8192", intent: sizing.IntentFit, q: sizing.Query{Model: "llama-3.1-8b", GPU: "l4", SeqLen: 8192}},
		// A card's number after "max context" is the card, not 4,090 tokens with no GPU.
		{in: "llama-3.1-8b max context 4090", intent: sizing.IntentMaxContext, q: sizing.Query{Model: "llama-3.1-8b", GPU: "rtx-4090"}},
		{in: "llama-3.1-8b lora max context 3090", intent: sizing.IntentMaxContext, q: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodLoRA, GPU: "rtx-3090"}},
		{in: "llama-3.1-8b max context 8192 4090", intent: sizing.IntentFit, q: sizing.Query{Model: "llama-3.1-8b", GPU: "rtx-4090", SeqLen: 8192}},
		{in: "llama-3.1-8b ctx 6000 h100", intent: sizing.IntentFit, q: sizing.Query{Model: "llama-3.1-8b", GPU: "h100", SeqLen: 6000}},
		{in: "which gpu for 13b lora on 1B tokens", intent: sizing.IntentWhichGPU, q: sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, Tokens: 1e9}},
		{in: "what gpu should we use to serve mistral 7b", intent: sizing.IntentWhichGPU, q: sizing.Query{Model: "mistral-7b-v0.1", Method: sizing.MethodInference}, note: "mistral"},
		{in: "13B lora 4090 buy-vs-rent 3 jobs/week 5h", intent: sizing.IntentBuyRent, q: sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"},
			w: sizing.Workload{JobsPerWeek: 3, HoursPerJob: 5}},
		{in: "should we buy a 4090 or rent? we run 2-3 jobs a week, 4-6 hours each, $0.30/kWh, over 5 years", intent: sizing.IntentBuyRent,
			q: sizing.Query{GPU: "rtx-4090"}, w: sizing.Workload{JobsPerWeek: 2.5, HoursPerJob: 5, USDPerKWh: 0.30, Years: 5}, note: "taken as 2.5 jobs a week"},
		{in: "buy or rent an a100 80gb pcie for 7b lora, 3x/week 5 hours, 0.2/kwh", intent: sizing.IntentBuyRent,
			q: sizing.Query{GPU: "a100-80-pcie", Params: 7e9, Method: sizing.MethodLoRA}, w: sizing.Workload{JobsPerWeek: 3, HoursPerJob: 5, USDPerKWh: 0.2}},
		{in: "13b lora 4090 buy vs rent 12 runs per month 2h 15c/kwh 24 months", intent: sizing.IntentBuyRent,
			q: sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}, w: sizing.Workload{JobsPerWeek: 12 * 12.0 / 52, HoursPerJob: 2, USDPerKWh: 0.15, Years: 2}},
		{in: "13b lora 4090 buy-vs-rent", intent: sizing.IntentBuyRent, q: sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}},
		{in: "13b lora 4090", intent: sizing.IntentFit, q: sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}},
		// "worth it" against renting asks buy-or-rent; "worth
		// it" alone does not.
		{in: "is a 4090 worth it vs renting for finetuning a 7b model, 3 jobs a week 5h each", intent: sizing.IntentBuyRent,
			q: sizing.Query{Params: 7e9, Method: sizing.MethodFull, GPU: "rtx-4090"}, w: sizing.Workload{JobsPerWeek: 3, HoursPerJob: 5}},
		{in: "is lora worth it for a 7b on a 4090", intent: sizing.IntentFit, q: sizing.Query{Params: 7e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			p, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Intent != tt.intent {
				t.Errorf("intent %q, want %q", p.Intent, tt.intent)
			}
			if diff := cmp.Diff(tt.q, p.Query); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.w, p.Workload); diff != "" {
				t.Errorf("workload (-want +got):\n%s", diff)
			}
			if tt.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", p.Notes, tt.note)
			}
			back, err := Parse(FormatAsk(p))
			if err != nil {
				t.Fatalf("FormatAsk %q: %v", FormatAsk(p), err)
			}
			if back.Intent != p.Intent || !cmp.Equal(back.Query, p.Query) || back.Workload != p.Workload {
				t.Errorf("FormatAsk %q reads back as %q %+v %+v", FormatAsk(p), back.Intent, back.Query, back.Workload)
			}
		})
	}
}

// TestBuyRentTwoCards: buying one card against renting another is
// refused with a Try that keeps buy-vs-rent and the card to buy, which
// answers ("is a 4090 worth it vs renting an a100 for finetuning a 7b
// model" keeps buy-vs-rent, never a Try of "fit 7b full rtx-4090").
func TestBuyRentTwoCards(t *testing.T) {
	const want = "fit 7b full rtx-4090 buy-vs-rent 3 jobs/week 5h"
	_, err := Parse("is a 4090 worth it vs renting an a100 for finetuning a 7b model")
	var ie *sizing.InputError
	if !errors.As(err, &ie) || ie.Hint != want || !strings.Contains(ie.Problem, "renting the same card") {
		t.Fatalf("err %v (Try %q), want a refusal saying buy-vs-rent rents the same card, Try %q", err, hintOf(ie), want)
	}
	p, err := Parse(strings.TrimPrefix(ie.Hint, "fit "))
	if err != nil || p.Intent != sizing.IntentBuyRent || p.Query.GPU != "rtx-4090" {
		t.Fatalf("Try %q reads as %s %q (%v), want buy-vs-rent on the rtx-4090", ie.Hint, p.Intent, sizing.Format(p.Query), err)
	}
	if _, err := (&sizing.Estimator{Prices: servePrices}).Ask(p.Query, p.Intent, p.Workload); err != nil {
		t.Errorf("Try %q: %v", ie.Hint, err)
	}
}

// TestParseAskBadWorkload refuses workload numbers that cannot be meant.
func TestParseAskBadWorkload(t *testing.T) {
	for _, in := range []string{
		"13b lora 4090 buy or rent 500 jobs/week 5h",
		"13b lora 4090 buy or rent 3 jobs/week 500h",
		"13b lora 4090 buy or rent 3 jobs/week 5h $90/kWh",
		"13b lora 4090 buy or rent 3 jobs/week 5h over 50 years",
	} {
		_, err := Parse(in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || ie.Hint == "" {
			t.Errorf("%q: err %v, want an InputError with a hint", in, err)
		}
	}
}

// FuzzParseAsk: whatever the text, Parse never panics, and an accepted
// question of any intent writes back (FormatAsk) to text that reads as
// the same intent, Query and workload.
func FuzzParseAsk(f *testing.F) {
	for _, s := range []string{
		"what 2x4090 lora", "llama-3.1-8b inference l4 max context", "which gpu 13b lora",
		"13B lora 4090 buy-vs-rent 3 jobs/week 5h $0.15/kWh over 3 years", "buy or rent 2-3 jobs a week 4-6h",
		"max seq", "what", "$0.1/kwh buy", "biggest model on 2 a100s with qlora",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Parse(in)
		if err != nil {
			var ie *sizing.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%q: %v is not an InputError", in, err)
			}
			return
		}
		text := FormatAsk(p)
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("%q → %q: %v", in, text, err)
		}
		if back.Intent != p.Intent || !cmp.Equal(back.Query, p.Query) || back.Workload != p.Workload {
			t.Fatalf("%q → %q reads back as %q %+v %+v, want %q %+v %+v", in, text, back.Intent, back.Query, back.Workload, p.Intent, p.Query, p.Workload)
		}
	})
}

func BenchmarkParseAsk(b *testing.B) {
	const q = "should we buy a 4090 or rent? we run 2-3 jobs a week, 4-6 hours each, $0.30/kWh, over 5 years"
	for b.Loop() {
		if _, err := Parse(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPerWeekSuffix checks the unit glued after a count of jobs, whatever
// order the job words are tried in: "runs/week" is one a week, never
// "run" and "s/week".
func TestPerWeekSuffix(t *testing.T) {
	for s, want := range map[string]float64{"/week": 1, "x/week": 1, "jobs/week": 1, "runs/week": 1, "run/day": 7, "trainings/month": 12.0 / 52, "runsperweek": 1} {
		for range 20 { // the job words are a set: tried in any order
			if got, ok := perWeekSuffix(s); !ok || got != want {
				t.Fatalf("perWeekSuffix(%q) = %v, %v; want %v", s, got, ok, want)
			}
		}
	}
	if _, ok := perWeekSuffix("runs"); ok {
		t.Error(`perWeekSuffix("runs") read a period`)
	}
}
