package sizing

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

const (
	maxAlternatives = 5
	// maxSameCard is how many of the alternatives may be changes on the
	// asked card, leaving room for cheaper cards.
	maxSameCard = 3
	// referenceGPU answers a question that names no card when no card
	// fits it at any count fitbot tries.
	referenceGPU = "h100"
)

// countSteps are the GPU counts tried within one machine; beyond it,
// whole machines of maxPerNode cards.
var countSteps = [...]int{1, 2, 4, 8}

// nodeSteps are the machine counts tried once one machine is not enough.
var nodeSteps = [...]int{2, 4, 8, 16, 32}

// altChange is a set of departures from the question, as bits.
type altChange uint16

const (
	chCheckpointing altChange = 1 << iota
	chOptimizer8bit
	chLoRA
	chQLoRA
	chOffload
	chMoreGPUs
	chFewerGPUs
	chQuant
	chKV
	chSmallerBatch
	chFusedLoss
)

// changeWeights is how big each change feels to the asker, bit by bit:
// checkpointing 1, 8-bit AdamW 2, LoRA 3, a 4-bit base 2 more, offload 4,
// more cards 1 plus one per doubling, a smaller weight format 2, a
// smaller KV cache 1, micro-batch 1 with gradient accumulation 2, fused
// cross-entropy 1.
var changeWeights = [...]int{1, 2, 3, 2, 4, 1, 0, 2, 1, 2, 1}

// cost is how big a set of changes is: the search prefers the smallest
// that fits.
func (c altChange) cost(askedGPUs, gpus int) int {
	n := 0
	for i, w := range changeWeights {
		if c&(1<<i) != 0 {
			n += w
		}
	}
	if c&chMoreGPUs != 0 {
		for g := askedGPUs; g < gpus; g *= 2 {
			n++
		}
	}
	return n
}

// altCandidate is one configuration the search evaluated.
type altCandidate struct {
	req     Request
	changes altChange
	total   int64
	perHour float64 // all GPUs; 0 when unknown
	priced  bool
	hours   float64 // the token budget's run time; 0 when unknown
	vram    int64   // GPUs × card memory, to order unpriced configurations
	gpu     *GPU
	why     string
}

// alternatives returns up to five configurations that fit: the smallest
// changes on the asked card first when the question does not fit, then
// the cheapest configurations that fit as asked on other cards (or fewer
// of the asked card). Cheapest is by the cost of the whole run when the
// request has a token budget, by the hourly price otherwise.
// Deterministic: every tie is broken by GPU id.
func (e *Estimator) alternatives(rs *resolved, asked Memory, servable bool) []Alternative {
	fits := asked.TotalBytes <= rs.gpu.MemoryBytes && servable
	askedCost, askedPriced := e.configPrice(rs.req.GPU, rs.req.GPUs)
	askedHours, _ := runHours(&rs.req, &rs.shape, &rs.gpu, e.mfu())
	var out []altCandidate
	if !fits {
		out = e.sameCard(rs)
	} else if rs.req.GPUs > 1 {
		out = e.fewerCards(rs)
	}
	if fits && !rs.gpuNamed {
		out = append(out, e.cheaperWays(rs, askedCost, askedHours, askedPriced)...)
	}
	var buf [64]fitOption
	for _, o := range e.cheapest(buf[:0], rs) {
		if len(out) >= maxAlternatives {
			break
		}
		c := o.altCandidate(rs)
		if c.req.GPU == rs.req.GPU {
			continue // the card the answer is for (no card named)
		}
		switch {
		case !fits || !rs.gpuNamed:
		case rs.req.Fastest:
			if c.hours <= 0 || c.hours >= askedHours {
				continue // only faster ways
			}
		case !(askedPriced && c.priced && cheaperRun(c.perHour, c.hours, askedCost, askedHours)):
			continue // only cheaper ways, and cheaper needs prices
		}
		c.why = describeCheapest(c.gpu, c)
		out = append(out, c)
	}
	beyondServer := func(c altCandidate) bool { return offloadBeyondServer(&c.req, &rs.shape) }
	out = slices.DeleteFunc(out, beyondServer)
	if e.provider != "" {
		// At a provider named, a way on a card it does not price is no way there.
		out = slices.DeleteFunc(out, func(c altCandidate) bool { return !c.priced })
	}
	if !servable {
		// Ways that load the model but still serve nothing are no ways.
		out = slices.DeleteFunc(out, func(c altCandidate) bool {
			return !serveReplica(&c.req, &rs.shape, c.gpu, e.mfu(), c.req.spec(), nil, 1).Fits
		})
	}
	if !fits && len(out) == 0 {
		out = slices.DeleteFunc(e.otherCardChanges(rs), beyondServer)
	}
	alts := make([]Alternative, 0, len(out))
	// One backing array for the price, speed, hours and total of every
	// alternative instead of an allocation each.
	nums := make([]float64, 0, 4*len(out))
	for _, c := range out {
		a := Alternative{
			Method: c.req.Method, Optimizer: c.req.Optimizer, GPU: c.req.GPU, GPUs: c.req.GPUs,
			ZeROStage: c.req.ZeROStage, Offload: c.req.Offload, Fits: true, TotalBytes: c.total, Why: c.why,
			Headroom: headroom(c.total, c.gpu.MemoryBytes), Request: c.req,
		}
		if a.Headroom == HeadroomTight {
			a.Why += " (" + tightNote + ")"
		}
		if c.priced {
			nums = append(nums, c.perHour)
			a.USDPerHour = &nums[len(nums)-1]
		}
		tps := runSpeed(&c.req, &rs.shape, c.gpu, e.mfu())
		if tps > 0 && !rs.shape.encoderOnly {
			nums = append(nums, tps)
			a.TokensPerSecond = &nums[len(nums)-1]
		}
		if tps > 0 && c.req.Tokens > 0 {
			h := runHoursAt(&c.req, tps)
			nums = append(nums, h)
			a.Hours = &nums[len(nums)-1]
			if c.priced {
				nums = append(nums, c.perHour*h)
				a.USDTotal = &nums[len(nums)-1]
			}
		}
		alts = append(alts, a)
	}
	if rs.req.Fastest {
		slices.SortStableFunc(alts, func(a, b Alternative) int {
			return compareHours(hoursOrZero(a.Hours), hoursOrZero(b.Hours))
		})
	}
	return alts
}

// cheaperRun reports whether a configuration at perHour for hours costs
// less than the asked one: by the whole run when both durations are known
// (a slower card at a lower hourly price can cost more in all), by the
// hourly price when neither is. A run whose duration is unknown is never
// cheaper than one whose duration is known. Cheaper means by at least
// minSaving, so that a "cheaper" way never shows the same cost.
func cheaperRun(perHour, hours, askedPerHour, askedHours float64) bool {
	switch {
	case hours > 0 && askedHours > 0:
		return perHour*hours < (1-minSaving)*askedPerHour*askedHours
	case askedHours > 0:
		return false
	}
	return perHour < (1-minSaving)*askedPerHour
}

// minSaving is the smallest share of the asked cost a cheaper way saves.
const minSaving = 0.02

// compareRunCost orders two priced configurations cheapest first: by the
// cost of the whole run when both durations are known, a known duration
// before an unknown one, by the hourly price otherwise.
func compareRunCost(aPerHour, aHours, bPerHour, bHours float64) int {
	switch {
	case aHours > 0 && bHours > 0:
		return cmp.Compare(aPerHour*aHours, bPerHour*bHours)
	case aHours > 0:
		return -1
	case bHours > 0:
		return 1
	}
	return cmp.Compare(aPerHour, bPerHour)
}

// configPrice is the hourly price of n cards of a GPU.
func (e *Estimator) configPrice(gpu string, n int) (float64, bool) {
	if e.Prices == nil {
		return 0, false
	}
	p, ok := e.Prices.GPUHourPrice(gpu)
	if !ok {
		return 0, false
	}
	return p.USDPerGPUHour * float64(n), true
}

func (e *Estimator) newCandidate(r Request, g *GPU, ch altChange, total int64) altCandidate {
	c := altCandidate{req: r, changes: ch, total: total, vram: int64(r.GPUs) * g.MemoryBytes, gpu: g}
	c.perHour, c.priced = e.configPrice(g.ID, r.GPUs)
	return c
}

// sameCardOption is one configuration the same-card search evaluated, kept
// compact (no Request) so that hundreds of them cost nothing; apply
// rebuilds its Request.
type sameCardOption struct {
	changes altChange
	gpus    int
	format  int // index into the inference weight formats
	cost    int
	total   int64
}

// weightFormat is how inference stores its weights.
type weightFormat struct {
	quant     Quant
	precision Precision
}

// sameCard searches changes on the asked card: methods, optimizer,
// checkpointing, offload and more cards for training; weight and KV-cache
// formats and more cards for inference. It keeps the fitting ones with
// the smallest changes, none a superset of the changes of one already
// kept.
func (e *Estimator) sameCard(rs *resolved) []altCandidate {
	base := rs.req
	g := &rs.gpu
	// The capacities are what these usually hold, so that the search
	// allocates little; more simply grows the slices.
	counts := largerCounts(make([]int, 0, 16), base.GPUs, g)
	formats := inferenceFormats(make([]weightFormat, 0, 6), base, g, noAWQ(&rs.model) == "")
	found := make([]sameCardOption, 0, 64)
	// A decoder served is held by its engine only with room for a
	// request's KV cache: a way that loads the weights and serves nothing
	// is no way, and would hide a smaller format that serves.
	serves := func(r *Request) bool {
		return r.Method != MethodInference || !servedLikeADecoder(r.Architecture) ||
			serveReplica(r, &rs.shape, g, e.mfu(), r.spec(), nil, 1).Fits
	}
	// onFewestCards adds the changes ch (with weight format f) on the
	// fewest cards that fit them, if any: the same changes on more cards
	// are only a bigger change.
	onFewestCards := func(ch altChange, f int) {
		for _, n := range counts {
			c := ch
			if n != base.GPUs {
				c |= chMoreGPUs
			}
			r := applyChanges(base, c, n, formats, f, g)
			total := rs.memory(&r).TotalBytes
			if total > g.MemoryBytes || !serves(&r) {
				continue
			}
			if c != 0 {
				// Later formats are further from the question: FP8, then int8, then 4-bit.
				found = append(found, sameCardOption{changes: c, gpus: r.GPUs, format: f, total: total, cost: c.cost(base.GPUs, r.GPUs) + max(f-1, 0)})
			}
			return
		}
	}
	if base.Method == MethodInference {
		options := make([]altChange, 0, 1)
		if base.KVPrecision != PrecisionFP8 {
			options = append(options, chKV)
		}
		for f := range formats {
			var quant altChange
			if f > 0 {
				quant = chQuant
			}
			for subset := range combinations(options) {
				onFewestCards(quant|with(options, subset), f)
			}
		}
	} else {
		for _, m := range trainingMethods(base.Method, base.FromScratch) {
			options := make([]altChange, 0, 4)
			if !base.GradCheckpointing && m != MethodQLoRA { // QLoRA turns checkpointing on by itself
				options = append(options, chCheckpointing)
			}
			if base.Optimizer == OptimizerAdamW {
				options = append(options, chOptimizer8bit)
			}
			if base.Offload == OffloadNone && !rs.gpu.UnifiedMemory { // unified memory has no host to offload to
				options = append(options, chOffload)
			}
			if base.MicroBatch > 1 { // micro-batch 1, accumulated to the same global batch
				options = append(options, chSmallerBatch)
			}
			if !base.FusedLoss && (lossIsLargest(&base, &rs.shape) || lossLargestCheckpointed(base, &rs.shape)) {
				options = append(options, chFusedLoss)
			}
			for subset := range combinations(options) {
				onFewestCards(methodChange(base.Method, m)|with(options, subset), 0)
			}
		}
	}
	var kept []altCandidate
	keptOpts := make([]sameCardOption, 0, maxSameCard)
	for len(kept) < maxSameCard {
		best := -1
		for i := range found {
			if dominated(&found[i], keptOpts) {
				continue
			}
			if best < 0 || betterOption(&found[i], &found[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		o := found[best]
		r := applyChanges(base, o.changes, o.gpus, formats, o.format, g)
		c := e.newCandidate(r, g, o.changes, o.total)
		c.why = describeChange(rs, c)
		keptOpts = append(keptOpts, o)
		kept = append(kept, c)
	}
	return kept
}

// combinations is the number of subsets of options, none first: a
// subset is a bit mask over options, which with turns into changes.
func combinations(options []altChange) int { return 1 << len(options) }

// with is the changes of the options that subset's bits select.
func with(options []altChange, subset int) altChange {
	var ch altChange
	for i, o := range options {
		if subset&(1<<i) != 0 {
			ch |= o
		}
	}
	return ch
}

// betterOption orders same-card options: smaller change, then fewer GPUs, then
// less memory, then the change bits (for determinism).
func betterOption(a, b *sameCardOption) bool {
	switch {
	case a.cost != b.cost:
		return a.cost < b.cost
	case a.gpus != b.gpus:
		return a.gpus < b.gpus
	case a.total != b.total:
		return a.total < b.total
	}
	return a.changes < b.changes
}

// dominated reports whether o makes every change of one already kept,
// on at least as many GPUs: "LoRA + checkpointing" adds nothing to a list
// that has "LoRA", but "4-bit on 2 cards" does to one that has "8 cards".
func dominated(o *sameCardOption, kept []sameCardOption) bool {
	for _, k := range kept {
		if o.changes&k.changes == k.changes && o.gpus >= k.gpus {
			return true
		}
	}
	return false
}

// applyChanges builds the Request of a set of changes on the asked one.
func applyChanges(base Request, ch altChange, n int, formats []weightFormat, f int, g *GPU) Request {
	r := base
	switch {
	case ch&chQLoRA != 0:
		r.Method, r.Quant, r.GradCheckpointing = MethodQLoRA, QuantNF4DQ, true
	case ch&chLoRA != 0:
		r.Method = MethodLoRA
	}
	if (r.Method == MethodLoRA || r.Method == MethodQLoRA) && r.LoRARank == 0 {
		r.LoRARank = defaultLoRARank
	}
	if ch&chCheckpointing != 0 {
		r.GradCheckpointing = true
	}
	if ch&chOptimizer8bit != 0 {
		r.Optimizer = OptimizerAdamW8bit
	}
	if ch&chOffload != 0 {
		r.Offload, r.ZeROStage = OffloadCPU, 3
	}
	if ch&chQuant != 0 {
		r.Quant, r.Precision = formats[f].quant, formats[f].precision
	}
	if ch&chKV != 0 {
		r.KVPrecision = PrecisionFP8
	}
	if ch&chFusedLoss != 0 {
		r.FusedLoss = true
	}
	if ch&chSmallerBatch != 0 {
		// The same global batch: one sequence at a time, accumulated.
		r.GradAccumSteps = max(r.GradAccumSteps, 1) * r.MicroBatch
		r.MicroBatch = 1
	}
	setCount(&r, n, g)
	return r
}

// fewerCards offers the smallest number of the asked card that still
// fits, when the question asked for more.
func (e *Estimator) fewerCards(rs *resolved) []altCandidate {
	g := &rs.gpu
	for _, n := range countSteps {
		if n >= rs.req.GPUs {
			break
		}
		r := rs.req
		r.GPUs, r.Nodes = n, 1
		fitLayout(&r, n)
		if r.Method != MethodInference {
			r.ZeROStage = lowestStage(rs, r, g)
		}
		if m := rs.memory(&r); m.TotalBytes <= g.MemoryBytes {
			c := e.newCandidate(r, g, chFewerGPUs, m.TotalBytes)
			c.why = describeChange(rs, c)
			return []altCandidate{c}
		}
	}
	return nil
}

// fitOption is the fewest GPUs of one card that fit the question as
// asked, kept compact for sorting.
type fitOption struct {
	gpu     int // index into the catalog
	gpus    int
	stage   int
	total   int64
	perHour float64
	priced  bool
	hours   float64 // the token budget's run time; 0 when unknown
	vram    int64
}

// cheapest finds, for every card, the fewest GPUs that fit the question
// as asked (for training with the lowest ZeRO stage that fits), and
// appends those configurations to dst cheapest first (by the cost of the
// whole run when the request has a token budget, else by the hourly
// price; by total card memory when unpriced; by id on ties).
func (e *Estimator) cheapest(dst []fitOption, rs *resolved) []fitOption {
	cat := loadCatalog()
	for i := range cat.gpus {
		g := &cat.gpus[i]
		if !gpuCanRun(rs.req, g) {
			continue
		}
		var countBuf [16]int
		counts := largerCounts(countBuf[:0], 1, g)
		if rs.countSaid && !rs.gpuNamed {
			// "on 4 GPUs" without a card: every card at that count.
			counts = append(countBuf[:0], rs.req.GPUs)
		} else if rs.req.Method == MethodInference && g.Link == LinkPCIe {
			// Nobody serves a model over PCIe cards in several machines
			// joined by ethernet: one machine of them, or another card.
			counts = slices.DeleteFunc(counts, func(n int) bool { return n > MaxPerNode(*g) })
		}
		for _, n := range counts {
			r := rs.req
			setCount(&r, n, g)
			// Stage 3 is the smallest; only when it fits is a lower one worth trying.
			total := rs.memory(&r).TotalBytes
			if total > g.MemoryBytes {
				continue
			}
			if r.Method != MethodInference && r.ZeROStage == 3 && r.ZeROStage > rs.req.ZeROStage {
				if stage := lowestStage(rs, r, g); stage != r.ZeROStage {
					r.ZeROStage = stage
					total = rs.memory(&r).TotalBytes
				}
			}
			if rs.wholeMachines {
				r, n, total = wholeMachine(rs, r, n, total, g)
			}
			{
				o := fitOption{gpu: i, gpus: n, stage: r.ZeROStage, total: total, vram: int64(n) * g.MemoryBytes}
				o.perHour, o.priced = e.configPrice(g.ID, n)
				if !o.priced && e.provider != "" {
					break // a card the provider named has no price for
				}
				if o.priced || rs.req.Fastest {
					o.hours, _ = runHours(&r, &rs.shape, g, e.mfu())
				}
				dst = append(dst, o)
				break
			}
		}
	}
	slices.SortFunc(dst, func(a, b fitOption) int {
		if a.priced != b.priced {
			if a.priced {
				return -1
			}
			return 1
		}
		if a.priced {
			if c := compareRunCost(a.perHour, a.hours, b.perHour, b.hours); c != 0 {
				return c
			}
		}
		if a.vram != b.vram {
			return cmp.Compare(a.vram, b.vram)
		}
		return strings.Compare(cat.gpus[a.gpu].ID, cat.gpus[b.gpu].ID)
	})
	return dst
}

// wholeMachine is the fastest way on card g when no card was named and
// the fastest run was asked: a whole machine of it (8 of most cards)
// rather than the fewest that fit, at the lowest ZeRO stage that fits
// there; r on n cards with its total when the machine does not fit.
func wholeMachine(rs *resolved, r Request, n int, total int64, g *GPU) (Request, int, int64) {
	whole := MaxPerNode(*g)
	if whole <= n {
		return r, n, total
	}
	w := rs.req
	setCount(&w, whole, g)
	t := rs.memory(&w).TotalBytes
	if t > g.MemoryBytes {
		return r, n, total
	}
	if w.Method != MethodInference && w.ZeROStage == 3 && w.ZeROStage > rs.req.ZeROStage {
		if stage := lowestStage(rs, w, g); stage != w.ZeROStage {
			w.ZeROStage = stage
			t = rs.memory(&w).TotalBytes
		}
	}
	return w, whole, t
}

// altCandidate turns a fitOption into the configuration it stands for.
func (o fitOption) altCandidate(rs *resolved) altCandidate {
	g := &loadCatalog().gpus[o.gpu]
	r := rs.req
	r.GPU = g.ID
	setCount(&r, o.gpus, g)
	r.ZeROStage = o.stage
	return altCandidate{req: r, total: o.total, perHour: o.perHour, priced: o.priced, hours: o.hours, vram: o.vram, gpu: g}
}

// gpuCanRun reports whether a card can run the request at all: training
// needs a training card, and BF16 when the request is in BF16; FP8
// training needs FP8.
func gpuCanRun(r Request, g *GPU) bool {
	if r.Method == MethodInference {
		return true
	}
	switch {
	case g.UnifiedMemory:
		return false
	case r.Precision == PrecisionBF16 && !g.BF16:
		return false
	case r.Precision == PrecisionFP8 && !g.FP8:
		return false
	}
	return true
}

// lowestStage is the lowest ZeRO stage at or above the asked one that
// fits r on g, or 3. With offload the stage stays as asked.
func lowestStage(rs *resolved, r Request, g *GPU) int {
	if r.GPUs == 1 || r.Offload != OffloadNone {
		return r.ZeROStage
	}
	for stage := rs.req.ZeROStage; stage < 3; stage++ {
		r.ZeROStage = stage
		if rs.memory(&r).TotalBytes <= g.MemoryBytes {
			return stage
		}
	}
	return 3
}

// largerCounts appends the GPU counts to try from n up: 1, 2, 4, 8 within
// a machine, then whole machines.
func largerCounts(out []int, n int, g *GPU) []int {
	per := MaxPerNode(*g)
	out = append(out, n)
	for _, c := range countSteps {
		if c > n && c <= per {
			out = append(out, c)
		}
	}
	if g.UnifiedMemory && per == 1 {
		return out
	}
	for _, nodes := range nodeSteps {
		if c := nodes * per; c > n {
			out = append(out, c)
		}
	}
	return out
}

// setCount sets the GPU count (and machines) of r, with ZeRO-3 for a
// training run on more cards than asked, and reports the change.
func setCount(r *Request, n int, g *GPU) altChange {
	if n == r.GPUs {
		return 0
	}
	per := MaxPerNode(*g)
	r.GPUs, r.Nodes = n, (n+per-1)/per
	if r.Method != MethodInference && n > 1 {
		r.ZeROStage = 3
	}
	fitLayout(r, per)
	return chMoreGPUs
}

// trainingMethods are the methods to try from the asked one: never back
// up from adapters to full fine-tuning, and never adapters for a run from
// scratch (they train on a base that does not exist yet).
func trainingMethods(m Method, fromScratch bool) []Method {
	switch {
	case fromScratch:
		return []Method{m}
	}
	switch m {
	case MethodFull:
		return []Method{MethodFull, MethodLoRA, MethodQLoRA}
	case MethodLoRA:
		return []Method{MethodLoRA, MethodQLoRA}
	}
	return []Method{m}
}

// methodChange is the change from one method to another. QLoRA from
// full fine-tuning counts as both steps (adapters, then a 4-bit base).
func methodChange(from, to Method) altChange {
	switch {
	case from == to:
		return 0
	case to == MethodQLoRA && from == MethodFull:
		return chLoRA | chQLoRA
	case to == MethodQLoRA:
		return chQLoRA
	}
	return chLoRA
}

// inferenceFormats appends the weight formats to try when serving does
// not fit: as asked first, then FP8 (on cards with FP8), int8 and 4-bit
// (AWQ on GPUs; GGUF Q8_0 and Q4_K_M on Apple silicon, where llama.cpp is
// how models run). Only unquantised questions get smaller formats, and FP8
// ones (as DeepSeek-V3 ships) a 4-bit one. A model with Mamba mixers
// (awq false) gets no AWQ: see noAWQ.
func inferenceFormats(dst []weightFormat, r Request, g *GPU, awq bool) []weightFormat {
	dst = append(dst, weightFormat{r.Quant, r.Precision})
	switch {
	case r.Quant == QuantFP8 && !awq && !g.UnifiedMemory:
		return dst
	case r.Quant == QuantFP8 && g.UnifiedMemory:
		return append(dst, weightFormat{QuantQ4_KM, PrecisionBF16})
	case r.Quant == QuantFP8:
		half := PrecisionBF16
		if !g.BF16 {
			half = PrecisionFP16
		}
		return append(dst, weightFormat{QuantAWQ, half})
	case r.Quant == QuantINT8 && awq:
		// 8-bit that does not fit: 4-bit on the same cards.
		return append(dst, weightFormat{QuantAWQ, r.Precision})
	case r.Quant == QuantQ8_0 || r.Quant == QuantQ6_K || r.Quant == QuantQ5_KM:
		return append(dst, weightFormat{QuantQ4_KM, r.Precision})
	case r.Quant != QuantNone:
		return dst
	}
	if g.FP8 && r.Precision != PrecisionFP8 {
		dst = append(dst, weightFormat{QuantFP8, PrecisionFP8})
	}
	if g.UnifiedMemory {
		return append(dst, weightFormat{QuantQ8_0, r.Precision}, weightFormat{QuantQ4_KM, r.Precision})
	}
	dst = append(dst, weightFormat{QuantINT8, r.Precision})
	if !awq {
		return dst
	}
	return append(dst, weightFormat{QuantAWQ, r.Precision})
}

// noAWQ says why a model with Mamba mixers (Jamba, Mamba) is not offered
// AWQ: vLLM builds their MambaMixer without a quantisation config
// (vllm/model_executor/models/jamba.py), so AWQ would cover only the
// attention and expert layers, and AutoAWQ, which makes AWQ checkpoints,
// has no Jamba or Mamba support (awq/models/__init__.py); "" for other
// models.
func noAWQ(m *Model) string {
	if m.Kind != KindHybrid && m.Kind != KindSSM {
		return ""
	}
	return fmt.Sprintf("%s has Mamba layers: no AWQ checkpoint of it exists (AutoAWQ does not support the architecture) and vLLM keeps its Mamba mixers in 16-bit under any quantisation; FP8 or int8 of the attention and expert layers is what serving engines run", m.Name)
}

// describeChange says in one line what a same-card alternative changes.
func describeChange(rs *resolved, c altCandidate) string {
	var parts []string
	r := c.req
	switch {
	case c.changes&chQLoRA != 0:
		parts = append(parts, "QLoRA (4-bit base, adapters only)")
	case c.changes&chLoRA != 0:
		parts = append(parts, fmt.Sprintf("LoRA rank %d (frozen 16-bit base)", r.LoRARank))
	}
	switch {
	case c.changes&chOptimizer8bit != 0 && hasLayout(&r):
		// Megatron-LM has no bitsandbytes; the same 6 bytes per parameter
		// are Transformer Engine's Adam with FP8 moments.
		parts = append(parts, "Adam with FP8 moments (Megatron's precision-aware optimizer)")
	case c.changes&chOptimizer8bit != 0:
		parts = append(parts, "8-bit AdamW")
	}
	if c.changes&chCheckpointing != 0 {
		parts = append(parts, "gradient checkpointing")
	}
	if c.changes&chOffload != 0 {
		parts = append(parts, "ZeRO-3 with CPU offload")
	}
	if c.changes&chQuant != 0 {
		w := string(r.Precision) + " weights"
		if r.Quant != QuantNone {
			w = string(r.Quant) + " weights"
		}
		parts = append(parts, w)
	}
	if c.changes&chKV != 0 {
		parts = append(parts, string(r.KVPrecision)+" KV cache")
	}
	if c.changes&chFusedLoss != 0 {
		parts = append(parts, "fused cross-entropy (Liger, Unsloth or Cut Cross-Entropy: no full-vocabulary logits)")
	}
	if c.changes&chSmallerBatch != 0 {
		parts = append(parts, fmt.Sprintf("micro-batch 1 with %d gradient-accumulation steps (the same global batch)", r.GradAccumSteps))
	}
	where := "on the same card"
	if r.GPUs > 1 {
		where = fmt.Sprintf("on the same %d× %s", r.GPUs, rs.gpu.Name)
	}
	if c.changes&(chMoreGPUs|chFewerGPUs) != 0 {
		where = fmt.Sprintf("on %d× %s", r.GPUs, rs.gpu.Name)
		switch {
		case r.Method != MethodInference && r.GPUs > 1:
			where += fmt.Sprintf(" with ZeRO-%d", r.ZeROStage)
		case r.Method == MethodInference && r.GPUs > 1:
			where += " (weights and KV cache split across them)"
		}
	}
	if c.changes&chFewerGPUs != 0 {
		return fmt.Sprintf("fewer cards are enough: %s per GPU %s", gibString(c.total), where)
	}
	what := strings.Join(parts, " + ")
	if what == "" {
		what = "as asked"
	}
	return fmt.Sprintf("%s %s: %s per GPU", what, where, gibString(c.total))
}

// describeCheapest says why a configuration on another card is listed.
func describeCheapest(g *GPU, c altCandidate) string {
	s := fmt.Sprintf("as asked on %d× %s", c.req.GPUs, g.Name)
	if c.req.Method != MethodInference && c.req.GPUs > 1 {
		s += fmt.Sprintf(" with ZeRO-%d", c.req.ZeROStage)
	}
	return s + ": " + gibString(c.total) + " per GPU"
}

// gibString writes bytes as GiB with one decimal.
func gibString(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// pickGPU answers a question that names no card on the cheapest card that
// fits it as asked (by total card memory when unpriced), or, when fewest
// is asked, on the card that fits on the fewest GPUs (the cheapest of
// those); the others that fit become alternatives.
func (e *Estimator) pickGPU(rs *resolved, fewest bool) {
	var buf [64]fitOption
	if found := e.cheapest(buf[:0], rs); len(found) > 0 {
		best, how := 0, "the cheapest configuration that fits"
		if rs.req.Method == MethodInference && servedLikeADecoder(rs.req.Architecture) {
			// The cheapest that loads the weights may leave its serving
			// engine no room for one request: the cheapest that serves.
			for i := range found {
				c := found[i].altCandidate(rs)
				if sv := serveReplica(&c.req, &rs.shape, c.gpu, e.mfu(), c.req.spec(), nil, 1); sv.Fits {
					best = i
					break
				}
			}
		}
		switch {
		case fewest:
			for i, f := range found {
				if f.gpus < found[best].gpus {
					best = i
				}
			}
			how = "the card that fits on the fewest GPUs (the cheapest of those)"
		case rs.req.Fastest:
			// found lists the priced first: a card nobody rents is not
			// the fastest way to run, unless no card is priced.
			for i, f := range found {
				if f.priced == found[best].priced && compareHours(f.hours, found[best].hours) < 0 {
					best = i
				}
			}
			how = "the fastest run: a whole machine of the fastest card that fits and is priced"
		}
		f := found[best]
		if n := scaledOut(f, loadCatalog().gpus[f.gpu].MaxPerNode); n > f.gpus && !fewest && rs.req.Method != MethodInference {
			// A run of years on the cheapest count (15T
			// tokens of Llama 3 8B on one MI300X for 50 years) is answered
			// on as many of that card as finish it in about a month, at
			// about the same cost: data parallel over more replicas.
			how += fmt.Sprintf(", scaled out from %d to %d GPUs because %d would take %s", f.gpus, n, f.gpus, daysWords(f.hours))
			f.gpus = n
		}
		c := f.altCandidate(rs)
		g, _, _ := LookupGPU(c.req.GPU)
		rs.setGPU(g)
		rs.gpuNamed = false // chosen, not asked: the others that fit are alternatives
		rs.req = c.req
		rs.assume("no GPU named: answered for %s, %d× %s; other cards that fit are listed as alternatives", how, c.req.GPUs, g.Name)
		return
	}
	g, _, _ := LookupGPU(referenceGPU)
	rs.setGPU(g)
	rs.assume("no GPU named and none fits as asked: answered for one %s", g.Name)
}

// Runs longer than longRunHours on the cheapest count, with no card
// named, are answered on enough of the card to take about targetRunHours.
const (
	longRunHours   = 60 * 24
	targetRunHours = 30 * 24
)

// scaledOut is how many of f's card a run with no card named is answered
// on: f's count, or when its run takes more than longRunHours, that count
// times what brings it near targetRunHours, in whole machines of perNode
// and at most MaxGPUs.
func scaledOut(f fitOption, perNode int) int {
	if f.hours <= longRunHours || f.gpus < 1 {
		return f.gpus
	}
	n := f.gpus * int(math.Ceil(f.hours/targetRunHours))
	if perNode > 0 && n > perNode {
		n = (n + perNode - 1) / perNode * perNode
	}
	return min(n, MaxGPUs)
}

// daysWords is a run's length in days or years, for an assumption.
func daysWords(hours float64) string {
	if days := hours / 24; days < 730 {
		return fmt.Sprintf("%.0f days", days)
	}
	return fmt.Sprintf("%.0f years", hours/24/365)
}

// offloadBeyondServer reports whether r offloads to CPU more than one
// machine's RAM can hold (maxServerRAMBytes): no server runs it.
func offloadBeyondServer(r *Request, s *shape) bool {
	if r.Offload != OffloadCPU {
		return false
	}
	ram, _ := hostNeeds(r, s)
	return ram > maxServerRAMBytes
}

// compareHours orders run times fastest first, an unknown one (0) last.
func compareHours(a, b float64) int {
	switch {
	case a == b:
		return 0
	case a <= 0:
		return 1
	case b <= 0:
		return -1
	}
	return cmp.Compare(a, b)
}

// hoursOrZero is *h, or 0 (unknown) when h is nil.
func hoursOrZero(h *float64) float64 {
	if h == nil {
		return 0
	}
	return *h
}

// cheaperWays are the other ways a cheapest question has where it left
// them unsaid: smaller weight formats for inference with no format said
// (int8 and 4-bit AWQ: "cheapest way to serve llama 3.1 70b" is 2× RTX
// 3090 in AWQ, not 8 in bf16), adapters for a full fine-tune (LoRA and
// QLoRA: "cheapest way to fine tune phi-3 mini"). Each is the cheapest
// configuration of that way, kept where its run (or, without a budget,
// its hour) costs less than the answer's, cheapest first. The answer
// stays as asked; these are listed as its other ways.
func (e *Estimator) cheaperWays(rs *resolved, askedCost, askedHours float64, askedPriced bool) []altCandidate {
	if !rs.cheapestWays || !askedPriced {
		return nil
	}
	type way struct {
		change altChange
		req    Request
		what   string
	}
	var ways []way
	switch {
	case rs.req.Method == MethodInference && rs.req.Quant == QuantNone:
		for _, f := range [...]weightFormat{{QuantINT8, rs.req.Precision}, {QuantAWQ, rs.req.Precision}} {
			if f.quant == QuantAWQ && noAWQ(&rs.model) != "" {
				continue
			}
			r := rs.req
			r.Quant, r.Precision = f.quant, f.precision
			ways = append(ways, way{chQuant, r, string(f.quant) + " weights"})
		}
	case rs.req.Method == MethodFull:
		lora := applyChanges(rs.req, chLoRA, rs.req.GPUs, nil, 0, &rs.gpu)
		ways = append(ways, way{chLoRA, lora, fmt.Sprintf("LoRA rank %d (frozen 16-bit base)", lora.LoRARank)},
			way{chQLoRA, applyChanges(rs.req, chQLoRA, rs.req.GPUs, nil, 0, &rs.gpu), "QLoRA (4-bit base, adapters only)"})
	}
	var out []altCandidate
	for _, w := range ways {
		in := *rs
		in.req = w.req
		var buf [64]fitOption
		found := e.cheapest(buf[:0], &in)
		if len(found) == 0 || !found[0].priced || !cheaperRun(found[0].perHour, found[0].hours, askedCost, askedHours) {
			continue
		}
		c := found[0].altCandidate(&in)
		c.changes = w.change
		c.why = fmt.Sprintf("%s on %d× %s: %s per GPU", w.what, c.req.GPUs, c.gpu.Name, gibString(c.total))
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b altCandidate) int { return compareRunCost(a.perHour, a.hours, b.perHour, b.hours) })
	return out
}
