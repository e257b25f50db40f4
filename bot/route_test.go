package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// TestRoutedMessages: price questions, small talk and text with nothing
// to size are answered without an error, through /fit as through a DM.
func TestRoutedMessages(t *testing.T) {
	week := func(context.Context, time.Time) (digest.Digest, error) {
		return digest.Digest{
			WeekStart: testNow.Add(-7 * 24 * time.Hour), WeekEnd: testNow,
			Moves: []digest.Move{
				{GPU: "h100", Provider: "aws", Market: pricing.MarketOnDemand, OldUSDPerGPUHour: 7.20, NewUSDPerGPUHour: 6.88, ChangePct: -4.4},
				{GPU: "a100-80", Provider: "gcp", Market: pricing.MarketOnDemand, OldUSDPerGPUHour: 4.0, NewUSDPerGPUHour: 3.67, ChangePct: -8.3},
			},
		}, nil
	}
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}
		c.Prices, c.Weekly = fakePrices{offers: testOffers}, week
	})
	tests := []struct {
		text    string
		want    []string
		notWant []string
	}{
		{"how much does an H100 cost per hour?", []string{"Prices for every H100", "$2.69*/GPU-h  runpod on-demand (secure)"}, nil},
		{"is the 4090 cheaper than the h100?", []string{"RTX 4090 24 GB vs H100 SXM 80 GB", "The RTX 4090 24 GB is cheaper per GPU-hour, by $2.35 (87%)", "*H100 SXM 80 GB*: *$2.69*/GPU-h, runpod on-demand"}, []string{"This week"}},
		{"is the H200 cheaper than the H100 this week?", []string{"*H200 141 GB*: no price known yet", "Not both priced yet", "*This week*", "`h100` aws on-demand: $7.20 → $6.88 (−4.4%)"}, []string{"a100-80"}},
		{"what's the monthly cost of an h100 on runpod", []string{"Around the clock (a month is 730 h): H100 SXM 80 GB $1,964 per GPU (runpod on-demand, $2.69/GPU-h)", "Prices for every H100"}, nil},
		{"what are gpu prices this week", []string{"Cheapest GPU prices", "`a100-80` gcp on-demand: $4.00 → $3.67"}, nil},
		{"thanks!", []string{"Happy to help", "/fit 13B lora 4090"}, []string{"couldn't"}},
		{"hello there", []string{"Hello!", "/fit 13B lora 4090"}, []string{"Happy to help"}},
		{"what can you do?", []string{"Fine-tune", "Serve"}, nil},
		{"the weather is nice today, isn't it", []string{"I didn't find a sizing question in that", "Fine-tune"}, []string{"couldn't use"}},
		{"13b lora inference", []string{"I couldn't use that", "two methods in one question", "*Try:* `/fit 13b lora`"}, []string{"/fit fit"}},
		{"13b lora 4090 h100", []string{"⚖️ *Both fit;", "*2× RTX 4090 24 GB*", "gradient checkpointing on, though not asked"}, []string{"couldn't use"}},
		{"what gpus does the bot know about", []string{"GPUs fitbot knows", "rtx-4090"}, []string{"I didn't find"}},
		{"which models do you support?", []string{"Models fitbot knows", "llama-3.1-8b"}, []string{"I didn't find"}},
		{"how do i tell fitbot about our new dgx", []string{"/fit hardware add our dgx: 8x h100"}, []string{"I didn't find"}},
		{"give me a deepspeed config for llama 3.1 8b full finetune on 8 h100", []string{"DeepSpeed config for Llama 3.1 8B", "zero_optimization"}, nil},
		{"vllm command to serve qwen2.5 32b awq on 1 L40S?", []string{"vLLM command for Qwen2.5 32B", "vllm serve Qwen/Qwen2.5-32B-Instruct-AWQ"}, nil},
		{"llama 3.1 8b full finetune on 8 h100", nil, []string{"zero_optimization"}},
		{"can you book me 4 h100s on lambda for tomorrow?", []string{"I can't book or reserve GPUs", "H100"}, nil},
		{"is 70b worth it vs 8b for our support chatbot?", []string{"I can't judge which model answers better", "⚖️"}, nil},
		{"gpt-4 finetune cost", []string{"weights are not released"}, []string{"Cheapest GPU prices"}},
		{"13b lora on one 4090 or one h100", []string{"⚖️ *Only 1× H100 SXM 80 GB fits: 1× RTX 4090 24 GB does not*", "❌ *1× RTX 4090 24 GB*", "• memory per GPU: 42.3 of 24.0 GiB"}, []string{"couldn't use", "— cheaper"}},
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
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("reply has %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestRoutedWithoutPrices: a price question on a fitbot without prices,
// or whose digest fails, says so instead of failing.
func TestRoutedWithoutPrices(t *testing.T) {
	h := newTestHandler(t, nil)
	if got := messageJSON(t, h.Command(context.Background(), slash("h100 price"))); !strings.Contains(got, "Prices are not available yet") {
		t.Errorf("reply without a PriceBook:\n%s", got)
	}
	h = newTestHandler(t, func(c *Config) {
		c.Prices = fakePrices{offers: testOffers}
		c.Weekly = func(context.Context, time.Time) (digest.Digest, error) {
			return digest.Digest{}, errors.New("db locked")
		}
	})
	msg := h.Command(context.Background(), slash("h100 price this week"))
	if got := messageJSON(t, msg); !strings.Contains(got, "Prices for every H100") || !strings.Contains(got, "the weekly digest is not available") || strings.Contains(got, "db locked") {
		t.Errorf("reply with a failing digest:\n%s", got)
	}
	if msg.ResponseType != slack.ResponseTypeEphemeral {
		t.Errorf("response_type = %q", msg.ResponseType)
	}
}

// TestNoInternalIDs: an answer whose largest term is the KV cache says
// so in words.
func TestNoInternalIDs(t *testing.T) {
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer = reading.Parse, Fixed{Estimator: &sizing.Estimator{}} })
	got := messageJSON(t, h.Command(context.Background(), slash("llama-3.1-8b inference l4 ctx 128k batch 8")))
	if strings.Contains(got, "kv_cache") || !strings.Contains(got, "mostly KV cache") {
		t.Errorf("answer names the term by its id:\n%s", got)
	}
}

// TestDMsNeverGetAnError: thanks in a DM get a short friendly answer; a
// DM with nothing to size gets the help even when the language model
// cannot read it either.
func TestDMsNeverGetAnError(t *testing.T) {
	for file, want := range map[string]string{
		"message_im_thanks.json":   "Happy to help",
		"message_im_offtopic.json": "I didn't find a sizing question in that",
	} {
		t.Run(file, func(t *testing.T) {
			f := newEventsFixture(t, func(c *Config) {
				c.Parse, c.Answer = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}
				c.ModelReader = fakeReader{err: errors.New("model down")}
			})
			f.deliver(t, file)
			f.h.Wait()
			posts := f.rec.posted()
			if len(posts) != 1 || !strings.HasPrefix(posts[0].Text, want) {
				t.Errorf("posted %+v, want one reply starting %q", posts, want)
			}
		})
	}
}
