package answer

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// KindCompare is a question that compares two options of one setting
// (two cards, methods, models, ZeRO stages, weight formats or KV-cache
// precisions: "h100 or h200 for serving llama 3.1 70b, which is cheaper
// per user", "fp8 vs int4 awq for llama 3 70b on h100"): each option
// sized as its own question, side by side.
const KindCompare Kind = "comparison"

// Compared reports whether the question compares two options (see
// reading.ParseComparison); Options then holds one question per option.
func (q Question) Compared() bool { return q.Comparison != nil }

// readComparison makes q a comparison when its words compare two cards
// or two training methods and each option reads as a fit or serving
// question of its own. A question that names two cards but asks the
// largest model, the longest context or buy or rent is left as read.
func (s *Service) readComparison(q *Question) {
	c, ok := reading.ParseComparison(q.Text)
	if !ok {
		if kept, left, ok := reading.ParseTooManyOptions(q.Text); ok {
			q.Err = &sizing.InputError{Problem: fmt.Sprintf("I compare two options at a time: \"%s\" left out of this Try; ask it against the winner next", left), Hint: "fit " + kept}
		}
		return
	}
	opts := make([]Question, len(c.Options))
	for i, o := range c.Options {
		opt := Question{Text: o.Text, Route: q.Route}
		opt.Parsed, opt.Err = s.parse(o.Text)
		if pq := &opt.Parsed.Query; pq.GPU != "" && pq.GPUs == 0 && o.One {
			pq.GPUs = 1 // "an h100 or two l40s": one card, said
		}
		switch opt.Parsed.Intent {
		case sizing.IntentWhichGPU:
			opt.Parsed.Intent = sizing.IntentFit // which of the two: each is a fit question
		case sizing.IntentFit, sizing.IntentServe:
		default:
			return
		}
		opts[i] = opt
	}
	q.Comparison, q.Options = &c, opts
	q.Parsed, q.Err = opts[0].Parsed, opts[0].Err
}

// CompareAnswer is the answer to a comparison: each option's figures and
// which is cheaper by the figure asked (or the usual one: a training
// run's cost, serving's cost per million output tokens).
type CompareAnswer struct {
	Setting string         `json:"setting"` // what the options differ in: "gpu", "method", "model", "zero_stage", "format", "kv_cache_precision"
	Figure  reading.Figure `json:"figure"`  // the figure compared by
	// Cheaper is the index in Options of the cheaper option by Figure
	// when both fit; -1 when one does not (Summary says which fits), a
	// figure is unknown or they cost the same.
	Cheaper int `json:"cheaper"`
	// Summary says which is cheaper and by how much, or which fits.
	Summary string          `json:"summary"`
	Options []CompareOption `json:"options"`
	// Assumptions are what the comparison itself assumed (the figure,
	// the count chosen); each option keeps its own.
	Assumptions []string `json:"assumptions"`
}

// CompareOption is one option of a comparison, sized.
type CompareOption struct {
	Words   string         `json:"words"` // the asker's words for it: "a100 40gb", "full finetune"
	Label   string         `json:"label"` // "2× H100 SXM 80 GB", "LoRA on 1× A100 SXM 80 GB"
	Request sizing.Request `json:"request"`
	Fits    bool           `json:"fits"`
	// GPUsChosen is true when the question gave no count and the option
	// is sized on the fewest of its card that fit.
	GPUsChosen bool              `json:"gpus_chosen"`
	TotalBytes int64             `json:"total_bytes"` // per GPU, the busiest
	VRAMBytes  int64             `json:"vram_bytes"`  // one card
	Throughput sizing.Throughput `json:"throughput"`
	// Serving is a serving option's capacity: the users a replica serves
	// at a usable speed, and its cost a month and per 1M output tokens.
	Serving *sizing.Serving `json:"serving,omitempty"`
	// USDPerUserMonth is Serving's cost a month per concurrent user.
	USDPerUserMonth *float64 `json:"usd_per_user_month"`
	// Value is the option's Figure; nil where unknown (no price, does
	// not fit).
	Value       *float64 `json:"value"`
	Assumptions []string `json:"assumptions"`

	gpuName   string
	modelName string
	provider  string // whose price the option is costed at; "" when unpriced
}

// Compare answers a resolved comparison: each option sized on its card
// (on the fewest of it that fit when no count was asked), with its
// training run's cost or its serving capacity and cost.
func (s *Service) Compare(ctx context.Context, q Question) (CompareAnswer, error) {
	if q.Err != nil {
		return CompareAnswer{}, q.Err
	}
	if !q.Compared() {
		return CompareAnswer{}, fmt.Errorf("answer: %q is not a comparison", q.Text)
	}
	c := CompareAnswer{Setting: q.Comparison.Setting, Figure: q.Comparison.Figure, Cheaper: -1}
	// Two formats or KV-cache precisions are weighed on the same cards,
	// those named (one when no count is said): choosing more cards for
	// one would change two things at once, and hide that it does not fit.
	onNamed := c.Setting == "format" || c.Setting == "kv_cache_precision"
	serving := true
	for i, opt := range q.Options {
		if opt.Err != nil {
			return CompareAnswer{}, opt.Err
		}
		o, err := s.compareOption(ctx, opt, c.Figure == reading.FigureMemory, onNamed)
		if err != nil {
			return CompareAnswer{}, fmt.Errorf("option %q: %w", q.Comparison.Options[i].Words, err)
		}
		o.Words = q.Comparison.Options[i].Words
		switch c.Setting {
		case "gpu":
			o.Label = hardwareLabel(o.Request, o.gpuName)
		case "model":
			o.Label = o.modelName + ", " + o.Label
		case "zero_stage":
			o.Label = fmt.Sprintf("ZeRO-%d, %s", o.Request.ZeROStage, o.Label)
		case "format":
			o.Label = formatLabel(o.Request, o.Words) + ", " + display.Hardware(o.Request.GPUs, o.gpuName)
		case "kv_cache_precision":
			o.Label = fmt.Sprintf("KV cache %s, %s", kvLabel(o.Request), o.Label)
		}
		serving = serving && o.Serving != nil
		c.Options = append(c.Options, o)
	}
	switch {
	case c.Figure == reading.FigureUnsaid && onNamed && serving:
		// Two formats on the same cards: what they trade is speed and
		// room for users; the cost follows from those.
		c.Figure = reading.FigureThroughput
		c.Assumptions = append(c.Assumptions, "compared by "+figureWords(c.Figure)+", with the users each serves at once and the speed of one request (no figure asked; say faster, more users or cheaper per million tokens)")
	case c.Figure == reading.FigureUnsaid:
		c.Figure = reading.FigurePerRun
		if serving {
			c.Figure = reading.FigurePerMillionOut
		}
		c.Assumptions = append(c.Assumptions, "compared by "+figureWords(c.Figure)+" (no figure asked; say per run, per user, per million tokens, per month or per hour)")
	}
	if onNamed {
		c.Assumptions = append(c.Assumptions, sameCards(c.Options, c.Setting))
	}
	for i := range c.Options {
		c.Options[i].Value = figureOf(&c.Options[i], c.Figure)
	}
	c.Cheaper, c.Summary = verdict(c.Options, c.Figure)
	if serving && (onNamed || higherBetter(c.Figure)) {
		c.Summary += servingDetail(c.Options, c.Figure)
	}
	if onNamed && serving {
		for i := range c.Options {
			if c.Options[i].Fits {
				continue
			}
			// What the option would need: the fewest of the card that
			// serve it in its own format, said beside the verdict.
			opt := q.Options[i]
			opt.Parsed.Query.GPUs, opt.Parsed.Query.Nodes = 0, 0
			if more, err := s.compareOption(ctx, opt, false, false); err == nil && more.Fits && more.Serving != nil {
				c.Summary += fmt.Sprintf("; %s needs %s, where it serves %s at %s output tokens/s", optionName(&c.Options[i]),
					display.Hardware(more.Request.GPUs, more.gpuName), display.Counted(usersOf(&more), "user", "users"),
					display.Count(more.Serving.OutputTokensPerSecond*float64(max(more.Serving.Replicas, 1))))
			}
		}
	}
	if line := compareGPUHours(c.Options); line != "" {
		c.Assumptions = append([]string{line}, c.Assumptions...)
	}
	if a, b := c.Options[0].provider, c.Options[1].provider; c.Figure != reading.FigureSpeed && a != "" && b != "" && a != b {
		// Each card is costed at its own current price: different clouds
		// can differ by more than the cards do.
		c.Assumptions = append([]string{fmt.Sprintf("priced at different providers (%s and %s), each card's current price, and clouds can differ more than cards do: \"%s vs %s prices on %s\" lists one cloud's", a, b, c.Options[0].Request.GPU, c.Options[1].Request.GPU, a)}, c.Assumptions...)
	}
	return c, nil
}

// compareOption sizes one option: on the fewest of its card that fit
// when no count was asked (a training option as a count ask answers it,
// gradient checkpointing on where it saves cards; a serving option by the
// which-GPU search, for that card), a training option for its token
// budget (1B tokens when none is said),
// and an inference option as a serving capacity (on the fewest cards
// whose KV cache holds a request, when no count was asked). With asAsked
// (compared by memory) it is sized on the cards as asked, nothing chosen.
//
// With onNamed (two formats weighed) the option is sized on the cards
// named, one when no count is said, nothing chosen.
func (s *Service) compareOption(ctx context.Context, opt Question, asAsked, onNamed bool) (CompareOption, error) {
	p := opt.Parsed
	q := p.Query
	notes := slices.Clone(p.Notes)
	serving := p.Intent == sizing.IntentServe || q.Method == "" || q.Method == sizing.MethodInference
	if !serving && q.Tokens == 0 {
		q.Tokens = sizing.RoundRunTokens
		notes = append(notes, "no token budget said: priced for a run of 1B tokens")
	}
	fit := func(q sizing.Query, notes []string) (sizing.Answer, error) {
		f, err := s.Fit(ctx, Question{Text: opt.Text, Route: opt.Route, Parsed: reading.Request{Query: q, Notes: notes, Deadline: p.Deadline}})
		return f.Answer, err
	}
	a, err := fit(q, notes)
	if err != nil {
		return CompareOption{}, err
	}
	if asAsked {
		return newCompareOption(a, false), nil // "which fits better": the memory on the cards asked, one when none is said
	}
	if !a.Fits && !serving && q.GradCheckpointing == nil && !a.Request.GradCheckpointing {
		// As every recipe of this size does, and as a count ask would:
		// checkpointing is tried before the option is called too small.
		on := true
		cq := q
		cq.GradCheckpointing = &on
		if ca, err := fit(cq, notes); err == nil && ca.Fits {
			ca.Assumptions = append([]string{fmt.Sprintf("gradient checkpointing on, though not asked: without it %s needs %s per GPU",
				optionLabel(a), display.GiB(a.PerGPU.TotalBytes))}, ca.Assumptions...)
			q, a = cq, ca
		}
	}
	countFree := q.GPUs == 0 && q.Nodes == 0 && !a.GPUChosen && !onNamed
	chosen := false
	if countFree && !a.Fits && !serving {
		// The count ask's search: the fewest of the card, with gradient
		// checkpointing where it saves cards, as "how many" is answered.
		fq := q
		fq.GPU, fq.Fewest = a.Request.GPU, true
		fa, err := fit(fq, notes)
		if err != nil {
			return CompareOption{}, err
		}
		if fa.Fewest != nil && fa.Fewest.Found {
			return newCompareOption(fa, true), nil
		}
	}
	if countFree && !a.Fits && s.Asker != nil {
		if n, ok := s.fewest(ctx, q, a.Request.GPU); ok {
			q.GPU, q.GPUs, q.Nodes = a.Request.GPU, n.GPUs, n.Nodes
			if q.ZeROStage == nil && !serving {
				stage := n.ZeROStage
				q.ZeROStage = &stage
			}
			chosen = true
			if a, err = fit(q, notes); err != nil {
				return CompareOption{}, err
			}
		}
	}
	if serving && s.Asker != nil {
		return s.servingOption(ctx, q, p, notes, a, countFree, chosen, fit)
	}
	if chosen {
		a.Assumptions = append([]string{fewestNote(a)}, a.Assumptions...)
	}
	return newCompareOption(a, chosen), nil
}

// servingOption is an inference option as a serving capacity (the
// serving planner's capacity of the card, at a speed people can read):
// when no count was asked, on the fewest cards (1, 2, 4 or 8) whose KV
// cache holds a request, with the memory of that count. A model the
// planner does not serve keeps its fit figures.
func (s *Service) servingOption(ctx context.Context, q sizing.Query, p reading.Request, notes []string, a sizing.Answer, countFree, chosen bool,
	fit func(sizing.Query, []string) (sizing.Answer, error)) (CompareOption, error) {
	n := max(a.Request.GPUs, 1)
	var sv sizing.AskAnswer
	for {
		sq := q
		sq.GPU, sq.GPUs, sq.Nodes = a.Request.GPU, n, 1
		sq.Serve.Plan = false
		var err error
		sv, err = s.AskAnswer(ctx, Question{Parsed: reading.Request{Query: sq, Intent: sizing.IntentServe, Notes: notes}})
		if err != nil || sv.Serve == nil || sv.Serve.Capacity == nil {
			if chosen {
				a.Assumptions = append([]string{fewestNote(a)}, a.Assumptions...)
			}
			return newCompareOption(a, chosen), nil // not served by the planner: the fit figures stand
		}
		asAsked := sv.Request.Quant == a.Request.Quant // not served in a smaller format than asked
		if sv.Serve.Capacity.Fits && asAsked || !countFree || n >= 8 {
			break
		}
		n *= 2
		chosen = true
	}
	loadSaid := q.Serve.RequestsPerSecond > 0 || q.MicroBatch > 0
	if countFree && loadSaid && !sv.Serve.Capacity.MeetsTargets {
		if o, ok, err := s.plannedOption(ctx, q, notes, a.Request.GPU, fit); err != nil || ok {
			return o, err
		}
	}
	if n != a.Request.GPUs || sv.Request.Quant != a.Request.Quant {
		// More cards, or the smaller format the cards serve the load in:
		// the memory of what is served.
		q.GPU, q.GPUs, q.Nodes, q.Quant = a.Request.GPU, n, 1, sv.Request.Quant
		more, err := fit(q, notes)
		if err != nil {
			return CompareOption{}, err
		}
		a = more
	}
	capacity := *sv.Serve.Capacity
	if capacity.Replicas > 1 && capacity.Concurrency > 0 && q.MicroBatch > capacity.Concurrency {
		// The users spread over replicas: each card holds one replica's share.
		q.GPU, q.GPUs, q.Nodes, q.MicroBatch = a.Request.GPU, a.Request.GPUs, a.Request.Nodes, capacity.Concurrency
		share, err := fit(q, notes)
		if err != nil {
			return CompareOption{}, err
		}
		a = share
	}
	o := newCompareOption(a, chosen)
	o.Serving = &capacity
	o.Fits = capacity.Fits
	if capacity.Replicas > 1 && a.Throughput.USDPerHour != nil {
		all := *a.Throughput.USDPerHour * float64(capacity.Replicas)
		o.Throughput.USDPerHour = &all
	}
	if users := capacity.Concurrency * max(capacity.Replicas, 1); capacity.USDPerMonth != nil && users > 0 && capacity.Fits {
		v := *capacity.USDPerMonth / float64(users)
		o.USDPerUserMonth = &v
	}
	o.Assumptions = sv.Assumptions
	if chosen {
		o.Assumptions = append([]string{fewestNote(a)}, o.Assumptions...)
	}
	return o, nil
}

// plannedOption is a serving option whose load one replica does not
// carry, when no count was asked: the serving planner's cheapest plan on
// that card (replicas, GPUs per replica and weight format), priced in
// all; ok is false when the planner has none.
func (s *Service) plannedOption(ctx context.Context, q sizing.Query, notes []string, card string,
	fit func(sizing.Query, []string) (sizing.Answer, error)) (CompareOption, bool, error) {
	pq := q
	pq.GPU, pq.GPUs, pq.Nodes = card, 0, 0
	pq.Serve.Plan = true
	plan, err := s.AskAnswer(ctx, Question{Parsed: reading.Request{Query: pq, Intent: sizing.IntentServe, Notes: notes}})
	if err != nil || plan.Serve == nil || len(plan.Serve.Options) == 0 || plan.Serve.Options[0].GPU != card {
		return CompareOption{}, false, nil
	}
	best := plan.Serve.Options[0]
	rq := q
	rq.GPU, rq.GPUs, rq.Nodes = card, best.Serving.GPUsPerReplica, 1
	rq.Quant, rq.Precision = best.Quant, best.Precision
	a, err := fit(rq, notes)
	if err != nil {
		return CompareOption{}, false, err
	}
	o := newCompareOption(a, true)
	sv := best.Serving
	o.Serving = &sv
	o.Fits = sv.Fits && plan.Serve.MeetsTargets
	if a.Throughput.USDPerHour != nil {
		all := *a.Throughput.USDPerHour * float64(max(sv.Replicas, 1))
		o.Throughput.USDPerHour = &all
	}
	if users := sv.Concurrency * max(sv.Replicas, 1); sv.USDPerMonth != nil && users > 0 && o.Fits {
		v := *sv.USDPerMonth / float64(users)
		o.USDPerUserMonth = &v
	}
	format := string(best.Quant)
	if best.Quant == sizing.QuantNone {
		format = string(best.Precision)
	}
	o.Assumptions = append([]string{fmt.Sprintf("no count asked: the cheapest plan on this card that carries the load, %d replicas of %d× %s in %s",
		max(sv.Replicas, 1), sv.GPUsPerReplica, a.GPUName, format)}, plan.Assumptions...)
	return o, true, nil
}

// fewestNote says the count was chosen: "no count asked: the fewest
// H100 SXM 80 GB that fit, 2".
func fewestNote(a sizing.Answer) string {
	return fmt.Sprintf("no count asked: the fewest %s that fit, %d", a.GPUName, a.Request.GPUs)
}

// newCompareOption is an option's figures from its fit answer.
func newCompareOption(a sizing.Answer, chosen bool) CompareOption {
	o := CompareOption{Label: optionLabel(a), gpuName: a.GPUName, modelName: a.ModelName, Request: a.Request, Fits: a.Fits, GPUsChosen: chosen,
		TotalBytes: a.PerGPU.TotalBytes, VRAMBytes: a.VRAMBytes, Throughput: a.Throughput, Assumptions: a.Assumptions}
	if a.Price != nil {
		o.provider = a.Price.Provider
	}
	return o
}

// fewest is the fewest GPUs of card that fit q within one machine (the
// which-GPU search's option for it); ok is false when none does.
func (s *Service) fewest(ctx context.Context, q sizing.Query, card string) (sizing.GPUOption, bool) {
	q.GPU, q.GPUs, q.Nodes = "", 0, 0
	a, err := s.Asker.Ask(ctx, reading.Request{Query: q, Intent: sizing.IntentWhichGPU})
	if err != nil || a.WhichGPU == nil {
		return sizing.GPUOption{}, false
	}
	for _, o := range a.WhichGPU.Options {
		if o.GPU == card {
			return o, true
		}
	}
	return sizing.GPUOption{}, false
}

// optionLabel names an option by its method and hardware: "LoRA on 2×
// H100 SXM 80 GB"; an option of a comparison of cards is named by its
// hardware alone (hardwareLabel).
func optionLabel(a sizing.Answer) string {
	hw := hardwareLabel(a.Request, a.GPUName)
	if a.Request.Method == sizing.MethodInference {
		return hw
	}
	return display.Method(a.Request.Method) + " on " + hw
}

// hardwareLabel names the hardware of a request: "2× H100 SXM 80 GB",
// with the weight format of a quantised model served ("1× H100 SXM 80
// GB (awq)"), which a load may have chosen.
func hardwareLabel(r sizing.Request, gpuName string) string {
	hw := display.Hardware(r.GPUs, gpuName)
	if r.Nodes > 1 {
		hw += fmt.Sprintf(" over %d machines", r.Nodes)
	}
	if r.Method == sizing.MethodInference && r.Quant != "" {
		hw += fmt.Sprintf(" (%s)", r.Quant)
	}
	return hw
}

// figureOf is an option's value of the figure; nil where unknown.
func figureOf(o *CompareOption, f reading.Figure) *float64 {
	if f == reading.FigureMemory {
		v := float64(o.TotalBytes) / (1 << 30) // known whether it fits or not
		return &v
	}
	if !o.Fits {
		return nil
	}
	switch f {
	case reading.FigurePerRun:
		return o.Throughput.USDTotal
	case reading.FigurePerHour:
		return o.Throughput.USDPerHour
	case reading.FigureSpeed:
		return o.Throughput.TokensPerSecond
	case reading.FigureThroughput:
		if o.Serving == nil {
			return o.Throughput.TokensPerSecond // training: its tokens/s
		}
		v := o.Serving.OutputTokensPerSecond * float64(max(o.Serving.Replicas, 1))
		return &v
	case reading.FigureUsers:
		if o.Serving == nil {
			return nil
		}
		v := float64(usersOf(o))
		return &v
	}
	if o.Serving == nil {
		if f == reading.FigurePerMonth && o.Throughput.USDPerHour != nil {
			v := *o.Throughput.USDPerHour * hoursPerMonth
			return &v
		}
		return nil
	}
	switch f {
	case reading.FigurePerUser:
		return o.USDPerUserMonth
	case reading.FigurePerMillionOut:
		return o.Serving.USDPerMillionOutputTokens
	case reading.FigurePerMonth:
		return o.Serving.USDPerMonth
	}
	return nil
}

// hoursPerMonth is the hours a month of a training card kept busy, as
// serving's cost a month counts them (730: 24 × 365 / 12).
const hoursPerMonth = 730

// figureWords says a figure in words: "cost per run".
func figureWords(f reading.Figure) string {
	switch f {
	case reading.FigurePerRun:
		return "cost per run"
	case reading.FigurePerUser:
		return "cost per user a month"
	case reading.FigurePerMillionOut:
		return "cost per 1M output tokens"
	case reading.FigurePerMonth:
		return "cost per month"
	case reading.FigurePerHour:
		return "cost per hour"
	case reading.FigureSpeed:
		return "speed (tokens/s; decode at batch 1 for inference)"
	case reading.FigureMemory:
		return "memory per GPU on the cards as asked"
	case reading.FigureThroughput:
		return "throughput (output tokens/s at capacity; tokens/s for training)"
	case reading.FigureUsers:
		return "users served at once"
	}
	return string(f)
}

// higherBetter reports whether more of the figure is better: speeds and users.
func higherBetter(f reading.Figure) bool {
	return f == reading.FigureSpeed || f == reading.FigureThroughput || f == reading.FigureUsers
}

// usersOf is how many requests a serving option serves at once, over
// all its replicas; 0 when it serves none.
func usersOf(o *CompareOption) int {
	if o.Serving == nil || !o.Serving.Fits {
		return 0
	}
	return o.Serving.Concurrency * max(o.Serving.Replicas, 1)
}

// Better is the word for the winning option by the figure: "faster",
// "more users", "fits better" or "cheaper".
func (c CompareAnswer) Better() string {
	switch c.Figure {
	case reading.FigureSpeed:
		return "faster"
	case reading.FigureThroughput:
		return "more throughput"
	case reading.FigureUsers:
		return "more users"
	case reading.FigureMemory:
		return "fits better"
	}
	return "cheaper"
}

// formatLabel names a request's weight format: its quantisation, else
// its precision ("awq", "fp8", "bf16"), after the asker's words when
// they do not name it ("int4 (gptq)", "4-bit (gptq)").
func formatLabel(r sizing.Request, words string) string {
	f := string(r.Quant)
	if f == "" {
		f = string(r.Precision)
	}
	if words != "" && !strings.Contains(strings.ToLower(words), f) {
		return words + " (" + f + ")"
	}
	return f
}

// kvLabel names a request's KV-cache precision, bf16 when unsaid.
func kvLabel(r sizing.Request) string {
	if r.KVPrecision == "" {
		return "bf16"
	}
	return string(r.KVPrecision)
}

// sameCards says what hardware two formats were weighed on: the cards
// named, or, with none named, the card chosen for each.
func sameCards(opts []CompareOption, setting string) string {
	a, b := opts[0].Request, opts[1].Request
	hw := display.Hardware(a.GPUs, opts[0].gpuName)
	if a.GPU == b.GPU && a.GPUs == b.GPUs && a.Nodes == b.Nodes {
		return "both on " + hw + ": only the " + settingWords(setting) + " differs"
	}
	return fmt.Sprintf("no card named: each on the card chosen for it, %s and %s, so more than the %s differs (name a card to weigh the %s alone)",
		hw, display.Hardware(b.GPUs, opts[1].gpuName), settingWords(setting), settingWords(setting))
}

// settingWords says a comparison's setting: "weight format".
func settingWords(setting string) string {
	switch setting {
	case "format":
		return "weight format"
	case "kv_cache_precision":
		return "KV-cache precision"
	}
	return setting
}

// servingDetail is what a comparison of serving options adds to its
// verdict beside the figure: the users each serves at once and the speed
// of one request alone (decode at batch 1), which may favour the other
// option ("; at batch 1 awq decodes faster: 62 vs 35 tokens/s"). Empty
// when neither fits.
func servingDetail(opts []CompareOption, f reading.Figure) string {
	a, b := &opts[0], &opts[1]
	if !a.Fits || !b.Fits {
		return "" // the verdict says which serves, and its figures
	}
	var parts []string
	if f != reading.FigureUsers {
		ua, ub := usersOf(a), usersOf(b)
		switch {
		case ua == ub:
			parts = append(parts, fmt.Sprintf("both serve %s at once", display.Counted(ua, "user", "users")))
		default:
			parts = append(parts, fmt.Sprintf("users at once: %s vs %s", display.Commas(int64(ua)), display.Commas(int64(ub))))
		}
	}
	if f != reading.FigureSpeed && a.Fits && b.Fits && a.Throughput.TokensPerSecond != nil && b.Throughput.TokensPerSecond != nil {
		va, vb := *a.Throughput.TokensPerSecond, *b.Throughput.TokensPerSecond
		win := a
		if vb > va {
			win, va, vb = b, vb, va
		}
		if va < 1.03*vb {
			parts = append(parts, fmt.Sprintf("one request alone (batch 1) decodes at about the same speed, %s vs %s tokens/s", display.Count(*a.Throughput.TokensPerSecond), display.Count(*b.Throughput.TokensPerSecond)))
		} else {
			parts = append(parts, fmt.Sprintf("one request alone (batch 1): %s decodes faster, %s vs %s tokens/s", optionName(win), display.Count(va), display.Count(vb)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// servesNone says why a serving option serves no request, or "" when
// it serves some or is not a serving option: "fits its weights (70.0 of
// 79.6 GiB) but has no KV-cache room for one request of 4,096 tokens".
func servesNone(o *CompareOption) string {
	if o.Serving == nil || o.Serving.Fits {
		return ""
	}
	tokens := display.Commas(int64(o.Serving.PromptTokens + o.Serving.OutputTokens))
	if o.TotalBytes <= o.VRAMBytes {
		return fmt.Sprintf("holds its weights (%.1f of %s) but leaves the serving engine no KV-cache room for one request of %s tokens",
			display.InGiB(o.TotalBytes), display.GiB(o.VRAMBytes), tokens)
	}
	return fmt.Sprintf("does not hold its weights (%.1f GiB needed per GPU, %s on the card)", display.InGiB(o.TotalBytes), display.GiB(o.VRAMBytes))
}

// optionName is the short name of an option: the asker's words.
func optionName(o *CompareOption) string {
	if o.Words != "" {
		return o.Words
	}
	return o.Label
}

// figureValue writes an option's value of the figure: dollars, or
// tokens/s for speed.
func figureValue(f reading.Figure, v float64) string {
	switch f {
	case reading.FigureSpeed:
		return display.Count(v) + " tokens/s"
	case reading.FigureMemory:
		return fmt.Sprintf("%.1f GiB per GPU", v)
	case reading.FigureThroughput:
		return display.Count(v) + " output tokens/s at capacity"
	case reading.FigureUsers:
		return display.Counted(int(v), "user", "users") + " at once"
	}
	return display.USD(v)
}

// figurePhrase is the figure after "cheaper": "per run".
func figurePhrase(f reading.Figure) string {
	switch f {
	case reading.FigurePerUser:
		return "per user"
	case reading.FigurePerMillionOut:
		return "per 1M output tokens"
	case reading.FigurePerMonth:
		return "per month"
	case reading.FigurePerHour:
		return "per hour"
	}
	return "per run"
}

// verdict finds the cheaper option and says so: "H200 SXM 141 GB is
// cheaper per run: $X vs $Y (Z% less)", or which one fits, or why
// neither can be called.
func verdict(opts []CompareOption, f reading.Figure) (int, string) {
	a, b := &opts[0], &opts[1]
	switch {
	case !a.Fits && !b.Fits && f == reading.FigureMemory:
		win, lose := a, b
		if b.TotalBytes < a.TotalBytes {
			win, lose = b, a
		}
		return -1, fmt.Sprintf("Neither fits as asked; %s comes closer: %s vs %s (%.0f%% vs %.0f%% of the card)", win.Label,
			figureValue(f, *win.Value), figureValue(f, *lose.Value), 100*float64(win.TotalBytes)/float64(win.VRAMBytes), 100*float64(lose.TotalBytes)/float64(lose.VRAMBytes))
	case !a.Fits && !b.Fits:
		return -1, fmt.Sprintf("Neither fits as asked: %s nor %s", a.Label, b.Label)
	case a.Fits != b.Fits:
		win, lose := a, b
		if b.Fits {
			win, lose = b, a
		}
		if why := servesNone(lose); why != "" {
			// A serving option that serves nothing is said plainly, and
			// why: an answer about the other alone would hide it.
			s := "Only " + win.Label + " serves"
			switch {
			case win.Value != nil && (f == reading.FigureThroughput || f == reading.FigureUsers):
				s += fmt.Sprintf(" (%s)", figureValue(f, *win.Value))
			case win.Value != nil:
				s += fmt.Sprintf(" (%s, %s)", figureValue(f, *win.Value), figureWords(f))
			}
			return -1, s + fmt.Sprintf("; %s %s", lose.Label, why)
		}
		s := fmt.Sprintf("Only %s fits: %s does not", win.Label, lose.Label)
		if t := lose.Throughput.TokensPerSecond; f == reading.FigureSpeed && win.Value != nil && t != nil && *t > 0 {
			// "how much faster": the speeds are known whether it fits or
			// not (T4 against L4 for QLoRA on Colab).
			return -1, s + fmt.Sprintf("; %s runs at %s tokens/s, %.1f× the %s tokens/s %s would if it fit", win.Label,
				display.Count(*win.Value), *win.Value / *t, display.Count(*t), lose.Label)
		}
		if win.Value != nil {
			s += fmt.Sprintf(" (%s, %s)", figureValue(f, *win.Value), figureWords(f))
		}
		return -1, s
	case a.Value == nil || b.Value == nil:
		return -1, fmt.Sprintf("Both fit; %s is not known for both (no price): %s and %s", figureWords(f), a.Label, b.Label)
	}
	va, vb := *a.Value, *b.Value
	if f == reading.FigureThroughput || f == reading.FigureUsers {
		i, win, lose := 0, a, b
		if vb > va {
			i, win, lose = 1, b, a
		}
		if va == vb {
			what := "number of users at once"
			if f == reading.FigureThroughput {
				what = "throughput"
			}
			return -1, fmt.Sprintf("Both give the same %s: %s", what, figureValue(f, va))
		}
		if f == reading.FigureUsers {
			return i, fmt.Sprintf("%s serves more users at once: %s vs %s (%s more)", win.Label, display.Commas(int64(*win.Value)), display.Commas(int64(*lose.Value)),
				display.Commas(int64(*win.Value-*lose.Value)))
		}
		return i, fmt.Sprintf("%s has more throughput: %s vs %s output tokens/s at capacity (%.1f×)", win.Label, display.Count(*win.Value), display.Count(*lose.Value), *win.Value / *lose.Value)
	}
	if f == reading.FigureSpeed {
		i, win, lose := 0, a, b
		if vb > va {
			i, win, lose = 1, b, a
		}
		return i, fmt.Sprintf("%s is faster: %s vs %s tokens/s (%.1f×)", win.Label, display.Count(*win.Value), display.Count(*lose.Value), *win.Value / *lose.Value)
	}
	if f == reading.FigureMemory {
		i, win, lose := 0, a, b
		if vb < va {
			i, win, lose = 1, b, a
		}
		return i, fmt.Sprintf("%s fits better: %s vs %s (%.0f%% vs %.0f%% of the card)", win.Label, figureValue(f, *win.Value), figureValue(f, *lose.Value),
			100*float64(win.TotalBytes)/float64(win.VRAMBytes), 100*float64(lose.TotalBytes)/float64(lose.VRAMBytes))
	}
	if math.Abs(va-vb) < 0.005 {
		return -1, fmt.Sprintf("Both cost the same %s: %s", figurePhrase(f), display.USD(va))
	}
	i, win, lose := 0, a, b
	if vb < va {
		i, win, lose = 1, b, a
	}
	pct := 100 * (*lose.Value - *win.Value) / *lose.Value
	return i, fmt.Sprintf("%s is cheaper %s: %s vs %s (%.0f%% less)", win.Label, figurePhrase(f), display.USD(*win.Value), display.USD(*lose.Value), pct)
}

// CompareRow is one line of a comparison's table: what it shows and
// each option's value, as text both faces print.
type CompareRow struct {
	Name   string
	Values [2]string
}

// Rows are the comparison's figures line by line, the same for every
// face: whether each fits, memory per GPU, the GPUs, speed, price per
// hour, and the run's or serving's costs.
func (c CompareAnswer) Rows() []CompareRow {
	var rows []CompareRow
	add := func(name string, cell func(o *CompareOption) string) {
		r := CompareRow{Name: name}
		any := false
		for i := range c.Options {
			if i < len(r.Values) {
				r.Values[i] = cell(&c.Options[i])
				any = any || r.Values[i] != ""
			}
		}
		if any {
			for i, v := range r.Values {
				if v == "" {
					r.Values[i] = "—"
				}
			}
			rows = append(rows, r)
		}
	}
	add("fits", func(o *CompareOption) string {
		if o.Fits {
			return "yes"
		}
		return "no"
	})
	add("memory per GPU", func(o *CompareOption) string {
		return fmt.Sprintf("%.1f of %s", display.InGiB(o.TotalBytes), display.GiB(o.VRAMBytes))
	})
	add("GPUs", func(o *CompareOption) string {
		n := display.Counted(o.Request.GPUs, "GPU", "GPUs")
		if o.Serving != nil && o.Serving.Replicas > 1 {
			n = fmt.Sprintf("%d replicas of %d", o.Serving.Replicas, o.Serving.GPUsPerReplica)
		}
		switch {
		case o.GPUsChosen && o.Serving != nil && o.Serving.Replicas > 1:
			n += " (cheapest for the load)"
		case o.GPUsChosen && o.Fits:
			n += " (fewest that fit)"
		case o.GPUsChosen:
			n += " (none fit within a machine)"
		}
		return n
	})
	add("speed", func(o *CompareOption) string {
		switch {
		case o.Serving != nil && !o.Serving.Fits:
			return "serves no request"
		case o.Serving != nil && o.Serving.Fits:
			if o.Serving.Concurrency == 1 {
				return fmt.Sprintf("1 user at %s tok/s", display.Decimal(o.Serving.TokensPerSecondPerUser))
			}
			return fmt.Sprintf("%s users at %s tok/s each", display.Commas(int64(o.Serving.Concurrency)), display.Decimal(o.Serving.TokensPerSecondPerUser))
		case o.Serving == nil && o.Throughput.TokensPerSecond != nil:
			return display.Count(*o.Throughput.TokensPerSecond) + " tokens/s"
		}
		return ""
	})
	if c.servingOnly() && (c.Setting == "format" || c.Setting == "kv_cache_precision" || higherBetter(c.Figure)) {
		add("output at capacity", func(o *CompareOption) string {
			if !o.Serving.Fits {
				return ""
			}
			return display.Count(o.Serving.OutputTokensPerSecond*float64(max(o.Serving.Replicas, 1))) + " tokens/s"
		})
		add("batch 1 decode", func(o *CompareOption) string {
			if o.Throughput.TokensPerSecond == nil || !o.Fits {
				return ""
			}
			return display.Count(*o.Throughput.TokensPerSecond) + " tokens/s"
		})
	}
	add("price", func(o *CompareOption) string {
		if o.Throughput.USDPerHour == nil {
			return "no price known"
		}
		return display.USD(*o.Throughput.USDPerHour) + "/h"
	})
	if c.servingOnly() {
		add("per month", func(o *CompareOption) string { return usdOrEmpty(o.Serving.USDPerMonth) })
		add("per user a month", func(o *CompareOption) string { return usdOrEmpty(o.USDPerUserMonth) })
		add("per 1M output tokens", func(o *CompareOption) string {
			if !o.Fits {
				return "—"
			}
			return usdOrEmpty(o.Serving.USDPerMillionOutputTokens)
		})
		return rows
	}
	add("run", func(o *CompareOption) string {
		t := o.Throughput
		if t.Hours == nil || o.Request.Tokens == 0 && o.Request.Method == sizing.MethodInference {
			return ""
		}
		s := fmt.Sprintf("%s tokens in %s", display.Count(float64(o.Request.Tokens)), display.Hours(*t.Hours))
		if t.USDTotal != nil {
			s += ", " + display.USD(*t.USDTotal)
		}
		return s
	})
	return rows
}

// servingOnly reports whether every option is a serving option.
func (c CompareAnswer) servingOnly() bool {
	for _, o := range c.Options {
		if o.Serving == nil {
			return false
		}
	}
	return len(c.Options) > 0
}

func usdOrEmpty(v *float64) string {
	if v == nil {
		return ""
	}
	return display.USD(*v)
}

// SharedAssumptions splits the options' assumptions: those every option
// made, in the first option's order, after the comparison's own, and
// each option's others.
func (c CompareAnswer) SharedAssumptions() (shared []string, own [][]string) {
	shared = slices.Clone(c.Assumptions)
	own = make([][]string, len(c.Options))
	for _, a := range c.Options[0].Assumptions {
		all := true
		for _, o := range c.Options[1:] {
			all = all && slices.Contains(o.Assumptions, a)
		}
		if all {
			shared = append(shared, a)
		}
	}
	for i, o := range c.Options {
		for _, a := range o.Assumptions {
			if !slices.Contains(shared, a) {
				own[i] = append(own[i], a)
			}
		}
	}
	return shared, own
}
