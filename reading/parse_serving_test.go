package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestParseServing reads the serving words of DESIGN.md's "Serving
// capacity" into the Query, the intent and back.
func TestParseServing(t *testing.T) {
	for _, c := range []struct {
		in     string
		intent sizing.Intent
		users  int
		load   sizing.ServeLoad
	}{
		{"how many concurrent users can 2xh100 serve llama-3.1-70b at 4k context", sizing.IntentServe, 0, sizing.ServeLoad{}},
		{"whats the max batch size for llama 3 8b inference on an a10 at 2k ctx", sizing.IntentServe, 0, sizing.ServeLoad{MaxBatch: true}},
		{"llama 3 8b a10 50 users", sizing.IntentServe, 50, sizing.ServeLoad{Plan: true}},
		{"llama 3 8b a10 50 concurrent", sizing.IntentFit, 50, sizing.ServeLoad{}},
		{"~20 ppl on llama 3 8b a10", sizing.IntentServe, 20, sizing.ServeLoad{Plan: true}},
		{"llama 3 8b a10 10 requests/s", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 10 qps", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 2.5 requests per second", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 2.5}},
		// A rate per minute, hour or day: the same load per second.
		{"llama 3 8b a10 600 rpm", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 600rpm", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 10}},
		{"llama 3 8b a10 3600 req/hour", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 1}},
		{"llama 3 8b a10 100k requests a day", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 1.16}},
		{"llama 3 8b a10 2 million requests per day", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 23.1}},
		{"llama 3 8b a10 50k requests daily", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 0.579}},
		{"llama 3 8b a10 86400 req/day", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 1}},
		// The serving pass's rows of vocab.txt: a tokens/s in all or each
		// stream's, the engine's memory share, the largest batch asked.
		{"llama 3 8b a10 1000 tok/s in total", sizing.IntentServe, 0, sizing.ServeLoad{OutputTokensPerSecondTarget: 1000}},
		{"llama 3 8b a10 20 tok/s per stream", sizing.IntentServe, 0, sizing.ServeLoad{TokensPerSecondPerUserTarget: 20}},
		{"llama 3 8b a10 20 tok/s at 80% utilization", sizing.IntentServe, 0, sizing.ServeLoad{TokensPerSecondPerUserTarget: 20, BusyShare: 0.8}},
		{"llama 3 8b a10 0.9 gpu util", sizing.IntentFit, 0, sizing.ServeLoad{GPUMemoryUtilization: 0.9}},
		{"how big of a batch can llama 3 8b do on an a10", sizing.IntentServe, 0, sizing.ServeLoad{MaxBatch: true}},
		{"llama 3 8b a10 time to first tok under 2s", sizing.IntentServe, 0, sizing.ServeLoad{TTFTTargetSeconds: 2}},
		{"llama 3.1 8b for 5k users per day", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 3.47, DailyUsers: 5000}},
		{"llama 3 8b a10 prompt 2k output 500", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k prompt 500 output tokens", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		// A prompt and an output length as a pair; "in" alone stays a preposition.
		{"llama 3 8b a10 2k in / 500 out", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k in, 500 out tokens", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2000 input 500 output", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2000, OutputTokens: 500}},
		{"llama 3 8b a10 in/out 2k/500", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b a10 2k/500 in/out", sizing.IntentFit, 0, sizing.ServeLoad{PromptTokens: 2048, OutputTokens: 500}},
		{"llama 3 8b in 4 bit on an a10", sizing.IntentFit, 0, sizing.ServeLoad{}},
		{"llama 3 8b a10 ttft 1s", sizing.IntentServe, 0, sizing.ServeLoad{TTFTTargetSeconds: 1}},
		{"llama 3 8b a10 ttft under 500ms", sizing.IntentServe, 0, sizing.ServeLoad{TTFTTargetSeconds: 0.5}},
		{"llama 3 8b a10 time to first token below 2 seconds", sizing.IntentServe, 0, sizing.ServeLoad{TTFTTargetSeconds: 2}},
		// A time after a percentile is the first-token target.
		{"cheapest way to serve phi-4 to 100 users with p95 under 2s", sizing.IntentServe, 100, sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 2}},
		{"phi-4 for 100 users p99 < 800 ms", sizing.IntentServe, 100, sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 0.8}},
		{"phi-4 for 100 users p95 under 50ms per token", sizing.IntentServe, 100, sizing.ServeLoad{Plan: true, TokensPerSecondPerUserTarget: 20}},
		// Users a day are a load: 20 requests each over 8 busy hours.
		{"how much would it cost per month to serve llama 3.1 8b for 2000 daily users on aws?", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 1.39, DailyUsers: 2000}},
		{"llama 3.1 8b for 5k users a day", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 3.47, DailyUsers: 5000}},
		{"llama 3.1 8b 2k DAU on 2 l4s", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 1.39, DailyUsers: 2000}},
		// Requests a day with daily users are each user's when fewer than
		// the users or said "each"; never a card.
		{"how much would 1000 daily active users cost us on llama 3.1 8b, each sends maybe 20 messages a day", sizing.IntentServe, 0,
			sizing.ServeLoad{Plan: true, RequestsPerSecond: 0.694, DailyUsers: 1000, RequestsPerUserDay: 20}},
		{"llama 3.1 8b 50 chats per day per user, 500 dau", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 0.868, DailyUsers: 500, RequestsPerUserDay: 50}},
		{"llama 3.1 8b 2000 daily users, 50k requests a day", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 0.579}},
		{"llama 3.1 8b a10 20 messages a day", sizing.IntentServe, 0, sizing.ServeLoad{RequestsPerSecond: 0.000231}},
		{"llama 3.1 8b for 1000 daily users, each sends 20 messages", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 0.694, DailyUsers: 1000}},
		// The cost per token of named cards is what they serve at full load.
		{"whats the per token cost of llama 3.1 70b on 4x h100 at 80% utilization", sizing.IntentServe, 0, sizing.ServeLoad{BusyShare: 0.8}},
		{"cost per million tokens of qwen3 8b on an l4 at 35 % busy", sizing.IntentServe, 0, sizing.ServeLoad{BusyShare: 0.35}},
		{"cost per million tokens for llama 3.1 8b on an h100", sizing.IntentServe, 0, sizing.ServeLoad{}},
		{"llama 3.1 8b on an h100 cost per token", sizing.IntentServe, 0, sizing.ServeLoad{}},
		{"llama 3 8b a10 20 tok/s per user", sizing.IntentServe, 0, sizing.ServeLoad{TokensPerSecondPerUserTarget: 20}},
		{"llama 3 8b a10 gpu util 0.95", sizing.IntentFit, 0, sizing.ServeLoad{GPUMemoryUtilization: 0.95}},
		{"llama 3 8b a10 sglang", sizing.IntentFit, 0, sizing.ServeLoad{Engine: sizing.EngineSGLang}},
		{"llama 3 8b a10 50 users per month", sizing.IntentServe, 50, sizing.ServeLoad{Plan: true}},
		{"gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each", sizing.IntentServe, 200,
			sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 1, TokensPerSecondPerUserTarget: 20}},
		{"how many gpus for 10 qps of llama-3.1-8b", sizing.IntentServe, 0, sizing.ServeLoad{Plan: true, RequestsPerSecond: 10}},
		{"which gpu for llama 3 8b inference", sizing.IntentWhichGPU, 0, sizing.ServeLoad{}},
		// Cards in the plural with no count: how many of them the load needs (#31).
		{"llama 3.1 70b for 100 concurrent users on h100s", sizing.IntentServe, 100, sizing.ServeLoad{Plan: true}},
		{"qwen2.5 7b 50 users on l4s with ttft under 1s", sizing.IntentServe, 50, sizing.ServeLoad{Plan: true, TTFTTargetSeconds: 1}},
		// People on one card with no count: whether it serves them, in which
		// format, or how many do; on counted cards: what those serve (#31).
		{"llama 3.1 70b for 100 users on an h100", sizing.IntentServe, 100, sizing.ServeLoad{Plan: true}},
		{"deploy qwen2.5 32b instruct with vllm on an h100 for 40 users", sizing.IntentServe, 40, sizing.ServeLoad{Plan: true}},
		{"serve llama 3.1 8b to 1000 users, how many l40s", sizing.IntentServe, 1000, sizing.ServeLoad{Plan: true}},
		{"can a 3090 handle 13b inference at 8k context for 4 users", sizing.IntentServe, 4, sizing.ServeLoad{Plan: true}},
		{"llama 3.1 70b for 100 users on one h100", sizing.IntentServe, 100, sizing.ServeLoad{}},
		{"llama 3.1 70b for 100 users on 4 h100s", sizing.IntentServe, 100, sizing.ServeLoad{}},
		{"llama 3.1 70b batch 100 on an h100", sizing.IntentFit, 100, sizing.ServeLoad{}},
		{"llama 3.1 8b lora on an h100 for 40 users", sizing.IntentFit, 40, sizing.ServeLoad{}},
		{"llama 3.1 70b inference on h100s", sizing.IntentFit, 0, sizing.ServeLoad{}},
		// People at once are concurrent users; another count of people is
		// all the users ("50 chatting" is no RTX 5090).
		{"we have about 2000 users, maybe 50 chatting at the same time. how many h100s do we need to serve qwen2.5 32b?", sizing.IntentServe, 50, sizing.ServeLoad{Plan: true}},
		{"qwen2.5 32b on h100s, 40 users at once", sizing.IntentServe, 40, sizing.ServeLoad{Plan: true}},
		{"qwen2.5 32b on h100s, 30 concurrently", sizing.IntentServe, 30, sizing.ServeLoad{Plan: true}},
		{"qwen2.5 32b for 2000 users, 50 concurrent users", sizing.IntentServe, 50, sizing.ServeLoad{Plan: true}},
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
		var ie *sizing.InputError
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
	p, ok := FollowUp(base, "and with ttft under 500ms?")
	if !ok || p.Intent != sizing.IntentServe || p.Query.Serve.TTFTTargetSeconds != 0.5 || p.Query.Serve.PromptTokens != 2048 || p.Query.MicroBatch != 50 {
		t.Errorf("ttft follow-up: ok %v, intent %s, %+v, users %d", ok, p.Intent, p.Query.Serve, p.Query.MicroBatch)
	}
	p, ok = FollowUp(base, "what about lora?")
	if !ok || p.Query.Method != sizing.MethodLoRA || p.Query.MicroBatch != 0 || p.Query.Serve != (sizing.ServeLoad{}) {
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
// context, and the Try keeps the model and card.
func TestImageLoadRefused(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"serving sdxl for 10k images a day, what gpu and how much per month", `"10k images a day" is an image load`, "fit sdxl inference monthly"},
		{"sdxl on an l4 100 images per hour", `"100 images per hour" is an image load`, "fit sdxl l4"},
		{"flux dev on an h100 2 images/s", `"2 images/s" is an image load`, "fit flux.1-dev h100"},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
}

// TestShortTokensServing: a count of tokens under a training budget is a
// serving question's request length, said, and a training question's
// refusal ("~1k tokens" on a serving question is not refused).
func TestShortTokensServing(t *testing.T) {
	p, err := Parse("how many h100s do we need to serve qwen3 32b to 300 users, mostly short chats ~1k tokens")
	if err != nil || p.Query.SeqLen != 1024 || p.Query.Tokens != 0 || p.Query.MicroBatch != 300 {
		t.Errorf("serving: seq %d, tokens %d, users %d (%v); want seq 1024, no tokens, 300 users", p.Query.SeqLen, p.Query.Tokens, p.Query.MicroBatch, err)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), `"1k tokens" taken as each request's length`) {
		t.Errorf("serving: notes %q say nothing of \"1k tokens\"", p.Notes)
	}
	var ie *sizing.InputError
	if _, err := Parse("lora mistral 7b on 2k tokens"); !errors.As(err, &ie) || !strings.Contains(ie.Problem, "too small for a training budget") {
		t.Errorf("training: err = %v, want a too-small budget", err)
	}
}

// TestBusyShareNeedsPercent: the share of the time the cards serve is
// said as a percentage ("80% utilization"); "1 utilization" is none, as
// a slot kind of the same name elsewhere in vocab.txt once made it.
func TestBusyShareNeedsPercent(t *testing.T) {
	r, _ := Parse("llama 3 8b a10 20 tok/s at 1 utilization")
	if b := r.Query.Serve.BusyShare; b != 0 {
		t.Errorf("busy share %v from \"1 utilization\", want none", b)
	}
}
