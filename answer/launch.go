package answer

import (
	"context"
	"errors"

	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/reading"
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
	p, _, err := s.Launch(ctx, Result{Question: Question{Parsed: reading.Request{Query: q}}, Ask: &a})
	if errors.Is(err, ErrNoLaunch) {
		return p, ErrNothingServed
	}
	return p, err
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

// ErrNoLaunch is Launch's error for a result that is not an answer to
// launch: a comparison, prices, words.
var ErrNoLaunch = errors.New("no launch config for this kind of answer")

// Launch is the launch plan of a result and the answer it was made from:
// for a serving answer the answered replica (ServingPlan), answered on
// its own hardware; for a fit answer the estimate as asked.
func (s *Service) Launch(ctx context.Context, r Result) (launch.Plan, sizing.Answer, error) {
	switch {
	case r.Fit != nil:
		return launch.PlanOf(r.Fit.Estimate), r.Fit.Estimate, nil
	case r.Ask == nil || r.Ask.Serve == nil:
		return launch.Plan{}, sizing.Answer{}, ErrNoLaunch
	}
	a := *r.Ask
	var sv *sizing.Serving
	switch {
	case a.Serve.Capacity != nil:
		sv = a.Serve.Capacity
	case len(a.Serve.Options) > 0:
		sv = &a.Serve.Options[0].Serving
	default:
		return launch.Plan{}, sizing.Answer{}, ErrNothingServed
	}
	replica, err := s.Replica(ctx, r.Question.Parsed.Query, a.Request)
	if err != nil {
		return launch.Plan{}, sizing.Answer{}, err
	}
	p := launch.PlanOf(replica)
	p.Serving = sv
	return p, replica, nil
}
