package sizing

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ServeResult answers a serving question: the capacity of the named GPUs
// (Mode "capacity"), or the configurations that meet the asked load and
// targets (Mode "plan"), cheapest first, or fastest first when speed was
// asked (Fastest).
type ServeResult struct {
	Mode string `json:"mode"` // "capacity" or "plan"
	// Fastest is true when the plan is ranked by speed ("fastest",
	// "lowest latency"): each user's decode tokens/s at the asked users
	// (one request alone when none were said), then the time to first
	// token, then the cost per month. False: cheapest per month first.
	Fastest bool `json:"fastest,omitempty"`
	// The asked load and targets; zero when not asked.
	Users                        int     `json:"users"`
	RequestsPerSecond            float64 `json:"requests_per_second"`
	TTFTTargetSeconds            float64 `json:"ttft_target_seconds"`
	TokensPerSecondPerUserTarget float64 `json:"tokens_per_second_per_user_target"`
	OutputTokensPerSecondTarget  float64 `json:"output_tokens_per_second_target"` // all replicas together
	// DailyUsers is the users a day the requests per second were read
	// from ("2000 daily users"), for the cost a user a month; 0 when none.
	DailyUsers int `json:"daily_users,omitempty"`
	// Capacity is the named GPUs as one replica (capacity mode).
	Capacity *Serving `json:"capacity,omitempty"`
	// Options are the configurations that meet the targets, cheapest per
	// month first, or fastest first (plan mode); when none does,
	// MeetsTargets is false and Options holds the closest ones.
	Options      []ServeOption `json:"options"`
	MeetsTargets bool          `json:"meets_targets"`
	// NotOnNamed says why no replica of the named card serves the model
	// ("No replica of H100 SXM 80 GB serves DeepSeek-V3: its fp8 weights,
	// 626.8 GiB, are more than 8 of them hold in one machine ..."), when
	// none does; Options are then the cheapest of the whole catalog.
	// Empty otherwise.
	NotOnNamed string `json:"not_on_named,omitempty"`
	// Purchase is what the cards cost to buy when the question asked
	// which cards to own (Query.Own): the named cards with the replicas
	// the load needs, or the first planned configuration whose card has a
	// purchase price; nil when not asked or no price is known.
	Purchase *CardsPurchase `json:"purchase,omitempty"`
	// OneCard is what one of the named card holds, in the format that
	// serves best on it, when a plan for users names a card with no count
	// ("on an l4 to 100 users") and one does not hold them all; nil
	// otherwise.
	OneCard *ServeOption `json:"one_card,omitempty"`
}

// ServeOption is one planned configuration: a card, its weight format,
// the replicas of GPUsPerReplica cards, and what they do.
type ServeOption struct {
	GPU       string    `json:"gpu"`
	GPUName   string    `json:"gpu_name"`
	Provider  string    `json:"provider,omitempty"` // the cloud whose price costs it; "" when unpriced
	Market    string    `json:"market,omitempty"`   // that price's market: "on_demand" or "spot"
	Quant     Quant     `json:"quant"`
	Precision Precision `json:"precision"`
	Serving   Serving   `json:"serving"`
	Request   Request   `json:"-"` // one replica, for a launch config
}

// usableTokensPerSecond is the speed per user a capacity answer keeps
// when none is asked: 10 tokens/s, faster than people read (about 4-5
// words, 6-7 tokens a second).
const usableTokensPerSecond = 10.0

// planOptions is how many configurations a planning answer lists.
const planOptions = 5

// Serve answers a serving question: with named GPUs and no planning
// words, what one replica of them serves; otherwise the cheapest
// configurations (card × GPUs per replica × weight format × replicas)
// that meet the asked users or requests per second and the TTFT and
// tokens/s targets.
func (e *Estimator) Serve(q Query) (AskAnswer, error) {
	if q.Spot && !e.spotOnly {
		return e.serveOnSpot(q)
	}
	if q.Fewest && q.GPU != "" && q.GPUs == 0 && q.Nodes == 0 && !q.Serve.Plan {
		return e.serveOnFewest(q)
	}
	a, err := e.serve(q)
	if err == nil && q.Serve.Plan && q.GPU != "" && q.GPUs == 0 && q.Nodes == 0 && a.Serve != nil && a.Serve.Users > 0 {
		e.oneCard(q, &a)
	}
	if err != nil || q.GPU == "" || q.Serve.Plan || q.Precision != "" || q.Quant != "" || a.Serve == nil || a.Serve.Capacity == nil {
		return a, err
	}
	released := a.Serve.Capacity
	if released.Fits && a.Serve.MeetsTargets {
		e.fp8Lever(q, &a)
		return a, nil
	}
	// Named cards, no format said, and the released weights leave no room
	// for one request, or do not hold the load asked: the largest smaller
	// format that holds it on those cards, else the first that serves.
	g, _, err := LookupGPU(q.GPU)
	if err != nil {
		return a, nil
	}
	why := "the weights leave no room for one request on these cards"
	switch {
	case released.Fits && a.Serve.Users > 0:
		why = fmt.Sprintf("these cards hold %d requests at once, not the %d asked", released.MaxConcurrency, a.Serve.Users)
	case released.Fits:
		// A speed or latency target missed, no users asked (read "not the 0 asked" for "100 tok/s on mistral 7b").
		why = "these cards miss the asked target"
	}
	smaller := []Quant{QuantAWQ}
	switch {
	case g.UnifiedMemory:
		smaller = []Quant{QuantQ8_0, QuantQ4_KM}
	case g.FP8:
		smaller = []Quant{QuantFP8, QuantAWQ}
	}
	var serves *AskAnswer
	for _, quant := range smaller {
		sq := q
		sq.Quant = quant
		b, err := e.serve(sq)
		if err != nil || b.Serve == nil || b.Serve.Capacity == nil || !b.Serve.Capacity.Fits {
			continue
		}
		b.Assumptions = append([]string{fmt.Sprintf("no weight format said, and as released %s: served in %s instead (say bf16 to see it as released)", why, quant)}, b.Assumptions...)
		if b.Serve.MeetsTargets {
			return b, nil
		}
		if serves == nil && !released.Fits {
			serves = &b
		}
	}
	if serves != nil {
		return *serves, nil
	}
	return a, nil
}

// oneCard sets a plan's OneCard: what one of the named card holds of the
// users asked, when it does not hold them all (planned 3 ×
// 2× L4 for "on an l4 to 100 users, will kv cache fit" and never said
// what the one L4 holds).
func (e *Estimator) oneCard(q Query, a *AskAnswer) {
	one := q
	one.Serve.Plan, one.GPUs, one.Nodes = false, 1, 1
	b, err := e.Serve(one)
	if err != nil || b.Serve == nil || b.Serve.Capacity == nil {
		return
	}
	c := b.Serve.Capacity
	if c.Fits && c.MaxConcurrency >= a.Serve.Users {
		return
	}
	opt := ServeOption{GPU: b.Request.GPU, GPUName: b.GPUName, Quant: b.Request.Quant, Precision: b.Request.Precision, Serving: *c, Request: b.Request}
	res := *a.Serve
	res.OneCard = &opt
	a.Serve = &res
}

// fp8Lever adds to a capacity answer in the released 16-bit weights, on
// cards with FP8, what fp8 weights would hold on the same cards when it
// is at least half as many users again: the lever people reach for first
// (Qwen3 32B on one H100 holds 7 users in bf16, 36 in fp8).
func (e *Estimator) fp8Lever(q Query, a *AskAnswer) {
	g, _, err := LookupGPU(q.GPU)
	if err != nil || !g.FP8 || a.Request.Quant != QuantNone || a.Request.Precision == PrecisionFP8 || a.Serve.Users > 0 {
		return
	}
	sq := q
	sq.Quant = QuantFP8
	b, err := e.serve(sq)
	if err != nil || b.Serve == nil || b.Serve.Capacity == nil || !b.Serve.Capacity.Fits {
		return
	}
	was, now := a.Serve.Capacity.Concurrency, b.Serve.Capacity.Concurrency
	if 2*now < 3*was {
		return
	}
	a.Assumptions = append(slices.Clone(a.Assumptions), fmt.Sprintf("in fp8 weights the same cards hold about %d users at the same speed floor, not %d (say fp8 to size it)", now, was))
}

// serveOnFewest answers a capacity question on cards named in the plural
// with no count ("cost per million tokens of llama 3 70b on h100s") on the
// fewest of them in one machine whose weights, as asked, leave room for a
// request; when no count up to a machine's does, as Serve answers one card.
func (e *Estimator) serveOnFewest(q Query) (AskAnswer, error) {
	q.Fewest = false
	g, _, err := LookupGPU(q.GPU)
	if err != nil {
		return e.Serve(q)
	}
	for n := 1; n <= max(g.MaxPerNode, 1); n *= 2 {
		sq := q
		sq.GPUs = n
		a, err := e.serve(sq)
		if err != nil {
			return a, err
		}
		if a.Serve != nil && a.Serve.Capacity != nil && a.Serve.Capacity.Fits {
			a.Assumptions = append([]string{fmt.Sprintf("how many: %d× %s, the fewest in one machine that serve a request (the cards were named with no count)", n, g.Name)}, a.Assumptions...)
			return a, nil
		}
	}
	return e.Serve(q)
}

// serveOnSpot answers a serving question that asks spot at spot prices
// (the cards with a spot offer); when none of its configurations has one,
// at on-demand prices, saying so first.
func (e *Estimator) serveOnSpot(q Query) (AskAnswer, error) {
	if at, ok := e.onSpot(); ok {
		a, err := at.Serve(q)
		if err != nil {
			return a, err
		}
		if servePriced(a) {
			a.Assumptions = append([]string{"spot asked: priced at spot (interruptible) prices, among the cards with a spot offer"}, a.Assumptions...)
			return a, nil
		}
	}
	q.Spot = false
	a, err := e.Serve(q)
	if err == nil {
		a.Assumptions = append([]string{"spot asked, but no spot price is known for these cards: priced on demand"}, a.Assumptions...)
	}
	return a, err
}

// servePriced reports whether a serving answer has a monthly cost.
func servePriced(a AskAnswer) bool {
	if a.Serve == nil {
		return false
	}
	if c := a.Serve.Capacity; c != nil {
		return c.USDPerMonth != nil
	}
	return len(a.Serve.Options) > 0 && a.Serve.Options[0].Serving.USDPerMonth != nil
}

// serve is Serve for the format asked (or as released).
func (e *Estimator) serve(q Query) (AskAnswer, error) {
	if q.Method == "" {
		q.Method = MethodInference
	}
	if q.Method != MethodInference {
		return AskAnswer{}, inputErr("fit how many users llama-3.1-8b l4", "a serving question is about inference, not %s", q.Method)
	}
	if err := servedFamily(q); err != nil {
		return AskAnswer{}, err
	}
	if err := (&resolved{}).resolveModel(q); err != nil {
		// Refused before the stand-in card and length below are set, so
		// that the Try keeps the question as asked ("about 2000 employees,
		// which gpu" is not tried on an H100 at seq 4096).
		return AskAnswer{}, err
	}
	var asm assumptionSet
	unsaid := lengthUnsaid(q)
	if unsaid {
		q.SeqLen = ServeContextDefault
		asm.add(fmt.Sprintf("requests of %d tokens (prompt and answer) when none is said: a chat turn with its history", ServeContextDefault))
	}
	named := q.GPU != ""
	plan := q.Serve.Plan || !named
	if !named {
		q.GPU, q.GPUs, q.Nodes = "h100", 0, 0 // resolved for the model and lengths; the search sets the card
	}
	rs, err := resolve(q)
	if err != nil {
		return AskAnswer{}, err
	}
	formatSaid := q.Precision != "" || q.Quant != ""
	for _, a := range rs.assumptions {
		if a == "one request at a time (batch 1)" {
			continue
		}
		if plan && !formatSaid && strings.HasSuffix(a, "(weights unquantised)") {
			continue // the options try each format; the table's weights column says which
		}
		if named || a != fmt.Sprintf("%q taken as %s", "h100", rs.gpu.Name) {
			asm.add(a)
		}
	}
	r := rs.req
	sp := r.spec()
	res := &ServeResult{Users: r.Concurrency, RequestsPerSecond: r.RequestsPerSecond,
		TTFTTargetSeconds: r.TTFTTargetSeconds, TokensPerSecondPerUserTarget: r.TokensPerSecondPerUserTarget,
		OutputTokensPerSecondTarget: r.OutputTokensPerSecondTarget, DailyUsers: q.Serve.DailyUsers, Options: []ServeOption{}}
	asm.add(servingAssumptions(&r, &rs.shape, &rs.gpu, sp, e.mfu())...)
	out := AskAnswer{Kind: IntentServe, Request: r, ModelName: rs.model.Name, Serve: res}
	if !plan {
		res.Mode = "capacity"
		sv := serveReplica(&r, &rs.shape, &rs.gpu, e.mfu(), sp, e.price(r.GPU), 1)
		if q.Serve.MaxBatch && sv.Fits {
			asm.add(fmt.Sprintf("max batch asked: the most requests of this length the KV cache holds at once, %d, at whatever speed that leaves each", sv.MaxConcurrency))
		}
		if sp.users == 0 && sp.tpsTarget == 0 && sv.Fits && !q.Serve.MaxBatch {
			// With no speed asked, the users a replica serves are the most
			// that still read faster than people do.
			usable := sp
			usable.tpsTarget = usableTokensPerSecond
			if u := serveReplica(&r, &rs.shape, &rs.gpu, e.mfu(), usable, e.price(r.GPU), 1); u.MeetsTargets && u.Concurrency < sv.Concurrency {
				sv = u
				asm.add(fmt.Sprintf("no speed asked: as many users as still get %g tokens/s each (faster than people read); the KV cache holds %d", usableTokensPerSecond, sv.MaxConcurrency))
			}
		}
		if sp.users > sv.MaxConcurrency && sv.MaxConcurrency > 0 {
			sv.Replicas = (sp.users + sv.MaxConcurrency - 1) / sv.MaxConcurrency
			if sv.USDPerMonth != nil {
				all := *sv.USDPerMonth * float64(sv.Replicas) // the replicas the users need, not one
				sv.USDPerMonth = &all
			}
		}
		if sp.totalTPS > 0 && sv.OutputTokensPerSecond < sp.totalTPS {
			sv.MeetsTargets = false // one replica of the named cards makes less than the asked output
		}
		if sp.rps > 0 && sv.Fits {
			// An arrival rate holds only if the requests in flight (rate ×
			// time per request) fit the replica: its closed-loop rate at a
			// usable speed is what it completes, as a plan counts it.
			closed := sp
			closed.rps, closed.users = 0, 0
			if closed.tpsTarget == 0 {
				closed.tpsTarget = usableTokensPerSecond
			}
			if c := serveReplica(&r, &rs.shape, &rs.gpu, e.mfu(), closed, e.price(r.GPU), 1); c.Fits && c.RequestsPerSecond > 0 && c.RequestsPerSecond < sp.rps {
				replicas := int(math.Ceil(sp.rps / c.RequestsPerSecond))
				asm.add(fmt.Sprintf("%s requests/s asked: one replica completes %s a second with %d requests in flight at %.3g tokens/s each; %d replicas make the rate",
					formatFloat(sp.rps), formatFloat(math.Round(c.RequestsPerSecond*100)/100), c.Concurrency, c.TokensPerSecondPerUser, replicas))
				sv = serveReplica(&r, &rs.shape, &rs.gpu, e.mfu(), closed, e.price(r.GPU), replicas)
				sv.MeetsTargets = false
			}
		}
		if unsaid {
			sv.MaxModelLen = rs.chatMaxModelLen()
		}
		res.Capacity = &sv
		res.MeetsTargets = sv.MeetsTargets
		if q.Own {
			res.Purchase = capacityPurchase(r.GPU, &sv)
		}
		out.GPUName = rs.gpu.Name
		out.Assumptions = asm.list(e.costAssumptions(&r, &rs.gpu, Throughput{}, e.price(r.GPU)))
		return out, nil
	}
	res.Mode = "plan"
	res.Fastest = q.Fastest
	rs.req.Fastest = res.Fastest // each option's request says so
	switch {
	case q.Serve.Plan:
	case res.Fastest:
		asm.add("no GPU named: the fastest configurations that meet the load")
	default:
		asm.add("no GPU named: the cheapest configurations that meet the load")
	}
	if res.Fastest && sp.users == 0 && sp.rps == 0 && sp.totalTPS == 0 {
		// No load said: the speed is one request's alone, the latency a
		// single user sees ("fastest gpu to serve llama
		// 3.1 70b").
		sp.users = 1
		asm.add("fastest asked with no users said: ranked by one request alone (batch 1), its decode tokens/s, then its time to first token")
	}
	alone := res.Fastest && sp.users == 1 && res.Users == 0
	var only string
	if named {
		only = r.GPU
	}
	if sp.tpsTarget == 0 {
		// A plan with no speed asked still serves at a speed people can
		// use: the cheapest configuration is otherwise the one that
		// crowds the most users onto each replica (a first-token target
		// alone leaves them at 6 tok/s).
		sp.tpsTarget = usableTokensPerSecond
		if !alone { // one request alone is far above it
			asm.add(fmt.Sprintf("no speed asked: each user gets at least %g tokens/s (faster than people read)", usableTokensPerSecond))
		}
	}
	// A fastest plan leaves int4 out unless said: it decodes faster
	// still but trades quality for it, a choice the asker did not make;
	// it is tried when nothing else meets the load.
	int4 := !res.Fastest
	planned := func(only string) []ServeOption {
		opts := e.planServe(rs, sp, only, formatSaid, res.Fastest, int4)
		if !int4 && (len(opts) == 0 || !opts[0].Serving.MeetsTargets) {
			int4 = true
			opts = e.planServe(rs, sp, only, formatSaid, res.Fastest, int4)
		}
		return opts
	}
	res.Options = planned(only)
	if len(res.Options) == 0 && only != "" {
		// Nothing on the named card: say why, and plan the whole catalog
		// (fp8 DeepSeek-V3 on H100s was refused with no
		// reason and no next step).
		res.NotOnNamed = notOnCard(rs, sp, formatSaid)
		res.Options = planned("")
	}
	for _, tp := range countSteps {
		if !tensorParallelServes(&rs.shape, tp) {
			asm.add(fmt.Sprintf("no replica of %d GPUs: %s's %d attention heads do not split over %d for tensor parallelism", tp, rs.model.Name, rs.shape.heads, tp))
		}
	}
	if unsaid {
		for i := range res.Options {
			res.Options[i].Serving.MaxModelLen = rs.chatMaxModelLen()
		}
	}
	if q.Own {
		res.Purchase = planPurchase(res.Options)
	}
	res.MeetsTargets = len(res.Options) > 0 && res.Options[0].Serving.MeetsTargets
	if len(res.Options) > 0 {
		out.Request = res.Options[0].Request
		out.GPUName = res.Options[0].GPUName
	}
	if res.Fastest {
		listed := "each format listed"
		if only == "" || res.NotOnNamed != "" {
			listed = "each card listed once, in its fastest format"
		}
		formats := "in its released format and in fp8 where the card runs it (int4 AWQ decodes faster still but costs quality: say awq to plan it)"
		switch {
		case formatSaid:
			formats = "in the format asked"
		case int4:
			formats = "in its released format and in fp8 and int4 (AWQ) where the card runs them (int4 tried as nothing else meets the load)"
		}
		asm.add(fmt.Sprintf("fastest first: each card at the 1, 2, 4 or 8 GPUs per replica in one machine that decode fastest (tensor parallel over more cards reads the weights sooner, less the all-reduces over the link), %s, %s; replicas added until the load is met; ranked by tokens/s each, then time to first token, then cost per month (%d hours)", formats, listed, int(HoursPerMonth)))
	} else {
		asm.add(fmt.Sprintf("each card at 1, 2, 4 or 8 GPUs per replica in one machine, in its released format and in fp8 and int4 (AWQ) where the card runs them; replicas added until the load is met; ranked by cost per month (%d hours)", int(HoursPerMonth)))
	}
	if q.Own {
		asm.add("to own: the configurations whose cards all fit in one machine first, each ranked as above; the purchase price is of the cards and the machines around them, not power or upkeep")
	}
	out.Assumptions = asm.list(e.costAssumptions(nil, nil, Throughput{}, nil))
	return out, nil
}

// planServe searches the catalog for the cheapest configurations that
// meet the spec, or the fastest (fastest: byServeSpeed): for each card
// (or only the named one), weight format and tensor-parallel size, one
// replica's concurrency within the targets and the replicas the load
// needs. Configurations that cannot meet the targets at any size are kept
// as the closest when none can. A fastest plan over the catalog lists
// each card once, in its fastest format, so that it names five cards.
// int4 false leaves AWQ out unless it is the format asked.
func (e *Estimator) planServe(rs *resolved, sp serveSpec, only string, formatSaid, fastest, int4 bool) []ServeOption {
	cat := loadCatalog()
	var meet, miss []ServeOption
	need := max(sp.users, 1)
	byCost := func(a, b ServeOption) int {
		return cmp.Or(cmp.Compare(monthly(a), monthly(b)), cmp.Compare(a.Serving.TTFTSeconds, b.Serving.TTFTSeconds))
	}
	rank := byCost
	if fastest {
		rank = byServeSpeed
	}
	for i := range cat.gpus {
		g := &cat.gpus[i]
		if (only != "" && g.ID != only) || (only == "" && g.Link == LinkUnified) {
			continue
		}
		price := e.price(g.ID)
		if price == nil && only == "" {
			continue
		}
		for _, qz := range planQuants(rs, g, formatSaid) {
			if !int4 && qz.quant == QuantAWQ && rs.req.Quant != QuantAWQ {
				continue // int4 not tried (a fastest plan's first pass)
			}
			// The cheapest replica size of this card and format that meets
			// the targets: more GPUs per replica can cost less in all, when
			// one card holds the weights with little room left for the KV
			// cache (70B in fp8 on one 80 GB card serves 2 users a replica).
			var best *ServeOption
			for _, tp := range countSteps {
				if tp > MaxPerNode(*g) {
					break
				}
				if !tensorParallelServes(&rs.shape, tp) {
					continue // the engine refuses it: the heads do not split over tp GPUs
				}
				r := rs.req
				r.GPU, r.GPUs, r.Nodes = g.ID, tp, 1
				r.Quant, r.Precision = qz.quant, qz.prec
				if modelWeightBytes(&rs.shape, r.Quant, r.Precision)/float64(tp) > sp.util*float64(g.MemoryBytes) {
					continue
				}
				one := sp
				one.users = 0 // the most one replica serves within the targets
				if sp.rps > 0 {
					one.rps = 0
				}
				sv := serveReplica(&r, &rs.shape, g, e.mfu(), one, price, 1)
				if !sv.Fits {
					continue
				}
				replicas := (need + sv.Concurrency - 1) / max(sv.Concurrency, 1)
				if sp.rps > 0 && sv.RequestsPerSecond > 0 {
					replicas = max(replicas, int(math.Ceil(sp.rps/sv.RequestsPerSecond)))
				}
				if sp.totalTPS > 0 && sv.OutputTokensPerSecond > 0 {
					replicas = max(replicas, int(math.Ceil(sp.totalTPS/sv.OutputTokensPerSecond)))
				}
				ok := sv.MeetsTargets && (sp.totalTPS == 0 || sv.OutputTokensPerSecond > 0)
				if sp.users > 0 {
					// Spread the users over the replicas: each runs fewer.
					per := (sp.users + replicas - 1) / replicas
					at := one
					at.users = per
					sv = serveReplica(&r, &rs.shape, g, e.mfu(), at, price, replicas)
					ok = ok && sv.MeetsTargets
				} else {
					sv = serveReplica(&r, &rs.shape, g, e.mfu(), one, price, replicas)
				}
				sv.MeetsTargets = ok
				opt := ServeOption{GPU: g.ID, GPUName: g.Name, Quant: r.Quant, Precision: r.Precision, Serving: sv, Request: r}
				if price != nil {
					opt.Provider, opt.Market = price.Provider, price.Market
				}
				opt.Request.Concurrency = sv.Concurrency
				if ok {
					if best == nil || rank(opt, *best) < 0 {
						best = &opt
					}
					continue
				}
				miss = append(miss, opt)
			}
			if best != nil {
				meet = append(meet, *best)
			}
		}
	}
	if len(meet) > 0 {
		slices.SortFunc(meet, rank)
		if rs.asked.Own {
			inOneMachine(meet)
		}
		if fastest && only == "" {
			meet = firstPerCard(meet)
		}
		return meet[:min(len(meet), planOptions)]
	}
	// None meets the targets: the closest first (the smallest worst ratio
	// of a latency to its target), then the cheapest (or the fastest).
	slices.SortFunc(miss, func(a, b ServeOption) int {
		return cmp.Or(cmp.Compare(sp.shortfall(a.Serving), sp.shortfall(b.Serving)), rank(a, b))
	})
	return miss[:min(len(miss), planOptions)]
}

// byServeSpeed orders plan options fastest first: the most decode
// tokens/s each user gets, then the shortest time to first token, then
// the cheapest per month.
func byServeSpeed(a, b ServeOption) int {
	return cmp.Or(cmp.Compare(b.Serving.TokensPerSecondPerUser, a.Serving.TokensPerSecondPerUser),
		cmp.Compare(a.Serving.TTFTSeconds, b.Serving.TTFTSeconds),
		cmp.Compare(monthly(a), monthly(b)))
}

// firstPerCard keeps the first option of each card, in order.
func firstPerCard(opts []ServeOption) []ServeOption {
	out := opts[:0]
	for _, o := range opts {
		if !slices.ContainsFunc(out, func(k ServeOption) bool { return k.GPU == o.GPU }) {
			out = append(out, o)
		}
	}
	return out
}

// monthly is an option's cost per month, unpriced last.
func monthly(o ServeOption) float64 {
	if o.Serving.USDPerMonth == nil {
		return math.Inf(1)
	}
	return *o.Serving.USDPerMonth
}

// quantChoice is a weight format a plan tries.
type quantChoice struct {
	quant Quant
	prec  Precision
}

// notOnCard says why no replica of the resolved card serves the model:
// its smallest weights against what the most cards of one machine hold
// at the engine's memory share (a replica is planned within one
// machine), or that the KV cache has no room left.
func notOnCard(rs *resolved, sp serveSpec, formatSaid bool) string {
	g := &rs.gpu
	n := MaxPerNode(*g)
	var small quantChoice
	least := math.Inf(1)
	for _, qz := range planQuants(rs, g, formatSaid) {
		if b := modelWeightBytes(&rs.shape, qz.quant, qz.prec); b < least {
			least, small = b, qz
		}
	}
	format := string(small.prec)
	if small.quant != "" {
		format = string(small.quant)
	}
	usable := sp.util * float64(g.MemoryBytes) * float64(n)
	if least <= usable {
		return fmt.Sprintf("No replica of %s serves %s: on %d of them the %s weights leave the KV cache no room for the load", g.Name, rs.model.Name, n, format)
	}
	return fmt.Sprintf("No replica of %s serves %s: its %s weights, %s, are more than %d of them hold in one machine (%s at %.0f%% of memory), and a replica is planned within one machine",
		g.Name, rs.model.Name, format, gibString(int64(least)), n, gibString(int64(usable)), sp.util*100)
}

// planQuants are the weight formats a plan tries on g: the resolved one
// (the asked format, or the model's released one), fp8 where the card
// computes in it, and AWQ int4; only the first when the question named a
// weight format or precision (formatSaid).
func planQuants(rs *resolved, g *GPU, formatSaid bool) []quantChoice {
	out := []quantChoice{{rs.req.Quant, rs.req.Precision}}
	add := func(c quantChoice) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if rs.req.Quant != QuantNone || formatSaid {
		return out // the question named or the model ships a format: keep it
	}
	if g.FP8 {
		add(quantChoice{QuantFP8, PrecisionFP8})
	}
	add(quantChoice{QuantAWQ, PrecisionFP16})
	return out
}

// ServePoint is one replica's latency and throughput at one concurrency.
type ServePoint struct {
	Concurrency            int     `json:"concurrency"`
	TTFTSeconds            float64 `json:"ttft_seconds"`
	TokensPerSecondPerUser float64 `json:"tokens_per_second_per_user"`
	OutputTokensPerSecond  float64 `json:"output_tokens_per_second"`
}

// curvePoints is how many concurrencies a curve samples.
const curvePoints = 24

// ServeCurve is how one replica of a resolved serving question (a
// capacity answer's request, or a plan option's) behaves from one
// request to as many as its KV cache holds: the points of the latency
// and throughput curve against concurrency.
func (e *Estimator) ServeCurve(q Query) ([]ServePoint, error) {
	q.MicroBatch = 0
	rs, err := resolve(q)
	if err != nil {
		return nil, err
	}
	r := &rs.req
	if r.Method != MethodInference {
		return nil, inputErr("fit how many users llama-3.1-8b l4", "a serving curve is about inference, not %s", r.Method)
	}
	sp := r.spec()
	sp.users = 0
	sv := serveReplica(r, &rs.shape, &rs.gpu, e.mfu(), sp, nil, 1)
	top := max(sv.MaxConcurrency, 1)
	out := make([]ServePoint, 0, curvePoints)
	last := 0
	for i := range curvePoints {
		c := max(1, int(math.Round(float64(top)*float64(i)/(curvePoints-1))))
		if c == last {
			continue
		}
		last = c
		ttft, tpot, _ := latencyAt(r, &rs.shape, &rs.gpu, e.mfu(), sp, c)
		pt := ServePoint{Concurrency: c, TTFTSeconds: finite(ttft)}
		if tpot > 0 && !math.IsInf(tpot, 1) {
			pt.TokensPerSecondPerUser, pt.OutputTokensPerSecond = 1/tpot, float64(c)/tpot
		}
		out = append(out, pt)
	}
	return out, nil
}

// shortfall is how far a replica is from the targets: the largest of
// TTFT over its target and the target tokens/s over the tokens/s (1 or
// less meets them).
func (sp serveSpec) shortfall(v Serving) float64 {
	worst := 0.0
	if sp.ttftTarget > 0 {
		t := v.TTFTSeconds
		if t == 0 {
			t = math.Inf(1)
		}
		worst = max(worst, t/sp.ttftTarget)
	}
	if sp.tpsTarget > 0 {
		worst = max(worst, sp.tpsTarget/max(v.TokensPerSecondPerUser, 1e-9))
	}
	return worst
}

// servedFamily refuses a serving ask for a model not served with a paged
// KV cache: "bge-m3 serve 100 users ttft 100ms" said "No configuration in
// the catalog serves BGE-M3" under a chat turn's 3584 prompt + 512 output
// tokens, and Whisper was refused for 4096 tokens it never reads. The Try
// asks the model's memory and speed for the batch.
func servedFamily(q Query) error {
	kind := ""
	if q.Arch != nil {
		kind = q.Arch.Kind
	} else if m, _, err := LookupModel(q.Model); err == nil {
		kind = m.Kind
	}
	if servedLikeADecoder(kind) {
		return nil
	}
	name := q.Model
	if q.Arch != nil && q.Arch.Name != "" {
		name = q.Arch.Name
	} else if m, _, err := LookupModel(q.Model); err == nil {
		name = m.Name
	}
	fit := Query{Model: q.Model, Method: MethodInference, GPU: q.GPU, GPUs: q.GPUs, Nodes: q.Nodes, Quant: q.Quant, Precision: q.Precision, MicroBatch: q.MicroBatch}
	return inputErr("fit "+Format(fit),
		"%s is %s: fitbot plans serving (users, first-token time, tokens/s each) for decoder LLMs; ask its memory and speed for a batch instead", name, familyPhrase(kind))
}

// familyPhrase names a model family in a sentence ("an encoder").
func familyPhrase(arch string) string {
	switch arch {
	case ArchEncoder:
		return "an encoder"
	case ArchEncoderDecoder:
		return "an encoder-decoder"
	case ArchSSM:
		return "a state-space model"
	case ArchDiffusion:
		return "a diffusion pipeline"
	}
	return "not a decoder LLM"
}
