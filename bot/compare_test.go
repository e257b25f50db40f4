package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// comparePriced sets a handler up as serve does: the default price sheet
// for fit and ask questions.
func comparePriced(c *Config) {
	est := &sizing.Estimator{Prices: pricing.DefaultSheet()}
	c.Parse, c.Answer, c.Ask = reading.Parse, Fixed{Estimator: est}, Fixed{Estimator: est}
}

// TestCompareCommand: the comparisons (#31) are answered side by
// side through /fit, within Slack's limits, with the verdict first.
func TestCompareCommand(t *testing.T) {
	h := newTestHandler(t, comparePriced)
	tests := []struct {
		text string
		want []string
	}{
		{"h100 or h200 for serving llama 3.1 70b, which is cheaper per user", []string{
			"⚖️ *2× H200 141 GB is cheaper per user:", "✅ *2× H100 SXM 80 GB*", "• GPUs: 2 GPUs (fewest that fit)", "• per user a month:", "*Assumed:*"}},
		{"h100 vs a100 for training llama 3.1 8b lora, which is cheaper per run", []string{
			"is cheaper per run:", "• run: 1B tokens in", "• price: $2.40/h"}},
		{"llama 3.1 8b on an a100 40gb vs h100 which is cheaper per million tokens", []string{
			"1× H100 SXM 80 GB is cheaper per 1M output tokens", "✅ *1× A100 SXM 40 GB*", "• per 1M output tokens:"}},
		{"llama 3.1 8b vs mistral 7b on an a10g", []string{"*Llama 3.1 8B, 1× A10G 24 GB*", "*Mistral 7B v0.1, 1× A10G 24 GB*"}},
		{"whats the cost difference between lora and full finetune for llama 3.1 8b on an a100", []string{
			"LoRA on 1× A100 SXM 80 GB", "full fine-tune on 2× A100 SXM 80 GB", "compared by cost per run"}},
		// Two weight formats on the one card named: the one
		// that serves no request is marked and says so.
		{"fp8 vs int4 awq for llama 3 70b on h100 - which is faster for throughput", []string{
			"⚖️ *Only awq, 1× H100 SXM 80 GB serves", "❌ *fp8, 1× H100 SXM 80 GB*", "✅ *awq, 1× H100 SXM 80 GB*",
			"• speed: serves no request", "• output at capacity: 342 tokens/s", "fp8 needs 2× H100 SXM 80 GB"}},
		{"llama 3 70b on 2 h100, fp8 vs awq", []string{"*fp8, 2× H100 SXM 80 GB* — more throughput", "• batch 1 decode:"}},
		{"fp8 kv cache vs bf16 kv for llama 3.1 70b on 2 h100s, how many more users", []string{
			"*KV cache fp8, 2× H100 SXM 80 GB* — more users", "serves more users at once: 8 vs 4"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			msg := h.Command(context.Background(), slash(tt.text))
			checkLimits(t, msg)
			got := messageJSON(t, msg)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("reply lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "in one question") {
				t.Errorf("a comparison was refused:\n%s", got)
			}
		})
	}
}

// TestCompareMention: a comparison asked by mentioning the bot is
// answered in the thread, and keeps no plan (a plan is one configuration).
func TestCompareMention(t *testing.T) {
	f := newEventsFixture(t, comparePriced)
	f.deliver(t, "app_mention_compare.json")
	f.h.Wait()
	posts := f.rec.posted()
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	p := posts[0]
	if p.Channel != "C0FITBOT" || p.ThreadTS != "1764464400.000200" {
		t.Errorf("posted to %s thread %q, want C0FITBOT thread 1764464400.000200", p.Channel, p.ThreadTS)
	}
	if !strings.Contains(p.Text, "is cheaper per run:") {
		t.Errorf("text %q, want the comparison's verdict", p.Text)
	}
	blocks := string(mustJSON(t, p.Blocks))
	for _, w := range []string{"1× H100 SXM 80 GB", "1× A100 SXM 80 GB", "• run: 1B tokens in"} {
		if !strings.Contains(blocks, w) {
			t.Errorf("blocks lack %q:\n%s", w, blocks)
		}
	}
	if len(f.plans.plans) != 0 {
		t.Errorf("%d plans saved, want none", len(f.plans.plans))
	}
}
