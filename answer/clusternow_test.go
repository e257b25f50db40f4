package answer

import (
	"context"
	"errors"
	"testing"
)

// TestClusterNow holds that `/fit cluster`'s read is the Service's
// Cluster's, and that without one it is ErrNoCluster, said in its own
// words.
func TestClusterNow(t *testing.T) {
	ctx := context.Background()
	_, err := (&Service{}).ClusterNow(ctx)
	if !errors.Is(err, ErrNoCluster) {
		t.Fatalf("no Cluster: error %v, want ErrNoCluster", err)
	}
	if got := ExplainCluster(err); got != ErrNoCluster.Error() {
		t.Errorf("ExplainCluster(ErrNoCluster) = %q, want its own words", got)
	}
	s := &Service{Cluster: clusterOf(3, 1)}
	snap, err := s.ClusterNow(ctx)
	if err != nil || len(snap.Nodes) != 2 {
		t.Errorf("ClusterNow = %d nodes, %v; want the cluster's 2", len(snap.Nodes), err)
	}
	if got := ExplainCluster(errors.New("dial tcp 10.0.0.7:6443: secret")); got != "the cluster could not be read" {
		t.Errorf("ExplainCluster(an unchecked error) = %q, want the generic phrase", got)
	}
}
