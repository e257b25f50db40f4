package pricing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// RunStatus is how one provider's refresh ended.
type RunStatus string

// The run statuses. Only an ok run's offers are current; a failed or
// rejected run is recorded without offers and the provider's previous
// good prices stay in force, marked stale.
const (
	RunOK       RunStatus = "ok"       // fetched, validated and stored
	RunFailed   RunStatus = "failed"   // the fetch itself failed: network, HTTP, payload
	RunRejected RunStatus = "rejected" // fetched, but the offers looked wrong
)

// Run is the record of one refresh of one provider, or of one imported
// price sheet (Provider "import:FILE").
type Run struct {
	ID       int64 // assigned by the Sink
	Provider string
	Started  time.Time
	Finished time.Time
	AsOf     time.Time // when its prices were observed: Started for a fetch, the sheet's time for an import
	// PublishedAt is the oldest publication time its source gave for the
	// prices (a feed's own date); zero when the source gives none.
	PublishedAt time.Time
	Status      RunStatus
	Rows        int    // offers fetched (stored only when Status is RunOK)
	Unknown     int    // distinct unrecognised names the provider published
	Error       string // why the run failed or was rejected; "" when ok
}

// ImportProvider is the Run.Provider of an imported sheet file.
func ImportProvider(file string) string { return "import:" + file }

// Sink stores refresh runs; the store implements it.
type Sink interface {
	// LastGoodRun returns provider's latest run with status ok, and false
	// when it has none.
	LastGoodRun(ctx context.Context, provider string) (Run, bool, error)
	// SaveRun stores run and, when its status is ok, every offer as an
	// observation of it, in one transaction: all of it or none. It returns
	// the run with its ID set.
	SaveRun(ctx context.Context, run Run, offers []Offer) (Run, error)
}

// Refresher fetches every provider's prices concurrently and stores each
// provider's result as one run. A provider that fails, hangs or returns
// prices that look wrong is recorded as such and keeps its last good
// prices; it never stops the others.
type Refresher struct {
	Fetchers []Fetcher
	Sink     Sink
	Clock    func() time.Time // time.Now when nil
	Logger   *slog.Logger     // discards when nil
	Timeout  time.Duration    // per provider; DefaultRefreshTimeout when zero
	Parallel int              // providers fetched at once; DefaultRefreshParallel when zero
}

// Defaults for a Refresher's zero fields.
const (
	DefaultRefreshTimeout  = 3 * time.Minute
	DefaultRefreshParallel = 4
)

// Report is the outcome of one provider's refresh.
type Report struct {
	Run      Run
	LastGood *Run           // the previous good run, when there is one; its prices stay current when Run failed
	Unknown  map[string]int // the unrecognised names behind Run.Unknown, and how often each appeared
	// Held are the offers the sanity check held aside (sanity.go): not
	// stored, not quoted; Confirmed counts the offers an earlier refresh
	// held that this one saw again at about the same price and let in.
	Held      []Hold
	Confirmed int
}

// UnknownGPUs is Unknown by GPU name: the rows of each name fitbot could
// not map, whatever instance or memory a catalog gave with it
// ("GH200 (gpu_1x_gh200 96.0GB)" counts under "GH200").
func (r Report) UnknownGPUs() map[string]int {
	out := make(map[string]int, len(r.Unknown))
	for k, n := range r.Unknown {
		name, _, _ := strings.Cut(k, " (")
		out[name] += n
	}
	return out
}

// Stale reports whether the provider's current prices are not from this
// refresh, or are from a source whose publication date is old at the end
// of the refresh.
func (r Report) Stale() bool { return r.Run.Status != RunOK || r.Run.FeedStale(r.Run.Finished) }

// Refresh runs every fetcher once and returns one report per fetcher, in
// the order of r.Fetchers. The error joins the problems of providers that
// did not refresh, each naming its provider; the reports are complete
// either way.
func (r *Refresher) Refresh(ctx context.Context) ([]Report, error) {
	parallel := r.Parallel
	if parallel <= 0 {
		parallel = DefaultRefreshParallel
	}
	reports := make([]Report, len(r.Fetchers))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, f := range r.Fetchers {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i] = r.refreshOne(ctx, f)
		})
	}
	wg.Wait()
	var errs []error
	for _, rep := range reports {
		if rep.Run.Status != RunOK {
			errs = append(errs, fmt.Errorf("refresh %s: %s: %s", rep.Run.Provider, rep.Run.Status, rep.Run.Error))
		}
	}
	return reports, errors.Join(errs...)
}

func (r *Refresher) refreshOne(ctx context.Context, f Fetcher) Report {
	log := r.logger().With("provider", f.Name())
	now := r.now()
	run := Run{Provider: f.Name(), Started: now, AsOf: now}
	var rep Report
	prev, ok, err := r.Sink.LastGoodRun(ctx, run.Provider)
	if err != nil {
		run.Status, run.Error = RunFailed, fmt.Sprintf("reading the last good run: %v", err)
		run.Finished = r.now()
		rep.Run = run
		log.Error("prices: refresh failed", "err", run.Error)
		return rep
	}
	if ok {
		rep.LastGood = &prev
	}

	res, err := r.fetch(ctx, f)
	run.Finished = r.now()
	run.Rows = len(res.Offers)
	run.PublishedAt = oldestPublication(res.Offers)
	run.Unknown = len(res.Unknown)
	rep.Unknown = res.Unknown
	var offers []Offer
	switch {
	case err != nil:
		run.Status, run.Error = RunFailed, err.Error()
	default:
		if err := validateRun(offersProvider(f), res.Offers, rep.LastGood); err != nil {
			run.Status, run.Error = RunRejected, err.Error()
		} else {
			run.Status, offers = RunOK, res.Offers
		}
	}
	holds, checked := r.Sink.(HoldStore)
	if checked && run.Status == RunOK {
		offers, checked = r.sane(ctx, holds, run.Provider, &rep, offers, now)
		if len(offers) == 0 {
			run.Status, run.Error = RunRejected, fmt.Sprintf("all %d offers held aside as implausible: %s", len(rep.Held), rep.Held[0].Reason())
		}
	}
	saved, err := r.Sink.SaveRun(ctx, run, offers)
	if err != nil {
		// The run could not be recorded; report it as failed so the
		// caller does not mistake unsaved prices for current ones.
		run.Status = RunFailed
		run.Error = strings.TrimPrefix(run.Error+"; ", "; ") + fmt.Sprintf("storing the run: %v", err)
		rep.Run = run
		log.Error("prices: refresh failed", "err", run.Error)
		return rep
	}
	rep.Run = saved
	if checked && (saved.Status == RunOK || len(rep.Held) > 0) {
		// The holds are the provider's from now on; when they cannot be
		// written the next refresh holds the same offers again.
		if err := holds.ReplacePriceHolds(ctx, saved.Provider, saved.ID, rep.Held); err != nil {
			log.Error("prices: recording the held offers failed", "held", len(rep.Held), "err", err)
		}
	}
	for _, h := range rep.Held {
		log.Warn("prices: offer held aside as implausible; a second refresh at this price lets it in", "offer", h.Reason())
	}
	attrs := []any{"status", saved.Status, "rows", saved.Rows, "unknown", saved.Unknown, "held", len(rep.Held), "confirmed", rep.Confirmed, "took", saved.Finished.Sub(saved.Started).Round(time.Millisecond)}
	if saved.Status == RunOK && saved.FeedStale(now) {
		log.Warn("prices: the source's publication date is old; its prices rank as stale", append(attrs,
			"published_at", saved.PublishedAt, "age", now.Sub(saved.PublishedAt).Round(time.Minute))...)
		return rep
	}
	if saved.Status == RunOK {
		log.Info("prices: refreshed", attrs...)
		return rep
	}
	attrs = append(attrs, "err", saved.Error)
	if rep.LastGood != nil {
		attrs = append(attrs, "keeping_prices_from", rep.LastGood.AsOf, "age", now.Sub(rep.LastGood.AsOf).Round(time.Minute))
	}
	log.Warn("prices: refresh did not land; previous prices kept", attrs...)
	return rep
}

// sane runs the sanity check over the valid offers of a provider (the
// fetcher's name): it returns
// the offers to store, and fills rep's Held and Confirmed. ok is false
// when the reference or the earlier holds could not be read: the offers
// are then stored as fetched (the flat bounds still applied), and the
// holds are left as they were.
func (r *Refresher) sane(ctx context.Context, hs HoldStore, provider string, rep *Report, offers []Offer, now time.Time) ([]Offer, bool) {
	current, err := hs.CurrentOffers(ctx)
	if err == nil {
		var held []Hold
		if held, err = hs.PriceHolds(ctx, provider); err == nil {
			var keep []Offer
			keep, rep.Held, rep.Confirmed = NewReference(current, DefaultSheet().Offers()).Judge(provider, offers, held, now)
			return keep, true
		}
	}
	r.logger().Error("prices: the sanity check could not read the reference prices; storing the offers unchecked", "provider", provider, "err", err)
	return offers, false
}

// fetch calls f under the per-provider timeout and turns a panic into an
// error, so one broken fetcher cannot take the refresh down.
func (r *Refresher) fetch(ctx context.Context, f Fetcher) (res FetchResult, err error) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultRefreshTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			r.logger().Error("prices: fetcher panicked", "provider", f.Name(), "panic", p, "stack", string(debug.Stack()))
			res, err = FetchResult{}, fmt.Errorf("%s: internal error (panic: %v)", f.Name(), p)
		}
	}()
	res, err = f.Fetch(ctx)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (gave up after %v)", err, timeout)
	}
	return res, err
}

// offersProvider is the provider a fetcher's offers are filed under: its
// own name, or for a published catalog (gpuhunt:nebius) the provider the
// catalog prices (nebius).
func offersProvider(f Fetcher) string {
	if c, ok := f.(interface{ OffersProvider() string }); ok {
		return c.OffersProvider()
	}
	return f.Name()
}

// maxListedProblems caps the problems a rejected run's error lists.
const maxListedProblems = 5

// validateRun is the gate between a fetch and the store: every offer
// belongs to the provider (the one a catalog's offers are filed under), names a catalog GPU, has a positive price
// inside the per-GPU bounds and appears once; and the run is not less than
// half the size of the last good one (a parser that silently lost rows).
func validateRun(provider string, offers []Offer, lastGood *Run) error {
	if len(offers) == 0 {
		return errors.New("no offers")
	}
	var problems []string
	bad := 0
	seen := make(map[string]bool, len(offers))
	for _, o := range offers {
		err := checkOffer(o)
		switch {
		case err != nil:
		case o.Provider != provider:
			err = fmt.Errorf("offer of provider %q in %s's run", o.Provider, provider)
		case seen[o.key()]:
			err = fmt.Errorf("%s %s %s %s listed twice", o.GPU, o.InstanceType, o.Region, o.Market)
		}
		seen[o.key()] = true
		if err != nil {
			bad++
			if len(problems) < maxListedProblems {
				problems = append(problems, err.Error())
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d offers look wrong: %s", bad, len(offers), strings.Join(problems, "; "))
	}
	if lastGood != nil && len(offers)*2 < lastGood.Rows {
		return fmt.Errorf("%d offers, fewer than half of the %d in the last good run (%s)", len(offers), lastGood.Rows, lastGood.AsOf.Format(time.RFC3339))
	}
	return nil
}

func (r *Refresher) now() time.Time {
	if r.Clock == nil {
		return time.Now().UTC()
	}
	return r.Clock().UTC()
}

func (r *Refresher) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}
