package answer

import (
	"context"

	"github.com/fitbot/fitbot/cluster"
)

// ClusterSnapshot is the team's live cluster as read (cluster.Snapshot):
// the faces show its cards and nodes.
type ClusterSnapshot = cluster.Snapshot

// ClusterNode is one node of a ClusterSnapshot (cluster.Node).
type ClusterNode = cluster.Node

// ClusterPlacement is where a question put on the cluster goes
// (cluster.Placement), as OnCluster carries it.
type ClusterPlacement = cluster.Placement

// ErrNoCluster is ClusterNow's error on a Service without a Cluster.
var ErrNoCluster = cluster.ErrNotConfigured

// ClusterNow reads the team's live cluster, as the Service's Cluster
// reads it (cached briefly, and bounded in time where the face bounds
// it); ErrNoCluster when none is configured.
func (s *Service) ClusterNow(ctx context.Context) (ClusterSnapshot, error) {
	if s.Cluster == nil {
		return ClusterSnapshot{}, ErrNoCluster
	}
	return s.Cluster.Read(ctx)
}

// ExplainCluster is a failed cluster read in words safe to show: what
// fitbot checked (the source refused, timed out, is not configured), or
// a generic phrase for an error that may quote what it should not.
func ExplainCluster(err error) string { return cluster.Explain(err) }
