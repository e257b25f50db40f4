package reading

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

func TestFollowUp(t *testing.T) {
	tests := []struct {
		base, text, want string
		intent           sizing.Intent
	}{
		{"llama-3.1-8b full rtx-4090 seq 4096", "what about qlora on a 3090?", "llama-3.1-8b qlora rtx-3090 seq 4096", sizing.IntentFit},
		{"13b lora 2xa100-80", "and with 4 GPUs?", "13b lora 4xa100-80", sizing.IntentFit},
		{"13b lora 2xa100-80", "on an h100 instead", "13b lora h100", sizing.IntentFit},
		{"13b lora rtx-4090", "in fp8", "13b lora fp8 rtx-4090", sizing.IntentFit},
		{"llama-3.1-8b lora rtx-4090", "with 32k context", "llama-3.1-8b lora rtx-4090 seq 32768", sizing.IntentFit},
		{"13b lora rtx-4090 rank 64", "full finetune", "13b full rtx-4090", sizing.IntentFit},
		{"13b full adamw-8bit rtx-4090 zero2 ckpt", "just inference", "13b inference rtx-4090", sizing.IntentFit},
		{"llama-3-8b inference awq l4", "lora", "llama-3-8b lora l4", sizing.IntentFit},
		{"13b lora rtx-4090", "what about llama 3 70b", "llama-3-70b lora rtx-4090", sizing.IntentFit},
		{"13b lora rtx-4090", "on my 16gb card", "13b lora rtx-4090 16gb", sizing.IntentFit},
		{"llama-3.1-8b inference l4", "max context?", "llama-3.1-8b inference l4", sizing.IntentMaxContext},
		{"13b qlora rtx-4090", "trian it fully", "13b full rtx-4090", sizing.IntentFit},
		// Everyday follow-ups people type in a thread (issue #31).
		{"13b lora a100-80", "and with 2 of them?", "13b lora 2xa100-80", sizing.IntentFit},
		{"13b lora a100-80", "what about 4 of them", "13b lora 4xa100-80", sizing.IntentFit},
		{"13b lora a100-80", "and 2x?", "13b lora 2xa100-80", sizing.IntentFit},
		{"13b lora a100-80", "a couple of those?", "13b lora 2xa100-80", sizing.IntentFit},
		{"13b lora a100-80", "what about Three of them?", "13b lora 3xa100-80", sizing.IntentFit},
		{"13b lora rtx-4090", "and spot?", "13b lora rtx-4090 spot", sizing.IntentFit},
		{"13b lora rtx-4090", "same but llama 3 70b", "llama-3-70b lora rtx-4090", sizing.IntentFit},
		{"llama-3.1-70b inference 2xh100 32 users", "and if we qlora it instead?", "llama-3.1-70b qlora 2xh100", sizing.IntentFit},
		// A serving plan's thread stays a serving plan ("in fp8" answered a
		// fit of batch 50 on one card, without the table).
		{"llama-3.1-8b inference batch 50 cheapest ttft 1s", "in fp8", "llama-3.1-8b inference fp8 batch 50 ttft 1s cheapest", sizing.IntentServe},
		{"llama-3.1-8b inference batch 50 cheapest ttft 1s", "what about on h100?", "llama-3.1-8b inference h100 batch 50 ttft 1s cheapest", sizing.IntentServe},
		// The follow-ups of issue #38: the new words are read as any
		// question is, and the slots they set replace the thread's.
		{"llama-3.1-8b lora rtx-4090", "how long would that take", "llama-3.1-8b lora rtx-4090", sizing.IntentFit},
		{"llama-3.1-8b lora rtx-4090", "bump context to 32k", "llama-3.1-8b lora rtx-4090 seq 32768", sizing.IntentFit},
		{"llama-3.1-8b lora rtx-4090", "same but qlora", "llama-3.1-8b qlora rtx-4090", sizing.IntentFit},
		{"llama-3.1-70b inference 2xh100 batch 32", "and with fp8?", "llama-3.1-70b inference fp8 2xh100 batch 32", sizing.IntentFit},
		{"llama-3.1-70b inference 2xh100 batch 32", "ok and for 500 users", "llama-3.1-70b inference 2xh100 batch 500 gpus needed", sizing.IntentServe},
		{"llama-3.1-70b inference 2xh100 batch 32", "and with 8 of them", "llama-3.1-70b inference 8xh100 batch 32", sizing.IntentFit},
		{"llama-3.1-70b inference 2xh100 batch 32", "in gguf q4?", "llama-3.1-70b inference q4_k_m 2xh100 batch 32", sizing.IntentFit},
		{"llama-3.1-8b lora rtx-4090", "and with a $5k budget?", "llama-3.1-8b lora rtx-4090", sizing.IntentFit},
		// A thread keeps its kind of question unless the message asks
		// another or changes what that kind leaves open.
		{"which gpu llama-3.1-70b inference", "and for 32k context?", "llama-3.1-70b inference seq 32768", sizing.IntentWhichGPU},
		{"which gpu llama-3.1-70b inference", "same but qlora", "llama-3.1-70b qlora", sizing.IntentWhichGPU},
		{"which gpu llama-3.1-70b inference", "on an h100?", "llama-3.1-70b inference h100", sizing.IntentFit},
		{"how many users llama-3.1-8b inference h100", "and on 4 of them", "llama-3.1-8b inference 4xh100", sizing.IntentServe},
		{"how many users llama-3.1-8b inference h100", "same but qlora", "llama-3.1-8b qlora h100", sizing.IntentFit},
		{"what h100", "and with 8 of them?", "8xh100", sizing.IntentLargest},
		{"what h100", "same but qlora", "qlora h100", sizing.IntentLargest},
		{"what h100", "what about llama 3 70b", "llama-3-70b h100", sizing.IntentFit},
		{"llama-3.1-8b h100 max context", "and with 8 of them?", "llama-3.1-8b 8xh100", sizing.IntentMaxContext},
		{"llama-3.1-8b h100 max context", "with 32k context", "llama-3.1-8b h100 seq 32768", sizing.IntentFit},
		{"which gpu llama-3.1-70b inference", "how many users?", "llama-3.1-70b inference", sizing.IntentServe},
	}
	for _, tt := range tests {
		base, err := Parse(tt.base)
		if err != nil {
			t.Fatalf("base %q: %v", tt.base, err)
		}
		got, ok := FollowUp(base, tt.text)
		if !ok {
			t.Errorf("FollowUp(%q, %q) not read", tt.base, tt.text)
			continue
		}
		if f := sizing.Format(got.Query); f != tt.want || got.Intent != tt.intent {
			t.Errorf("FollowUp(%q, %q) = %q (%s), want %q (%s)", tt.base, tt.text, f, got.Intent, tt.want, tt.intent)
		}
		if len(got.Notes) == 0 || !strings.HasPrefix(got.Notes[0], "read with the thread's question ("+FormatAsk(base)+")") &&
			!strings.HasPrefix(got.Notes[0], "read as the thread's question again ("+FormatAsk(base)+")") {
			t.Errorf("FollowUp(%q, %q) notes %q do not say what was changed", tt.base, tt.text, got.Notes)
		}
		if _, err := (&sizing.Estimator{}).Answer(got.Query); err != nil && got.Intent == sizing.IntentFit {
			t.Errorf("FollowUp(%q, %q) = %q, which does not answer: %v", tt.base, tt.text, sizing.Format(got.Query), err)
		}
	}
	// A verb that only says "change it" is phrasing, not a word left unused.
	lora, _ := Parse("llama-3.1-8b lora rtx-4090")
	if got, _ := FollowUp(lora, "bump context to 32k"); len(got.Unused) > 0 {
		t.Errorf("FollowUp(bump context to 32k) leaves %q unused", got.Unused)
	}

	// The thread's budget and deadline stay unless the message sets its own.
	thread, _ := Parse("llama-3.1-8b lora rtx-4090 1b tokens with a $5k budget by friday")
	got, ok := FollowUp(thread, "and on an h100?")
	if !ok || got.Money.BudgetUSD != 5000 || got.Deadline.Day != "friday" || got.Query.GPU != "h100" {
		t.Errorf("FollowUp(budget thread, h100) = %q budget %v deadline %q (ok %v), want h100 keeping $5k and friday",
			sizing.Format(got.Query), got.Money.BudgetUSD, got.Deadline.Day, ok)
	}
	got, ok = FollowUp(thread, "and with a $20k budget?")
	if !ok || got.Money.BudgetUSD != 20000 || got.Deadline.Day != "friday" || got.Query.GPU != "rtx-4090" {
		t.Errorf("FollowUp(budget thread, $20k) = %q budget %v deadline %q (ok %v), want the thread's question at $20k by friday",
			sizing.Format(got.Query), got.Money.BudgetUSD, got.Deadline.Day, ok)
	}

	base, _ := Parse("13b lora rtx-4090")
	for _, talk := range []string{"nice, thanks", "ok I'll try that tomorrow", "lol", "", "13b lora 4090 h100"} {
		if p, ok := FollowUp(base, talk); ok {
			t.Errorf("FollowUp(%q) = %q, want it left alone", talk, sizing.Format(p.Query))
		}
	}
}

// FuzzFollowUp: a follow-up never panics, and one that is read formats
// to a question that parses back to the same Query.
func FuzzFollowUp(f *testing.F) {
	for _, s := range []string{"what about qlora on a 3090?", "and with 2 GPUs?", "max context?", "on my 16gb card", "thanks", "\xff", "and 2 of them?", "a couple of those cards", "and spot?", "8x", "how long would that take", "bump context to 32k", "and with a $5k budget?"} {
		f.Add("13b lora 2xa100-80 seq 4096", s)
	}
	f.Fuzz(func(t *testing.T, baseText, text string) {
		base, err := Parse(baseText)
		if err != nil {
			return
		}
		p, ok := FollowUp(base, text)
		if !ok {
			return
		}
		again, err := Parse(sizing.Format(p.Query))
		if err != nil {
			t.Fatalf("FollowUp(%q, %q) = %q, which does not parse: %v", baseText, text, sizing.Format(p.Query), err)
		}
		if sizing.Format(again.Query) != sizing.Format(p.Query) {
			t.Fatalf("FollowUp(%q, %q) = %q, which parses as %q", baseText, text, sizing.Format(p.Query), sizing.Format(again.Query))
		}
	})
}
