package answer

import (
	"context"
	"errors"

	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/sizing"
)

// ErrNothingServed is ServingPlan's error for a serving answer that
// serves on no configuration: there is no replica to launch.
var ErrNothingServed = errors.New("no configuration in the catalog serves the model: nothing to launch or draw")

// ServingPlan is the launch plan of a serving answer a to the query q:
// the answered replica (the named GPUs, or the cheapest configuration of
// a plan), answered again on its own hardware, with the answered memory
// share, context and concurrency. MeetsTargets in a.Serve says whether
// the replica meets the question's targets.
func (s *Service) ServingPlan(ctx context.Context, q sizing.Query, a sizing.AskAnswer) (launch.Plan, error) {
	if a.Serve == nil {
		return launch.Plan{}, ErrNothingServed
	}
	var sv *sizing.Serving
	switch {
	case a.Serve.Capacity != nil:
		sv = a.Serve.Capacity
	case len(a.Serve.Options) > 0:
		sv = &a.Serve.Options[0].Serving
	default:
		return launch.Plan{}, ErrNothingServed
	}
	replica, err := s.Replica(ctx, q, a.Request)
	if err != nil {
		return launch.Plan{}, err
	}
	p := launch.PlanOf(replica)
	p.Serving = sv
	return p, nil
}

// Replica answers the query q again with the hardware and settings of
// req (an alternative's request, or a serving answer's): the answer a
// launch config is made from.
func (s *Service) Replica(ctx context.Context, q sizing.Query, req sizing.Request) (sizing.Answer, error) {
	return s.Estimator.Answer(ctx, launch.QueryFor(q, req))
}

// ServeCurve is the latency and throughput of the replica a serving
// answer a answered for the query q, against concurrency: what its
// picture draws.
func ServeCurve(q sizing.Query, a sizing.AskAnswer) ([]sizing.ServePoint, error) {
	return (&sizing.Estimator{}).ServeCurve(launch.QueryFor(q, a.Request))
}
