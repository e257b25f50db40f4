package store

import "github.com/fitbot/fitbot/plan"

// Who is who asked for a plan.
type Who struct {
	Source  string // SourceSlack or SourceCLI
	Team    string // Slack ids; empty for the command line
	Channel string
	User    string
}

// NewPlan is the plan that keeps summary s, asked by who; SavePlan
// writes it.
func NewPlan(who Who, s plan.Summary) Plan {
	return Plan{
		Source: who.Source, Team: who.Team, Channel: who.Channel, User: who.User,
		Question: s.Question, Canonical: s.Canonical, Request: s.Request, ModelKey: s.ModelKey,
		Fits: s.Fits, Headroom: s.Headroom, GPU: s.GPU, GPUs: s.GPUs, PerGPUBytes: s.PerGPUBytes,
		USDPerHour: s.USDPerHour, PriceProvider: s.PriceProvider, PriceAsOf: s.PriceAsOf,
	}
}

// Summary is the answer the plan kept, as the plan package reads it.
func (p Plan) Summary() plan.Summary {
	return plan.Summary{
		Question: p.Question, Canonical: p.Canonical, Request: p.Request, ModelKey: p.ModelKey,
		Fits: p.Fits, Headroom: p.Headroom, GPU: p.GPU, GPUs: p.GPUs, PerGPUBytes: p.PerGPUBytes,
		USDPerHour: p.USDPerHour, PriceProvider: p.PriceProvider, PriceAsOf: p.PriceAsOf,
	}
}
