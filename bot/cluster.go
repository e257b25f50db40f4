package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/slack-go/slack"
)

// ClusterReader reads the team's live cluster, cached briefly: answer's
// Cluster; *cluster.Cache is one.
type ClusterReader = answer.Cluster

// clusterWait is how long a command waits for the cluster: Slack wants
// its acknowledgement within 3 seconds, and the estimate needs the rest.
// A read that takes longer goes on (the cluster cache) and the next question
// finds it.
const clusterWait = 2 * time.Second

// boundedCluster waits at most clusterWait for a read.
type boundedCluster struct{ r ClusterReader }

// Read implements ClusterReader and answer.Cluster.
func (b boundedCluster) Read(ctx context.Context) (answer.ClusterSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterWait)
	defer cancel()
	return b.r.Read(ctx)
}

// maxClusterNodes is how many nodes `/fit cluster` lists: a section's
// text holds 3,000 characters.
const maxClusterNodes = 40

// clusterCommand is `/fit cluster`: the live cluster's GPUs by card and
// by node, and when they were read. A cluster that cannot be read says
// why, with the team's static machines.
func (h *Handler) clusterCommand(ctx context.Context, team string) Message {
	s, err := h.answers.ClusterNow(ctx)
	if err != nil {
		if !errors.Is(err, answer.ErrNoCluster) {
			h.log.Warn("bot: reading the cluster failed", "err", err)
		}
		return h.clusterUnreadable(ctx, team, err)
	}
	var cards strings.Builder
	for _, c := range s.Cards() {
		fmt.Fprintf(&cards, "*%s*: %d free of %d on %d %s", escape(c.Name), c.Free, c.Total, c.Nodes, plural(c.Nodes, "node", "nodes"))
		if c.Unavailable > 0 {
			fmt.Fprintf(&cards, " (%d not taking work)", c.Unavailable)
		}
		cards.WriteByte('\n')
	}
	if cards.Len() == 0 {
		cards.WriteString("No GPUs on its nodes.")
	}
	var nodes strings.Builder
	listed, left := 0, 0
	for _, n := range s.Nodes {
		if n.GPUsTotal == 0 && len(n.MIG) == 0 {
			continue
		}
		if listed == maxClusterNodes {
			left++
			continue
		}
		listed++
		state := fmt.Sprintf("%d of %d free", n.GPUsFree, n.GPUsTotal)
		if n.Unavailable != "" {
			state = fmt.Sprintf("_%s_ (%d GPUs)", escape(n.Unavailable), n.GPUsTotal)
		}
		fmt.Fprintf(&nodes, "`%s` %s %s", escape(display.Truncate(n.Name, 40)), escape(cardOf(n)), state)
		for _, m := range n.MIG {
			fmt.Fprintf(&nodes, " · MIG %s %d of %d free", escape(m.Profile), m.Free, m.Total)
		}
		nodes.WriteByte('\n')
	}
	if left > 0 {
		fmt.Fprintf(&nodes, "…and %d more (`fitbot cluster` lists them all)", left)
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("The team's cluster")),
		slack.NewSectionBlock(mrkdwn(strings.TrimSpace(cards.String())), nil, nil),
	}
	if nodes.Len() > 0 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(strings.TrimSpace(nodes.String())), nil, nil))
	}
	if line := s.QueueLine(); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(escape(line)), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(fmt.Sprintf("Read %s from %s. Ask `/fit llama-3.1-8b lora on our cluster right now` to size a job on the free GPUs.",
		s.CheckedAt.Format("15:04:05 UTC"), escape(s.Source)))))
	return ephemeral(fmt.Sprintf("The team's cluster: %s", freeWords(s)), blocks...)
}

// cardOf is a node's card as people say it.
func cardOf(n answer.ClusterNode) string {
	if n.GPU != "" {
		return n.GPU
	}
	if n.Product != "" {
		return n.Product
	}
	return "GPU"
}

// freeWords is "4 free h100, 3 free l40s".
func freeWords(s answer.ClusterSnapshot) string {
	var parts []string
	for _, c := range s.Cards() {
		parts = append(parts, fmt.Sprintf("%d free %s", c.Free, c.GPU))
	}
	if len(parts) == 0 {
		return "no GPUs"
	}
	return strings.Join(parts, ", ")
}

// clusterUnreadable says why the cluster could not be read and lists the
// team's static machines, which questions fall back to.
func (h *Handler) clusterUnreadable(ctx context.Context, team string, err error) Message {
	text := ":warning: " + escape(answer.ExplainCluster(err)) + "."
	if h.cfg.Hardware != nil {
		if ms, merr := h.cfg.Hardware.Machines(ctx, team); merr == nil && len(ms) > 0 {
			text += "\nThe team's machines (static, `/fit hardware`):"
			for _, m := range ms {
				text += fmt.Sprintf("\n*%s*: %s", escape(m.Name), m.Hardware())
			}
		}
	}
	return ephemeral(answer.ExplainCluster(err), slack.NewSectionBlock(mrkdwn(text), nil, nil),
		slack.NewContextBlock("", mrkdwn("docs/cluster.md lists the settings and the read-only access fitbot needs.")))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
