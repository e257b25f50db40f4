package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// serveExtras is --emit or --chart on a serving question: the launch
// config of the answered replica (the named GPUs, or the cheapest
// configuration of a plan) with the answered memory share, context and
// concurrency, or the latency and throughput curve against concurrency.
func (a *app) serveExtras(ctx context.Context, svc *answer.Service, parsed reading.Request, ask sizing.AskAnswer, f *fitArgs) error {
	p, err := svc.ServingPlan(ctx, parsed.Query, ask)
	if errors.Is(err, answer.ErrNothingServed) {
		return failure(fmt.Sprintf("no configuration in the catalog serves %s: nothing to emit or draw", ask.ModelName), "")
	}
	if err != nil {
		return inputError(err, "")
	}
	if f.chart != "" {
		if err := writeServeChart(f.chart, parsed, ask); err != nil {
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
	if !ask.Serve.MeetsTargets {
		fmt.Fprintf(a.stderr, "fitbot: the answer does not meet the target; this %s config is for the closest configuration\n", kind)
	}
	return a.writeConfig(kind, p, strings.Join(f.words, " "))
}
