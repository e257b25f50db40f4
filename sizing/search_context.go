package sizing

import (
	"fmt"
	"strings"
)

// ContextResult is the longest sequence (inference: context; training:
// sequence length) that fits, and which bound set it.
type ContextResult struct {
	MaxTokens       int    `json:"max_tokens"`        // 0 when not even one token fits
	Bound           string `json:"bound"`             // "memory", "model" (the model's max_position_embeddings) or "search" (no position limit; memory allows MaxSeqLen)
	MemoryMaxTokens int    `json:"memory_max_tokens"` // what memory alone allows (up to MaxSeqLen)
	ModelMaxTokens  int    `json:"model_max_tokens"`  // the model's own maximum; 0 when unknown
	// KVBytesPerToken is the KV cache one more token of context costs on
	// the busiest GPU, for all concurrent sequences (inference only).
	KVBytesPerToken float64 `json:"kv_cache_bytes_per_token"`
	PerGPU          Memory  `json:"per_gpu"` // at max_tokens
	VRAMBytes       int64   `json:"vram_bytes"`
	// Headroom at max_tokens by the verdict's rule; ComfortableMaxTokens
	// is the longest that leaves the headroom (0 when none does).
	Headroom             Headroom    `json:"headroom"`
	ComfortableMaxTokens int         `json:"comfortable_max_tokens"`
	Nearest              *NearestFit `json:"nearest"` // when not even one token fits: the smallest change that does
}

// The bounds a longest context can hit.
const (
	BoundMemory = "memory"
	BoundModel  = "model"
	// BoundSearch: the model has no position limit (a state-space model's
	// fixed state) and memory allows the longest the search tries.
	BoundSearch = "search"
)

// MaxContext answers "how long a context fits?": the longest context
// (inference, with the question's batch and KV-cache precision) or
// sequence (training) whose per-GPU memory fits the card, by binary search
// over the forward memory model, capped at the model's own maximum. The
// result says which bound won. A question without a model or a GPU
// returns an *InputError.
func (e *Estimator) MaxContext(q Query) (AskAnswer, error) {
	if q.GPU == "" {
		return AskAnswer{}, inputErr(fmt.Sprintf("fit %s inference l4 max context", ifEmpty(q.Model, "llama-3.1-8b")),
			"on which GPU? Name the card to find the longest context that fits")
	}
	q.SeqLen = 0
	rs, err := resolve(q)
	if err != nil {
		return AskAnswer{}, err
	}
	if rs.model.Kind == KindDiffusion {
		// No token context: a longest-context search ran up to 10M tokens
		// and offered "fp8 weights, up to 10.49M tokens".
		return AskAnswer{}, inputErr("fit "+Format(Query{Model: q.Model, Method: rs.req.Method, GPU: q.GPU, GPUs: q.GPUs, Nodes: q.Nodes}),
			"%s is a diffusion pipeline: it has no context length to search; its size is the image's resolution (say 1024px)", rs.model.Name)
	}
	var asm assumptionSet
	for _, a := range rs.assumptions {
		if strings.HasPrefix(a, "context ") || strings.HasPrefix(a, "sequence length ") {
			continue // the placeholder the search replaces
		}
		asm.add(a)
	}
	res := &ContextResult{ModelMaxTokens: rs.model.MaxContext, VRAMBytes: rs.gpu.MemoryBytes}
	r := rs.req
	memMax := longestFitting(rs, &r, rs.gpu.MemoryBytes)
	res.MemoryMaxTokens = memMax
	res.MaxTokens, res.Bound = memMax, BoundMemory
	if m := rs.model.MaxContext; m > 0 && memMax >= m {
		res.MaxTokens, res.Bound = m, BoundModel
		if m >= MaxSeqLen {
			// No positions (Mamba's fixed state): the search's ceiling, not a
			// length the model was trained for.
			res.Bound, res.ModelMaxTokens = BoundSearch, 0
		}
	}
	if res.MaxTokens == 0 {
		res.Nearest = e.nearestContext(rs)
		r.SeqLen = rs.req.SeqLen
	} else {
		r.SeqLen = res.MaxTokens
		res.PerGPU = rs.memory(&r)
		res.Headroom = headroom(res.PerGPU.TotalBytes, rs.gpu.MemoryBytes)
		res.ComfortableMaxTokens = res.MaxTokens
		if res.Headroom == HeadroomTight {
			probe := r
			res.ComfortableMaxTokens = min(longestFitting(rs, &probe, comfortableBytes(rs.gpu.MemoryBytes)), res.MaxTokens)
			asm.add(fmt.Sprintf("at %s tokens the card is full (%s); %s tokens leave 20%% free",
				thousands(float64(res.MaxTokens)), tightNote, thousands(float64(res.ComfortableMaxTokens))))
		}
		if r.Method == MethodInference && rs.model.Kind != KindSSM { // an SSM's state does not grow with the context
			ctx := int64(res.MaxTokens)
			kv := kvCacheBytes(&rs.shape, ctx, int64(r.MicroBatch), kvElemBytes(r.KVPrecision)) * kvShare(&rs.shape, r.GPUs, r.Nodes)
			res.KVBytesPerToken = kv / float64(ctx)
		}
	}
	word := "sequence"
	if r.Method == MethodInference {
		word = "context"
	}
	asm.add(fmt.Sprintf("longest %s: the most tokens whose per-GPU memory fits the card, searched up to %d tokens and capped at the model's own maximum", word, MaxSeqLen), gibAssumption)
	return AskAnswer{Kind: IntentMaxContext, Request: r, Assumptions: asm.list(nil), ModelName: rs.model.Name, GPUName: rs.gpu.Name, MaxContext: res}, nil
}

// longestFitting is the most tokens of sequence (1 to MaxSeqLen) under
// which r fits vram; 0 when not even one does. r.SeqLen is left as found.
func longestFitting(rs *resolved, r *Request, vram int64) int {
	fits := func(n int) bool {
		r.SeqLen = n
		return rs.memory(r).TotalBytes <= vram
	}
	if !fits(1) {
		return 0
	}
	if fits(MaxSeqLen) {
		return MaxSeqLen
	}
	lo, hi := 1, MaxSeqLen // lo fits, hi does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	r.SeqLen = lo
	return lo
}

// nearestContext is the smallest same-card change (a smaller weight
// format, QLoRA, more cards...) under which some context fits, with the
// longest context it allows.
func (e *Estimator) nearestContext(rs *resolved) *NearestFit {
	probe := *rs
	probe.req.SeqLen = min(DefaultSeqLen, max(rs.model.MaxContext, 1))
	for _, c := range e.sameCard(&probe) {
		r := c.req
		n := longestFitting(&probe, &r, rs.gpu.MemoryBytes)
		if n == 0 {
			continue
		}
		if m := rs.model.MaxContext; m > 0 {
			n = min(n, m)
		}
		why, _, _ := strings.Cut(c.why, ": ")
		return &NearestFit{Why: why, GPUs: c.req.GPUs, MaxTokens: n}
	}
	return nil
}
