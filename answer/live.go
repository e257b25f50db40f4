package answer

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// PriceSource is where Live reads the current prices; *store.DB is one.
type PriceSource interface {
	PriceSource(ctx context.Context) (sizing.PriceSource, error)
}

// loadTimeout bounds one read of the prices.
const loadTimeout = 2 * time.Second

// Live is an Estimator and Asker at the store's current prices. The
// estimator in use is held in an atomic pointer and swapped by a
// background reload (Run) and by Load after a refresh, so an answer never
// reads the store nor waits for a reload. When the store cannot be read
// it keeps the prices it had (the built-in sheet at first) and says so in
// the log.
type Live struct {
	prices PriceSource
	log    *slog.Logger

	current atomic.Pointer[sizing.Estimator]
	gen     atomic.Uint64 // prices swapped in so far; see Version
}

// NewLive returns a Live reading prices, answering with the built-in
// price sheet until its first Load.
func NewLive(prices PriceSource, log *slog.Logger) *Live {
	if log == nil {
		log = slog.Default()
	}
	return &Live{prices: prices, log: log}
}

// builtinEstimator answers with the built-in price sheet: before the
// first load, and when the store has never been readable.
var builtinEstimator = &sizing.Estimator{Prices: pricing.DefaultSheet()}

// Answer implements Estimator.
func (l *Live) Answer(_ context.Context, q sizing.Query) (sizing.Answer, error) {
	return l.estimator().Answer(q)
}

// Ask implements Asker: the questions that run the other way round
// (the largest model, the longest context, which GPU, buy or rent).
func (l *Live) Ask(_ context.Context, p reading.Request) (sizing.AskAnswer, error) {
	return l.estimator().Ask(p.Query, p.Intent, p.Workload)
}

func (l *Live) estimator() *sizing.Estimator {
	if e := l.current.Load(); e != nil {
		return e
	}
	return builtinEstimator
}

// Load reads the store's prices and swaps them in; on failure the prices
// in use stay.
func (l *Live) Load(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	src, err := l.prices.PriceSource(ctx)
	if err != nil {
		if l.current.Load() == nil {
			l.log.Warn("prices: store unreadable; answering with the built-in price sheet", "err", err)
		} else {
			l.log.Warn("prices: store unreadable; answering with the prices loaded before", "err", err)
		}
		return
	}
	l.current.Store(&sizing.Estimator{Prices: src})
	// After the swap, never before: a version read after this sees the
	// new prices, so no reply made with the old ones is kept under it.
	l.gen.Add(1)
}

// Version is the version of the prices answers use (a reply cache's,
// bot.Config's AnswerVersion): it grows with every Load that swaps prices
// in, so a reply cached under it lives no longer than the estimator it
// was made with.
func (l *Live) Version() uint64 { return l.gen.Load() }

// Run reloads the prices every interval until ctx is done.
func (l *Live) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Load(ctx)
		}
	}
}
