package sizing

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// WhichGPUResult lists every catalog card that fits the question within
// one machine, cheapest first (unpriced cards last, by memory).
type WhichGPUResult struct {
	// OneGPUBytes is the whole job's memory on one card, unsharded: the
	// total a "how much VRAM" question asks for.
	OneGPUBytes int64 `json:"one_gpu_bytes"`
	// OneGPU is that total term by term (weights, KV cache, ...): what a
	// "how much memory does the KV cache take" question asks for.
	OneGPU      Memory      `json:"one_gpu"`
	Options     []GPUOption `json:"options"`
	Tokens      int64       `json:"tokens"`       // the token budget the times are for; 0 when none was given
	FitsNothing bool        `json:"fits_nothing"` // no card fits within one machine
	Fastest     bool        `json:"fastest"`      // "fastest gpu": the options are ordered by the run's hours
	Nearest     *GPUOption  `json:"nearest"`      // then: the cheapest configuration over several machines, if any
	// Job is a batch job of documents (Query.Job) on the first option,
	// the cheapest for the whole job; nil for any other question.
	Job *JobCost `json:"job,omitempty"`
}

// GPUOption is the fewest cards of one kind that fit, with speed, time
// and cost where known.
type GPUOption struct {
	GPU             string    `json:"gpu"`
	GPUName         string    `json:"gpu_name"`
	GPUs            int       `json:"gpus"`
	Nodes           int       `json:"nodes"`
	ZeROStage       int       `json:"zero_stage"`
	TotalBytes      int64     `json:"total_bytes"` // per GPU
	VRAMBytes       int64     `json:"vram_bytes"`  // one card
	Headroom        Headroom  `json:"headroom"`
	USDPerHour      *float64  `json:"usd_per_hour"` // all the cards; nil when no price is known
	TokensPerSecond *float64  `json:"tokens_per_second"`
	Hours           *float64  `json:"hours"`     // for the token budget; nil without one
	USDTotal        *float64  `json:"usd_total"` // for the token budget
	Price           *PriceRef `json:"price"`     // the GPU-hour price used
	// Purchase is what the cards cost to buy when the question asked
	// which cards to own (Query.Own); nil when not asked or no purchase
	// price is known for the card.
	Purchase *CardsPurchase `json:"purchase,omitempty"`
}

// PriceRef is a GPU-hour price and where it came from, with JSON keys.
type PriceRef struct {
	USDPerGPUHour float64   `json:"usd_per_gpu_hour"`
	Provider      string    `json:"provider"`
	Market        string    `json:"market"`
	Region        string    `json:"region"`
	AsOf          time.Time `json:"as_of"`
}

func priceRef(p *Price) *PriceRef {
	if p == nil {
		return nil
	}
	return &PriceRef{USDPerGPUHour: p.USDPerGPUHour, Provider: p.Provider, Market: p.Market, Region: p.Region, AsOf: p.AsOf}
}

// WhichGPU answers "which GPU should we use?": every catalog card that
// fits the question as asked with 1, 2, 4 or 8 of it in one machine (the
// fewest that fit, training at the lowest ZeRO stage that fits),
// cheapest first, with price per hour and, given a token budget, time and
// cost. It extends the search the estimator runs for a question with no
// GPU (which answers for the cheapest and lists a few others) to the whole
// catalog. A GPU named in the question is set aside; a count is kept.
func (e *Estimator) WhichGPU(q Query) (AskAnswer, error) {
	var asm assumptionSet
	if q.GPU != "" {
		asm.add(fmt.Sprintf("%q set aside: every card in the catalog is compared", q.GPU))
		q.GPU = ""
	}
	rs, err := resolve(q)
	if err != nil {
		return AskAnswer{}, err
	}
	asm.add(rs.assumptions...)
	var buf [64]fitOption
	// "fastest gpu": each card on a whole machine of it, as the fastest
	// run with no card named is: never 8× L4 at their fewest count ahead
	// of one B200.
	rs.wholeMachines = rs.req.Fastest && !rs.countSaid
	found := e.cheapest(buf[:0], rs)
	one := rs.req
	one.GPUs, one.Nodes, one.ZeROStage, one.Offload = 1, 1, 0, OffloadNone
	whole := rs.memory(&one)
	res := &WhichGPUResult{Options: []GPUOption{}, Tokens: rs.req.Tokens, OneGPUBytes: whole.TotalBytes, OneGPU: whole}
	var first Request
	for _, o := range found {
		c := o.altCandidate(rs)
		opt := e.gpuOption(rs, c)
		if c.req.Nodes > 1 {
			if res.Nearest == nil {
				res.Nearest = &opt
			}
			continue
		}
		if len(res.Options) == 0 {
			first = c.req
		}
		res.Options = append(res.Options, opt)
	}
	if len(res.Options) == 0 {
		res.FitsNothing = true
		first = rs.req
	} else {
		res.Nearest = nil
	}
	order := "cheapest per hour first"
	if res.Tokens > 0 {
		// With a budget, cheapest means the whole run: a dearer card that
		// finishes sooner can cost less.
		slices.SortStableFunc(res.Options, func(a, b GPUOption) int {
			switch {
			case a.USDTotal != nil && b.USDTotal != nil:
				return cmp.Compare(*a.USDTotal, *b.USDTotal)
			case a.USDTotal != nil:
				return -1
			case b.USDTotal != nil:
				return 1
			}
			return 0
		})
		first = requestFor(rs, res.Options[0])
		order = fmt.Sprintf("cheapest for the %s-token run first", humanCount(res.Tokens))
	}
	if rs.req.Fastest && len(res.Options) > 0 {
		res.Fastest = true
		// Each training card is timed on a whole machine of it
		// (wholeMachine), so that eight slow cards at their fewest count
		// never lead one fast card (ranked 8× L4 over one
		// B200) and the fastest way is the fastest machine. A
		// card nobody rents comes after those that can be had.
		slices.SortStableFunc(res.Options, func(a, b GPUOption) int {
			if pa, pb := a.USDPerHour != nil, b.USDPerHour != nil; pa != pb {
				if pa {
					return -1
				}
				return 1
			}
			return compareHours(hoursOrZero(a.Hours), hoursOrZero(b.Hours))
		})
		first = requestFor(rs, res.Options[0])
		order = fmt.Sprintf("fastest for the %s-token run first, each card on a whole machine, priced cards before those with no price", humanCount(res.Tokens))
	}
	if rs.req.Documents > 0 && len(res.Options) > 0 {
		o := res.Options[0]
		r := requestFor(rs, o)
		t := Throughput{PrefillTokensPerSecond: o.TokensPerSecond, USDPerHour: o.USDPerHour}
		res.Job = jobCost(&r, t)
	}
	asm.add("each card at 1, 2, 4 or 8 in one machine (as many as the machine holds): the fewest that fit, " + order)
	if q.Own {
		for i, o := range res.Options {
			if p, ok := cardsPurchase(o.GPU, o.GPUs); ok {
				res.Options[i].Purchase = &p
			}
		}
		asm.add("to own: each card's purchase price where fitbot knows it (data/gpu_prices.csv: the range seen, its date and source), the cards only, not the machine around them")
	}
	return AskAnswer{Kind: IntentWhichGPU, Request: first, Assumptions: asm.list(e.costAssumptions(nil, nil, Throughput{}, nil)), ModelName: rs.model.Name, WhichGPU: res}, nil
}

// requestFor rebuilds the request of an option.
func requestFor(rs *resolved, o GPUOption) Request {
	r := rs.req
	r.GPU, r.GPUs, r.Nodes = o.GPU, o.GPUs, o.Nodes
	if r.Method != MethodInference {
		r.ZeROStage = o.ZeROStage
	}
	fitLayout(&r, r.GPUs/max(r.Nodes, 1))
	return r
}

// gpuOption fills one configuration's speed, time and cost.
func (e *Estimator) gpuOption(rs *resolved, c altCandidate) GPUOption {
	g := c.gpu
	opt := GPUOption{GPU: g.ID, GPUName: g.Name, GPUs: c.req.GPUs, Nodes: c.req.Nodes, ZeROStage: c.req.ZeROStage,
		TotalBytes: c.total, VRAMBytes: g.MemoryBytes, Headroom: headroom(c.total, g.MemoryBytes)}
	if c.req.Method == MethodInference {
		opt.ZeROStage = 0
	}
	price := e.price(g.ID)
	opt.Price = priceRef(price)
	r := c.req
	t, _ := throughput(&r, &rs.shape, g, e.mfu(), price)
	opt.USDPerHour, opt.TokensPerSecond, opt.Hours, opt.USDTotal = t.USDPerHour, t.TokensPerSecond, t.Hours, t.USDTotal
	if rs.shape.encoderOnly {
		opt.TokensPerSecond = t.PrefillTokensPerSecond // an encoder's speed is its forward pass
	}
	return opt
}
