package store

import (
	"fmt"
	"strings"
)

// ChannelKind is the kind of conversation a plan was asked in; it decides
// who may read the plan (see Scope).
type ChannelKind string

// Channel kinds, as the plans table keeps them.
const (
	ChannelPublic  ChannelKind = "public"  // a public channel: the whole workspace reads it
	ChannelPrivate ChannelKind = "private" // a private channel or group DM: that channel and the asker
	ChannelDM      ChannelKind = "dm"      // a DM with fitbot: there and the asker
	ChannelCLI     ChannelKind = "cli"     // the command line: the command line
)

// Valid reports whether k is one of the channel kinds.
func (k ChannelKind) Valid() bool {
	switch k {
	case ChannelPublic, ChannelPrivate, ChannelDM, ChannelCLI:
		return true
	}
	return false
}

// SlackChannelKind classifies a Slack conversation from what a request
// says of it: its id and the channel_name of a slash command (or the
// name an event's channel_type maps to, see bot). Slack names a private
// channel "privategroup" and a DM "directmessage" in slash commands; ids
// of DMs start with D and of old private channels with G. Only a C
// channel with an ordinary name is public; anything else, including a
// channel whose name is not known (an @mention), is taken as private, so
// a doubt never widens who reads a plan.
func SlackChannelKind(id, name string) ChannelKind {
	switch {
	case strings.HasPrefix(id, "D") || name == "directmessage":
		return ChannelDM
	case strings.HasPrefix(id, "C") && name != "" && name != "privategroup" && !strings.HasPrefix(name, "mpdm-"):
		return ChannelPublic
	}
	return ChannelPrivate
}

// scopeMode is what a Scope reads.
type scopeMode int

const (
	scopeNone      scopeMode = iota // the zero Scope: no plan
	scopeViewer                     // a Slack user in a channel
	scopeWorkspace                  // one workspace's public plans
	scopeCLI                        // the command line's own plans
	scopeAll                        // every plan
)

// Scope is who reads plans. Every plan read takes one, so no read can
// forget whose plans it may return; a plan outside the scope reads
// exactly like a missing one (ErrNotFound). The zero Scope reads nothing.
type Scope struct {
	mode                scopeMode
	team, channel, user string
}

// Viewer is a Slack user reading from a channel of a workspace: the
// workspace's public-channel plans, the plans asked in this channel, and
// the user's own plans of the workspace. An empty team reads nothing; an
// empty channel or user matches no plan's.
func Viewer(team, channel, user string) Scope {
	if team == "" {
		return Scope{}
	}
	return Scope{mode: scopeViewer, team: team, channel: channel, user: user}
}

// Workspace reads one workspace's public-channel plans: what any
// channel of it reads (the command line's --workspace). An empty team
// reads nothing.
func Workspace(team string) Scope {
	if team == "" {
		return Scope{}
	}
	return Scope{mode: scopeWorkspace, team: team}
}

// CommandLine reads the plans asked on the command line.
func CommandLine() Scope { return Scope{mode: scopeCLI} }

// AllPlans reads every plan: the owner of the database file on the
// command line, who can read the file anyway.
func AllPlans() Scope { return Scope{mode: scopeAll} }

// String describes the scope for logs and messages; it holds Slack ids,
// no secrets.
func (s Scope) String() string {
	switch s.mode {
	case scopeViewer:
		return fmt.Sprintf("team %s channel %s user %s", s.team, s.channel, s.user)
	case scopeWorkspace:
		return "team " + s.team
	case scopeCLI:
		return "command line"
	case scopeAll:
		return "all plans"
	}
	return "nobody"
}

// where is the SQL condition on the plans table that keeps the rows the
// scope reads, and its arguments.
func (s Scope) where() (string, []any) {
	switch s.mode {
	case scopeViewer:
		return `(team = ? AND (channel_kind = 'public' OR (channel <> '' AND channel = ?) OR (user_id <> '' AND user_id = ?)))`,
			[]any{s.team, s.channel, s.user}
	case scopeWorkspace:
		return `(team = ? AND channel_kind = 'public')`, []any{s.team}
	case scopeCLI:
		return `(team = '' AND channel_kind = 'cli')`, nil
	case scopeAll:
		return `1 = 1`, nil
	}
	return `1 = 0`, nil
}

// Reads reports whether the scope reads p, as where does in SQL.
func (s Scope) Reads(p Plan) bool {
	switch s.mode {
	case scopeViewer:
		return p.Team == s.team && (p.ChannelKind == ChannelPublic ||
			(p.Channel != "" && p.Channel == s.channel) || (p.User != "" && p.User == s.user))
	case scopeWorkspace:
		return p.Team == s.team && p.ChannelKind == ChannelPublic
	case scopeCLI:
		return p.Team == "" && p.ChannelKind == ChannelCLI
	case scopeAll:
		return true
	}
	return false
}
