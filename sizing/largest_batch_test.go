package sizing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLargestBatch answers training questions that ask the largest batch:
// the largest micro-batch per GPU that fits as asked and
// with each same-card lever not already on, the answer sized at the
// largest as asked (batch 1 when none fits). Each figure is checked
// against the estimator's own per-term figures: it fits, one more does
// not, and the activations are that many times batch 1's.
func TestLargestBatch(t *testing.T) {
	var e Estimator
	for _, c := range []struct {
		q            string
		asked        int
		ckpt, fused  int // -1: the lever was already on (nil)
		fits         bool
		answeredAtMB int
	}{
		// Llama 3 8B's LoRA at 4k on 40 GB: 16.8 GiB fixed, 29.3 GiB of
		// activations a sequence, 10.4 with checkpointing (mostly logits),
		// so none fits as asked, 2 with checkpointing, 12 with a fused loss too.
		{"what batch size can we fit for lora llama 3 8b on a 40gb a100, seq 4096", 0, 2, 12, false, 1},
		{"max batch size lora llama 3 8b h100 seq 4096", 2, 6, 34, true, 2},
		{"max bs lora llama 3 8b h100 seq 4096 with gradient checkpointing", 6, -1, 34, true, 6},
		{"largest micro batch for lora llama 3.2 1b on an h100 at seq 512", 42, 64, 893, true, 42},
		{"how big a batch can we fit for a 125m lora on an h100 at seq 128", 750, BatchSearchCap, BatchSearchCap, true, 750},
		{"max batch full finetune llama 3 70b on one a100", 0, 0, 0, false, 1},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.q, err)
			continue
		}
		if !p.Query.MaxBatch || p.Query.Serve.MaxBatch {
			t.Errorf("%q: not read as a training largest-batch ask: %s", c.q, Format(p.Query))
			continue
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Errorf("Answer(%q): %v", c.q, err)
			continue
		}
		lb := a.LargestBatch
		if lb == nil {
			t.Errorf("%q: no largest batch", c.q)
			continue
		}
		if lb.MicroBatch != c.asked || lever(lb.WithCheckpointing) != c.ckpt || lever(lb.WithFusedLoss) != c.fused {
			t.Errorf("%q: largest %d, with checkpointing %d, with a fused loss %d; want %d, %d, %d",
				c.q, lb.MicroBatch, lever(lb.WithCheckpointing), lever(lb.WithFusedLoss), c.asked, c.ckpt, c.fused)
		}
		if a.Fits != c.fits || a.Request.MicroBatch != c.answeredAtMB {
			t.Errorf("%q: answered at batch %d (fits %v), want %d (fits %v)", c.q, a.Request.MicroBatch, a.Fits, c.answeredAtMB, c.fits)
		}
		checkLargest(t, c.q, p.Query, lb.MicroBatch)
		on, lq := true, p.Query
		if lb.WithCheckpointing != nil {
			lq.GradCheckpointing = &on
			checkLargest(t, c.q+" with checkpointing", lq, *lb.WithCheckpointing)
		}
		if lb.WithFusedLoss != nil {
			lq.FusedLoss = &on
			checkLargest(t, c.q+" with a fused loss too", lq, *lb.WithFusedLoss)
		}
		if back, err := Parse(Format(p.Query)); err != nil || !cmp.Equal(back.Query, p.Query) {
			t.Errorf("%q: %q does not read back to the same question (%v)", c.q, Format(p.Query), err)
		}
	}
}

// lever is a lever's largest batch, -1 when it was already on.
func lever(n *int) int {
	if n == nil {
		return -1
	}
	return *n
}

// checkLargest checks a largest batch n of q by the estimator's per-term
// figures: batch n fits and n+1 does not (below the cap), and batch n's
// activations are n times batch 1's.
func checkLargest(t *testing.T, what string, q Query, n int) {
	t.Helper()
	var e Estimator
	at := func(mb int) Answer {
		q.MaxBatch, q.MicroBatch = false, mb
		a, err := e.Answer(q)
		if err != nil {
			t.Fatalf("%q at batch %d: %v", what, mb, err)
		}
		return a
	}
	one := at(1)
	if n == 0 {
		if one.Fits {
			t.Errorf("%q: batch 1 fits as asked, yet the largest is 0", what)
		}
		return
	}
	a := at(n)
	if !a.Fits || a.PerGPU.ActivationsBytes != int64(n)*one.PerGPU.ActivationsBytes {
		t.Errorf("%q: batch %d fits %v with %d bytes of activations, want it to fit with %d × %d",
			what, n, a.Fits, a.PerGPU.ActivationsBytes, n, one.PerGPU.ActivationsBytes)
	}
	if n < BatchSearchCap && at(n+1).Fits {
		t.Errorf("%q: batch %d fits too, yet the largest is %d", what, n+1, n)
	}
}

// TestLargestBatchServing: "max batch" on a serving question stays the
// KV cache's most requests at once, never a training micro-batch.
func TestLargestBatchServing(t *testing.T) {
	p, err := Parse("whats the max batch size for llama 3 8b inference on an a10 at 2k ctx")
	if err != nil {
		t.Fatal(err)
	}
	if p.Query.MaxBatch || !p.Query.Serve.MaxBatch {
		t.Errorf("read as %s (MaxBatch %v, Serve.MaxBatch %v), want the serving max batch", Format(p.Query), p.Query.MaxBatch, p.Query.Serve.MaxBatch)
	}
}
