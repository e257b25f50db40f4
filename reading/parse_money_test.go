package reading

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseMoney reads a budget and a price per GPU-hour as people type
// them, and leaves money it cannot read
// among the words not used.
func TestParseMoney(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  Money
		query string
	}{
		{"we have $5k/month, whats the most users we can serve mistral 7b to",
			Money{BudgetUSD: 5000, PerMonth: true, BudgetWords: "$5k/month"}, "mistral-7b-v0.1 inference"},
		{"budget is $2000 for a lora on mixtral 8x7b, doable?",
			Money{BudgetUSD: 2000, BudgetWords: "$2000"}, "mixtral-8x7b lora"},
		{"pretrain a 3b model on 300b tokens on h100s at 2.5$/hr",
			Money{USDPerGPUHour: 2.5, PriceWords: "at 2.5$/hr"}, "3b full h100 from scratch 300b tokens fewest"},
		{"llama 3 8b lora at $2/h on an a100", Money{USDPerGPUHour: 2, PriceWords: "at $2/h"}, "llama-3-8b lora a100-80"},
		{"llama 3 8b lora $2.50 per gpu hour on h100", Money{USDPerGPUHour: 2.5, PriceWords: "$2.50 per gpu hour"}, "llama-3-8b lora h100"},
		{"llama 3 8b lora $2.5/gpu/hr", Money{USDPerGPUHour: 2.5, PriceWords: "$2.5/gpu/hr"}, "llama-3-8b lora"},
		{"llama 3 8b lora 5k usd", Money{BudgetUSD: 5000, BudgetWords: "5k usd"}, "llama-3-8b lora"},
		{"llama 3 8b lora 2k dollars a month", Money{BudgetUSD: 2000, PerMonth: true, BudgetWords: "2k dollars a month"}, "llama-3-8b lora"},
		{"llama 3 8b lora $2,000 on h100", Money{BudgetUSD: 2000, BudgetWords: "$2,000"}, "llama-3-8b lora h100"},
		{"llama 3 8b lora $1.2k monthly at $3/hr", Money{BudgetUSD: 1200, PerMonth: true, BudgetWords: "$1.2k monthly",
			USDPerGPUHour: 3, PriceWords: "at $3/hr"}, "llama-3-8b lora"},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if p.Money != c.want {
			t.Errorf("%q: money %+v, want %+v", c.in, p.Money, c.want)
		}
		if got := sizing.Format(p.Query); got != c.query {
			t.Errorf("%q: query %q, want %q", c.in, got, c.query)
		}
		for _, u := range p.Unused {
			if u == "budget" || u == "have" && c.want.BudgetUSD == 0 {
				t.Errorf("%q: %q not used", c.in, u)
			}
		}
	}
	p, err := Parse("llama 3 8b lora $100/day")
	if err != nil {
		t.Fatal(err)
	}
	if p.Money != (Money{}) || len(p.Unused) != 1 || p.Unused[0] != "$100/day" {
		t.Errorf("$100/day: money %+v, unused %q; want none read and the words not used", p.Money, p.Unused)
	}
}

// FuzzReadMoney: never panics; an amount read is positive and within its
// bound, comes with the words that said it, which are in the question,
// and a budget a month has an amount.
func FuzzReadMoney(f *testing.F) {
	for _, s := range []string{"$5k/month", "budget is $2000", "at 2.5$/hr", "$2.50 per gpu hour", "5k usd", "2k dollars a month",
		"$2,000", "$1.2k monthly at $3/hr", "budget is like 5k", "a 12k budget/month", "@ $2 hourly", "$2/hours"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		toks, err := lex(q)
		if err != nil {
			return
		}
		_, m := readMoney(q, toks)
		bad := m.BudgetUSD < 0 || m.BudgetUSD > maxBudgetUSD || m.USDPerGPUHour < 0 || m.USDPerGPUHour > maxGPUHourUSD ||
			(m.BudgetUSD > 0) != (m.BudgetWords != "") || (m.USDPerGPUHour > 0) != (m.PriceWords != "") ||
			m.PerMonth && m.BudgetUSD == 0 || !strings.Contains(q, m.BudgetWords) || !strings.Contains(q, m.PriceWords)
		if bad {
			t.Fatalf("readMoney(%q) = %+v", q, m)
		}
	})
}
