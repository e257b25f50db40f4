package reading

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseFastestServing: speed asked on a serving question with no card,
// or cards in the plural with no count, is a serving plan ranked by speed;
// "cheapest", a card named once or counted, and
// training keep their readings.
func TestParseFastestServing(t *testing.T) {
	tests := []struct {
		q       string
		intent  sizing.Intent
		plan    bool
		fastest bool
	}{
		{"fastest way to serve mixtral 8x22b, latency matters, what cards", sizing.IntentServe, true, true},
		{"fastest gpu to serve llama 3.1 70b", sizing.IntentServe, true, true},
		{"quickest gpus to serve llama 3.1 8b", sizing.IntentServe, true, true},
		{"llama 3.1 70b inference, lowest latency", sizing.IntentServe, true, true},
		{"serve llama 3.1 8b, latency matters", sizing.IntentServe, true, true},
		{"deploy qwen2.5 72b as fast as possible", sizing.IntentServe, true, true},
		{"serve llama 3.1 70b as fast as possible on h100s", sizing.IntentServe, true, true},
		{"fastest way to serve llama 3.1 70b for 50 users", sizing.IntentServe, true, true},
		{"gpus for 200 users of llama 3.1 70b, lowest latency", sizing.IntentServe, true, true},
		// Unchanged: the cheapest, a card named once or counted, training.
		{"cheapest way to serve llama 3.1 70b", sizing.IntentFit, false, false},
		{"gpus for 200 users of llama-3.1-70b with ttft under 1s", sizing.IntentServe, true, false},
		{"fastest way to serve llama 3.1 70b on an h100", sizing.IntentFit, false, true},
		{"fastest way to serve llama 3.1 70b on 2 h100", sizing.IntentFit, false, true},
		{"serve llama 3.1 8b with low latency on an l4", sizing.IntentFit, false, false},
		{"quickest way to lora llama 3.1 8b on an l40s", sizing.IntentFit, false, true},
		{"what's the fastest gpu to train a 7b lora on", sizing.IntentWhichGPU, false, true},
		{"train llama 3.1 8b as fast as possible on 8 h100", sizing.IntentFit, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			p, err := Parse(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Intent != tt.intent || p.Query.Serve.Plan != tt.plan || p.Query.Fastest != tt.fastest {
				t.Errorf("intent %s, plan %v, fastest %v; want %s, %v, %v", p.Intent, p.Query.Serve.Plan, p.Query.Fastest, tt.intent, tt.plan, tt.fastest)
			}
			// The canonical form reads back the same.
			back, err := Parse(FormatAsk(p))
			if err != nil {
				t.Fatalf("canonical %q: %v", FormatAsk(p), err)
			}
			if back.Query != p.Query || back.Intent != p.Intent {
				t.Errorf("canonical %q reads back as %+v (%s), want %+v (%s)", FormatAsk(p), back.Query, back.Intent, p.Query, p.Intent)
			}
		})
	}
}
