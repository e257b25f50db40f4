package sizing

import (
	"math"
	"testing"
)

// TestDocJobFigures holds a job's time and cost to its arithmetic: its
// tokens over the forward pass's rate (2 × parameters plus attention per
// token), its hours at the card's price, and a month's share of 730 h.
func TestDocJobFigures(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.34, "rtx-3090": 0.22, "l4": 0.8}}
	p, err := Parse("embed 5M documents with bge-large on a 4090")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	j := a.Job
	if j == nil {
		t.Fatal("no job in the answer")
	}
	if j.Documents != 5e6 || j.DocumentTokens != 512 || j.Tokens != 2_560_000_000 || a.Request.Tokens != j.Tokens {
		t.Errorf("job = %+v, request tokens %d; want 5M documents of 512 tokens, 2.56B tokens", j, a.Request.Tokens)
	}
	if a.Request.SeqLen != 512 || a.Request.MicroBatch != jobBatch {
		t.Errorf("sized at seq %d batch %d, want 512 and %d", a.Request.SeqLen, a.Request.MicroBatch, jobBatch)
	}
	// BGE-large: 335M parameters, 24 layers of width 1024: ~0.67 GFLOPs
	// a token forward, plus attention at 512 tokens.
	f := *a.Throughput.FLOPsPerToken
	if f < 2*330e6 || f > 2*345e6+60e6 {
		t.Errorf("FLOPs per token = %.3g, want about 2 × 335M plus attention", f)
	}
	tps := *a.Throughput.PrefillTokensPerSecond
	if j.TokensPerSecond != tps {
		t.Errorf("job speed %v, want the prefill rate %v", j.TokensPerSecond, tps)
	}
	if want := 2.56e9 / tps / 3600; math.Abs(j.Hours-want) > 1e-9 {
		t.Errorf("hours = %v, want tokens / tokens per second = %v", j.Hours, want)
	}
	if j.USD == nil || math.Abs(*j.USD-j.Hours*0.34) > 1e-9 {
		t.Errorf("usd = %v, want hours × $0.34 = %v", j.USD, j.Hours*0.34)
	}
	if a.Throughput.Hours == nil || *a.Throughput.Hours != j.Hours || *a.Throughput.USDTotal != *j.USD {
		t.Errorf("throughput %+v disagrees with the job %+v", a.Throughput, j)
	}
	// The alternatives are timed the same way: the 3090 at its own rate.
	for _, alt := range a.Alternatives {
		if alt.Hours == nil || alt.TokensPerSecond == nil {
			continue
		}
		if want := 2.56e9 / *alt.TokensPerSecond / 3600; math.Abs(*alt.Hours-want) > 1e-6 {
			t.Errorf("%s: %v h, want %v (tokens over its forward-pass rate)", alt.GPU, *alt.Hours, want)
		}
	}

	p, err = Parse("bge-large embeddings for 10 million docs of 300 tokens a month on an l4")
	if err != nil {
		t.Fatal(err)
	}
	a, err = e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	j = a.Job
	if j == nil || !j.Monthly || j.Tokens != 3e9 {
		t.Fatalf("job = %+v, want 3B tokens a month", j)
	}
	if want := j.Hours / 730; math.Abs(j.BusyShare-want) > 1e-12 {
		t.Errorf("busy share = %v, want hours / 730 = %v", j.BusyShare, want)
	}
	if a.Throughput.USDPerMonth != nil {
		t.Errorf("usd_per_month = %v: a job's month is its documents', not the card rented 24/7", *a.Throughput.USDPerMonth)
	}
}

// TestDocJobCheapestCard: with no card named the job goes on the card
// that costs least for the whole job, not by the hour.
func TestDocJobCheapestCard(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.34, "rtx-3090": 0.22, "h100": 2.4, "l4": 0.8}}
	p, err := Parse("whats the cheapest gpu to run bge-m3 embeddings for 10 million docs a month")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.WhichGPU(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	w := a.WhichGPU
	if w.Job == nil || len(w.Options) == 0 {
		t.Fatalf("which-GPU answer has no job: %+v", w)
	}
	for _, o := range w.Options[1:] {
		if o.USDTotal != nil && *o.USDTotal < *w.Options[0].USDTotal {
			t.Errorf("%s costs %v for the job, less than the first, %s at %v", o.GPU, *o.USDTotal, w.Options[0].GPU, *w.Options[0].USDTotal)
		}
	}
	if w.Job.USD == nil || *w.Job.USD != *w.Options[0].USDTotal || !w.Job.Monthly {
		t.Errorf("job = %+v, want the first option's cost a month", w.Job)
	}
}
