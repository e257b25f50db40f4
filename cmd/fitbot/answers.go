package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
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
		Runs:      cliRuns{a},
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

// cliRuns are the measured runs in the command line's database, opened
// for each read; with no database there are none (and none is made).
type cliRuns struct{ a *app }

// withStore runs fn on the database, opened for it.
func (r cliRuns) withStore(ctx context.Context, fn func(*store.DB) error) error {
	db, err := r.a.openStore(ctx)
	if err != nil {
		return err
	}
	defer r.a.closeStore(db)
	return fn(db)
}

// Plan implements answer.RunBook.
func (r cliRuns) Plan(ctx context.Context, scope store.Scope, id int64) (p store.Plan, err error) {
	if !r.a.dbExists() {
		return store.Plan{}, fmt.Errorf("plan %d: %w", id, store.ErrNotFound)
	}
	err = r.withStore(ctx, func(db *store.DB) error { p, err = db.Plan(ctx, scope, id); return err })
	return p, err
}

// SaveMeasuredRun implements answer.RunBook.
func (r cliRuns) SaveMeasuredRun(ctx context.Context, scope store.Scope, run *store.PlanRun) error {
	return r.withStore(ctx, func(db *store.DB) error { return db.SaveMeasuredRun(ctx, scope, run) })
}

// MeasuredRuns implements answer.RunBook.
func (r cliRuns) MeasuredRuns(ctx context.Context, scope store.Scope, limit int) (runs []store.RunOfPlan, err error) {
	if !r.a.dbExists() {
		return nil, nil
	}
	err = r.withStore(ctx, func(db *store.DB) error { runs, err = db.MeasuredRuns(ctx, scope, limit); return err })
	return runs, err
}
