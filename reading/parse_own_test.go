package reading

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseOwn: a purchase asked as which cards and how many is the
// plan or which-GPU question with the cards to own (Query.Own), never
// buy-vs-rent asking for jobs a week ("how many gpus do we actually
// need to buy" and "what do we buy" are not refused so, nor given a Try
// that invents "3 jobs/week 5h"). A question that weighs owning against
// renting, or says a use, stays buy-vs-rent.
func TestParseOwn(t *testing.T) {
	for _, tt := range []struct {
		in     string
		intent sizing.Intent
		own    bool
		model  string
	}{
		{"hi, im in procurement, we need to run llama 3 70b for about two hundred employees internally, how many gpus do we actually need to buy", sizing.IntentServe, true, "llama-3-70b"},
		{"on prem box for 100 users, qwen3 30b-a3b, what do we buy", sizing.IntentServe, true, "qwen3-30b-a3b"},
		{"what should we purchase for 50 users of mistral 7b", sizing.IntentServe, true, "mistral-7b-v0.1"},
		{"which card should we order for llama 3 8b inference", sizing.IntentWhichGPU, true, "llama-3-8b"},
		{"which gpu should i buy to run mixtral 8x7b locally", sizing.IntentWhichGPU, true, "mixtral-8x7b"},
		{"how many gpus do we need to buy to finetune llama 3 70b", sizing.IntentFit, true, "llama-3-70b"},
		{"we're procuring hardware: how many gpus to procure for llama 3 8b, 40 users", sizing.IntentServe, true, "llama-3-8b"},
		{"on-prem llama 3 8b for 20 users", sizing.IntentServe, true, "llama-3-8b"},
		// Weighing owning against renting, or a use said: buy-vs-rent.
		{"is it worth buying vs renting h100s for 200 users of llama 3 70b", sizing.IntentBuyRent, false, "llama-3-70b"},
		{"how many gpus to buy for llama 3 70b for 200 users, buy or rent", sizing.IntentBuyRent, false, "llama-3-70b"},
		{"how many h100s should we buy for 200 users of llama 3 70b, we'd run them 24/7", sizing.IntentBuyRent, false, "llama-3-70b"},
		{"should we buy a 4090 or rent? we run 2-3 jobs a week, 4-6 hours each", sizing.IntentBuyRent, false, ""},
		{"13b lora 4090 buy-vs-rent 3 jobs/week 5h", sizing.IntentBuyRent, false, ""},
		{"price of a 4090 to buy", sizing.IntentBuyRent, false, ""},
		// "order" that is not a purchase.
		{"in order to serve llama 3 8b for 20 users which gpu", sizing.IntentServe, false, "llama-3-8b"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			p, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Intent != tt.intent || p.Query.Own != tt.own || p.Query.Model != tt.model {
				t.Errorf("intent %q, own %v, model %q; want %q, %v, %q", p.Intent, p.Query.Own, p.Query.Model, tt.intent, tt.own, tt.model)
			}
			if noted := strings.Contains(strings.Join(p.Notes, "\n"), "to own: the cards a load needs are the same bought or rented"); noted != tt.own {
				t.Errorf("to-own note %v, want %v: %q", noted, tt.own, p.Notes)
			}
			back, err := Parse(FormatAsk(p))
			if err != nil {
				t.Fatalf("FormatAsk %q: %v", FormatAsk(p), err)
			}
			if back.Intent != p.Intent || back.Query != p.Query {
				t.Errorf("FormatAsk %q reads back as %q %+v, want %q %+v", FormatAsk(p), back.Intent, back.Query, p.Intent, p.Query)
			}
		})
	}
}

// TestParseOwnNoInventedUse: a purchase asked with no model is refused
// without a Try that invents a use (such as "3 jobs/week 5h").
func TestParseOwnNoInventedUse(t *testing.T) {
	_, err := Parse("how many gpus do we need to buy for our team")
	if err == nil {
		return
	}
	if ie, ok := err.(*sizing.InputError); ok && strings.Contains(ie.Hint, "jobs/week") {
		t.Errorf("Try %q invents a use", ie.Hint)
	}
}
