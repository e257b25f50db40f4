package answer

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// countedEstimator counts the estimates and searches it makes.
type countedEstimator struct {
	est           *sizing.Estimator
	answers, asks atomic.Int64
}

func (c *countedEstimator) Answer(_ context.Context, q sizing.Query) (sizing.Answer, error) {
	c.answers.Add(1)
	return c.est.Answer(q)
}

func (c *countedEstimator) Ask(_ context.Context, p reading.Request) (sizing.AskAnswer, error) {
	c.asks.Add(1)
	return Fixed{c.est}.Ask(context.Background(), p)
}

// TestMemo: a question asked again under the same version is not
// estimated or searched again; a newer version empties the memo, an
// answer made under an older one is not kept, and a question that differs
// in a field its canonical form leaves out, or carries its model whole,
// is answered afresh.
func TestMemo(t *testing.T) {
	ctx := context.Background()
	c := &countedEstimator{est: &sizing.Estimator{}}
	var version atomic.Uint64
	version.Store(1)
	m := NewMemo(version.Load)
	est, ask := m.Estimator(c), m.Asker(c)
	q := sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodQLoRA, GPU: "rtx-4090"}
	estimate := func(q sizing.Query, want int64) {
		t.Helper()
		if _, err := est.Answer(ctx, q); err != nil {
			t.Fatal(err)
		}
		if got := c.answers.Load(); got != want {
			t.Fatalf("%d estimates, want %d", got, want)
		}
	}
	estimate(q, 1)
	estimate(q, 1) // kept
	other := q
	other.LoRARank = 64
	estimate(other, 2) // another question under the same canonical words
	version.Store(2)
	estimate(q, 3) // the prices moved
	estimate(q, 3)
	arch := q
	arch.Model, arch.Arch = "", &sizing.Model{ID: "org/model", Name: "org/model"}
	_, _ = est.Answer(ctx, arch) // counted, not judged
	_, _ = est.Answer(ctx, arch)
	if got := c.answers.Load(); got != 5 {
		t.Errorf("%d estimates after a model carried whole asked twice, want 5: it is answered every time", got)
	}

	p, err := reading.Parse("what 2x4090 lora")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := ask.Ask(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.asks.Load(); got != 1 {
		t.Errorf("%d searches for one ask asked three times, want 1", got)
	}
	withBudget := p
	withBudget.Money.USDPerGPUHour = 0.5
	for range 2 {
		if _, err := ask.Ask(ctx, withBudget); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.asks.Load(); got != 3 {
		t.Errorf("%d searches, want an ask that says a budget searched every time", got)
	}
}

// TestMemoKeepsNothingOlder: an answer made under a version older than
// the memo's (the prices moved while it was being made) is not kept.
func TestMemoKeepsNothingOlder(t *testing.T) {
	m := NewMemo(func() uint64 { return 2 })
	keep(m, 2, m.fits, "a", memoFit{})
	keep(m, 1, m.fits, "b", memoFit{})
	if _, ok := m.fits["b"]; ok {
		t.Error("an answer of an older version was kept")
	}
	if _, ok := lookup(m, 2, m.fits, "a", func(f memoFit) (sizing.Answer, bool) { return f.a, true }); !ok {
		t.Error("the answer of the memo's version is not found")
	}
	if _, ok := lookup(m, 3, m.fits, "a", func(f memoFit) (sizing.Answer, bool) { return f.a, true }); ok {
		t.Error("an answer served under a newer version")
	}
}
