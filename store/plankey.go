package store

import (
	"fmt"
	"strconv"
	"strings"

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
		return "config:" + q.Arch.ID
	case q.Model != "":
		return q.Model
	case q.Params > 0 && q.Experts > 0:
		return "bare:" + strconv.Itoa(q.Experts) + "x" + strconv.FormatInt(q.Params, 10)
	case q.Params > 0:
		return "bare:" + strconv.FormatInt(q.Params, 10)
	}
	return ""
}

// ModelKeyFor reads a model the way a user names it and returns its
// ModelKey, so that "mistral 7b", "Mistral-7B-v0.1" and "mistral-7b" find
// the same plans and "13B" finds the plans for bare 13B sizes. Words that
// name no model give a *sizing.InputError (with suggestions where the
// catalog has near misses).
func ModelKeyFor(words string) (string, error) {
	if m, _, err := sizing.LookupModel(words); err == nil {
		return m.ID, nil
	}
	p, err := sizing.Parse(words)
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

// Who is who asked for a plan.
type Who struct {
	Source  string // SourceSlack or SourceCLI
	Team    string // Slack ids; empty for the command line
	Channel string
	User    string
}

// PlanFromAnswer is the plan that records answer a to question, asked by
// who and read as q: the canonical text is sizing.Format(q), the price
// and its source are the answer's.
func PlanFromAnswer(who Who, question string, q sizing.Query, a sizing.Answer) Plan {
	p := Plan{
		Source: who.Source, Team: who.Team, Channel: who.Channel, User: who.User,
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
	if p.ModelKey == "" {
		p.ModelKey = a.Request.Model
	}
	if u := a.Throughput.USDPerHour; u != nil {
		usd := *u
		p.USDPerHour = &usd
	}
	if a.Price != nil {
		p.PriceProvider = a.Price.Provider
		if !a.Price.AsOf.IsZero() {
			asOf := a.Price.AsOf.UTC()
			p.PriceAsOf = &asOf
		}
	}
	return p
}
