package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// askPrices is a fixed price book for the ask goldens: on-demand and spot
// per GPU-hour, observed a day before testNow.
type askPrices struct{ onDemand, spot map[string]float64 }

func (p askPrices) GPUHourPrice(gpu string) (sizing.Price, bool) {
	return p.lookup(p.onDemand, gpu, "on_demand")
}

func (p askPrices) SpotGPUHourPrice(gpu string) (sizing.Price, bool) {
	return p.lookup(p.spot, gpu, "spot")
}

func (askPrices) lookup(t map[string]float64, gpu, market string) (sizing.Price, bool) {
	v, ok := t[gpu]
	return sizing.Price{USDPerGPUHour: v, Provider: "runpod", Market: market, AsOf: testNow.Add(-24 * time.Hour)}, ok
}

var askEstimator = &sizing.Estimator{Prices: askPrices{
	onDemand: map[string]float64{"rtx-4090": 0.69, "a100-80": 1.89, "h100": 2.99, "l4": 0.80, "a100-80-pcie": 1.64},
	spot:     map[string]float64{"rtx-4090": 0.35, "a100-80-pcie": 0.82},
}}

// TestGoldenAsk pins the Block Kit of the four ask answers, and of the
// answers that found nothing; a name ending in _details is the answer as
// the Show details button shows it. Run `go test ./bot -run GoldenAsk -update`
// after an intended change and review the diff.
func TestGoldenAsk(t *testing.T) {
	e := askEstimator
	tests := []struct {
		name string
		ask  func() (sizing.AskAnswer, error)
		want []string // in the message, besides the golden
	}{
		{"ask_largest", func() (sizing.AskAnswer, error) {
			return e.LargestModel(sizing.Query{GPU: "rtx-4090", GPUs: 2, Method: sizing.MethodLoRA})
		}, []string{"Largest models that fit 2× RTX 4090 24 GB", "*LoRA* (asked): up to"}},
		{"ask_largest_nothing", func() (sizing.AskAnswer, error) {
			return e.LargestModel(sizing.Query{GPU: "t4", Method: sizing.MethodFull, SeqLen: 1 << 20})
		}, []string{"No full fine-tune fits 1× T4 16 GB as asked", "not even 1M fits; at 131,072 tokens instead of 1,048,576: only the smallest size, 1M, fits"}},
		{"ask_max_context", func() (sizing.AskAnswer, error) {
			return e.MaxContext(sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodInference, GPU: "l4"})
		}, []string{"Longest context: 49,897 tokens", "Bound by *memory*", "128 KiB per token"}},
		{"ask_max_context_model_bound", func() (sizing.AskAnswer, error) {
			return e.MaxContext(sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodInference, GPU: "h200"})
		}, []string{"131,072 tokens", "Bound by the *model*"}},
		{"ask_max_context_nothing", func() (sizing.AskAnswer, error) {
			return e.MaxContext(sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodInference, GPU: "l4"})
		}, []string{"No context fits", "Nearest:"}},
		{"ask_which_gpu", func() (sizing.AskAnswer, error) {
			return e.WhichGPU(sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, Tokens: 1e9})
		}, []string{"cards fit 13B (bare size) LoRA", "for the 1B-token run", "_"}},
		{"ask_which_gpu_own", func() (sizing.AskAnswer, error) {
			// "which card should we order for llama 3 8b inference"
			return e.WhichGPU(sizing.Query{Model: "llama-3-8b", Method: sizing.MethodInference, Own: true})
		}, []string{"*1× RTX 4090 24 GB*: 16.7 GiB per GPU, $0.69/h, $1,600-$2,000 to buy (seen 2026-06)"}},
		{"ask_which_gpu_nothing", func() (sizing.AskAnswer, error) {
			return e.WhichGPU(sizing.Query{Model: "deepseek-r1", Precision: sizing.PrecisionFP32})
		}, []string{"DeepSeek-R1 inference needs 2,501.7 GiB (2.44 TiB) in all: no card fits it within one machine", "*Memory in all:* 2,501.7 GiB", "Nearest:"}},
		{"ask_serve_capacity", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodInference, Quant: sizing.QuantFP8, Precision: sizing.PrecisionFP8, GPU: "h100", GPUs: 2, SeqLen: 4096})
		}, []string{"2× H100 SXM 80 GB serve about", "concurrent users of Llama 3.1 70B (fp8) at 4k context: first token", "tok/s each", "/month"}},
		{"ask_serve_plan", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodInference, MicroBatch: 200,
				Serve: sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 1, TokensPerSecondPerUserTarget: 20}})
		}, []string{"Cheapest for 200 users of Llama 3.1 70B with first token under 1 s and 20 tok/s each", "• *5 × 2× H100 SXM 80 GB* fp8: 200 users, first token 0.48 s, 20.3 tok/s each, $21,827/mo"}},
		{"ask_serve_plan_details", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodInference, MicroBatch: 200,
				Serve: sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 1, TokensPerSecondPerUserTarget: 20}})
		}, []string{"5 × 2× H100 SXM 80 GB\\n  weights      fp8\\n  users        5×40\\n  first token  0.48 s", "$/1M out     $2.05"}},
		{"ask_serve_plan_one_card", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodInference, Quant: sizing.QuantAWQ, GPU: "l4", MicroBatch: 100,
				Serve: sizing.ServeLoad{Plan: true, PromptTokens: 4096}})
		}, []string{"One L4 24 GB holds 25 of the 100 users at once (awq). Cheapest for 100 users of Llama 3.1 8B"}},
		{"ask_serve_plan_own", func() (sizing.AskAnswer, error) {
			// "on prem box for 100 users, qwen3 30b-a3b, what do we buy".
			return e.Serve(sizing.Query{Model: "qwen3-30b-a3b", MicroBatch: 100, Own: true, Serve: sizing.ServeLoad{Plan: true}})
		}, []string{"Cheapest for 100 users of Qwen3 30B-A3B", "To own: ", "to buy (", "a spare card for redundancy is common"}},
		{"ask_serve_plan_fastest", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "mixtral-8x22b", Method: sizing.MethodInference, Fastest: true, Serve: sizing.ServeLoad{Plan: true}})
		}, []string{"Fastest first for Mixtral 8x22B, one request at a time (batch 1): 8× H100 SXM 80 GB (fp8)", "/mo"}},
		{"ask_serve_plan_misses", func() (sizing.AskAnswer, error) {
			return e.Serve(sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodInference, MicroBatch: 10,
				Serve: sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 0.001}})
		}, []string{"Does not meet the target"}},
		{"ask_buy_rent", func() (sizing.AskAnswer, error) {
			return e.BuyRent(sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodLoRA, GPU: "a100-80-pcie"}, sizing.Workload{JobsPerWeek: 2.5, HoursPerJob: 5})
		}, []string{"Rent: Llama 3.1 8B LoRA on 1× A100 PCIe 80 GB", "owning catches up in month", "*Purchase:* $11,500 a card"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := tt.ask()
			if err != nil {
				t.Fatal(err)
			}
			msg := askMessageView(a, testNow, strings.HasSuffix(tt.name, "_details"))
			checkLimits(t, msg)
			raw, err := msg.encode()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !bytes.Contains(raw, []byte(w)) && !strings.Contains(msg.Text, w) {
					t.Errorf("message lacks %q", w)
				}
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			got := append(ind.Bytes(), '\n')
			golden.Check(t, filepath.Join("testdata", "golden", tt.name+".json"), got)
			var back slack.Blocks
			if err := json.Unmarshal(mustField(t, got, "blocks"), &back); err != nil {
				t.Errorf("slack-go cannot read the blocks back: %v", err)
			}
		})
	}
}

// TestAskMessageUnknownKind: an answer with no result is an apology, never
// a panic or an empty message.
func TestAskMessageUnknownKind(t *testing.T) {
	msg := askMessage(sizing.AskAnswer{Kind: "nonsense"}, testNow)
	if !strings.Contains(msg.Text, "Sorry") {
		t.Fatalf("message %+v", msg)
	}
}

func BenchmarkAskMessage(b *testing.B) {
	a, err := askEstimator.LargestModel(sizing.Query{GPU: "rtx-4090", GPUs: 2, Method: sizing.MethodLoRA})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		askMessage(a, testNow)
	}
}

// TestCommandRoutesAsks: `/fit` hands the questions that run the other way
// round to the Asker, with the real parser; an input the ask cannot use
// gets the problem and an example; an answerer that cannot ask says so.
func TestCommandRoutesAsks(t *testing.T) {
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer, c.Ask = reading.Parse, Fixed{askEstimator}, Fixed{askEstimator} })
	for _, tt := range []struct{ text, want string }{
		{"what 2x4090 lora", "Largest models that fit 2× RTX 4090 24 GB"},
		{"llama-3.1-8b inference l4 max context", "Longest context: 49,897 tokens"},
		{"which gpu 13b lora on 1B tokens", "cards fit 13B (bare size) LoRA"},
		{"13B lora 4090 buy-vs-rent 3 jobs/week 5h", "Rent: 13B (bare size) QLoRA on 1× RTX 4090 24 GB"},
		{"13B lora 4090 buy or rent", "how many jobs a week"},
		{"13B lora 4090 buy or rent", "13b lora rtx-4090 buy-vs-rent 3 jobs/week 5h"},
		{"llama-3.1-8b qlora rtx-4090", "✅ Fits: Llama 3.1 8B QLoRA"},
	} {
		msg := h.Command(context.Background(), slash(tt.text))
		checkLimits(t, msg)
		raw, err := msg.encode()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), tt.want) {
			t.Errorf("/fit %s: reply lacks %q:\n%s", tt.text, tt.want, raw)
		}
	}
	plain := newTestHandler(t, func(c *Config) { c.Parse = reading.Parse })
	if msg := plain.Command(context.Background(), slash("what 2x4090 lora")); !strings.Contains(msg.Text, "cannot answer that kind of question") {
		t.Errorf("a handler without Config.Ask: %q", msg.Text)
	}
}
