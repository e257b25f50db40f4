package sizing

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The questions that run the other way round: not "does this fit?" but
// "what fits?". Each is answered by searching over the same memory model
// the forward estimator uses (Footprint.Memory, trainingMemory and
// inferenceMemory), never by a separate formula.

// The intents of the questions this file and buyrent.go answer. Their
// strings are the `kind` of the JSON answer.
const (
	IntentLargest    Intent = "largest_model" // "what 2x4090 lora": the largest model that fits
	IntentMaxContext Intent = "max_context"   // "llama-3.1-8b inference l4 max context"
	IntentWhichGPU   Intent = "which_gpu"     // "which gpu 13b lora": every card that fits, cheapest first
	IntentBuyRent    Intent = "buy_vs_rent"   // "13b lora 4090 buy-vs-rent 3 jobs/week 5h"
)

// gibAssumption is the unit every answer states.
const gibAssumption = "memory in GiB (2^30 bytes), against the capacity the card reports"

// searchStep is the resolution of the largest-model search, in parameters:
// the answer fits and one step more does not.
const searchStep = 1_000_000

// AskAnswer is the reply to one of the questions that run the other way
// round. Kind says which; exactly one of the result fields is set, under a
// JSON key equal to Kind. Request is the resolved request the search
// started from (for largest_model: the asked method's row at its largest
// size); Assumptions lists every default it relied on.
type AskAnswer struct {
	Kind        Intent   `json:"kind"`
	Request     Request  `json:"request"`
	Assumptions []string `json:"assumptions"`
	ModelName   string   `json:"model_name"` // display name; "" when the question named none (largest_model)
	GPUName     string   `json:"gpu_name"`   // display name; "" when the question named none (which_gpu)

	Largest    *LargestResult  `json:"largest_model,omitempty"`
	MaxContext *ContextResult  `json:"max_context,omitempty"`
	WhichGPU   *WhichGPUResult `json:"which_gpu,omitempty"`
	BuyRent    *BuyRentResult  `json:"buy_vs_rent,omitempty"`
	Serve      *ServeResult    `json:"serve,omitempty"`
	// Targets answer the asker's own targets the search does not read
	// (a deadline, a budget, a price): shown first; package answer sets
	// them.
	Targets []string `json:"targets,omitempty"`
}

// LargestResult is the largest model that fits the named hardware, for
// each way of using it.
type LargestResult struct {
	GPU         string       `json:"gpu"`
	GPUName     string       `json:"gpu_name"`
	GPUs        int          `json:"gpus"`
	VRAMBytes   int64        `json:"vram_bytes"` // one card
	Rows        []LargestRow `json:"rows"`
	FitsNothing bool         `json:"fits_nothing"` // no row fits even the smallest size
}

// LargestRow is one method (and, for inference, one weight format) with
// the largest bare size that fits and the largest catalog models that do.
type LargestRow struct {
	Method     Method    `json:"method"`
	Precision  Precision `json:"precision"`
	Quant      Quant     `json:"quant"`
	Label      string    `json:"label"` // "LoRA", "inference int4"
	Asked      bool      `json:"asked"` // the method the question named
	MaxParams  int64     `json:"max_params"`
	ZeROStage  int       `json:"zero_stage"`
	TotalBytes int64     `json:"total_bytes"` // per GPU at max_params
	// Headroom at max_params is tight or comfortable by the verdict's
	// rule; ComfortableMaxParams is the largest size that leaves the
	// headroom (0 when none does).
	Headroom             Headroom    `json:"headroom"`
	ComfortableMaxParams int64       `json:"comfortable_max_params"`
	CatalogModels        []ModelFit  `json:"catalog_models"` // the largest catalog models that fit, largest first
	Nearest              *NearestFit `json:"nearest"`        // when nothing fits as asked: the closest setting that does
	Note                 string      `json:"note,omitempty"` // why the row is empty, e.g. an inference-only card
	// Assumptions are the defaults this row relied on that not every row
	// shares (the answer's assumptions hold the shared ones).
	Assumptions []string `json:"assumptions"`
}

// ModelFit is a catalog model that fits, with its per-GPU total.
type ModelFit struct {
	Model      string `json:"model"`
	Name       string `json:"name"`
	Params     int64  `json:"params"`
	TotalBytes int64  `json:"total_bytes"`
}

// NearestFit is the closest thing that fits when the question as asked
// fits nothing: a shorter sequence, more cards, or another format.
type NearestFit struct {
	Why       string `json:"why"`
	SeqLen    int    `json:"seq_len,omitempty"`
	GPUs      int    `json:"gpus,omitempty"`
	MaxParams int64  `json:"max_params,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
}

// largestRowSpec is one row of the largest-model table.
type largestRowSpec struct {
	method    Method
	precision Precision // "" for the default
	label     string
}

var largestRows = [...]largestRowSpec{
	{MethodFull, "", "full fine-tune"},
	{MethodLoRA, "", "LoRA"},
	{MethodQLoRA, "", "QLoRA"},
	{MethodInference, "", "inference 16-bit"},
	{MethodInference, PrecisionINT8, "inference int8"},
	{MethodInference, PrecisionINT4, "inference int4"},
}

// LargestModel answers "what is the largest model that fits this
// hardware?": for full fine-tuning, LoRA, QLoRA and inference with 16-bit,
// int8 and int4 weights, the largest bare size (a Llama-style shape, see
// BareModel) whose per-GPU memory fits the card, found by binary search in
// steps of searchStep parameters, and the largest catalog models that fit.
// The question's other settings (sequence, batch, optimizer, rank, ZeRO)
// apply to every row they make sense for; the rest are the estimator's
// defaults. A question without a GPU returns an *InputError.
func (e *Estimator) LargestModel(q Query) (AskAnswer, error) {
	if q.GPU == "" {
		return AskAnswer{}, inputErr("fit what 2x rtx-4090 lora", "which hardware? Name the GPU (and how many) to find the largest model that fits")
	}
	q.Model, q.Params, q.Experts, q.Arch = "", 0, 0, nil
	res := &LargestResult{FitsNothing: true}
	var asked Request
	askedSet := false
	for _, spec := range largestRows {
		row, req, err := e.largestRow(q, spec)
		if err != nil {
			return AskAnswer{}, err
		}
		if res.GPU == "" && req.GPU != "" {
			g, _, _ := LookupGPU(req.GPU)
			res.GPU, res.GPUName, res.GPUs, res.VRAMBytes = g.ID, g.Name, req.GPUs, g.MemoryBytes
		}
		if row.MaxParams > 0 {
			res.FitsNothing = false
		}
		if row.Asked && !askedSet {
			asked, askedSet = req, true
		}
		res.Rows = append(res.Rows, row)
	}
	if !askedSet {
		for i, r := range res.Rows {
			if r.MaxParams > 0 || i == len(res.Rows)-1 {
				asked = e.rowRequest(q, largestRows[i], r)
				break
			}
		}
	}
	// The asked method first; the others keep their order.
	slices.SortStableFunc(res.Rows, func(a, b LargestRow) int {
		switch {
		case a.Asked == b.Asked:
			return 0
		case a.Asked:
			return -1
		}
		return 1
	})
	// The answer's assumptions are those of its request, the asked row (or
	// the first): the ones every row shares, then that row's own.
	asm := assumptionSet{items: sharedAssumptions(res.Rows)}
	for _, r := range res.Rows {
		if r.Asked || (!askedSet && r.MaxParams > 0) {
			asm.add(r.Assumptions...)
			break
		}
	}
	if q.SeqLen > 4096 {
		asm.add(fmt.Sprintf("bare sizes taken to support %s tokens (a bare size asked on its own is given a 4,096-token context)", thousands(float64(q.SeqLen))))
	}
	asm.add(fmt.Sprintf("bare sizes are Llama-style dense shapes (the widths of published models, 8 KV heads: grouped-query attention, as today's dense models), searched in steps of %s parameters: the size shown fits, one step more does not", humanCount(searchStep)),
		"catalog models listed only when they fit as asked on this hardware, checked one by one")
	return AskAnswer{Kind: IntentLargest, Request: asked, Assumptions: asm.list([]string{gibAssumption}), GPUName: res.GPUName, Largest: res}, nil
}

// rowRequest rebuilds the request a row was searched with, for the
// answer's request field.
func (e *Estimator) rowRequest(q Query, spec largestRowSpec, row LargestRow) Request {
	rq := rowQuery(q, spec)
	rq.Arch = placeholderArch()
	rs, err := resolve(rq)
	if err != nil {
		return Request{}
	}
	r := rs.req
	if row.MaxParams > 0 {
		r.Model, r.Params, r.ActiveParams = bareID(row.MaxParams), row.MaxParams, row.MaxParams
	}
	return r
}

// rowQuery is the question for one row: the method and format of the row,
// with settings that do not apply to it dropped.
func rowQuery(q Query, spec largestRowSpec) Query {
	rq := q
	rq.Method = spec.method
	rq.Quant = QuantNone
	if spec.method == MethodInference {
		rq.Optimizer, rq.LoRARank, rq.ZeROStage, rq.Offload, rq.GradCheckpointing, rq.Tokens = "", 0, nil, "", nil, 0
		rq.Precision = spec.precision
		return rq
	}
	rq.KVPrecision = ""
	switch rq.Precision {
	case PrecisionINT8, PrecisionINT4:
		rq.Precision = ""
	}
	if spec.method == MethodFull {
		rq.LoRARank = 0
	}
	if rq.GPUs > 1 && rq.ZeROStage == nil {
		three := 3
		rq.ZeROStage = &three
	}
	return rq
}

// sharedAssumptions moves the assumptions every searched row made out of
// the rows and returns them; each row keeps only its own.
func sharedAssumptions(rows []LargestRow) []string {
	var shared []string
	first := true
	for _, r := range rows {
		if r.Note != "" {
			continue
		}
		if first {
			shared, first = slices.Clone(r.Assumptions), false
			continue
		}
		shared = slices.DeleteFunc(shared, func(a string) bool { return !slices.Contains(r.Assumptions, a) })
	}
	for i := range rows {
		rows[i].Assumptions = slices.DeleteFunc(rows[i].Assumptions, func(a string) bool { return slices.Contains(shared, a) })
		if rows[i].Assumptions == nil {
			rows[i].Assumptions = []string{}
		}
	}
	return shared
}

// placeholderArch is the model a row is resolved with before the search
// replaces it: the smallest bare size, with no context limit of its own.
func placeholderArch() *Model {
	m := BareModel(MinBareParams, 0)
	m.MaxContext = 0
	return &m
}

// largestRow searches one row. It returns the row (with the assumptions
// it relied on) and the request at the row's answer.
func (e *Estimator) largestRow(q Query, spec largestRowSpec) (LargestRow, Request, error) {
	rq := rowQuery(q, spec)
	row := LargestRow{Method: spec.method, Label: spec.label, Asked: askedRow(q, spec), CatalogModels: []ModelFit{}, Assumptions: []string{}}
	rq.Arch = placeholderArch()
	rs, err := resolve(rq)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && rq.GPU != "" {
			if g, _, gerr := LookupGPU(rq.GPU); gerr == nil {
				// The hardware cannot do this method (Apple silicon training,
				// BF16 on a card without it): say why in the row.
				if spec.method != MethodInference || g.UnifiedMemory {
					row.Note = ie.Problem
					return row, Request{GPU: g.ID, GPUs: max(q.GPUs, 1)}, nil
				}
			}
		}
		return row, Request{}, err
	}
	r := rs.req
	row.Precision, row.Quant, row.ZeROStage = r.Precision, r.Quant, r.ZeROStage
	row.Assumptions = searchAssumptions(rs)
	if spec.method != MethodInference && r.GPUs > 1 && q.ZeROStage == nil {
		row.Assumptions = append(row.Assumptions, fmt.Sprintf("training on %d GPUs searched at ZeRO-3 (FSDP full shard), the stage that holds the largest model", r.GPUs))
	}
	g := rs.gpu
	p, total := largestFitting(&r, g.MemoryBytes)
	row.MaxParams, row.TotalBytes = p, total
	if p > 0 {
		row.Headroom = headroom(total, g.MemoryBytes)
		row.ComfortableMaxParams = p
		if row.Headroom == HeadroomTight {
			row.ComfortableMaxParams, _ = largestFitting(&r, comfortableBytes(g.MemoryBytes))
			row.Assumptions = append(row.Assumptions, fmt.Sprintf("at %s parameters the card is full (%s); %s leave 20%% free",
				humanCount(p), tightNote, humanCount(row.ComfortableMaxParams)))
		}
	}
	if p == 0 {
		row.Nearest = nearestLargest(r, g)
	} else {
		r.Params, r.ActiveParams, r.Model = p, p, bareID(p)
		row.CatalogModels = catalogFits(&r, g.MemoryBytes, 3)
	}
	return row, r, nil
}

// askedRow reports whether a row is the one the question named: its
// method and, for inference, its weight format.
func askedRow(q Query, spec largestRowSpec) bool {
	if q.Method != spec.method {
		return false
	}
	if spec.method != MethodInference {
		return true
	}
	switch {
	case q.Precision == PrecisionINT8 || q.Quant == QuantINT8 || q.Quant == QuantQ8_0:
		return spec.precision == PrecisionINT8
	case q.Precision == PrecisionINT4 || (q.Quant != QuantNone && q.Quant != QuantINT8):
		return spec.precision == PrecisionINT4
	}
	return spec.precision == ""
}

// searchAssumptions keeps a resolved template's assumptions, less the
// ones about the placeholder model the search replaces.
func searchAssumptions(rs *resolved) []string {
	out := make([]string, 0, len(rs.assumptions))
	placeholder := rs.model.Assumption()
	for _, a := range rs.assumptions {
		switch {
		case a == placeholder:
		case strings.HasPrefix(a, "LoRA rank "):
			out = append(out, fmt.Sprintf("LoRA rank %d on all linear layers (q, k, v, o, gate, up, down)", rs.req.LoRARank))
		default:
			out = append(out, a)
		}
	}
	return out
}

// bareTotal is the per-GPU total of a bare size under r.
func bareTotal(r *Request, params int64) int64 {
	s := shapeOf(BareModel(params, 0))
	if r.Method == MethodInference {
		return inferenceMemory(r, &s).TotalBytes
	}
	return trainingMemory(r, &s).TotalBytes
}

// largestFitting is the largest multiple of searchStep whose bare model
// fits vram under r, and its per-GPU total; 0 when not even the smallest
// does.
//
// Memory is not monotonic in the size across BareModel's shape changes: at
// a new anchor width the same parameters make fewer, wider layers, and the
// KV cache and activations, which scale with layers × width, can shrink. So
// each stretch of one shape (bareSegments) is searched on its own, keeping
// lo fitting and hi not, and the largest fit of any stretch wins. The
// answer fits, and one step more does not: within its stretch by the
// search, and at a stretch's end because the next stretch's first size was
// tried too.
func largestFitting(r *Request, vram int64) (params, total int64) {
	limit := int64(MaxParams / searchStep)
	if r.Offload == OffloadNone || r.Offload == "" {
		// Without offload every weight sits on some GPU, at no less than
		// weightFloor bytes: beyond this no size fits.
		limit = min(limit, int64(float64(vram)*float64(max(r.GPUs, 1))/weightFloor(r)/searchStep)+1)
	}
	var best int64
	for _, seg := range bareSegments() {
		lo, hi := seg[0], min(seg[1], limit)
		if lo > hi {
			break
		}
		loTotal := bareTotal(r, lo*searchStep)
		if loTotal > vram {
			continue
		}
		if t := bareTotal(r, hi*searchStep); t <= vram {
			lo, loTotal = hi, t
		} else {
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if t := bareTotal(r, mid*searchStep); t <= vram {
					lo, loTotal = mid, t
				} else {
					hi = mid
				}
			}
		}
		if lo > best {
			best, total = lo, loTotal
		}
	}
	return best * searchStep, total
}

// weightFloor is the fewest bytes a weight of r can take: its format's
// bytes per parameter (16-bit 2, FP8 1, int8 about 1, 4-bit about 0.5).
func weightFloor(r *Request) float64 {
	if r.Quant != QuantNone {
		b, _ := quantBytesPerParam(r.Quant, 1<<20)
		return b
	}
	switch r.Precision {
	case PrecisionFP8:
		return 1
	case PrecisionFP32:
		return 4
	}
	return 2
}

// bareSegments are the stretches of bare sizes, in steps of searchStep,
// over which BareModel keeps one shape family: the same anchor width.
// Each is [first, last], in order.
var bareSegments = sync.OnceValue(func() [][2]int64 {
	first, last := int64(MinBareParams/searchStep), int64(MaxParams/searchStep)
	var cuts []int64
	for _, a := range bareAnchors[1:] {
		// The first step at which BareModel takes this anchor's width.
		lo, hi := first, last
		for lo < hi {
			mid := lo + (hi-lo)/2
			if bareHidden(float64(mid*searchStep)) >= a.hidden {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		cuts = append(cuts, lo)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var segs [][2]int64
	start := first
	for _, c := range cuts {
		if c > start && c <= last {
			segs = append(segs, [2]int64{start, c - 1})
			start = c
		}
	}
	return append(segs, [2]int64{start, last})
})

// catalogFootprint is a catalog model with its memory shape, built once.
type catalogFootprint struct {
	model Model
	shape shape
	total int64
}

var catalogFootprints = sync.OnceValue(func() []catalogFootprint {
	models := loadCatalog().models
	out := make([]catalogFootprint, 0, len(models))
	for _, m := range models {
		s := shapeOf(m)
		out = append(out, catalogFootprint{model: m, shape: s, total: s.total})
	}
	// Largest first; ties (a re-release of the same shape, such as the
	// DeepSeek-R1 distills) in catalog order, so the original is the
	// example.
	slices.SortStableFunc(out, func(a, b catalogFootprint) int {
		return cmp.Compare(b.total, a.total)
	})
	return out
})

// catalogFits lists up to n of the largest catalog models that fit vram
// under r, checked with their own architecture. A model whose context is
// shorter than r's sequence is left out, and so are the Mamba models and
// hybrids (they are examples of a size the decoder search found, and a
// fixed state fits contexts no decoder of their size does) and the
// diffusion pipelines (no sequence at all).
func catalogFits(r *Request, vram int64, n int) []ModelFit {
	out := []ModelFit{}
	for i := range catalogFootprints() {
		c := &catalogFootprints()[i]
		if c.model.MaxContext > 0 && r.SeqLen > c.model.MaxContext || c.model.SSMVersion > 0 || c.model.Kind == KindDiffusion || c.model.Kind == KindEncoder {
			continue
		}
		var total int64
		if r.Method == MethodInference {
			total = inferenceMemory(r, &c.shape).TotalBytes
		} else {
			mr := *r
			if mr.Method == MethodFull && c.shape.experts > 0 && mr.GPUs > 1 && expertParallelDegree(&mr) == 1 {
				// As the forward estimator resolves it: at ZeRO-3 the
				// gathered experts are an EP share.
				mr.ExpertParallel = defaultExpertParallel(&mr, &c.shape)
			}
			total = trainingMemory(&mr, &c.shape).TotalBytes
		}
		if total > vram {
			continue
		}
		out = append(out, ModelFit{Model: c.model.ID, Name: c.model.Name, Params: c.total, TotalBytes: total})
		if len(out) == n {
			break
		}
	}
	return out
}

// nearestLargest finds the closest setting under which something fits
// when not even the smallest size does: a shorter sequence (halved down
// to 256 tokens), then more cards in one machine.
func nearestLargest(r Request, g GPU) *NearestFit {
	for seq := r.SeqLen / 2; seq >= 256; seq /= 2 {
		t := r
		t.SeqLen = seq
		if p, _ := largestFitting(&t, g.MemoryBytes); p > 0 {
			return &NearestFit{Why: fmt.Sprintf("at %s tokens instead of %s", thousands(float64(seq)), thousands(float64(r.SeqLen))), SeqLen: seq, MaxParams: p}
		}
	}
	for _, n := range countSteps {
		if n <= r.GPUs || n > MaxPerNode(g) {
			continue
		}
		t := r
		setCount(&t, n, &g)
		if p, _ := largestFitting(&t, g.MemoryBytes); p > 0 {
			return &NearestFit{Why: fmt.Sprintf("on %d× %s", n, g.Name), GPUs: n, MaxParams: p}
		}
	}
	return nil
}

// assumptionSet collects assumptions once each, in the order first said.
type assumptionSet struct{ items []string }

func (a *assumptionSet) add(items ...string) {
	for _, s := range items {
		if !slices.Contains(a.items, s) {
			a.items = append(a.items, s)
		}
	}
}

// list returns the collected assumptions followed by extra (deduplicated).
func (a *assumptionSet) list(extra []string) []string {
	a.add(extra...)
	if a.items == nil {
		return []string{}
	}
	return a.items
}

// Ask answers a question that runs the other way round, by its
// intent: LargestModel, MaxContext, WhichGPU or BuyRent (with the
// question's workload). A fit question returns an *InputError: answer it
// with Answer.
func (e *Estimator) Ask(q Query, intent Intent, w Workload) (AskAnswer, error) {
	if q.Provider != "" && e.provider == "" {
		if at, ok := e.atProvider(q.Provider); ok {
			a, err := at.Ask(q, intent, w)
			if err == nil {
				a.Assumptions = append(a.Assumptions, providerNote(q.Provider, q.GPU == ""))
			}
			return a, err
		}
	}
	switch intent {
	case IntentLargest:
		return e.LargestModel(q)
	case IntentMaxContext:
		return e.MaxContext(q)
	case IntentWhichGPU:
		return e.WhichGPU(q)
	case IntentBuyRent:
		return e.BuyRent(q, w)
	case IntentServe:
		return e.Serve(q)
	}
	return AskAnswer{}, inputErr("fit what 2x rtx-4090 lora", "%q is a fit question, not one that runs the other way round", intent)
}
