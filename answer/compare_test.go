package answer

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

func TestCompareOptions(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	q := s.Resolve(ctx, "", s.Read("h100 vs a100 for training llama 3.1 8b lora, which is cheaper per run"))
	if q.Kind() != KindCompare || q.Err != nil {
		t.Fatalf("Kind = %q, err %v; want a comparison", q.Kind(), q.Err)
	}
	c, err := s.Compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if c.Setting != "gpu" || c.Figure != reading.FigurePerRun || len(c.Options) != 2 {
		t.Fatalf("setting %q figure %q, %d options", c.Setting, c.Figure, len(c.Options))
	}
	for i, o := range c.Options {
		if !o.Fits || o.Value == nil || o.Request.Tokens != 1e9 || o.Value != o.Throughput.USDTotal {
			t.Errorf("option %d = fits %v, value %v, tokens %d: want a priced 1B-token run", i, o.Fits, o.Value, o.Request.Tokens)
		}
	}
	win := c.Options[c.Cheaper]
	lose := c.Options[1-c.Cheaper]
	if *win.Value > *lose.Value || !strings.HasPrefix(c.Summary, win.Label+" is cheaper per run: ") {
		t.Errorf("cheaper %d, summary %q", c.Cheaper, c.Summary)
	}

	// Serving: the fewest cards whose KV cache holds a request.
	q = s.Resolve(ctx, "", s.Read("h100 or h200 for serving llama 3.1 70b, which is cheaper per user"))
	c, err = s.Compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range c.Options {
		if o.Serving == nil || !o.Fits || o.Request.GPUs != 2 || !o.GPUsChosen || o.USDPerUserMonth == nil || o.Value != o.USDPerUserMonth {
			t.Errorf("option %d: serving %v fits %v gpus %d chosen %v per user %v", i, o.Serving != nil, o.Fits, o.Request.GPUs, o.GPUsChosen, o.USDPerUserMonth)
		}
	}

	// One does not fit: said, and neither called cheaper.
	q = s.Resolve(ctx, "", s.Read("llama 3.1 8b lora on 1 t4 or 1 h100"))
	c, err = s.Compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cheaper != -1 || !strings.HasPrefix(c.Summary, "Only 1× H100 SXM 80 GB fits") {
		t.Errorf("cheaper %d, summary %q", c.Cheaper, c.Summary)
	}
}

// TestNotCompared: two cards that are not a comparison stay a refusal.
// TestCompareBySpeed: "which is faster" compares tokens/s, higher
// winning: a 3B-active MoE decodes faster than a dense 32B on one card.
func TestCompareBySpeed(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("qwen3 32b vs qwen3 30b a3b on a single h100, which is faster for decode")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Setting != "model" || c.Figure != reading.FigureSpeed || c.Cheaper != 1 {
		t.Fatalf("setting %q, figure %q, winner %d: want the MoE (option 1) faster", c.Setting, c.Figure, c.Cheaper)
	}
	if *c.Options[1].Value <= *c.Options[0].Value || !strings.Contains(c.Summary, "is faster: ") {
		t.Errorf("values %v and %v, summary %q", *c.Options[0].Value, *c.Options[1].Value, c.Summary)
	}
}

// TestCompareSaysDifferentProviders: two cards costed at different
// clouds say so first among the assumptions.
func TestCompareSaysDifferentProviders(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("h100 vs h200 for serving llama 3.3 70b fp8")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Assumptions) == 0 || !strings.HasPrefix(c.Assumptions[0], "priced at different providers") {
		t.Errorf("assumptions %q do not start with the providers' difference", c.Assumptions)
	}
}

// TestCompareTriesCheckpointing: options of a training comparison that
// fit only with gradient checkpointing are sized with it, said, instead
// of "neither fits". (Two H100s, this test's first question, need the
// fused loss too since ZeRO-3's gathered layers are counted: 79.7 GiB of
// 79.6 with checkpointing alone.)
func TestCompareTriesCheckpointing(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("three h100s or four a100s for fine-tuning llama 3.1 70b with lora?")))
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range c.Options {
		if !o.Fits || !o.Request.GradCheckpointing || !strings.HasPrefix(o.Assumptions[0], "gradient checkpointing on, though not asked") {
			t.Errorf("option %d: fits %v, checkpointing %v, first assumption %q", i, o.Fits, o.Request.GradCheckpointing, o.Assumptions[0])
		}
	}
}

func TestNotCompared(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{}}}
	for _, text := range []string{"13b lora inference", "what is the largest model on a 4090 or an h100"} {
		if q := s.Read(text); q.Compared() || q.Kind() == KindCompare {
			t.Errorf("Read(%q) is a comparison", text)
		}
	}
}

// TestCompareCarriesTheLoad: with a load said and no count, each card is
// the serving planner's cheapest plan that carries it (replicas priced in
// all), not one overloaded card at 0 tokens/s.
func TestCompareCarriesTheLoad(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("t4 vs l4 cheapest for llama 3.2 3b at 10 rps")))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range c.Options {
		if o.Serving == nil || !o.Fits || o.Serving.Replicas < 2 || o.Serving.TokensPerSecondPerUser < 10 {
			t.Errorf("%s: %+v, want replicas that carry 10 requests/s at 10 tokens/s or more", o.Label, o.Serving)
		}
	}
	if c.Cheaper < 0 {
		t.Errorf("no verdict: %s", c.Summary)
	}
}

// TestCompareThreeOptions: three options are refused truthfully with a
// Try that compares the first two and keeps the figure.
func TestCompareThreeOptions(t *testing.T) {
	s := &Service{}
	q := s.Read("h100 vs h200 vs b200 for llama 405b serving, cost per million tokens")
	var ie *sizing.InputError
	if !errors.As(q.Err, &ie) || !strings.Contains(ie.Problem, "two options at a time") || ie.Hint != "fit h100 vs h200 for llama 405b serving, cost per million tokens" {
		t.Errorf("err %v, want the two-at-a-time refusal with the first two compared", q.Err)
	}
}

// TestCompareByMemory: "which fits better on a 16gb card" compares the
// memory on one card as asked (no count searched, no serving plan), and
// when neither fits says which comes closer.
func TestCompareByMemory(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("llama2 13b vs mistral 7b which fits better on a 16gb card")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Figure != reading.FigureMemory || !strings.Contains(c.Summary, "Mistral 7B") || !strings.Contains(c.Summary, "comes closer") {
		t.Errorf("figure %q, summary %q", c.Figure, c.Summary)
	}
	for _, o := range c.Options {
		if o.Request.GPUs != 1 || o.Serving != nil {
			t.Errorf("%s: %d GPUs, serving %v; want one card as asked", o.Label, o.Request.GPUs, o.Serving != nil)
		}
	}
}

// TestCompareOneCardSaid: "an h100 and two l40s" compares one H100, not
// the fewest that fit, and a load spread over replicas prices them all.
func TestCompareOneCardSaid(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("trying to decide between an h100 and two l40s for serving qwen2.5 32b with like 50 users, which is better value")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Options[0].Request.GPUs != 1 || c.Options[1].Request.GPUs != 2 {
		t.Fatalf("GPUs %d and %d, want 1 and 2 as said", c.Options[0].Request.GPUs, c.Options[1].Request.GPUs)
	}
	for _, o := range c.Options {
		if o.Serving == nil || o.Throughput.USDPerHour == nil || o.TotalBytes > o.VRAMBytes {
			t.Fatalf("%s: serving %v, memory %d of %d", o.Label, o.Serving, o.TotalBytes, o.VRAMBytes)
		}
		perHour := *o.Throughput.USDPerHour * 730
		if month := *o.Serving.USDPerMonth; math.Abs(month-perHour) > 0.02*month {
			t.Errorf("%s: $%.2f/h for %d replicas is $%.0f a month, but the month says $%.0f", o.Label, *o.Throughput.USDPerHour, o.Serving.Replicas, perHour, month)
		}
	}
}

// TestCompareCardsToBuy: "X or Y to buy" weighs the two cards (refused them as two GPUs with a buy-vs-rent Try); with a renting
// word, buy-vs-rent stays and two cards are still refused.
func TestCompareCardsToBuy(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	q := s.Resolve(ctx, "", s.Read("which card should we buy for inference on llama 3 8b, 4090 or a6000? budget is like 5k"))
	if q.Kind() != KindCompare || q.Err != nil {
		t.Fatalf("Kind = %q, err %v; want a comparison", q.Kind(), q.Err)
	}
	c, err := s.Compare(ctx, q)
	if err != nil || len(c.Options) != 2 || c.Options[0].Request.GPU != "rtx-4090" || c.Options[1].Request.GPU != "rtx-a6000" || !c.Options[0].Fits || !c.Options[1].Fits {
		t.Fatalf("compare = %+v, %v; want both cards sized", c, err)
	}
	q = s.Resolve(ctx, "", s.Read("should we buy or rent a 4090 or a6000 for llama 3 8b"))
	if q.Kind() == KindCompare || q.Err == nil || !strings.Contains(q.Err.Error(), "buy-vs-rent weighs owning a card against renting the same card") {
		t.Errorf("buy or rent of two cards: kind %q, err %v; want the buy-vs-rent refusal", q.Kind(), q.Err)
	}
}

// TestCompareFormats: two weight formats are both sized, on the same
// card named (not AWQ alone): on one H100, Llama 3 70B in
// fp8 (~70 GB of weights) leaves no KV-cache room for a request, which
// the answer says, with what it needs; AWQ serves and is the one
// compared. On two H100s both serve, and AWQ decodes one request faster
// (fewer bytes read per token).
func TestCompareFormats(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	q := s.Resolve(ctx, "", s.Read("fp8 vs int4 awq for llama 3 70b on h100 - which is faster for throughput"))
	if q.Kind() != KindCompare || q.Err != nil {
		t.Fatalf("Kind = %q, err %v; want a comparison", q.Kind(), q.Err)
	}
	c, err := s.Compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if c.Setting != "format" || c.Figure != reading.FigureThroughput || len(c.Options) != 2 {
		t.Fatalf("setting %q figure %q, %d options", c.Setting, c.Figure, len(c.Options))
	}
	fp8, awq := c.Options[0], c.Options[1]
	if fp8.Request.Quant != sizing.QuantFP8 || awq.Request.Quant != sizing.QuantAWQ {
		t.Errorf("formats %q and %q, want fp8 and awq", fp8.Request.Quant, awq.Request.Quant)
	}
	for i, o := range c.Options {
		if o.Request.GPU != "h100" || o.Request.GPUs != 1 || o.GPUsChosen || o.Serving == nil {
			t.Errorf("option %d on %d× %s (chosen %v, serving %v), want served on the one H100 named", i, o.Request.GPUs, o.Request.GPU, o.GPUsChosen, o.Serving != nil)
		}
	}
	if fp8.Fits || !awq.Fits || c.Cheaper != -1 {
		t.Errorf("fits %v and %v, winner %d: want fp8 not serving on one H100", fp8.Fits, awq.Fits, c.Cheaper)
	}
	for _, want := range []string{"Only awq, 1× H100 SXM 80 GB serves", "fp8, 1× H100 SXM 80 GB holds its weights", "no KV-cache room", "fp8 needs 2× H100 SXM 80 GB"} {
		if !strings.Contains(c.Summary, want) {
			t.Errorf("summary %q does not say %q", c.Summary, want)
		}
	}
	rows := map[string][2]string{}
	for _, r := range c.Rows() {
		rows[r.Name] = r.Values
	}
	if rows["speed"][0] != "serves no request" || rows["output at capacity"][1] == "—" {
		t.Errorf("rows %v: want fp8 serving no request and awq's output at capacity", rows)
	}

	// On two H100s both serve: compared by throughput (said), AWQ the
	// faster for one request alone.
	c, err = s.Compare(ctx, s.Resolve(ctx, "", s.Read("llama 3 70b on 2 h100, fp8 vs awq")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Figure != reading.FigureThroughput || !c.Options[0].Fits || !c.Options[1].Fits || c.Cheaper < 0 {
		t.Fatalf("figure %q, fits %v %v, winner %d", c.Figure, c.Options[0].Fits, c.Options[1].Fits, c.Cheaper)
	}
	if !strings.Contains(c.Summary, "awq decodes faster") || !strings.Contains(c.Summary, "users at once") || !strings.Contains(c.Assumptions[0], "no figure asked") {
		t.Errorf("summary %q, assumptions %q", c.Summary, c.Assumptions)
	}

	// No card named: each format on the card chosen for it, which the
	// answer says rather than claiming only the format differs.
	c, err = s.Compare(ctx, s.Resolve(ctx, "", s.Read("fp8 vs awq for llama 3 70b")))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := c.Options[0].Request, c.Options[1].Request; (a.GPU != b.GPU || a.GPUs != b.GPUs) != slices.ContainsFunc(c.Assumptions, func(s string) bool {
		return strings.HasPrefix(s, "no card named: each on the card chosen for it")
	}) {
		t.Errorf("options on %d× %s and %d× %s, assumptions %q", a.GPUs, a.GPU, b.GPUs, b.GPU, c.Assumptions)
	}
}

// TestCompareKVPrecision: "fp8 kv vs bf16 kv, how many more users"
// compares the users each serves at once, fp8 holding twice the tokens.
func TestCompareKVPrecision(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("fp8 kv cache vs bf16 kv for llama 3.1 70b on 2 h100s, how many more users")))
	if err != nil {
		t.Fatal(err)
	}
	if c.Setting != "kv_cache_precision" || c.Figure != reading.FigureUsers || c.Cheaper != 0 {
		t.Fatalf("setting %q figure %q winner %d, want fp8 KV serving more users", c.Setting, c.Figure, c.Cheaper)
	}
	f8, b16 := c.Options[0], c.Options[1]
	if f8.Serving.KVCacheTokens < 19*b16.Serving.KVCacheTokens/10 || *f8.Value <= *b16.Value {
		t.Errorf("KV tokens %d vs %d, users %v vs %v", f8.Serving.KVCacheTokens, b16.Serving.KVCacheTokens, *f8.Value, *b16.Value)
	}
	if !strings.HasPrefix(c.Summary, "KV cache fp8, 2× H100 SXM 80 GB serves more users at once: ") {
		t.Errorf("summary %q", c.Summary)
	}
}

// TestCompareFP8Count: an option served in fp8 with no count is sized
// on the fewest cards that serve it in fp8 (2× H100 for Llama 3 70B),
// not on 8: fp8 said as a precision is the format served.
func TestCompareFP8Count(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	c, err := s.Compare(ctx, s.Resolve(ctx, "", s.Read("h100 or h200 for serving llama 3 70b in fp8")))
	if err != nil {
		t.Fatal(err)
	}
	if h100 := c.Options[0]; h100.Request.GPUs != 2 || h100.Request.Quant != sizing.QuantFP8 || !h100.Fits {
		t.Errorf("H100 option on %d GPUs in %q (fits %v), want 2 in fp8", h100.Request.GPUs, h100.Request.Quant, h100.Fits)
	}
}

// TestCompareSmallCardsWithAdapters: two 24 GB cards weighed "for
// finetuning" with no method are compared as each fine-tunes alone, LoRA
// on one card (compared 8× RTX 4090 over two machines of a
// full fine-tune); 80 GB cards keep the full fine-tune the verb was read
// as, and a speed asked of a card that does not fit says both speeds.
func TestCompareSmallCardsWithAdapters(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	ctx := context.Background()
	for _, c := range []struct {
		text   string
		method sizing.Method
		gpus   int
	}{
		{"4090 or 3090 for finetuning 7b, price/perf", sizing.MethodLoRA, 1},
		{"h100 vs a100 for finetuning llama 3 8b", sizing.MethodFull, 0},
	} {
		q := s.Resolve(ctx, "", s.Read(c.text))
		if q.Kind() != KindCompare || q.Err != nil {
			t.Fatalf("%q: kind %q, err %v; want a comparison", c.text, q.Kind(), q.Err)
		}
		a, err := s.Compare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range a.Options {
			if o.Request.Method != c.method || c.gpus > 0 && o.Request.GPUs != c.gpus || !o.Fits {
				t.Errorf("%q option %d: %s on %d GPUs, fits %v; want %s", c.text, i, o.Request.Method, o.Request.GPUs, o.Fits, c.method)
			}
		}
	}
	q := s.Resolve(ctx, "", s.Read("t4 vs l4 on colab for qlora gemma 7b, how much faster"))
	a, err := s.Compare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Summary, "× the") || a.Options[0].Request.GPUs != 1 || a.Options[1].Request.GPUs != 1 {
		t.Errorf("summary %q on %d and %d GPUs: want both speeds on one Colab GPU each", a.Summary, a.Options[0].Request.GPUs, a.Options[1].Request.GPUs)
	}
}
