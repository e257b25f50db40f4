package sizing

import (
	"fmt"
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

// change is a set of departures from the question, as bits.
type change uint8

const (
	chCheckpointing change = 1 << iota
	chOptimizer8bit
	chLoRA
	chQLoRA
	chOffload
	chMoreGPUs
	chFewerGPUs
	chQuant
)

// cost is how big a change feels to the asker: the search prefers the
// smallest change that fits. More cards cost one step per doubling on
// top of the bit's own weight (2 cards: 2, 4 cards: 3, 8 cards: 4).
func (c candidate) cost(askedGPUs int) int {
	weights := [...]int{1, 2, 3, 2, 4, 1, 0, 2}
	n := 0
	for i, w := range weights {
		if c.changes&(1<<i) != 0 {
			n += w
		}
	}
	if c.changes&chMoreGPUs != 0 {
		for g := askedGPUs; g < c.req.GPUs; g *= 2 {
			n++
		}
	}
	return n
}

// candidate is one configuration the search evaluated.
type candidate struct {
	req     Request
	changes change
	total   int64
	perHour float64 // all GPUs; 0 when unknown
	priced  bool
	vram    int64 // GPUs × card memory, to order unpriced configurations
	why     string
}

// alternatives returns up to five configurations that fit: the smallest
// changes on the asked card first when the question does not fit, then
// the cheapest configurations that fit as asked on other cards (or fewer
// of the asked card). Deterministic: every tie is broken by GPU id.
func (e *Estimator) alternatives(rs *resolved, asked Memory) []Alternative {
	fits := asked.TotalBytes <= rs.gpu.MemoryBytes
	askedCost, askedPriced := e.configPrice(rs.req.GPU, rs.req.GPUs)
	var out []candidate
	if !fits {
		out = e.sameCard(rs)
	} else if rs.req.GPUs > 1 {
		out = e.fewerCards(rs)
	}
	for _, c := range e.cheapest(rs) {
		if len(out) >= maxAlternatives {
			break
		}
		if c.req.GPU == rs.req.GPU {
			continue // the card the answer is for (no card named)
		}
		if fits && rs.gpuNamed && !(askedPriced && c.priced && c.perHour < askedCost) {
			continue // only cheaper ways, and cheaper needs prices
		}
		out = append(out, c)
	}
	alts := make([]Alternative, 0, len(out))
	for _, c := range out {
		a := Alternative{
			Method: c.req.Method, Optimizer: c.req.Optimizer, GPU: c.req.GPU, GPUs: c.req.GPUs,
			ZeROStage: c.req.ZeROStage, Offload: c.req.Offload, Fits: true, TotalBytes: c.total, Why: c.why,
		}
		if c.priced {
			v := c.perHour
			a.USDPerHour = &v
		}
		alts = append(alts, a)
	}
	return alts
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

func (e *Estimator) newCandidate(rs *resolved, r Request, g *GPU, ch change, total int64) candidate {
	c := candidate{req: r, changes: ch, total: total, vram: int64(r.GPUs) * g.MemoryBytes}
	c.perHour, c.priced = e.configPrice(g.ID, r.GPUs)
	return c
}

// sameCard searches changes on the asked card: methods, optimizer,
// checkpointing, offload and more cards, keeping the fitting ones with
// the smallest changes, none a superset of one already kept.
func (e *Estimator) sameCard(rs *resolved) []candidate {
	base := rs.req
	g := &rs.gpu
	var found []candidate
	try := func(r Request, ch change) {
		if ch == 0 {
			return
		}
		m := rs.memory(&r)
		if m.TotalBytes <= g.MemoryBytes {
			found = append(found, e.newCandidate(rs, r, g, ch, m.TotalBytes))
		}
	}
	counts := e.largerCounts(base.GPUs, g)
	if base.Method == MethodInference {
		for _, q := range inferenceQuants(base, g) {
			for _, kv := range [...]Precision{base.KVPrecision, PrecisionFP8} {
				for _, n := range counts {
					r := base
					var ch change
					if q != base.Quant || (q == QuantNone && base.Precision != r.Precision) {
						ch |= chQuant
					}
					r.Quant = q
					if q == QuantNone && base.Quant == QuantNone && q != base.Quant {
						r.Precision = PrecisionFP8
					}
					if kv != base.KVPrecision {
						ch |= chQuant
						r.KVPrecision = kv
					}
					ch |= setCount(&r, n, g)
					try(r, ch)
				}
			}
		}
	} else {
		for _, method := range trainingMethods(base.Method) {
			for _, ckpt := range [...]bool{base.GradCheckpointing, true} {
				for _, opt8 := range [...]bool{false, base.Optimizer == OptimizerAdamW} {
					for _, off := range [...]bool{false, base.Offload == OffloadNone} {
						for _, n := range counts {
							r := base
							var ch change
							ch |= setMethod(&r, method)
							if ckpt != r.GradCheckpointing {
								r.GradCheckpointing, ch = true, ch|chCheckpointing
							}
							if opt8 {
								r.Optimizer, ch = OptimizerAdamW8bit, ch|chOptimizer8bit
							}
							if off {
								r.Offload, r.ZeROStage, ch = OffloadCPU, 3, ch|chOffload
							}
							ch |= setCount(&r, n, g)
							try(r, ch)
						}
					}
				}
			}
		}
	}
	slices.SortFunc(found, func(a, b candidate) int {
		if c := a.cost(base.GPUs) - b.cost(base.GPUs); c != 0 {
			return c
		}
		if c := a.req.GPUs - b.req.GPUs; c != 0 {
			return c
		}
		return int(a.total - b.total)
	})
	var kept []candidate
	for _, c := range found {
		if len(kept) == maxSameCard {
			break
		}
		dominated := false
		for _, k := range kept {
			if c.changes&k.changes == k.changes {
				dominated = true
				break
			}
		}
		if !dominated {
			c.why = describe(rs, c)
			kept = append(kept, c)
		}
	}
	return kept
}

// fewerCards offers the smallest number of the asked card that still
// fits, when the question asked for more.
func (e *Estimator) fewerCards(rs *resolved) []candidate {
	g := &rs.gpu
	for _, n := range countSteps {
		if n >= rs.req.GPUs {
			break
		}
		r := rs.req
		r.GPUs, r.Nodes = n, 1
		if r.Method != MethodInference {
			r.ZeROStage = lowestStage(rs, r, g)
		}
		if m := rs.memory(&r); m.TotalBytes <= g.MemoryBytes {
			c := e.newCandidate(rs, r, g, chFewerGPUs, m.TotalBytes)
			c.why = describe(rs, c)
			return []candidate{c}
		}
	}
	return nil
}

// cheapest finds, for every card, the fewest GPUs that fit the question
// as asked (for training with the lowest ZeRO stage that fits), and
// returns those configurations cheapest first (by total card memory
// when unpriced).
func (e *Estimator) cheapest(rs *resolved) []candidate {
	cat := loadCatalog()
	var out []candidate
	for i := range cat.gpus {
		g := &cat.gpus[i]
		if !usable(rs.req, g) {
			continue
		}
		for _, n := range e.largerCounts(1, g) {
			r := rs.req
			r.GPU = g.ID
			setCount(&r, n, g)
			if r.Method != MethodInference {
				r.ZeROStage = lowestStage(rs, r, g)
			}
			if m := rs.memory(&r); m.TotalBytes <= g.MemoryBytes {
				c := e.newCandidate(rs, r, g, 0, m.TotalBytes)
				c.why = describeCheapest(g, c)
				out = append(out, c)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b candidate) int {
		switch {
		case a.priced && !b.priced:
			return -1
		case !a.priced && b.priced:
			return 1
		case a.priced && a.perHour != b.perHour:
			if a.perHour < b.perHour {
				return -1
			}
			return 1
		case a.vram != b.vram:
			if a.vram < b.vram {
				return -1
			}
			return 1
		}
		return strings.Compare(a.req.GPU, b.req.GPU)
	})
	return out
}

// usable reports whether a card can run the request at all: training
// needs a training card, and BF16 when the request is in BF16; FP8
// training needs FP8.
func usable(r Request, g *GPU) bool {
	if r.Method == MethodInference {
		return true
	}
	switch {
	case g.InferenceOnly:
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

// largerCounts lists the GPU counts to try from n up: 1, 2, 4, 8 within
// a machine, then whole machines.
func (e *Estimator) largerCounts(n int, g *GPU) []int {
	per := maxPerNode(*g)
	out := make([]int, 0, len(countSteps)+len(nodeSteps))
	out = append(out, n)
	for _, c := range countSteps {
		if c > n && c <= per {
			out = append(out, c)
		}
	}
	if g.InferenceOnly && per == 1 {
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
func setCount(r *Request, n int, g *GPU) change {
	if n == r.GPUs {
		return 0
	}
	per := maxPerNode(*g)
	r.GPUs, r.Nodes = n, (n+per-1)/per
	if r.Method != MethodInference && n > 1 {
		r.ZeROStage = 3
	}
	return chMoreGPUs
}

// trainingMethods are the methods to try from the asked one: never back
// up from adapters to full fine-tuning.
func trainingMethods(m Method) []Method {
	switch m {
	case MethodFull:
		return []Method{MethodFull, MethodLoRA, MethodQLoRA}
	case MethodLoRA:
		return []Method{MethodLoRA, MethodQLoRA}
	}
	return []Method{m}
}

// setMethod switches r to method m with that method's defaults. QLoRA
// from full fine-tuning counts as both steps (LoRA, then a 4-bit base).
func setMethod(r *Request, m Method) change {
	if m == r.Method {
		return 0
	}
	from := r.Method
	r.Method = m
	if r.LoRARank == 0 {
		r.LoRARank = defaultLoRARank
	}
	if m == MethodQLoRA {
		r.Quant, r.GradCheckpointing = QuantNF4DQ, true
		if from == MethodFull {
			return chLoRA | chQLoRA
		}
		return chQLoRA
	}
	return chLoRA
}

// inferenceQuants are the weight formats to try when serving does not
// fit: as asked, FP8 (on cards with FP8), int8, and 4-bit (AWQ on GPUs,
// GGUF Q4_K_M on Apple silicon, where llama.cpp is how models run).
func inferenceQuants(r Request, g *GPU) []Quant {
	out := []Quant{r.Quant}
	if r.Quant != QuantNone {
		return out
	}
	if g.FP8 && r.Precision != PrecisionFP8 {
		out = append(out, QuantNone) // FP8 weights: Precision fp8, handled by the caller
	}
	if g.InferenceOnly {
		return append(out, QuantQ8_0, QuantQ4_KM)
	}
	return append(out, QuantINT8, QuantAWQ)
}

// describe says in one line what a same-card alternative changes.
func describe(rs *resolved, c candidate) string {
	var parts []string
	r := c.req
	switch {
	case c.changes&chQLoRA != 0:
		parts = append(parts, "QLoRA (4-bit base, adapters only)")
	case c.changes&chLoRA != 0:
		parts = append(parts, fmt.Sprintf("LoRA rank %d (frozen 16-bit base)", r.LoRARank))
	}
	if c.changes&chOptimizer8bit != 0 {
		parts = append(parts, "8-bit AdamW")
	}
	if c.changes&chCheckpointing != 0 {
		parts = append(parts, "gradient checkpointing")
	}
	if c.changes&chOffload != 0 {
		parts = append(parts, "ZeRO-3 with CPU offload")
	}
	if c.changes&chQuant != 0 {
		parts = append(parts, weightFormat(r))
	}
	where := "on the same card"
	if c.changes&(chMoreGPUs|chFewerGPUs) != 0 {
		where = fmt.Sprintf("on %d× %s", r.GPUs, rs.gpu.Name)
		if r.Method != MethodInference && r.GPUs > 1 {
			where += fmt.Sprintf(" with ZeRO-%d", r.ZeROStage)
		}
	}
	if c.changes&chFewerGPUs != 0 {
		return fmt.Sprintf("fewer cards are enough: %s per GPU %s", gib(c.total), where)
	}
	what := strings.Join(parts, " + ")
	if what == "" {
		what = "as asked"
	}
	return fmt.Sprintf("%s %s: %s per GPU", what, where, gib(c.total))
}

// describeCheapest says why a configuration on another card is listed.
func describeCheapest(g *GPU, c candidate) string {
	s := fmt.Sprintf("as asked on %d× %s", c.req.GPUs, g.Name)
	if c.req.Method != MethodInference && c.req.GPUs > 1 {
		s += fmt.Sprintf(" with ZeRO-%d", c.req.ZeROStage)
	}
	s += ": " + gib(c.total) + " per GPU"
	if c.priced {
		s += fmt.Sprintf(", $%.2f/h", c.perHour)
	}
	return s
}

// weightFormat names how an inference request stores its weights and KV.
func weightFormat(r Request) string {
	w := string(r.Precision) + " weights"
	if r.Quant != QuantNone {
		w = string(r.Quant) + " weights"
	}
	return w + ", " + string(r.KVPrecision) + " KV cache"
}

// gib writes bytes as GiB with one decimal.
func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// pickGPU answers a question that names no card on the cheapest card that
// fits it as asked (by total card memory when unpriced); the others that
// fit become alternatives.
func (e *Estimator) pickGPU(rs *resolved) {
	if found := e.cheapest(rs); len(found) > 0 {
		c := found[0]
		g, _, _ := LookupGPU(c.req.GPU)
		rs.setGPU(g)
		rs.req = c.req
		rs.assume("no GPU named: answered for the cheapest configuration that fits, %d× %s; other cards that fit are listed as alternatives", c.req.GPUs, g.Name)
		return
	}
	g, _, _ := LookupGPU(referenceGPU)
	rs.setGPU(g)
	rs.assume("no GPU named and none fits as asked: answered for one %s", g.Name)
}
