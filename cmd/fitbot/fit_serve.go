package main

import (
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// serveExtras is --emit or --chart on a serving question: the launch
// config of the answered replica (the named GPUs, or the cheapest
// configuration of a plan) with the answered memory share, context and
// concurrency, or the latency and throughput curve against concurrency.
func (a *app) serveExtras(est *sizing.Estimator, parsed reading.Request, f *fitArgs) error {
	ask, err := est.Ask(parsed.Query, parsed.Intent, parsed.Workload)
	if err != nil {
		return inputError(err, "")
	}
	s := ask.Serve
	var sv *sizing.Serving
	switch {
	case s.Capacity != nil:
		sv = s.Capacity
	case len(s.Options) > 0:
		sv = &s.Options[0].Serving
	default:
		return failure(fmt.Sprintf("no configuration in the catalog serves %s: nothing to emit or draw", ask.ModelName), "")
	}
	if f.chart != "" {
		if err := writeServeChart(f.chart, est, parsed, ask); err != nil {
			return err
		}
	}
	if f.emit == "" {
		return nil
	}
	kind, err := launch.ParseKind(f.emit)
	if err != nil {
		return usageError(err.Error(), "fitbot fit --emit vllm how many users can 2xh100 serve llama-3.1-70b")
	}
	if !s.MeetsTargets {
		fmt.Fprintf(a.stderr, "fitbot: the answer does not meet the target; this %s config is for the closest configuration\n", kind)
	}
	ans, err := est.Answer(launch.QueryFor(parsed.Query, ask.Request))
	if err != nil {
		return inputError(err, "")
	}
	p := launch.PlanOf(ans)
	p.Serving = sv
	return a.writeConfig(kind, p, strings.Join(f.words, " "))
}
