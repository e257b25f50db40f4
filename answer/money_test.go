package answer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// TestPriceSaidIsUsed: a price per GPU-hour in the question costs the
// run ("at 2.5$/hr" was not used and the run was costed at
// the market's $2.40), and the assumption says whose price it is.
func TestPriceSaidIsUsed(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	f, err := s.Fit(context.Background(), s.Read("pretrain a 3b model on 300b tokens on h100s at 2.5$/hr"))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Answer
	if a.Price == nil || a.Price.USDPerGPUHour != 2.5 || !a.Price.AsOf.IsZero() {
		t.Fatalf("price %+v, want the asker's $2.50 with no date", a.Price)
	}
	h, total := a.Throughput.Hours, a.Throughput.USDTotal
	if h == nil || total == nil || *total != *h*2.5 {
		t.Errorf("total %v over %v h, want the hours at $2.50", total, h)
	}
	joined := strings.Join(a.Assumptions, "\n")
	if !strings.Contains(joined, `price $2.50 per GPU-hour as asked ("at 2.5$/hr")`) || strings.Contains(joined, "not used") {
		t.Errorf("assumptions %q, want the asker's price said and nothing not used", a.Assumptions)
	}
	if f.Estimate.Price == nil || f.Estimate.Price.USDPerGPUHour == 2.5 {
		t.Errorf("the estimate's price %+v was changed, want the market's kept for the cache", f.Estimate.Price)
	}
}

// TestPriceSaidCostsServing: the asker's price per GPU-hour costs what
// named cards serve ("on 2x h100 at $2.5/hr each" was
// not used and the tokens were costed at the market's $2.40).
func TestPriceSaidCostsServing(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	q := s.Read("whats the per token cost of serving llama 3 70b on 2x h100 at $2.5/hr each, assume full batching")
	a, err := s.AskAnswer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	market, err := s.AskAnswer(context.Background(), s.Read("whats the per token cost of serving llama 3 70b on 2x h100"))
	if err != nil {
		t.Fatal(err)
	}
	c, m := a.Serve.Capacity, market.Serve.Capacity
	if c == nil || m == nil || c.USDPerHour == nil || m.USDPerHour == nil || c.USDPerMillionOutputTokens == nil {
		t.Fatalf("no capacity costs: %+v / %+v", a.Serve, market.Serve)
	}
	if *c.USDPerHour != 5 {
		t.Errorf("$/h %v, want 2 GPUs × $2.50", *c.USDPerHour)
	}
	want := *m.USDPerMillionOutputTokens / *m.USDPerHour * 5
	if got := *c.USDPerMillionOutputTokens; got < want*0.999 || got > want*1.001 {
		t.Errorf("$/1M out %v, want the market's scaled to $2.50, %v", got, want)
	}
	if joined := strings.Join(a.Targets, "\n"); strings.Contains(joined, "not used") {
		t.Errorf("targets %q: the asked price was used", a.Targets)
	}
}

// TestBudgetSaidIsAnswered: a budget in the question is answered first
// (dropped it without a word): what it buys on the
// answered configuration and whether the run fits in it.
func TestBudgetSaidIsAnswered(t *testing.T) {
	priced := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	unpriced := &Service{Estimator: Fixed{&sizing.Estimator{}}}
	for _, c := range []struct {
		s    *Service
		text string
		want []string
	}{
		{priced, "we have $5k/month, whats the most users we can serve mistral 7b to",
			[]string{"Budget $5,000/month: ", " running 24/7 (", "requests at once at "}},
		{priced, "budget is $2000 for a lora on mixtral 8x7b, doable?",
			[]string{"Within the $2,000 budget: a 1B-token run (no token count said) costs $", "; $2,000 buys about ", " tokens"}},
		{priced, "pretrain a 3b model on 300b tokens on an h100 with a $5000 budget",
			[]string{"Over the $5,000 budget: the run costs $", "(300B tokens); $5,000 buys about ", "% of them"}},
		{priced, "llama 3 8b lora on 100m tokens on a 4090 $1k/month",
			[]string{"Within the $1,000/month budget: 1× RTX 4090 24 GB costs $", "/month running 24/7; the run costs $"}},
		{unpriced, "budget is $2000 for a lora on mixtral 8x7b on an h100",
			[]string{`Budget $2,000 not checked: no price known for 1× H100 SXM 80 GB (say one, e.g. "at $2/hr")`}},
	} {
		f, err := c.s.Fit(context.Background(), c.s.Read(c.text))
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if len(f.Answer.Targets) != 1 {
			t.Errorf("%q: targets %q, want one", c.text, f.Answer.Targets)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(f.Answer.Targets[0], w) {
				t.Errorf("%q: target %q, want %q in it", c.text, f.Answer.Targets[0], w)
			}
		}
		if len(f.Estimate.Targets) != 0 {
			t.Errorf("%q: the estimate has targets %q, want them only on the answer", c.text, f.Estimate.Targets)
		}
	}
}

// TestDeadlineDayIsCounted: "by friday" is a time target counted from
// the service's clock (left it among the words not used).
func TestDeadlineDayIsCounted(t *testing.T) {
	wed := time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC)
	s := &Service{Estimator: Fixed{&sizing.Estimator{}}, Now: func() time.Time { return wed }}
	for text, want := range map[string]string{
		"need to finetune llama 3 8b full by friday on 1B tokens, how many a100s": "Done by friday (Fri 23:59 UTC, 63 h from now): about ",
		"llama 3.1 70b full on 10b tokens on 8x h100 by tomorrow":                 "Not done by tomorrow (Thu 23:59 UTC, 39 h from now): about ",
	} {
		f, err := s.Fit(context.Background(), s.Read(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(f.Answer.Targets) != 1 || !strings.HasPrefix(f.Answer.Targets[0], want) {
			t.Errorf("%q: targets %q, want one starting %q", text, f.Answer.Targets, want)
		}
		if all := strings.Join(f.Answer.Assumptions, "\n"); strings.Contains(all, "not used") {
			t.Errorf("%q: assumptions\n%s\nwant nothing not used", text, all)
		}
	}
}

// TestAskTargets: a deadline, a budget or a price in a question that
// runs the other way round is said first, never dropped (dropped "in under 2 hrs" from a which-GPU list without a word).
func TestAskTargets(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	for _, c := range []struct {
		text string
		want string
		cut  bool // the list keeps only the cards done in time
	}{
		{"cheapest gpu to fine tune llama 3.1 8b with lora in under 2 hrs",
			`"in under 2 hrs" not checked: no token count said; 1× `, false},
		{"cheapest gpu to fine tune llama 3.1 8b with lora on 100m tokens in under 5 hrs", "Done in under 5 hrs: the ", true},
		{"cheapest gpu to fine tune llama 3.1 8b with lora on 1b tokens in under 2 hrs", "None done in under 2 hrs: every card below takes longer for 1B tokens; the fastest, ", false},
		{"which gpu for llama 3 8b inference $5k/month", "Budget $5,000/month not checked: ", false},
		{"which gpu for llama 3 8b inference at $2/hr", `"at $2/hr" not used: this answer counts every card at its market price`, false},
	} {
		q := s.Read(c.text)
		a, err := s.AskAnswer(context.Background(), q)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if len(a.Targets) != 1 || !strings.HasPrefix(a.Targets[0], c.want) {
			t.Errorf("%q: targets %q, want one starting %q", c.text, a.Targets, c.want)
		}
		if a.WhichGPU == nil {
			t.Fatalf("%q: no which-GPU answer", c.text)
		}
		all, err := est.Ask(context.Background(), q.Parsed)
		if err != nil {
			t.Fatal(err)
		}
		if cut := len(a.WhichGPU.Options) < len(all.WhichGPU.Options); cut != c.cut {
			t.Errorf("%q: %d options of %d, want cut %v", c.text, len(a.WhichGPU.Options), len(all.WhichGPU.Options), c.cut)
		}
		for _, o := range a.WhichGPU.Options {
			if c.cut && (o.Hours == nil || *o.Hours > 5) {
				t.Errorf("%q: %s kept, %v h", c.text, o.GPUName, o.Hours)
			}
		}
	}
}

// TestBudgetBuysAPlan: a monthly budget on a serving plan says which of
// its configurations, run 24/7 within the budget, holds the most users
// (named it as not used: the cheapest single replica of
// Llama 3.3 70B holds 2 users; $20k a month of A100s in AWQ holds 300).
func TestBudgetBuysAPlan(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	a, err := s.AskAnswer(context.Background(), s.Read("budget 20k/month, how many concurrent users can we serve on llama 3.3 70b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Targets) != 1 || !strings.HasPrefix(a.Targets[0], "Budget $20,000/month: ") || !strings.Contains(a.Targets[0], "users at once") {
		t.Errorf("targets %q, want what $20,000 a month serves", a.Targets)
	}
}

// TestRunLengthIsCosted: "for 10 hours" on a question with no token
// budget is the run's length: what that time costs on the answered
// configuration and the tokens it trains there, on the way that fits on
// the same card when the asked one does not (left it among the words not used). With a token budget it is checked
// as a deadline.
func TestRunLengthIsCosted(t *testing.T) {
	est := Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}
	s := &Service{Estimator: est, Asker: est}
	for text, want := range map[string]string{
		"what would it cost to train a lora on llama 3.1 70b on runpod for ~10 hours on a100 80gb": "For ~10 hours: $13.90 on 1× A100 SXM 80 GB at $1.39/h; it does not fit as asked, and with QLoRA (4-bit base, adapters only) on the same card it trains about ",
		"how much would it cost to dpo llama 3.1 8b on runpod for 10 hours on an a100":             "For 10 hours: $13.90 on 1× A100 SXM 80 GB at $1.39/h; it does not fit as asked, and with LoRA rank 16 (frozen 16-bit base) on the same card it trains about ",
		"qlora 70b on an a100 on runpod for 3 days":                                                "For 3 days: $100 on 1× A100 SXM 80 GB at $1.39/h, training about ",
		"serve llama 3 8b on an l4 on aws for 10 hours":                                            "For 10 hours: $8.05 on 1× L4 24 GB at $0.80/h",
		"llama 3 8b lora on an h100 for 10 hours on 100M tokens":                                   "Done in the 10 hours said: about ",
	} {
		f, err := s.Fit(context.Background(), s.Read(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(f.Answer.Targets) != 1 || !strings.HasPrefix(f.Answer.Targets[0], want) {
			t.Errorf("%q: targets %q, want one starting %q", text, f.Answer.Targets, want)
		}
		if all := strings.Join(f.Answer.Assumptions, "\n"); strings.Contains(all, "not used") {
			t.Errorf("%q: assumptions\n%s\nwant nothing not used", text, all)
		}
	}
	q := s.Read("which gpu for llama 3 8b lora for 10 hours")
	a, err := s.AskAnswer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if want := "For 10 hours: 1× "; len(a.Targets) != 1 || !strings.HasPrefix(a.Targets[0], want) || !strings.Contains(a.Targets[0], " tokens for $") {
		t.Errorf("which-GPU targets %q, want one starting %q with the tokens and their cost", a.Targets, want)
	}
}
