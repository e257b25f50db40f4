package sizing

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// servePrices is a small price sheet for the planning tests.
var servePrices = stubPrices{"h100": 2.5, "a100-80": 1.6, "l4": 0.7, "b200": 5.5, "rtx-4090": 0.6}

func askServe(t *testing.T, q string) AskAnswer {
	t.Helper()
	p, err := Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if p.Intent != IntentServe {
		t.Fatalf("%s: intent %s, want serve", q, p.Intent)
	}
	e := Estimator{Prices: servePrices}
	a, err := e.Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return a
}

// TestServePlanKeepsTheCheapestReplicaSize: 70B in fp8 fits one 80 GB
// A100 with KV cache for a couple of users; the plan takes the replica
// size that costs least in all (8 cards), not 50 one-card replicas, and
// gives every user at least 10 tokens/s when no speed is asked.
func TestServePlanKeepsTheCheapestReplicaSize(t *testing.T) {
	a := askServe(t, "serve llama 3.1 70b to 100 users on a100s in fp8")
	o := a.Serve.Options[0]
	if o.Serving.GPUsPerReplica*o.Serving.Replicas > 8 || o.Serving.TokensPerSecondPerUser < usableTokensPerSecond {
		t.Errorf("first option %d × %d GPUs at %.1f tok/s each, want at most 8 GPUs in all at %g tok/s or more",
			o.Serving.Replicas, o.Serving.GPUsPerReplica, o.Serving.TokensPerSecondPerUser, usableTokensPerSecond)
	}
	// A capacity answer that needs more replicas prices all of them.
	c := askServe(t, "serve llama 3.1 70b to 100 users on 2 a100s in fp8").Serve.Capacity
	one := askServe(t, "how many users can 2 a100s serve with llama 3.1 70b in fp8").Serve.Capacity
	if c.Replicas < 2 || c.USDPerMonth == nil || one.USDPerMonth == nil || *c.USDPerMonth != *one.USDPerMonth*float64(c.Replicas) {
		t.Errorf("capacity of %d replicas costs %v a month, want %d × one replica's %v", c.Replicas, c.USDPerMonth, c.Replicas, one.USDPerMonth)
	}
}

// TestServePlan: the planning ask lists configurations that meet the
// load and targets, cheapest per month first, each with enough replicas
// for the users.
func TestServePlan(t *testing.T) {
	a := askServe(t, "gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each")
	s := a.Serve
	if s.Mode != "plan" || !s.MeetsTargets || len(s.Options) == 0 {
		t.Fatalf("plan: mode %q, meets %v, %d options", s.Mode, s.MeetsTargets, len(s.Options))
	}
	prev := 0.0
	for _, o := range s.Options {
		v := o.Serving
		if !v.MeetsTargets || v.TTFTSeconds > 1 || v.TokensPerSecondPerUser < 20 {
			t.Errorf("%s %s: ttft %.2f s, %.1f tok/s, meets %v", o.GPU, o.Quant, v.TTFTSeconds, v.TokensPerSecondPerUser, v.MeetsTargets)
		}
		if v.Replicas*v.Concurrency < 200 {
			t.Errorf("%s %s: %d replicas × %d users < 200", o.GPU, o.Quant, v.Replicas, v.Concurrency)
		}
		if v.USDPerMonth == nil || *v.USDPerMonth < prev {
			t.Errorf("%s %s: not ranked by cost per month", o.GPU, o.Quant)
		} else {
			prev = *v.USDPerMonth
		}
	}
}

// TestServePlanFormat: a plan tries fp8 and AWQ only when the question
// named no weight format, and then does not assume 16-bit weights; a
// named format is kept. "llama 8b bf16 serve 50 users" answered AWQ on
// RTX 4090s, and the unsaid ask listed fp8 and AWQ options under
// "inference in bf16 (weights unquantised)".
func TestServePlanFormat(t *testing.T) {
	a := askServe(t, "gpus for 50 users of llama-3.1-8b bf16 with ttft under 1s")
	if len(a.Serve.Options) == 0 {
		t.Fatal("bf16 asked: no options")
	}
	for _, o := range a.Serve.Options {
		if o.Quant != QuantNone || o.Precision != PrecisionBF16 {
			t.Errorf("bf16 asked: option %s in %s %s", o.GPU, o.Quant, o.Precision)
		}
	}
	a = askServe(t, "gpus for 50 users of llama-3.1-8b with ttft under 1s")
	formats := map[Quant]bool{}
	for _, o := range a.Serve.Options {
		formats[o.Quant] = true
	}
	if len(formats) < 2 {
		t.Errorf("no format said: options in %v, want several formats", formats)
	}
	for _, s := range a.Assumptions {
		if strings.Contains(s, "weights unquantised") {
			t.Errorf("no format said, options in %v, assumed %q", formats, s)
		}
	}
}

// TestServePlanMissesTarget: a target nothing meets is said first, with
// the closest configurations.
func TestServePlanMissesTarget(t *testing.T) {
	a := askServe(t, "gpus for 10 users of llama-3.1-70b with ttft under 1ms")
	if a.Serve.MeetsTargets || len(a.Serve.Options) == 0 {
		t.Fatalf("1 ms TTFT: meets %v with %d options, want the closest that miss", a.Serve.MeetsTargets, len(a.Serve.Options))
	}
}

// TestServeCapacity: the named GPUs' capacity, and more users than fit
// ask for replicas and miss the target.
func TestServeCapacity(t *testing.T) {
	a := askServe(t, "how many users can 2xh100 serve llama-3.1-70b fp8 at 4k context")
	c := a.Serve.Capacity
	if a.Serve.Mode != "capacity" || c == nil || c.Concurrency < 1 || c.Concurrency != c.MaxConcurrency || c.GPUsPerReplica != 2 {
		t.Fatalf("capacity: %+v", a.Serve)
	}
	over := askServe(t, "can 2xh100 serve 500 users of llama-3.1-70b fp8 at 4k context ttft 2s")
	if o := over.Serve.Capacity; over.Serve.MeetsTargets || o.Replicas < 2 {
		t.Errorf("500 users on 2× H100: meets %v, %d replicas", over.Serve.MeetsTargets, o.Replicas)
	}
}

// TestServeBusyShare: cards busy 80% of the time cost 1/0.8 as much per
// output token, everything else the same (left "80%
// utilization" unused).
func TestServeBusyShare(t *testing.T) {
	full := askServe(t, "whats the per token cost of llama 3.1 70b on 4x h100").Serve.Capacity
	busy := askServe(t, "whats the per token cost of llama 3.1 70b on 4x h100 at 80% utilization").Serve.Capacity
	if full == nil || busy == nil || full.USDPerMillionOutputTokens == nil || busy.USDPerMillionOutputTokens == nil {
		t.Fatalf("no cost per token: %+v, %+v", full, busy)
	}
	if f, b := *full.USDPerMillionOutputTokens, *busy.USDPerMillionOutputTokens; math.Abs(b-f/0.8) > 1e-9*f {
		t.Errorf("per 1M output tokens: %v at 80%% busy, want %v / 0.8 = %v", b, f, f/0.8)
	}
	if *full.USDPerMonth != *busy.USDPerMonth || full.Concurrency != busy.Concurrency {
		t.Errorf("a busy share changed the month or the users: %v/%d vs %v/%d", *full.USDPerMonth, full.Concurrency, *busy.USDPerMonth, busy.Concurrency)
	}
}

// TestServeCostOnPluralCards: the cost of tokens on cards named in the
// plural with no count is what the fewest of them serve as asked (answered one request's memory on "h100s"); Llama 3 70B in bf16
// needs two 80 GB cards for its weights and a request.
func TestServeCostOnPluralCards(t *testing.T) {
	a := askServe(t, "cost per million tokens serving llama 3 70b on h100s")
	c := a.Serve.Capacity
	if a.Serve.Mode != "capacity" || c == nil || c.USDPerMillionOutputTokens == nil {
		t.Fatalf("no capacity with a token cost: %+v", a.Serve)
	}
	if a.Request.GPUs != 2 || a.Request.Quant != QuantNone {
		t.Errorf("served on %d× in %q, want 2× as released", a.Request.GPUs, a.Request.Quant)
	}
}

// TestServeRateOnNamedCards: an arrival rate on named cards holds only if
// the requests in flight fit a replica: one H100 completes about 4
// requests/s of 4k tokens of Llama 3.1 8B at a usable speed, so 5.65 (2B
// tokens a day) needs a second replica and is said not met;
// 1 request/s is met by the one card.
func TestServeRateOnNamedCards(t *testing.T) {
	over := askServe(t, "llama 3.1 8b on one h100 at 5.65 rps").Serve
	if over.MeetsTargets || over.Capacity == nil || over.Capacity.Replicas != 2 {
		t.Errorf("5.65 rps on one H100: meets %v, capacity %+v; want 2 replicas, not met", over.MeetsTargets, over.Capacity)
	}
	under := askServe(t, "llama 3.1 8b on one h100 at 1 rps").Serve
	if !under.MeetsTargets || under.Capacity == nil || under.Capacity.Replicas != 1 {
		t.Errorf("1 rps on one H100: meets %v, capacity %+v; want met on one replica", under.MeetsTargets, under.Capacity)
	}
	day := askServe(t, "2 billion tokens/day through llama 3.1 8b on h100s").Serve
	if day.RequestsPerSecond != 5.65 {
		t.Errorf("2B tokens a day: %v requests/s, want 2e9 / 86400 / 4096 = 5.65", day.RequestsPerSecond)
	}
}

// TestServeCostPerRequests: "per 1k requests" asks what the named cards
// cost per thousand requests at full load (read 1,000
// users): the hour's price over the requests it completes.
func TestServeCostPerRequests(t *testing.T) {
	a := askServe(t, "how much per 1k requests to serve llama 3.1 8b on an l4, 3k input 300 output tokens")
	c := a.Serve.Capacity
	if a.Serve.Mode != "capacity" || a.Serve.Users != 0 || !a.Request.PerRequestAsked || c == nil || c.USDPer1kRequests == nil || c.USDPerHour == nil {
		t.Fatalf("want a capacity with a cost per 1k requests: %+v", a.Serve)
	}
	want := *c.USDPerHour / (c.RequestsPerSecond * float64(c.Replicas) * 3600) * 1000
	if got := *c.USDPer1kRequests; math.Abs(got-want) > 1e-9*want {
		t.Errorf("$/1k requests %v, want %v", got, want)
	}
}

// TestServeFP8Lever: a capacity in the released bf16 weights on a card
// with FP8 says what fp8 would hold when it is far more (Qwen3 32B on one H100, 7 users in bf16); with a format said, nothing.
func TestServeFP8Lever(t *testing.T) {
	a := askServe(t, "how many users can qwen3 32b serve on one h100")
	if !strings.Contains(strings.Join(a.Assumptions, "\n"), "in fp8 weights the same cards hold about") {
		t.Errorf("assumptions %q: want the fp8 lever", a.Assumptions)
	}
	b := askServe(t, "how many users can qwen3 32b serve on one h100 in bf16")
	if strings.Contains(strings.Join(b.Assumptions, "\n"), "in fp8 weights") {
		t.Errorf("bf16 said: assumptions %q offer fp8", b.Assumptions)
	}
}

// TestServeFormatForLoad: named cards with users and no format said are
// served in the largest format that holds the users, before replicas
// (Nemotron 70B on 4 L4s for 10 users was fp8 holding 7,
// "2 replicas would"; AWQ holds the 10 on the 4 cards); when no format
// holds them the released one stands with its replicas.
func TestServeFormatForLoad(t *testing.T) {
	for _, c := range []struct {
		q     string
		quant Quant
		meets bool
	}{
		{"nemotron 70b on 4 l4s for 10 users, workable?", QuantAWQ, true},
		{"llama 3.1 8b on one l4 for 50 users", QuantNone, false},
		{"llama 3.1 8b on one l4 for 5 users", QuantNone, true},
	} {
		a := askServe(t, c.q)
		if a.Request.Quant != c.quant || a.Serve.MeetsTargets != c.meets {
			t.Errorf("%q: served in %q, meets %v; want %q, %v", c.q, a.Request.Quant, a.Serve.MeetsTargets, c.quant, c.meets)
		}
	}
}

// BenchmarkServePlan is the cost of a planning ask (target < 5 ms).
func BenchmarkServePlan(b *testing.B) {
	p, err := Parse("gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each")
	if err != nil {
		b.Fatal(err)
	}
	e := Estimator{Prices: servePrices}
	for b.Loop() {
		if _, err := e.Ask(p.Query, p.Intent, p.Workload); err != nil {
			b.Fatal(err)
		}
	}
}

// TestServeCapacityUsable: with no speed asked, a capacity answer keeps
// each user above reading speed instead of filling the KV cache with
// users who get a token every two seconds.
func TestServeCapacityUsable(t *testing.T) {
	c := askServe(t, "how many users can an m3-max-128 serve llama 3.1 8b").Serve.Capacity
	if c.Concurrency >= c.MaxConcurrency || c.TokensPerSecondPerUser < usableTokensPerSecond || c.Limit != "tokens_per_second" {
		t.Errorf("M3 Max: %d users of %d that fit, %.1f tok/s each, limit %q", c.Concurrency, c.MaxConcurrency, c.TokensPerSecondPerUser, c.Limit)
	}
}

// TestServeOtherFamilies: a serving ask (users with targets) for a model
// not served with a paged KV cache is refused with the batch fit to ask,
// which answers; "bge-m3 serve 100 users ttft 100ms" said "No
// configuration in the catalog serves BGE-M3" under a chat turn's tokens.
func TestServeOtherFamilies(t *testing.T) {
	for _, q := range []string{"bge-m3 serve 100 users ttft 100ms", "whisper large-v3 serve 20 users ttft 1s", "mamba 2.8b serve 50 users ttft 1s cheapest"} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		_, err = (&Estimator{Prices: servePrices}).Ask(p.Query, p.Intent, p.Workload)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "decoder LLMs") {
			t.Errorf("%s: %v, want a refusal naming the family", q, err)
			continue
		}
		tp, err := Parse(strings.TrimPrefix(ie.Hint, "fit "))
		if err != nil {
			t.Fatalf("%s: Try %q: %v", q, ie.Hint, err)
		}
		if _, err := (&Estimator{Prices: servePrices}).Answer(tp.Query); err != nil || tp.Intent != IntentFit {
			t.Errorf("%s: Try %q (%s) answers %v", q, ie.Hint, tp.Intent, err)
		}
	}
}

// TestServeNoModelTry: a serving question with no model is refused with
// a Try that keeps the load as asked (2000 employees are users a day,
// never 2000 at once) and leaves the card open: the stand-in card and
// length the planner resolves with are not the asker's (never "fit
// llama-3.1-8b inference h100 seq 4096 gpus needed 1.39 qps").
func TestServeNoModelTry(t *testing.T) {
	const q = "we want to run an llm for our whole company, about 2000 employees, which gpu"
	const want = "fit llama-3.1-8b inference gpus needed 2000 daily users"
	p, err := Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	_, err = (&Estimator{Prices: servePrices}).Ask(p.Query, p.Intent, p.Workload)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Hint != want {
		t.Fatalf("%s: %v (Try %q), want no model named and Try %q", q, err, hintOf(ie), want)
	}
	tp, err := Parse(strings.TrimPrefix(ie.Hint, "fit "))
	if err != nil {
		t.Fatalf("Try %q: %v", ie.Hint, err)
	}
	if tp.Intent != IntentServe || tp.Query.GPU != "" || tp.Query.MicroBatch != 0 || tp.Query.Serve.RequestsPerSecond != p.Query.Serve.RequestsPerSecond {
		t.Errorf("Try %q reads as %s %q, want the same load (%.3g requests/s), no card", ie.Hint, tp.Intent, Format(tp.Query), p.Query.Serve.RequestsPerSecond)
	}
	if _, err := (&Estimator{Prices: servePrices}).Ask(tp.Query, tp.Intent, tp.Workload); err != nil {
		t.Errorf("Try %q: %v", ie.Hint, err)
	}
}

// TestServeMaxBatch: "max batch" asks the KV cache's limit, not the users
// that still get 10 tokens/s: Mixtral 8x22B at 16k on 8× A100 80 GB holds
// 86 requests (224 KiB a token), where the usable-speed floor keeps 35.
func TestServeMaxBatch(t *testing.T) {
	p, err := Parse("mixtral 8x22b serving on 8xa100 80gb, max batch at 16k ctx")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Query.Serve.MaxBatch {
		t.Fatal("max batch not read")
	}
	a, err := (&Estimator{}).Serve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	c := a.Serve.Capacity
	if c == nil || c.Concurrency != c.MaxConcurrency || c.MaxConcurrency < 80 || c.MaxConcurrency > 92 {
		t.Errorf("capacity %+v, want the KV cache's limit, about 86", c)
	}
}

// TestPlanKeepsUsableSpeedWithTTFT: a plan with a first-token target and
// no speed still gives every user 10 tokens/s (had 1000
// gpt-oss-120b users at 8.7 tok/s on one replica).
func TestPlanKeepsUsableSpeedWithTTFT(t *testing.T) {
	p, err := Parse("gpus for 1000 users of gpt-oss-120b with ttft under 1s")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{Prices: stubPrices{"h100": 2.40, "a100-80": 1.39, "l40s": 0.79}}).Serve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Serve.Options) == 0 || a.Serve.Options[0].Serving.TokensPerSecondPerUser < usableTokensPerSecond {
		t.Errorf("options %+v, want the first at %g tokens/s each or more", a.Serve.Options, usableTokensPerSecond)
	}
}

// TestServeNotOnNamedCard: when no replica of the named card holds the
// model, the plan says why and offers the cheapest cards that do (fp8 DeepSeek-V3 on H100s got no reason and no next step).
func TestServeNotOnNamedCard(t *testing.T) {
	a := askServe(t, "how many H100s do we need to serve deepseek v3 in fp8 for 500 concurrent users")
	s := a.Serve
	if !strings.Contains(s.NotOnNamed, "No replica of H100 SXM 80 GB serves DeepSeek-V3: its fp8 weights") || !strings.Contains(s.NotOnNamed, "in one machine") {
		t.Errorf("NotOnNamed = %q, want the fp8 weights against one machine of H100s", s.NotOnNamed)
	}
	if len(s.Options) == 0 || s.Options[0].GPU == "h100" || !s.MeetsTargets {
		t.Fatalf("options %+v, want cards other than the H100 that meet the load", s.Options)
	}
	if o := s.Options[0]; o.Serving.GPUsPerReplica != 8 || o.Serving.Concurrency*o.Serving.Replicas < 500 {
		t.Errorf("first option %s %d× %d replicas for %d users, want one machine of 8 a replica for 500", o.GPU, o.Serving.GPUsPerReplica, o.Serving.Replicas, o.Serving.Concurrency*o.Serving.Replicas)
	}
}

// TestServeNamedCardsSmallerFormat: named cards, no format said, and the
// released weights leave no room: Mixtral 8x7B (87 GiB in bf16) on 2× RTX
// A6000 is served in AWQ and says so first.
func TestServeNamedCardsSmallerFormat(t *testing.T) {
	p, err := Parse("serve mixtral 8x7b on two a6000s, how many concurrent users")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Serve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	c := a.Serve.Capacity
	if c == nil || !c.Fits || a.Request.Quant != QuantAWQ || !strings.HasPrefix(a.Assumptions[0], "no weight format said") {
		t.Errorf("capacity %+v, quant %q, first assumption %q; want AWQ serving, said first", c, a.Request.Quant, a.Assumptions[0])
	}
}

// TestServeOnSpot: a serving plan that asks spot is priced at spot and
// names it (priced 16 H100s on demand with "spot" unused).
func TestServeOnSpot(t *testing.T) {
	p, err := Parse("cost to serve llama 3.1 70b fp8 for 500 users on spot h100s per month")
	if err != nil {
		t.Fatal(err)
	}
	e := &Estimator{Prices: stubSpotPrices{stubPrices{"h100": 2.40}, stubPrices{"h100": 6.57}}}
	a, err := e.Serve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Serve.Options) == 0 || a.Serve.Options[0].Market != "spot" || !strings.HasPrefix(a.Assumptions[0], "spot asked: priced at spot") {
		t.Errorf("options %+v, first assumption %q; want spot prices, said", a.Serve.Options, a.Assumptions[0])
	}
}

// BenchmarkServeCapacity is the cost of a capacity ask on a card with FP8
// and no format said, which also sizes fp8 for its lever line.
func BenchmarkServeCapacity(b *testing.B) {
	p, err := Parse("how many users can qwen3 32b serve on one h100")
	if err != nil {
		b.Fatal(err)
	}
	e := Estimator{Prices: servePrices}
	for b.Loop() {
		if _, err := e.Ask(p.Query, p.Intent, p.Workload); err != nil {
			b.Fatal(err)
		}
	}
}
