package sizing

import "fmt"

// BatchSearchCap is the largest micro-batch per GPU a largest-batch ask
// tries: past it the answer says "or more" rather than search on.
const BatchSearchCap = 1024

// LargestBatch answers a training question that asks the largest batch
// ("what batch size can we fit", "max batch size", "largest micro
// batch"): the largest micro-batch per GPU that fits the asked cards as
// asked, and with the same-card levers that raise it when the question
// did not already have them on. The memory of a training run grows with
// the micro-batch (activations and logits are per sequence), so each is
// found by doubling and then bisection up to BatchSearchCap. A figure of 0
// is that batch 1 does not fit; BatchSearchCap is that it or more fits.
type LargestBatch struct {
	// MicroBatch is the largest micro-batch per GPU that fits as asked;
	// the answer is sized at it (at 1 when it is 0).
	MicroBatch int `json:"micro_batch"`
	// WithCheckpointing is the largest with gradient checkpointing on;
	// nil when the question already had it on.
	WithCheckpointing *int `json:"with_checkpointing,omitempty"`
	// WithFusedLoss is the largest with a fused cross-entropy too (and
	// checkpointing, when that is a lever); nil when the question already
	// had a fused loss.
	WithFusedLoss *int `json:"with_fused_loss,omitempty"`
}

// largestBatch answers a largest-batch ask: q at the largest micro-batch
// that fits as asked (1 when none does), and the search's figures. A
// question that cannot be resolved, or that is not a training question,
// is returned as it is, for Answer to report or answer plainly.
func (e *Estimator) largestBatch(q Query) (Query, *LargestBatch) {
	q.MicroBatch = 1
	first, err := resolve(q)
	if err != nil || first.req.Method == MethodInference || first.shape.diffusion != nil {
		q.MicroBatch = 0
		return q, nil
	}
	lb := &LargestBatch{MicroBatch: largestMicroBatch(q)}
	lever := q
	if !first.req.GradCheckpointing {
		on := true
		lever.GradCheckpointing = &on
		n := largestMicroBatch(lever)
		lb.WithCheckpointing = &n
	}
	if !first.req.FusedLoss {
		on := true
		lever.FusedLoss = &on
		n := largestMicroBatch(lever)
		lb.WithFusedLoss = &n
	}
	q.MicroBatch = max(lb.MicroBatch, 1)
	return q, lb
}

// largestMicroBatch is the largest micro-batch up to BatchSearchCap at which
// q fits its cards, 0 when batch 1 does not: doubling until one does not
// fit, then bisection between the last that fits and the first that does
// not.
func largestMicroBatch(q Query) int {
	fits := func(n int) bool {
		q.MicroBatch = n
		rs, err := resolve(q)
		return err == nil && rs.memory(&rs.req).TotalBytes <= rs.gpu.MemoryBytes
	}
	if !fits(1) {
		return 0
	}
	lo := 1
	for lo < BatchSearchCap && fits(min(2*lo, BatchSearchCap)) {
		lo = min(2*lo, BatchSearchCap)
	}
	if lo == BatchSearchCap {
		return lo
	}
	hi := min(2*lo, BatchSearchCap) // the first that does not fit
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// largestBatchNote says how a largest-batch ask was answered, for the
// assumptions.
func largestBatchNote(lb *LargestBatch) string {
	s := fmt.Sprintf("largest batch: the micro-batch per GPU searched by doubling, then halving the gap, up to %d; memory grows with it (activations are per sequence)", BatchSearchCap)
	if lb.MicroBatch == 0 {
		return s + "; batch 1 does not fit as asked, so the answer is for batch 1, with the ways that fit"
	}
	return s + fmt.Sprintf("; the answer is sized at the largest that fits as asked, %d", lb.MicroBatch)
}
