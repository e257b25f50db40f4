package sizing

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseServing reads the serving words of DESIGN.md's "Serving
// capacity" into the Query, the intent and back.
func TestParseServing(t *testing.T) {
	for _, c := range []struct {
		in     string
		intent Intent
		users  int
		load   ServeLoad
	}{
		{"how many concurrent users can 2xh100 serve llama-3.1-70b at 4k context", IntentServe, 0, ServeLoad{}},
		{"whats the max batch size for llama 3 8b inference on an a10 at 2k ctx", IntentServe, 0, ServeLoad{MaxBatch: true}},
		{"llama 3 8b a10 50 users", IntentServe, 50, ServeLoad{Plan: true}},
		{"llama 3 8b a10 50 concurrent", IntentFit, 50, ServeLoad{}},
		{"~20 ppl on llama 3 8b a10", IntentServe, 20, ServeLoad{Plan: true}},
		{"llama 3 8b a10 10 requests/s", IntentServe, 0, ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 10 qps", IntentServe, 0, ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 2.5 requests per second", IntentServe, 0, ServeLoad{RequestsPerSecond: 2.5}},
		// A rate per minute, hour or day: the same load per second (trial H6 Q30).
		{"llama 3 8b a10 600 rpm", IntentServe, 0, ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 600rpm", IntentServe, 0, ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 3600 req/hour", IntentServe, 0, ServeLoad{RequestsPerSecond: 1}},
		{"llama 3 8b a10 100k requests a day", IntentServe, 0, ServeLoad{RequestsPerSecond: 1.16}},
		{"llama 3 8b a10 2 million requests per day", IntentServe, 0, ServeLoad{RequestsPerSecond: 23.1}},
		{"llama 3 8b a10 50k requests daily", IntentServe, 0, ServeLoad{RequestsPerSecond: 0.579}},
		{"llama 3 8b a10 prompt 2k output 500", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k prompt 500 output tokens", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		// A prompt and an output length as a pair (trial H9 Q16); "in" alone stays a preposition.
		{"llama 3 8b a10 2k in / 500 out", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k in, 500 out tokens", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2000 input 500 output", IntentFit, 0, ServeLoad{PromptTokens: 2000, OutputTokens: 500}},
		{"llama 3 8b a10 in/out 2k/500", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k/500 in/out", IntentFit, 0, ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b in 4 bit on an a10", IntentFit, 0, ServeLoad{}},
		{"llama 3 8b a10 ttft 1s", IntentServe, 0, ServeLoad{TTFTTargetSeconds: 1}},
		{"llama 3 8b a10 ttft under 500ms", IntentServe, 0, ServeLoad{TTFTTargetSeconds: 0.5}},
		{"llama 3 8b a10 time to first token below 2 seconds", IntentServe, 0, ServeLoad{TTFTTargetSeconds: 2}},
		// A time after a percentile is the first-token target (trial H11 Q21).
		{"cheapest way to serve phi-4 to 100 users with p95 under 2s", IntentServe, 100, ServeLoad{Plan: true, TTFTTargetSeconds: 2}},
		{"phi-4 for 100 users p99 < 800 ms", IntentServe, 100, ServeLoad{Plan: true, TTFTTargetSeconds: 0.8}},
		{"phi-4 for 100 users p95 under 50ms per token", IntentServe, 100, ServeLoad{Plan: true, TokensPerSecondPerUserTarget: 20}},
		// Users a day are a load: 20 requests each over 8 busy hours (trial H11 Q1).
		{"how much would it cost per month to serve llama 3.1 8b for 2000 daily users on aws?", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 1.39, DailyUsers: 2000}},
		{"llama 3.1 8b for 5k users a day", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 3.47, DailyUsers: 5000}},
		{"llama 3.1 8b 2k DAU on 2 l4s", IntentServe, 0, ServeLoad{RequestsPerSecond: 1.39, DailyUsers: 2000}},
		// Requests a day with daily users are each user's when fewer than
		// the users or said "each"; never a card (trial H15 Q43).
		{"how much would 1000 daily active users cost us on llama 3.1 8b, each sends maybe 20 messages a day", IntentServe, 0,
			ServeLoad{Plan: true, RequestsPerSecond: 0.694, DailyUsers: 1000, RequestsPerUserDay: 20}},
		{"llama 3.1 8b 50 chats per day per user, 500 dau", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 0.868, DailyUsers: 500, RequestsPerUserDay: 50}},
		{"llama 3.1 8b 2000 daily users, 50k requests a day", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 0.579}},
		{"llama 3.1 8b a10 20 messages a day", IntentServe, 0, ServeLoad{RequestsPerSecond: 0.000231}},
		{"llama 3.1 8b for 1000 daily users, each sends 20 messages", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 0.694, DailyUsers: 1000}},
		// The cost per token of named cards is what they serve at full load (trial H11 Q36).
		{"whats the per token cost of llama 3.1 70b on 4x h100 at 80% utilization", IntentServe, 0, ServeLoad{BusyShare: 0.8}},
		{"cost per million tokens of qwen3 8b on an l4 at 35 % busy", IntentServe, 0, ServeLoad{BusyShare: 0.35}},
		{"cost per million tokens for llama 3.1 8b on an h100", IntentServe, 0, ServeLoad{}},
		{"llama 3.1 8b on an h100 cost per token", IntentServe, 0, ServeLoad{}},
		{"llama 3 8b a10 20 tok/s per user", IntentServe, 0, ServeLoad{TokensPerSecondPerUserTarget: 20}},
		{"llama 3 8b a10 gpu util 0.95", IntentFit, 0, ServeLoad{GPUMemoryUtilization: 0.95}},
		{"llama 3 8b a10 sglang", IntentFit, 0, ServeLoad{Engine: EngineSGLang}},
		{"llama 3 8b a10 50 users per month", IntentServe, 50, ServeLoad{Plan: true}},
		{"gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each", IntentServe, 200,
			ServeLoad{Plan: true, TTFTTargetSeconds: 1, TokensPerSecondPerUserTarget: 20}},
		{"how many gpus for 10 qps of llama-3.1-8b", IntentServe, 0, ServeLoad{Plan: true, RequestsPerSecond: 10}},
		{"which gpu for llama 3 8b inference", IntentWhichGPU, 0, ServeLoad{}},
		// Cards in the plural with no count: how many of them the load needs (#31).
		{"llama 3.1 70b for 100 concurrent users on h100s", IntentServe, 100, ServeLoad{Plan: true}},
		{"qwen2.5 7b 50 users on l4s with ttft under 1s", IntentServe, 50, ServeLoad{Plan: true, TTFTTargetSeconds: 1}},
		// People on one card with no count: whether it serves them, in which
		// format, or how many do; on counted cards: what those serve (#31).
		{"llama 3.1 70b for 100 users on an h100", IntentServe, 100, ServeLoad{Plan: true}},
		{"deploy qwen2.5 32b instruct with vllm on an h100 for 40 users", IntentServe, 40, ServeLoad{Plan: true}},
		{"serve llama 3.1 8b to 1000 users, how many l40s", IntentServe, 1000, ServeLoad{Plan: true}},
		{"can a 3090 handle 13b inference at 8k context for 4 users", IntentServe, 4, ServeLoad{Plan: true}},
		{"llama 3.1 70b for 100 users on one h100", IntentServe, 100, ServeLoad{}},
		{"llama 3.1 70b for 100 users on 4 h100s", IntentServe, 100, ServeLoad{}},
		{"llama 3.1 70b batch 100 on an h100", IntentFit, 100, ServeLoad{}},
		{"llama 3.1 8b lora on an h100 for 40 users", IntentFit, 40, ServeLoad{}},
		{"llama 3.1 70b inference on h100s", IntentFit, 0, ServeLoad{}},
		// People at once are concurrent users; another count of people is
		// all the users (trial H15 Q03 read "50 chatting" as an RTX 5090).
		{"we have about 2000 users, maybe 50 chatting at the same time. how many h100s do we need to serve qwen2.5 32b?", IntentServe, 50, ServeLoad{Plan: true}},
		{"qwen2.5 32b on h100s, 40 users at once", IntentServe, 40, ServeLoad{Plan: true}},
		{"qwen2.5 32b on h100s, 30 concurrently", IntentServe, 30, ServeLoad{Plan: true}},
		{"qwen2.5 32b for 2000 users, 50 concurrent users", IntentServe, 50, ServeLoad{Plan: true}},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if p.Intent != c.intent || p.Query.MicroBatch != c.users || p.Query.Serve != c.load {
			t.Errorf("%q reads as %s, %d users, %+v; want %s, %d users, %+v", c.in, p.Intent, p.Query.MicroBatch, p.Query.Serve, c.intent, c.users, c.load)
		}
		back, err := Parse(FormatAsk(p))
		if err != nil || back.Intent != p.Intent || !cmp.Equal(back.Query, p.Query) {
			t.Errorf("%q → %q reads back as %s %+v (%v)", c.in, FormatAsk(p), back.Intent, back.Query, err)
		}
	}
}

// TestParseServingRefuses says what is wrong with a serving number.
func TestParseServingRefuses(t *testing.T) {
	for _, in := range []string{"llama 3 8b a10 ttft soon", "llama 3 8b a10 gpu util 300"} {
		var ie *InputError
		if _, err := Parse(in); !errors.As(err, &ie) {
			t.Errorf("%q: %v, want an InputError", in, err)
		}
	}
}

// FuzzParseServing: whatever the serving words, Parse never panics, and
// an accepted question writes back to text that reads the same.
func FuzzParseServing(f *testing.F) {
	for _, s := range []string{
		"how many users can 2xh100 serve llama-3.1-70b", "max batch llama 3 8b a10", "gpus for 200 users of llama-3.1-70b ttft 1s 20 tok/s each",
		"llama 3 8b a10 prompt 2k output 500 10 qps gpu util 0.95", "ttft", "10qps 20tok/s", "gpu util 95", "time to first token 1 ms", "sglang 5 req per sec",
		"serve llama 3 8b on a100 with 500 gpu hours 10 qps",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Parse(in)
		if err != nil {
			var ie *InputError
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
		if back.Intent != p.Intent || !cmp.Equal(back.Query, p.Query) {
			t.Fatalf("%q → %q reads back as %q %+v, want %q %+v", in, text, back.Intent, back.Query, p.Intent, p.Query)
		}
	})
}

// TestFollowUpServing: a thread's serving question changes like any
// other ("and ttft 500ms?" keeps its lengths), and its users never
// become a training micro-batch when the method changes.
func TestFollowUpServing(t *testing.T) {
	base, err := Parse("how many users can 2xh100 serve llama-3.1-70b prompt 2k output 500 50 users")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := FollowUp(base.Query, "and with ttft under 500ms?")
	if !ok || p.Intent != IntentServe || p.Query.Serve.TTFTTargetSeconds != 0.5 || p.Query.Serve.PromptTokens != 2048 || p.Query.MicroBatch != 50 {
		t.Errorf("ttft follow-up: ok %v, intent %s, %+v, users %d", ok, p.Intent, p.Query.Serve, p.Query.MicroBatch)
	}
	p, ok = FollowUp(base.Query, "what about lora?")
	if !ok || p.Query.Method != MethodLoRA || p.Query.MicroBatch != 0 || p.Query.Serve != (ServeLoad{}) {
		t.Errorf("lora follow-up: ok %v, method %s, micro-batch %d, serve %+v", ok, p.Query.Method, p.Query.MicroBatch, p.Query.Serve)
	}
}

// TestParseAllMonth: "24/7", "around the clock" and "always on" are read
// as running all month and said, never refused as a number without a
// meaning (#31).
func TestParseAllMonth(t *testing.T) {
	for in, words := range map[string]string{
		"how much per month to run llama 3.1 8b 24/7 on an l4": `"24/7"`,
		"serve qwen2.5 7b around the clock on an l4":           `"around the clock"`,
		"run llama 3.1 8b on an l4, always on":                 `"always on"`,
		"serve llama 3.1 8b on an l4 full time":                `"full time"`,
		"serve llama 3.1 8b on an l4 full-time":                `"full-time"`,
	} {
		p, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if want := words + " taken as running all month (730 hours)"; !anyHasPrefix(p.Notes, want) {
			t.Errorf("Parse(%q) notes %q, want one starting %q", in, p.Notes, want)
		}
	}
	// "full time" of people, or of a full fine-tune's first token, is not
	// running all month.
	for _, in := range []string{"we have 300 full-time employees, serve mistral 7b on l40s", "full time to first token of llama 3 8b on an h100",
		"serve mistral 7b on an l4 for our 50 full time staff"} {
		if p, _ := Parse(in); anyHasPrefix(p.Notes, `"full`) || p.Query.PerMonth {
			t.Errorf("Parse(%q) = per month %v, notes %q; want no month", in, p.Query.PerMonth, p.Notes)
		}
	}
}

// TestImageLoadRefused: an image rate is refused by name, not read as a
// context, and the Try keeps the model and card (trial H11 Q14).
func TestImageLoadRefused(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"serving sdxl for 10k images a day, what gpu and how much per month", `"10k images a day" is an image load`, "fit sdxl inference monthly"},
		{"sdxl on an l4 100 images per hour", `"100 images per hour" is an image load`, "fit sdxl l4"},
		{"flux dev on an h100 2 images/s", `"2 images/s" is an image load`, "fit flux.1-dev h100"},
	} {
		_, err := Parse(c.in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
}

// TestShortTokensServing: a count of tokens under a training budget is a
// serving question's request length, said, and a training question's
// refusal (trial H14 Q03 refused "~1k tokens" on a serving question).
func TestShortTokensServing(t *testing.T) {
	p, err := Parse("how many h100s do we need to serve qwen3 32b to 300 users, mostly short chats ~1k tokens")
	if err != nil || p.Query.SeqLen != 1024 || p.Query.Tokens != 0 || p.Query.MicroBatch != 300 {
		t.Errorf("serving: seq %d, tokens %d, users %d (%v); want seq 1024, no tokens, 300 users", p.Query.SeqLen, p.Query.Tokens, p.Query.MicroBatch, err)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), `"1k tokens" taken as each request's length`) {
		t.Errorf("serving: notes %q say nothing of \"1k tokens\"", p.Notes)
	}
	var ie *InputError
	if _, err := Parse("lora mistral 7b on 2k tokens"); !errors.As(err, &ie) || !strings.Contains(ie.Problem, "too small for a training budget") {
		t.Errorf("training: err = %v, want a too-small budget", err)
	}
}
