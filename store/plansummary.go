package store

import "github.com/fitbot/fitbot/plan"

// Who is who asked for a plan.
type Who struct {
	Source  string // SourceSlack or SourceCLI
	Team    string // Slack ids; empty for the command line
	Channel string
	User    string
	// Kind is the kind of conversation (see SlackChannelKind); empty:
	// cli for the command line, private for Slack.
	Kind ChannelKind
}

// NewPlan is the plan that keeps summary s, asked by who; SavePlan
// writes it.
func NewPlan(who Who, s plan.Summary) Plan {
	return Plan{Source: who.Source, Team: who.Team, Channel: who.Channel, User: who.User, ChannelKind: who.Kind, Summary: s}
}
