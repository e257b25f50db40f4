package sizing

import (
	"strings"
	"testing"
)

// qlora13BOn4090 is the question the run-cost tests ask: "fit 13B qlora
// 4090 on 2B tokens". It fits one RTX 4090 (about 10.6 GiB), so every
// other card is listed only when it is cheaper.
var qlora13BOn4090 = Query{Params: 13e9, Method: MethodQLoRA, GPU: "rtx-4090", Tokens: 2e9}

// TestCheaperIsByRunCost: with a token budget "cheaper" means the whole
// run costs less. The RTX 3090 (71 BF16 TFLOPS, gpus.json) is 165.2/71 ≈
// 2.33× slower than the RTX 4090, so at $0.22/h against $0.33/h its run
// costs 0.22 × 2.33 / 0.33 ≈ 1.55× more and is not offered; at $0.10/h it
// costs 0.10 × 2.33 / 0.33 ≈ 0.70× and is. Without a budget the hourly
// price decides, as before.
func TestCheaperIsByRunCost(t *testing.T) {
	tests := []struct {
		name       string
		tokens     int64
		price3090  float64
		want3090   bool
		wantTotals bool
	}{
		{"slower card at a lower hourly price costs more in all", 2e9, 0.22, false, true},
		{"slower but much cheaper card costs less in all", 2e9, 0.10, true, true},
		{"no token budget: the hourly price decides", 0, 0.22, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A fixed utilisation, so that the cards' times are in the ratio
			// of their peaks.
			e := &Estimator{Prices: stubPrices{"rtx-4090": 0.33, "rtx-3090": tt.price3090}, MFU: 0.4}
			q := qlora13BOn4090
			q.Tokens = tt.tokens
			a, err := e.Answer(q)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Fits {
				t.Fatalf("13B QLoRA does not fit a 4090 (%s per GPU)", gibString(a.PerGPU.TotalBytes))
			}
			var alt *Alternative
			for i := range a.Alternatives {
				if a.Alternatives[i].GPU == "rtx-3090" {
					alt = &a.Alternatives[i]
				}
			}
			if (alt != nil) != tt.want3090 {
				t.Fatalf("3090 listed = %v, want %v (alternatives %+v)", alt != nil, tt.want3090, a.Alternatives)
			}
			if alt == nil {
				return
			}
			if !tt.wantTotals {
				if alt.Hours != nil || alt.USDTotal != nil {
					t.Errorf("hours %v, total %v without a token budget; want nil", alt.Hours, alt.USDTotal)
				}
				return
			}
			// The same throughput code as the answer: ask on the 3090 directly.
			direct := q
			direct.GPU = "rtx-3090"
			d, err := e.Answer(direct)
			if err != nil {
				t.Fatal(err)
			}
			if alt.Hours == nil || alt.USDTotal == nil || d.Throughput.Hours == nil || d.Throughput.USDTotal == nil {
				t.Fatalf("hours %v, total %v; direct %+v: want all set", alt.Hours, alt.USDTotal, d.Throughput)
			}
			if !nearlyEqual(*alt.Hours, *d.Throughput.Hours) || !nearlyEqual(*alt.USDTotal, *d.Throughput.USDTotal) {
				t.Errorf("alternative %.1f h $%.2f, asked directly %.1f h $%.2f: want the same", *alt.Hours, *alt.USDTotal, *d.Throughput.Hours, *d.Throughput.USDTotal)
			}
			if ratio := *alt.Hours / *a.Throughput.Hours; !nearlyEqual(ratio, 165.2/71) {
				t.Errorf("3090 takes %.2f× the 4090's time, want 165.2/71 = %.2f×", ratio, 165.2/71)
			}
			if *alt.USDTotal >= *a.Throughput.USDTotal {
				t.Errorf("listed as cheaper at $%.2f against the asked $%.2f", *alt.USDTotal, *a.Throughput.USDTotal)
			}
		})
	}
}

// TestCheaperOrderedByRunCost: with a token budget the cheaper cards are
// ordered by the cost of the run, not the hourly price. At $0.30/h the
// RTX 3090 (71 TFLOPS) costs 0.30/71 = 0.0042 per TFLOPS-hour, the L40S
// at $0.65/h (362.05 TFLOPS) 0.0018: the L40S run is cheaper though its
// hour is dearer. Without a budget the 3090 comes first.
func TestCheaperOrderedByRunCost(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 5.0, "rtx-3090": 0.30, "l40s": 0.65}}
	for _, tt := range []struct {
		tokens int64
		want   []string
	}{
		{2e9, []string{"l40s", "rtx-3090"}},
		{0, []string{"rtx-3090", "l40s"}},
	} {
		q := qlora13BOn4090
		q.Tokens = tt.tokens
		a, err := e.Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, alt := range a.Alternatives {
			got = append(got, alt.GPU)
		}
		if len(got) != len(tt.want) || got[0] != tt.want[0] || got[1] != tt.want[1] {
			t.Errorf("tokens %d: alternatives %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

// TestFastestOrdersByRunTime: "fastest" times every way on the budget
// (1B tokens when none is said) and lists them fastest first; on a named
// card that fits, only the faster ways. Without it the same question
// lists cheaper ways, cheapest first.
func TestFastestOrdersByRunTime(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.34, "rtx-3090": 0.22, "a100-80": 1.79, "h100": 3.99, "l40s": 0.79, "b200": 5.98}}
	for _, text := range []string{"fastest way to full finetune qwen2.5 3b on a 4090", "quickest way to lora llama 3.1 8b on an l40s"} {
		p, err := Parse(text)
		if err != nil || !p.Query.Fastest {
			t.Fatalf("Parse(%q) = fastest %v, %v", text, p.Query.Fastest, err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Request.Fastest || a.Request.Tokens != 1e9 || a.Throughput.Hours == nil {
			t.Fatalf("%q: request fastest %v, tokens %d, hours %v; want fastest timed on 1B tokens", text, a.Request.Fastest, a.Request.Tokens, a.Throughput.Hours)
		}
		if len(a.Alternatives) == 0 {
			t.Fatalf("%q: no alternatives", text)
		}
		last := 0.0
		for _, alt := range a.Alternatives {
			if alt.Hours == nil || *alt.Hours < last {
				t.Fatalf("%q: alternatives not fastest first: %s at %v after %.1f h", text, alt.Why, alt.Hours, last)
			}
			last = *alt.Hours
			if a.Fits && last >= *a.Throughput.Hours {
				t.Errorf("%q: %s (%.1f h) is not faster than the answer (%.1f h)", text, alt.Why, last, *a.Throughput.Hours)
			}
		}
		if !strings.Contains(strings.Join(a.Assumptions, "\n"), "fastest asked") {
			t.Errorf("%q: assumptions do not say fastest was read: %q", text, a.Assumptions)
		}
	}
	if q, _ := Parse("fastest lora llama-3.1-8b l40s"); Format(q.Query) != "llama-3.1-8b lora l40s fastest" {
		t.Errorf("Format = %q, want the fastest ask kept", Format(q.Query))
	}
}

// TestFastestWithNoCard: the fastest run with no card named is a whole
// machine of the fastest priced card, not the cheapest card's fewest
// (answered 1× MI300X, 5.7 days, the slowest it listed).
func TestFastestWithNoCard(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"mi300x": 1.85, "h100": 2.40, "b200": 5.98, "a100-80": 1.39}}
	p, err := Parse("fastest way to finetune llama 3 70b with lora, budget doesnt matter")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.GPU != "b200" || a.Request.GPUs != 8 || a.Throughput.Hours == nil {
		t.Fatalf("answered on %d× %s (%v h), want a machine of 8 B200s", a.Request.GPUs, a.Request.GPU, a.Throughput.Hours)
	}
	for _, alt := range a.Alternatives {
		if alt.Hours != nil && *alt.Hours < *a.Throughput.Hours && alt.USDPerHour != nil {
			t.Errorf("%s takes %.1f h, faster than the answer's %.1f h", alt.Why, *alt.Hours, *a.Throughput.Hours)
		}
	}
}

// TestFastestGPUOrdersByRunTime: "fastest gpu" lists each card on a
// whole machine of it, fastest first, each timed on 1B tokens: the priced
// ones, then those with no price. Many slow cards at their fewest count
// never lead a fast card (led with 8× L4 over one B200).
func TestFastestGPUOrdersByRunTime(t *testing.T) {
	p, err := Parse("what's the fastest gpu to train a 7b lora on")
	if err != nil || p.Intent != IntentWhichGPU || !p.Query.Fastest {
		t.Fatalf("Parse: intent %s, fastest %v, %v; want which_gpu, fastest", p.Intent, p.Query.Fastest, err)
	}
	a, err := (&Estimator{Prices: stubPrices{"rtx-4090": 0.34, "h100": 2.99, "b200": 5.98}}).Ask(p.Query, p.Intent, p.Workload)
	if err != nil || a.WhichGPU == nil || !a.WhichGPU.Fastest {
		t.Fatalf("Ask: %v, %+v", err, a.WhichGPU)
	}
	last, priced := 0.0, true
	for _, o := range a.WhichGPU.Options {
		if o.Hours == nil {
			t.Fatalf("%s: no hours", o.GPU)
		}
		if p := o.USDPerHour != nil; p != priced {
			if p {
				t.Fatalf("%s priced after an unpriced card", o.GPU)
			}
			priced, last = false, 0
		}
		if *o.Hours < last {
			t.Fatalf("%s at %.1f h after %.1f: not fastest first", o.GPU, *o.Hours, last)
		}
		last = *o.Hours
	}
	if o := a.WhichGPU.Options[0]; o.GPU != "b200" || o.GPUs != 8 {
		t.Errorf("fastest %d× %s, want a machine of 8 B200s", o.GPUs, o.GPU)
	}
}

// TestCheapestWayOffersSmallerFormats: "cheapest way to serve" with no
// weight format said also offers the cheapest configurations in int8 and
// AWQ that cost less per hour, cheapest first; a format said, or no
// "cheapest", keeps the answer's own format.
func TestCheapestWayOffersSmallerFormats(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-3090": 0.25, "rtx-4090": 0.34, "l40s": 0.79, "a100-80": 1.79}}
	formats := func(text string) []Quant {
		p, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", text, err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		var qs []Quant
		for _, alt := range a.Alternatives {
			if alt.Request.Quant != a.Request.Quant {
				qs = append(qs, alt.Request.Quant)
			}
		}
		return qs
	}
	if got := formats("cheapest way to serve llama 3.1 70b"); len(got) != 2 || got[0] != QuantAWQ || got[1] != QuantINT8 {
		t.Errorf("cheapest way: other formats %q, want [awq int8] (AWQ on 2 RTX 3090s is the cheapest)", got)
	}
	// Training: a cheapest full fine-tune also gets the adapter ways.
	p, _ := Parse("cheapest way to fine tune phi-3 mini")
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	var methods []Method
	for _, alt := range a.Alternatives {
		if alt.Method != a.Request.Method {
			methods = append(methods, alt.Method)
		}
	}
	if a.Request.Method != MethodFull || len(methods) == 0 {
		t.Errorf("cheapest way to fine tune: %s, other methods %q; want full with adapter ways", a.Request.Method, methods)
	}
	for _, text := range []string{"serve llama 3.1 70b", "cheapest way to serve llama 3.1 70b in bf16"} {
		if got := formats(text); len(got) != 0 {
			t.Errorf("%q: other formats %q, want none", text, got)
		}
	}
}

// BenchmarkAnswerTokenBudget is BenchmarkAnswer with a token budget: the
// alternatives search orders and filters by run cost, and every
// alternative gets its run time and total.
func BenchmarkAnswerTokenBudget(b *testing.B) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.7, "rtx-3090": 0.22, "a100-80": 1.9, "h100": 2.5, "l40s": 1.0, "a10g": 1.0}}
	q := qlora13BOn4090
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Answer(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSameCardWaySpeed: the way that fits on the asked card carries its
// own speed, by the same throughput code as asking it directly (Gemma 3 27B in bf16 does not fit an L40S, fp8 does, and only
// the bf16 decode was timed).
func TestSameCardWaySpeed(t *testing.T) {
	e := &Estimator{}
	q := Query{Model: "gemma-3-27b", Method: MethodInference, GPU: "l40s"}
	a, err := e.Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits || len(a.Alternatives) == 0 {
		t.Fatalf("fits %v with %d alternatives, want a way that fits", a.Fits, len(a.Alternatives))
	}
	alt := a.Alternatives[0]
	if alt.GPU != "l40s" || alt.GPUs != 1 || alt.Request.Quant == "" {
		t.Fatalf("first way %+v, want a weight format on the same card", alt)
	}
	direct := q
	direct.Quant = alt.Request.Quant
	d, err := e.Answer(direct)
	if err != nil {
		t.Fatal(err)
	}
	if alt.TokensPerSecond == nil || d.Throughput.TokensPerSecond == nil || !nearlyEqual(*alt.TokensPerSecond, *d.Throughput.TokensPerSecond) {
		t.Fatalf("way's speed %v, asked directly %v: want the same", alt.TokensPerSecond, d.Throughput.TokensPerSecond)
	}
	if *alt.TokensPerSecond <= *a.Throughput.TokensPerSecond {
		t.Errorf("%s decodes at %.1f tokens/s, bf16 at %.1f: want the smaller weights faster", alt.Request.Quant, *alt.TokensPerSecond, *a.Throughput.TokensPerSecond)
	}
}

// TestCheapestServes: with no card named, an inference answer picks the
// cheapest card whose serving engine holds a request, not the cheapest
// that only loads the weights, and never plans consumer PCIe cards across
// machines (DeepSeek-R1 in fp8 is never "32× RTX 3090", which serves
// nothing).
func TestCheapestServes(t *testing.T) {
	var e Estimator
	for _, q := range []string{
		"cheapest way to run deepseek r1 671b fp8",
		"llama 3.1 405b inference fp8",
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("Answer(%q): %v", q, err)
		}
		if !a.Fits || a.Serving == nil || a.Serving.MaxConcurrency < 1 {
			t.Errorf("%q: on %d× %s, fits %v, serving %+v: want a card that serves a request", q, a.Request.GPUs, a.GPUName, a.Fits, a.Serving)
		}
		g, _, err := LookupGPU(a.Request.GPU)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if g.Link == LinkPCIe && a.Request.Nodes > 1 {
			t.Errorf("%q: %d× %s over %d machines joined by ethernet", q, a.Request.GPUs, a.GPUName, a.Request.Nodes)
		}
	}
}

// TestEightBitOffersFourBit: an 8-bit model that does not fit the cards
// named gets the 4-bit way on the same cards (Llama 3 70B
// in int8 on two RTX 3090s offered only more cards; AWQ fits the two).
func TestEightBitOffersFourBit(t *testing.T) {
	var e Estimator
	for _, c := range []struct {
		q    string
		want Quant
	}{
		{"i have two 3090s, can i run llama 3 70b in 8bit", QuantAWQ},
		{"llama 3 70b q8_0 on a mac mini m4 pro 64gb", QuantQ4_KM},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.q, err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("Answer(%q): %v", c.q, err)
		}
		if a.Fits || len(a.Alternatives) == 0 {
			t.Fatalf("%q: fits %v with %d alternatives; want a miss with ways", c.q, a.Fits, len(a.Alternatives))
		}
		first := a.Alternatives[0]
		if first.Request.Quant != c.want || first.GPU != a.Request.GPU || first.GPUs != a.Request.GPUs || !first.Fits {
			t.Errorf("%q: first way %s on %d× %s (%s), want %s on the same %d× %s", c.q, first.Request.Quant, first.GPUs, first.GPU, first.Why, c.want, a.Request.GPUs, a.Request.GPU)
		}
	}
}

// TestSameCardWaysServe: a way on the same card must leave its serving
// engine room for a request, or a 4-bit way that serves is hidden behind
// an 8-bit one that only loads (Qwen3 30B-A3B on one RTX
// 5090 offered other cards only; fp8 loads at 30.5 GiB and serves
// nothing, AWQ serves at 17.5 GiB).
func TestSameCardWaysServe(t *testing.T) {
	var e Estimator
	p, err := Parse("serve qwen3 30b a3b on a single rtx 5090?")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	var awq bool
	for _, alt := range a.Alternatives {
		if alt.GPU == a.Request.GPU && alt.GPUs == a.Request.GPUs && alt.Request.Quant == QuantAWQ {
			awq = true
		}
	}
	if a.Fits || !awq {
		t.Errorf("fits %v; ways %v: want a miss with AWQ on the same card", a.Fits, whys(a.Alternatives))
	}
}

// whys lists the alternatives' descriptions, for test messages.
func whys(alts []Alternative) []string {
	out := make([]string, len(alts))
	for i, a := range alts {
		out[i] = a.Why
	}
	return out
}

// TestLongSequenceWays: at a long sequence the layers dominate without
// checkpointing and the logits with it, so the way on the same card is
// both (Llama 3.1 8B LoRA at 32k on one H100 offered only
// 256-288 GB cards; with checkpointing and a fused loss it is 31.2 GiB).
func TestLongSequenceWays(t *testing.T) {
	var e Estimator
	p, err := Parse("lora on llama 3.1 8b with 32k sequence length on one h100")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits || len(a.Alternatives) == 0 {
		t.Fatalf("fits %v with %d ways: want a miss with ways", a.Fits, len(a.Alternatives))
	}
	first := a.Alternatives[0].Request
	if first.GPU != a.Request.GPU || first.GPUs != 1 || !first.GradCheckpointing || !first.FusedLoss {
		t.Errorf("first way %q, want checkpointing and a fused loss on the same H100", a.Alternatives[0].Why)
	}
}

// TestFromScratchOffersNoAdapters: a run from random weights has no base
// for LoRA or QLoRA to train on, so no alternative adds adapters (led "can we train a 7b from scratch on 4 4090s" with "fits with
// LoRA"); the same question as a fine-tune still offers them.
func TestFromScratchOffersNoAdapters(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.34, "a100-80": 1.79, "h100": 3.99}}
	for _, c := range []struct {
		text     string
		adapters bool
	}{
		{"can we train a 7b from scratch on 4 4090s", false},
		{"full finetune a 7b on 4 4090s", true},
	} {
		p, err := Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		adapters := false
		for _, alt := range a.Alternatives {
			adapters = adapters || alt.Method == MethodLoRA || alt.Method == MethodQLoRA
		}
		if adapters != c.adapters || a.Request.FromScratch == c.adapters {
			t.Errorf("%q: adapters offered %v, from scratch %v; want adapters %v", c.text, adapters, a.Request.FromScratch, c.adapters)
		}
	}
}

// TestLongRunScalesOut: with no card named, a run of years on the
// cheapest count is answered on enough of that card to take about a month
// (15T tokens of Llama 3 8B on one MI300X for 50 years).
func TestLongRunScalesOut(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"mi300x": 1.85, "h100": 2.4}}
	p, err := Parse("how much did it cost to train llama 3 8b on 15t tokens")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	h := a.Throughput.Hours
	if a.Request.GPUs < 64 || h == nil || *h > 2*targetRunHours || *h < targetRunHours/4 {
		t.Errorf("%d GPUs, hours %v: want the run scaled out to about a month", a.Request.GPUs, h)
	}
	if a.Request.GPUs%8 != 0 {
		t.Errorf("%d GPUs: want whole machines of 8", a.Request.GPUs)
	}
}
