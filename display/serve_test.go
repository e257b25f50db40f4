package display

import (
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// TestOneRequestIsSingular: a card that holds one request at a time, a
// replica serving one user and one asked user read in the singular,
// never "1 requests".
func TestOneRequestIsSingular(t *testing.T) {
	sv := sizing.Serving{Fits: true, Engine: "vllm", GPUMemoryUtilization: 0.9, KVCacheTokens: 226528, MaxConcurrency: 1, Concurrency: 1,
		PromptTokens: 131000, OutputTokens: 72, TTFTSeconds: 30.9, TokensPerSecondPerUser: 23.3}
	got := ServingLine(&sv)
	if !strings.Contains(got, "1 request of 131,072 tokens at once") {
		t.Errorf("ServingLine = %q, want \"1 request of 131,072 tokens at once\"", got)
	}
	opt := optionWords(sizing.ServeOption{Serving: sv, GPUName: "H100 SXM 80 GB"})
	if !strings.Contains(opt, "1 user each") {
		t.Errorf("optionWords = %q, want \"1 user each\"", opt)
	}
	if got := loadWords(&sizing.ServeResult{Users: 1}); got != "1 user" {
		t.Errorf("loadWords = %q, want \"1 user\"", got)
	}
	for _, n := range []int{0, 2, 17} {
		if got := Counted(n, "request", "requests"); !strings.HasSuffix(got, " requests") {
			t.Errorf("Counted(%d) = %q, want the plural", n, got)
		}
	}
}

// TestOverloadedIsSaid: a replica given more requests than it serves has
// infinite latencies (zero in JSON); the words say it is overloaded
// instead of "first token 0 s, 0 tok/s".
func TestOverloadedIsSaid(t *testing.T) {
	if got := speedWords(sizing.Serving{}); !strings.Contains(got, "overloaded") || strings.Contains(got, "0 s") {
		t.Errorf("speedWords(overloaded) = %q", got)
	}
	if got := speedWords(sizing.Serving{TTFTSeconds: 0.5, TokensPerSecondPerUser: 20}); strings.Contains(got, "overloaded") {
		t.Errorf("speedWords(served) = %q", got)
	}
}

// TestTermsLargestFirst: a memory's terms, largest first, tiny ones left out.
func TestTermsLargestFirst(t *testing.T) {
	m := sizing.Memory{WeightsBytes: 15 << 30, KVCacheBytes: 16 << 30, OverheadBytes: 1 << 29, ActivationsBytes: 1 << 20}
	if got, want := Terms(m), "KV cache 16.0 GiB, weights 15.0 GiB, overhead 0.5 GiB"; got != want {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// TestServingLineOnAMac: answers on Apple silicon
// said "Serving (vllm at 0.9)", though vLLM runs on no Apple GPU. They
// name llama.cpp or MLX and the GPU's share of unified memory.
func TestServingLineOnAMac(t *testing.T) {
	sv := sizing.Serving{Fits: true, Engine: sizing.EngineLlamaCPP, GPUMemoryUtilization: 1, UnifiedMemoryShare: 0.75, KVCacheTokens: 36816,
		MaxConcurrency: 17, Concurrency: 1, PromptTokens: 1536, OutputTokens: 512, TTFTSeconds: 11.7, TokensPerSecondPerUser: 3.8}
	got := ServingLine(&sv)
	if want := "Serving (llama.cpp or MLX, in the GPU's 75% of unified memory): 36,816 tokens of KV cache"; !strings.HasPrefix(got, want) {
		t.Errorf("ServingLine = %q, want it to start %q", got, want)
	}
	if strings.Contains(got, "vllm") {
		t.Errorf("ServingLine = %q names vLLM on a Mac", got)
	}
}

// TestFirstTokenWords: "time to first token for a 32k
// prompt on llama 3.1 8b on one a100?" never said the batch-1 figure,
// only the one at 13 requests. Asked, the speed line says it; not
// asked, nothing.
func TestFirstTokenWords(t *testing.T) {
	a := sizing.Answer{Request: sizing.Request{FirstTokenAsked: true},
		Serving: &sizing.Serving{AloneTTFTSeconds: 4.13, PromptTokens: 32768, TTFTSeconds: 8.58}}
	if got, want := FirstTokenWords(a), "first token 4.13 s for a 32,768-token prompt at batch 1"; got != want {
		t.Errorf("FirstTokenWords = %q, want %q", got, want)
	}
	a.Serving.PromptTokens = 8192
	if got, want := FirstTokenWords(a), "first token 4.13 s for an 8,192-token prompt at batch 1"; got != want {
		t.Errorf("FirstTokenWords = %q, want %q", got, want)
	}
	a.Request.FirstTokenAsked = false
	if got := FirstTokenWords(a); got != "" {
		t.Errorf("FirstTokenWords (not asked) = %q, want \"\"", got)
	}
}

// TestVerdictOutputInAll: a plan for an output in all names it as the
// load and says what the cheapest configuration makes in all (said "with 1000 tok/s each").
func TestVerdictOutputInAll(t *testing.T) {
	month := 2350.0
	a := sizing.AskAnswer{ModelName: "Llama 3.1 8B", Serve: &sizing.ServeResult{Mode: "plan", MeetsTargets: true, OutputTokensPerSecondTarget: 1000,
		Options: []sizing.ServeOption{{GPUName: "L4 24 GB", Quant: sizing.QuantFP8, Request: sizing.Request{Quant: sizing.QuantFP8},
			Serving: sizing.Serving{Fits: true, Replicas: 2, GPUsPerReplica: 2, Concurrency: 51, TTFTSeconds: 0.39, TokensPerSecondPerUser: 10.2,
				OutputTokensPerSecond: 518, USDPerMonth: &month}}}}}
	got := ServeVerdict(a)
	for _, want := range []string{"Cheapest for 1,000 output tokens/s in all of Llama 3.1 8B: 2 replicas of 2× L4 24 GB (fp8)", ", 1,036 tok/s in all"} {
		if !strings.Contains(got, want) {
			t.Errorf("ServeVerdict = %q, want %q in it", got, want)
		}
	}
	if strings.Contains(got, "each;") || strings.Contains(got, "1000 tok/s each") {
		t.Errorf("ServeVerdict = %q reads the output as each user's", got)
	}
}

// TestCannotServeKeepsUsers: cards that serve nothing point at a plan for
// the users asked (asked 50 and was offered 10), or 10.
func TestCannotServeKeepsUsers(t *testing.T) {
	for _, c := range []struct {
		users int
		want  string
	}{{50, `"gpus for 50 users of llama-3.1-70b"`}, {0, `"gpus for 10 users of llama-3.1-70b"`}} {
		a := sizing.AskAnswer{Request: sizing.Request{Model: "llama-3.1-70b"}, ModelName: "Llama 3.1 70B", GPUName: "H200 141 GB",
			Serve: &sizing.ServeResult{Mode: "capacity", Users: c.users, Capacity: &sizing.Serving{GPUsPerReplica: 1, PromptTokens: 3584, OutputTokens: 512}}}
		if got := ServeVerdict(a); !strings.Contains(got, c.want) {
			t.Errorf("%d users: %q, want %s", c.users, got, c.want)
		}
	}
}

// TestPerUser: a plan for users asked says the month over them ("per-user cost" was not used); no users, no figure.
func TestPerUser(t *testing.T) {
	month := 3504.0
	v := sizing.Serving{USDPerMonth: &month}
	if got, want := perUser(&sizing.ServeResult{Users: 200}, v), ", $17.52 a user a month"; got != want {
		t.Errorf("perUser = %q, want %q", got, want)
	}
	if got := perUser(&sizing.ServeResult{}, v); got != "" {
		t.Errorf("no users: %q, want nothing", got)
	}
	// Daily users: the month over them.
	if got, want := perUser(&sizing.ServeResult{DailyUsers: 10000}, v), ", $0.35 a daily user a month"; got != want {
		t.Errorf("perUser = %q, want %q", got, want)
	}
}

// TestFastestPlanVerdict: a plan ranked by speed says so first, for the
// users asked or one request alone, and its summary says "fastest".
func TestFastestPlanVerdict(t *testing.T) {
	usd := 14016.0
	o := sizing.ServeOption{GPU: "h100", GPUName: "H100 SXM 80 GB", Provider: "vast", Quant: sizing.QuantFP8, Request: sizing.Request{Quant: sizing.QuantFP8},
		Serving: sizing.Serving{Fits: true, MeetsTargets: true, GPUsPerReplica: 8, Replicas: 1, Concurrency: 1, TTFTSeconds: 0.11, TokensPerSecondPerUser: 141.2, USDPerMonth: &usd}}
	tests := []struct {
		name string
		s    sizing.ServeResult
		want string
	}{
		{"alone", sizing.ServeResult{Mode: "plan", Fastest: true, MeetsTargets: true, Options: []sizing.ServeOption{o}},
			"Fastest first for Llama 3.1 70B, one request at a time (batch 1): 8× H100 SXM 80 GB (fp8), first token 0.11 s, 141.2 tok/s, $14,016/month at vast"},
		{"users", sizing.ServeResult{Mode: "plan", Fastest: true, MeetsTargets: true, Users: 1, Options: []sizing.ServeOption{o}},
			"Fastest first for 1 user of Llama 3.1 70B: 8× H100 SXM 80 GB (fp8), 1 user each, first token 0.11 s, 141.2 tok/s each, $14,016/month at vast, $14,016 a user a month"},
		{"cheapest", sizing.ServeResult{Mode: "plan", MeetsTargets: true, Users: 1, Options: []sizing.ServeOption{o}},
			"Cheapest for 1 user of Llama 3.1 70B: 8× H100 SXM 80 GB (fp8), 1 user each"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := sizing.AskAnswer{Kind: sizing.IntentServe, ModelName: "Llama 3.1 70B", Serve: &tt.s}
			if got := ServeVerdict(a); !strings.HasPrefix(got, tt.want) {
				t.Errorf("ServeVerdict = %q, want it to start %q", got, tt.want)
			}
			want := "cheapest: "
			if tt.s.Fastest {
				want = "fastest: "
			}
			if got := ServeSummary(a); !strings.HasPrefix(got, want) {
				t.Errorf("ServeSummary = %q, want it to start %q", got, want)
			}
		})
	}
}

// TestServePurchase: the line a plan asked as the cards to own adds
// names the cards priced, says when the first has no purchase price,
// and is absent when owning was not asked.
func TestServePurchase(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	p := &sizing.CardsPurchase{Option: 1, GPU: "rtx-4090", GPUName: "RTX 4090 24 GB", Cards: 8, Machines: 1,
		CardUSDLow: 1600, CardUSDHigh: 2000, USDLow: 12800, USDHigh: 16000, HostUSD: 2500, AsOf: at, Source: "MSRP"}
	a := sizing.AskAnswer{Kind: sizing.IntentServe, Request: sizing.Request{Own: true}, Serve: &sizing.ServeResult{Mode: "plan",
		Options: []sizing.ServeOption{{GPU: "mi300x", GPUName: "MI300X 192 GB"}, {GPU: "rtx-4090", GPUName: "RTX 4090 24 GB"}}, Purchase: p}}
	want := "To own: fitbot has no purchase price for MI300X 192 GB; the first option it has one for is row 2: 8× RTX 4090 24 GB cost $12,800-$16,000 to buy (8 × $1,600-$2,000 a card, seen 2026-06-01: MSRP), plus about $2,500 for the machine around them; a spare card for redundancy is common"
	if got := ServePurchase(a); got != want {
		t.Errorf("ServePurchase =\n%q, want\n%q", got, want)
	}
	a.Serve.Purchase = nil
	if got := ServePurchase(a); !strings.HasPrefix(got, "To own: fitbot has no purchase price for MI300X 192 GB") {
		t.Errorf("no price: %q", got)
	}
	a.Request.Own = false
	if got := ServePurchase(a); got != "" {
		t.Errorf("not owned: %q", got)
	}
}
