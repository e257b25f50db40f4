// Package plan is what a saved plan means, apart from how it is kept: the
// key the plans for one model share, the summary an answer leaves behind,
// and how a plan compares with today's answer to the same question. The
// store persists plans; the command line, Slack and the weekly digest
// render a Diff. It does no I/O.
package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// ModelKey is the key plans for one model share: the catalog model id for
// a catalog model, bare:<parameters> for a bare size ("13B" is
// bare:13000000000), bare:<experts>x<parameters per expert> for a bare
// mixture of experts ("8x7B" is bare:8x7000000000), and config:<name> for
// an architecture read from a config.json, and hub:<repo id in lower
// case> for a Hugging Face Hub model. It is "" for a query that names no
// model.
func ModelKey(q sizing.Query) string {
	switch {
	case strings.Contains(q.Model, "/"): // a Hub repo id, resolved (Arch set) or not
		return "hub:" + strings.ToLower(q.Model)
	case q.Arch != nil:
		return configPrefix + q.Arch.ID
	case q.Model != "":
		return q.Model
	case q.Params > 0 && q.Experts > 0:
		return "bare:" + strconv.Itoa(q.Experts) + "x" + strconv.FormatInt(q.Params, 10)
	case q.Params > 0:
		return "bare:" + strconv.FormatInt(q.Params, 10)
	}
	return ""
}

// configPrefix starts the ModelKey of an architecture read from a config.json.
const configPrefix = "config:"

// ModelKeyFor reads a model the way a user names it and returns its
// ModelKey, so that "mistral 7b", "Mistral-7B-v0.1" and "mistral-7b" find
// the same plans and "13B" finds the plans for bare 13B sizes. Words that
// name no model give a *sizing.InputError (with suggestions where the
// catalog has near misses).
func ModelKeyFor(words string) (string, error) {
	if m, _, err := sizing.LookupModel(words); err == nil {
		return m.ID, nil
	}
	p, err := reading.Parse(words)
	if err != nil {
		return "", err
	}
	if key := ModelKey(p.Query); key != "" {
		return key, nil
	}
	return "", &sizing.InputError{
		Problem: fmt.Sprintf("%q names no model", words),
		Hint:    "a catalog model (mistral 7b, llama-3.1-70b) or a bare size (13B, 8x7B)",
	}
}

// Summary is an answer as a plan keeps it: the question, the request it
// resolved to and the verdict, hardware, memory and price as they stood.
type Summary struct {
	Question  string         // as typed
	Canonical string         // sizing.Format of the query: re-parses to the same question
	Request   sizing.Request // the fully resolved request the answer was for
	ModelKey  string         // see ModelKey; ask:<kind> for an inverse plan that names no model

	// Kind is what the question asked (KindFit unless it ran the other
	// way round); Answer is an inverse plan's answer in one line, "" for
	// a fit plan (its verdict and figures are the fields below).
	Kind   Kind
	Answer string

	Fits          bool
	Headroom      string     // comfortable, tight or does not fit
	GPU           string     // catalog GPU id
	GPUs          int        // total GPUs
	PerGPUBytes   int64      // per-GPU total of the busiest GPU
	USDPerHour    *float64   // the whole configuration; nil when no price was known
	PriceProvider string     // where the price came from, "" when none
	PriceAsOf     *time.Time // when the price was observed, nil when none
}

// FromAnswer is the summary of answer a to question, read as q: the
// canonical text is sizing.Format(q), the price and its source are the
// answer's (copied, so the summary shares no pointer with a).
func FromAnswer(question string, q sizing.Query, a sizing.Answer) Summary {
	s := Summary{
		Kind:        KindFit,
		Question:    question,
		Canonical:   sizing.Format(q),
		Request:     a.Request,
		ModelKey:    ModelKey(q),
		Fits:        a.Fits,
		Headroom:    string(a.Headroom),
		GPU:         a.Request.GPU,
		GPUs:        a.Request.GPUs,
		PerGPUBytes: a.PerGPU.TotalBytes,
	}
	if s.ModelKey == "" {
		s.ModelKey = a.Request.Model
	}
	if u := a.Throughput.USDPerHour; u != nil {
		usd := *u
		s.USDPerHour = &usd
	}
	if a.Price != nil {
		s.PriceProvider = a.Price.Provider
		if !a.Price.AsOf.IsZero() {
			asOf := a.Price.AsOf.UTC()
			s.PriceAsOf = &asOf
		}
	}
	return s
}

// Verdict is a fits/headroom pair in words: "fits", "fits, tight" or
// "does not fit".
func Verdict(fits bool, headroom string) string {
	switch {
	case !fits:
		return "does not fit"
	case headroom == string(sizing.HeadroomTight):
		return "fits, tight"
	}
	return "fits"
}

// Kind is what a plan's question asked: whether a configuration fits,
// or one of the questions that run the other way round.
type Kind string

// The plan kinds, as the plans table keeps them.
const (
	KindFit      Kind = "fit"       // does it fit, how much memory, what it costs
	KindLargest  Kind = "largest"   // the largest model that fits
	KindContext  Kind = "context"   // the longest context that fits
	KindWhichGPU Kind = "which-gpu" // every card that fits, cheapest first
	KindBuyRent  Kind = "buy-rent"  // buy the cards or rent them
	KindServe    Kind = "serve"     // how many users GPUs serve, or the cheapest GPUs for a load
)

// Valid reports whether k is one of the plan kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindFit, KindLargest, KindContext, KindWhichGPU, KindBuyRent, KindServe:
		return true
	}
	return false
}

// KindOf is the plan kind of a parsed question's intent.
func KindOf(i sizing.Intent) Kind {
	switch i {
	case sizing.IntentLargest:
		return KindLargest
	case sizing.IntentMaxContext:
		return KindContext
	case sizing.IntentWhichGPU:
		return KindWhichGPU
	case sizing.IntentBuyRent:
		return KindBuyRent
	case sizing.IntentServe:
		return KindServe
	}
	return KindFit
}

// askKeyPrefix starts the ModelKey of an inverse plan that names no model.
const askKeyPrefix = "ask:"

// FromAsk is the summary of an answer to a question that runs the other
// way round, p as typed in question: the canonical text is
// reading.FormatAsk(p) (it re-parses to the same question and intent),
// line is the answer in one line, and the model key is the question's
// model, or ask:<kind> when it names none. The request carries the
// answer's figures (the largest model found, the longest context, the
// cheapest card) and Headroom a buy-or-rent verdict; the memory and price
// fields are left zero: an inverse plan is re-answered by re-asking (Reask).
func FromAsk(question string, p reading.Request, a sizing.AskAnswer, line string) Summary {
	kind := KindOf(p.Intent)
	key := ModelKey(p.Query)
	if key == "" {
		key = askKeyPrefix + string(kind)
	}
	s := Summary{
		Kind:      kind,
		Question:  question,
		Canonical: reading.FormatAsk(p),
		Request:   a.Request,
		ModelKey:  key,
		Answer:    line,
		GPU:       a.Request.GPU,
		GPUs:      a.Request.GPUs,
	}
	if a.BuyRent != nil {
		s.Headroom = a.BuyRent.Verdict // buy or rent: what Reask compares
	}
	return s
}

// InverseKey is the ModelKey the inverse plans of one kind that name no
// model share, when words name a plan kind ("largest", "which-gpu");
// ok is false otherwise.
func InverseKey(words string) (string, bool) {
	if k := Kind(strings.ToLower(strings.TrimSpace(words))); k.Valid() && k != KindFit {
		return askKeyPrefix + string(k), true
	}
	return "", false
}
