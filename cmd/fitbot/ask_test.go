package main

import (
	"encoding/json"
	"github.com/fitbot/fitbot/internal/golden"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitAskText runs the four kinds of ask through `fitbot fit` and
// checks the lines a reader looks for first.
func TestFitAskText(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"what", "2x4090", "lora"}, []string{"Largest models that fit 2× RTX 4090 24 GB", "▶ LoRA, ZeRO-3", "inference awq"}},
		{[]string{"llama-3.1-8b", "inference", "l4", "max", "context"}, []string{"✅ Longest context: 49,897 tokens — Llama 3.1 8B inference on 1× L4 24 GB", "Bound by memory", "KV cache: 128 KiB per token"}},
		{[]string{"llama-3.1-8b", "inference", "h200", "max", "context"}, []string{"Bound by the model: it was trained for 131,072 tokens"}},
		{[]string{"which", "gpu", "13b", "lora", "on", "1B", "tokens"}, []string{"cards fit 13B (bare size) lora (cheapest for 1B tokens first)", " 1. "}},
		{[]string{"13B", "lora", "4090", "buy-vs-rent", "3", "jobs/week", "5h"}, []string{"Rent: 13B (bare size) qlora on 1× RTX 4090 24 GB", "⚠ as asked it does not fit", "Own:", "Rent on demand:", "Rent spot: $", "Beyond the sums:"}},
		{[]string{"what", "can", "a", "T4", "full", "fine-tune", "at", "1024k", "context"}, []string{"▶ full fine-tune", "none", "not even 1M parameters fit; at 131,072 tokens instead of 1,048,576: only the smallest size, 1M, fits"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runFit(t, tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(out, "\nAssumed:\n  - ") {
				t.Errorf("no assumptions:\n%s", out)
			}
		})
	}
}

// TestFitHowMuchMemoryNoMachine: "how much vram" gives the memory in
// all first, also when no card holds it in one machine, and "full
// precision" of a model released in FP8 says its reading and the weights
// as released and in bf16 (opened with "No card fits" and
// never gave a total).
func TestFitHowMuchMemoryNoMachine(t *testing.T) {
	code, out, errOut := runFit(t, strings.Fields("how much vram for deepseek r1 671b full precision")...)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, "Memory in all: 2,501.7 GiB (2.44 TiB) on one card, unsharded: weights 2499.8 GiB") {
		t.Errorf("the first line is not the memory in all:\n%s", out)
	}
	for _, w := range []string{
		"❌ No card fits DeepSeek-R1 inference within one machine.",
		`"full precision" taken as fp32`,
		"DeepSeek-R1 ships FP8; sized in fp32 as asked: 2499.8 GiB of weights, against 626.8 GiB as released and 1249.9 GiB in bf16",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestFitAskAssumptionsOnce: the parser's notes and the search's
// assumptions both read the ambiguous "h100"; fit says so once.
func TestFitAskAssumptionsOnce(t *testing.T) {
	for _, args := range [][]string{
		{"what", "h100", "lora"},
		{"llama-3.1-8b", "inference", "h100", "max", "context"},
		{"13b", "lora", "h100", "buy-vs-rent", "3", "jobs/week", "5h"},
	} {
		code, out, errOut := runFit(t, args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d, stderr %q", args, code, errOut)
		}
		if n := strings.Count(out, "taken as H100 SXM 80 GB"); n != 1 {
			t.Errorf("%s: the H100 assumption is said %d times, want once:\n%s", args, n, out)
		}
	}
}

// TestFitAskJSON checks the shared --json shape of the four kinds: kind,
// request, assumptions, and the result under a key named after the kind.
func TestFitAskJSON(t *testing.T) {
	for _, tt := range []struct {
		kind string
		args []string
	}{
		{"largest_model", []string{"what", "2x4090", "lora"}},
		{"max_context", []string{"llama-3.1-8b", "inference", "l4", "max", "context"}},
		{"which_gpu", []string{"which", "gpu", "13b", "lora"}},
		{"buy_vs_rent", []string{"should", "we", "buy", "a", "4090", "for", "7b", "qlora", "2-3", "jobs", "a", "week", "4-6h", "$0.30/kWh"}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			code, out, errOut := runFit(t, append([]string{"--json"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			var kind string
			if err := json.Unmarshal(doc["kind"], &kind); err != nil || kind != tt.kind {
				t.Errorf("kind %q (%v), want %q", kind, err, tt.kind)
			}
			for _, k := range []string{"request", "assumptions", "model_name", "gpu_name", tt.kind} {
				if len(doc[k]) == 0 || string(doc[k]) == "null" {
					t.Errorf("key %q missing or null", k)
				}
			}
			var req map[string]any
			if err := json.Unmarshal(doc["request"], &req); err != nil || req["gpu"] == nil || req["method"] == nil {
				t.Errorf("request %s (%v)", doc["request"], err)
			}
		})
	}
}

// TestFitAskJSONGolden pins the largest-model JSON, which no price moves.
func TestFitAskJSONGolden(t *testing.T) {
	code, out, errOut := runFit(t, "--json", "what", "2x4090", "lora")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "ask_what_2x4090_lora.json"), []byte(out))
}

// TestFitAskBadInput: what cannot be answered exits 2 with the problem
// and an example that works.
func TestFitAskBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"13b", "lora", "4090", "buy", "or", "rent"}, []string{"how many jobs a week", "Try: fit 13b lora rtx-4090 buy-vs-rent 3 jobs/week 5h"}},
		{[]string{"what", "lora"}, []string{"which hardware?", "Try: fit what"}},
		{[]string{"llama-3.1-8b", "inference", "max", "context"}, []string{"on which GPU?", "Try: fit llama-3.1-8b inference l4 max context"}},
		{[]string{"buy", "a", "t4", "3", "jobs/week", "5h"}, []string{"no purchase price for T4"}},
		{[]string{"13b", "lora", "4090", "buy", "or", "rent", "3", "jobs/week", "500h"}, []string{"not a job length"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runFit(t, tt.args...)
			if code != exitUsage || out != "" {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

// TestFitAssumptionsOnce: the parser and the estimator both read "h100"
// as the SXM card; the answer says so once.
func TestFitAssumptionsOnce(t *testing.T) {
	code, out, errOut := runFit(t, "7b", "full", "h100")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := strings.Count(out, `"h100" taken as H100 SXM 80 GB`); n != 1 {
		t.Errorf("the h100 assumption appears %d times:\n%s", n, out)
	}
}
