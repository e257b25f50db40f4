package reading

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// bound is one number of a Request that must lie in [min, max] when said
// (zero is "not said"), with what to call it in a refusal.
type bound struct {
	name     string
	v        func(r *Request) float64
	min, max float64
}

// bounds are the limits of every number a Request holds: the largest
// question fitbot answers (sizing's Max constants) and the smallest that
// means anything. Both readers' Requests are held to them by Validate.
var bounds = []bound{
	{"parameter count", func(r *Request) float64 { return float64(r.Query.Params) }, 1, sizing.MaxParams},
	{"expert count", func(r *Request) float64 { return float64(r.Query.Experts) }, 1, sizing.MaxExperts},
	{"GPU count", func(r *Request) float64 { return float64(r.Query.GPUs) }, 1, sizing.MaxGPUs},
	{"node count", func(r *Request) float64 { return float64(r.Query.Nodes) }, 1, sizing.MaxNodes},
	{"sequence length", func(r *Request) float64 { return float64(r.Query.SeqLen) }, 1, sizing.MaxSeqLen},
	{"batch size", func(r *Request) float64 { return float64(r.Query.MicroBatch) }, 1, sizing.MaxMicroBatch},
	{"LoRA rank", func(r *Request) float64 { return float64(r.Query.LoRARank) }, 1, sizing.MaxLoRARank},
	{"token budget", func(r *Request) float64 { return float64(r.Query.Tokens) }, sizing.MinTokens, sizing.MaxTokens},
	{"gradient accumulation steps", func(r *Request) float64 { return float64(r.Query.GradAccumSteps) }, 1, sizing.MaxGradAccum},
	{"global batch", func(r *Request) float64 { return float64(r.Query.GlobalBatchTokens) }, 1, sizing.MaxTokens},
	{"tensor-parallel degree", func(r *Request) float64 { return float64(r.Query.TensorParallel) }, 1, MaxParallel},
	{"pipeline-parallel degree", func(r *Request) float64 { return float64(r.Query.PipelineParallel) }, 1, MaxParallel},
	{"context-parallel degree", func(r *Request) float64 { return float64(r.Query.ContextParallel) }, 1, MaxParallel},
	{"expert-parallel degree", func(r *Request) float64 { return float64(r.Query.ExpertParallel) }, 1, MaxParallel},
	{"image resolution", func(r *Request) float64 { return float64(r.Query.Resolution) }, MinResolution, MaxResolution},
	{"image count", func(r *Request) float64 { return float64(r.Query.Images) }, 1, MaxImages},
	{"MFU", func(r *Request) float64 { return r.Query.MFU }, MinMFU, MaxMFU},
	{"GPU-hour budget", func(r *Request) float64 { return r.Query.GPUHours }, MinGPUHours, MaxGPUHours},
	{"GPU memory", func(r *Request) float64 { return float64(r.Query.GPUMemoryBytes) }, 1 << 30, 4 << 40},
	{"requests per second", func(r *Request) float64 { return r.Query.Serve.RequestsPerSecond }, 0, 1e7},
	{"daily users", func(r *Request) float64 { return float64(r.Query.Serve.DailyUsers) }, 1, 1e10},
	{"prompt length", func(r *Request) float64 { return float64(r.Query.Serve.PromptTokens) }, 1, sizing.MaxSeqLen},
	{"output length", func(r *Request) float64 { return float64(r.Query.Serve.OutputTokens) }, 1, sizing.MaxSeqLen},
	{"time to first token", func(r *Request) float64 { return r.Query.Serve.TTFTTargetSeconds }, 0, 3600},
	{"tokens per second per user", func(r *Request) float64 { return r.Query.Serve.TokensPerSecondPerUserTarget }, 0, 1e6},
	{"tokens per second in all", func(r *Request) float64 { return r.Query.Serve.OutputTokensPerSecondTarget }, 0, 1e9},
	{"GPU memory utilisation", func(r *Request) float64 { return r.Query.Serve.GPUMemoryUtilization }, 0, 1},
	{"budget", func(r *Request) float64 { return r.Money.BudgetUSD }, 0, maxBudgetUSD},
	{"price per GPU-hour", func(r *Request) float64 { return r.Money.USDPerGPUHour }, 0, maxGPUHourUSD},
	{"jobs a week", func(r *Request) float64 { return r.Workload.JobsPerWeek }, 0, 7 * 24},
	{"hours a job", func(r *Request) float64 { return r.Workload.HoursPerJob }, 0, 24 * 365},
	{"electricity price", func(r *Request) float64 { return r.Workload.USDPerKWh }, 0, 10},
	{"years of use", func(r *Request) float64 { return r.Workload.Years }, 0, 50},
}

// Validate holds a Request, from either reader, to fitbot's bounds and
// cross-field rules: every number said within its limits, a ZeRO stage
// of 0 to 3, GPUs that split evenly over the machines said, a typed GPU
// memory only beside a card, a LoRA rank only with an adapter method, an
// intent and a kind fitbot knows. It returns the Request unchanged, or an
// *sizing.InputError naming the first rule broken, with a Try that keeps
// the rest of the question.
func Validate(r Request) (Request, error) {
	if r.Kind != "" && !knownKinds[r.Kind] {
		return r, fmt.Errorf("reading: unknown kind %q", r.Kind)
	}
	if r.Intent != "" && !knownIntents[r.Intent] {
		return r, fmt.Errorf("reading: unknown intent %q", r.Intent)
	}
	if r.Emit != "" && !slices.ContainsFunc(emitKinds, func(k emitKind) bool { return k.name == r.Emit }) {
		return r, fmt.Errorf("reading: unknown launch config %q", r.Emit)
	}
	try := func() string { return "fit " + sizing.Format(r.Query) }
	for _, b := range bounds {
		v := b.v(&r)
		switch {
		case v == 0:
		case math.IsNaN(v) || v < 0:
			return r, &sizing.InputError{Problem: fmt.Sprintf("the %s cannot be negative (got %g)", b.name, v), Hint: try()}
		case v < b.min || v > b.max:
			return r, &sizing.InputError{Problem: fmt.Sprintf("a %s of %g is outside what fitbot sizes (%g to %g)", b.name, v, b.min, b.max), Hint: try()}
		}
	}
	q := r.Query
	switch {
	case q.ZeROStage != nil && (*q.ZeROStage < 0 || *q.ZeROStage > 3):
		return r, &sizing.InputError{Problem: fmt.Sprintf("ZeRO stages are 0 to 3 (got %d)", *q.ZeROStage), Hint: "fit 13B full 4 a100 zero3"}
	case q.GPUMemoryBytes > 0 && q.GPU == "":
		return r, &sizing.InputError{Problem: "a typed GPU memory needs a card to size it on", Hint: "fit 13B lora rtx-4090 16gb"}
	case q.Nodes > 0 && q.GPUs > 0 && q.GPUs%q.Nodes != 0:
		return r, &sizing.InputError{Problem: fmt.Sprintf("%d GPUs do not split evenly over %d machines", q.GPUs, q.Nodes), Hint: try()}
	case q.Nodes > 0 && q.GPUs/q.Nodes > sizing.MaxGPUsPerNode:
		return r, &sizing.InputError{Problem: fmt.Sprintf("%d GPUs in one machine is more than %d", q.GPUs/q.Nodes, sizing.MaxGPUsPerNode), Hint: try()}
	case q.LoRARank > 0 && q.Method != "" && q.Method != sizing.MethodLoRA && q.Method != sizing.MethodQLoRA:
		return r, &sizing.InputError{Problem: fmt.Sprintf("a LoRA rank needs LoRA or QLoRA, not %s", q.Method), Hint: try()}
	case q.Method == sizing.MethodQLoRA && q.Quant != "" && q.Quant != sizing.QuantNF4 && q.Quant != sizing.QuantNF4DQ:
		return r, &sizing.InputError{Problem: fmt.Sprintf("QLoRA trains on 4-bit NF4 weights, not %s", q.Quant), Hint: try()}
	case q.Serve.TokensPer != "" && sizing.Periods[q.Serve.TokensPer] == 0:
		return r, &sizing.InputError{Problem: fmt.Sprintf("tokens per %s: the periods are second, minute, hour, day, week and month", q.Serve.TokensPer), Hint: try()}
	case r.Money.PerMonth && r.Money.BudgetUSD == 0:
		return r, &sizing.InputError{Problem: "a monthly budget needs an amount", Hint: try() + " $5k/month"}
	}
	for _, w := range r.Unused {
		if strings.TrimSpace(w) == "" {
			return r, fmt.Errorf("reading: an empty unused word")
		}
	}
	for _, a := range r.Alternatives {
		if strings.TrimSpace(a.Label) == "" || strings.TrimSpace(a.Words) == "" {
			return r, fmt.Errorf("reading: an alternative without a label or words: %+v", a)
		}
	}
	return r, nil
}

// knownKinds are the kinds of message Route tells apart.
var knownKinds = map[RouteKind]bool{RouteSizing: true, RoutePrice: true, RouteChat: true, RouteHelp: true, RoutePlans: true,
	RouteCluster: true, RoutePlan: true, RouteHardware: true, RouteGPUs: true, RouteModels: true}

// knownIntents are the intents of a sizing question.
var knownIntents = map[sizing.Intent]bool{
	sizing.IntentFit: true, sizing.IntentServe: true, sizing.IntentLargest: true,
	sizing.IntentMaxContext: true, sizing.IntentWhichGPU: true, sizing.IntentBuyRent: true,
}

// Read reads one message: it routes it (Route); when its words ask one of
// several things alike (Unsure) the Request carries them as Alternatives
// and nothing more. Otherwise, for a sizing
// question, reads the question (Parse) and any comparison of two options
// in it (ParseComparison: the Request is then the first option's
// question, with the Comparison), then holds the result to Validate. The
// Request is returned with the error, so that a caller can tell what was
// understood around a problem. Read does no I/O and never panics.
func Read(text string) (Request, error) {
	rt := Route(text)
	if alts := Unsure(text); len(alts) >= 2 {
		// Unsure: the words ask one of several things; the reading is the
		// route alone, and the asker is asked which.
		r := Request{Kind: rt.Kind, Alternatives: alts}
		if rt.Kind != RouteSizing {
			r.Route = &rt
		}
		return Validate(r)
	}
	if rt.Kind != RouteSizing {
		return Validate(Request{Kind: rt.Kind, Route: &rt})
	}
	c, compared := ParseComparison(text)
	if compared {
		text = c.Options[0].Text // the first option's question; each reads on its own
	}
	r, err := Parse(text)
	r.Kind = RouteSizing
	if compared {
		r.Comparison = &c
	} else if kept, left, ok := ParseTooManyOptions(text); ok && err == nil {
		err = &sizing.InputError{Problem: fmt.Sprintf("I compare two options at a time: %s left out of this Try; ask it against the winner next", quote(left)), Hint: "fit " + kept}
	}
	if err != nil {
		return r, err
	}
	return Validate(r)
}
