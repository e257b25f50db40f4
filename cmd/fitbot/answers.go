package main

import (
	"context"
	"log/slog"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// answers is the command line's answer service: priced as fitPrices
// says, the Hugging Face Hub through the cache resolveHub opens, and the
// command line's own machines, and the live cluster the settings name. Nothing is opened before a question needs
// it.
func (a *app) answers() (*answer.Service, *cliEstimator) {
	est := &cliEstimator{a: a}
	return &answer.Service{
		Parse:     reading.Parse,
		Estimator: est,
		Asker:     est,
		Models:    cliHub{a: a},
		Machines:  cliMachines{a},
		Cluster:   a.liveCluster(),
		Logger:    slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, est
}

// cliEstimator reads the prices once, on the first question that needs
// them, so that a question the parser rejects opens no database.
type cliEstimator struct {
	a   *app
	est *sizing.Estimator
}

// estimator is the estimator at fitPrices' prices.
func (e *cliEstimator) estimator(ctx context.Context) *sizing.Estimator {
	if e.est == nil {
		e.est = &sizing.Estimator{Prices: e.a.fitPrices(ctx)}
	}
	return e.est
}

// Answer implements answer.Estimator.
func (e *cliEstimator) Answer(ctx context.Context, q sizing.Query) (sizing.Answer, error) {
	return e.estimator(ctx).Answer(q)
}

// Ask implements answer.Asker; both price sources know spot prices too,
// for buy-or-rent.
func (e *cliEstimator) Ask(ctx context.Context, p reading.Request) (sizing.AskAnswer, error) {
	return e.estimator(ctx).Ask(p.Query, p.Intent, p.Workload)
}

// cliHub resolves Hub models with cache, or with a cache opened for the
// one question when cache is nil.
type cliHub struct {
	a     *app
	cache hub.Cache
}

// ResolveParsed implements answer.ModelResolver.
func (h cliHub) ResolveParsed(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error) {
	if h.cache != nil {
		return h.a.resolveHubWith(ctx, h.cache, question, p, parseErr)
	}
	return h.a.resolveHub(ctx, question, p, parseErr)
}

// cliMachines are the command line's machines, whatever the team.
type cliMachines struct{ a *app }

// Machines implements answer.Machines.
func (m cliMachines) Machines(ctx context.Context, _ string) ([]sizing.Machine, error) {
	return m.a.machines(ctx)
}
