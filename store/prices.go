package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// The store keeps prices for the refresher (it is a pricing.Sink) and for
// the estimator (PriceSource); the compile-time checks keep the shapes
// aligned.
var _ pricing.Sink = (*DB)(nil)

// ingestBatch is how many rows one INSERT statement carries when a run's
// offers are stored: large enough to amortise the per-statement cost,
// within SQLite's default limit of 32766 bound parameters.
const ingestBatch = 500

// SaveRun implements pricing.Sink: it stores run and, when run.Status is
// ok, every offer as an observation of it, in one transaction. A failed or
// rejected run is stored without observations. Either everything is
// stored or nothing is.
func (db *DB) SaveRun(ctx context.Context, run pricing.Run, offers []pricing.Offer) (pricing.Run, error) {
	if err := checkRun(run, offers); err != nil {
		return pricing.Run{}, err
	}
	var first, last *string
	if len(offers) > 0 {
		lo, hi := offers[0].ObservedAt, offers[0].ObservedAt
		for _, o := range offers[1:] {
			lo, hi = minTime(lo, o.ObservedAt), maxTime(hi, o.ObservedAt)
		}
		f, l := formatTime(lo), formatTime(hi)
		first, last = &f, &l
	}
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO price_runs
			(provider, started_at, finished_at, as_of, status, rows, unknown, error, first_observed, last_observed, published_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			run.Provider, formatTime(run.Started), formatTime(run.Finished), formatTime(run.AsOf),
			string(run.Status), run.Rows, run.Unknown, run.Error, first, last, optionalTime(run.PublishedAt)).Scan(&run.ID)
		if err != nil {
			return err
		}
		if run.Status != pricing.RunOK {
			return nil
		}
		if err := db.lockTable(ctx, tx, "offers"); err != nil {
			return err
		}
		ids, err := offerIDs(ctx, tx, offers)
		if err != nil {
			return err
		}
		return insertObservations(ctx, tx, run.ID, offers, ids)
	})
	if err != nil {
		return pricing.Run{}, db.wrap("save "+run.Provider+" prices", err)
	}
	return run, nil
}

// checkRun refuses what the tables' constraints would, with a message that
// names the problem rather than a constraint.
func checkRun(run pricing.Run, offers []pricing.Offer) error {
	switch {
	case run.Provider == "":
		return errors.New("save prices: run has no provider")
	case run.Status != pricing.RunOK && run.Status != pricing.RunFailed && run.Status != pricing.RunRejected:
		return fmt.Errorf("save %s prices: unknown run status %q", run.Provider, run.Status)
	case run.Status != pricing.RunOK && len(offers) > 0:
		return fmt.Errorf("save %s prices: a %s run has no offers to store", run.Provider, run.Status)
	case run.Started.IsZero() || run.AsOf.IsZero():
		return fmt.Errorf("save %s prices: run has no start or as-of time", run.Provider)
	}
	for _, o := range offers {
		if !(o.USDPerHour > 0) || !(o.USDPerGPUHour > 0) || !(o.GPUCount > 0) || o.GPU == "" || o.ObservedAt.IsZero() {
			return fmt.Errorf("save %s prices: invalid offer %s %s (price %v, GPUs %v)", run.Provider, o.GPU, o.InstanceType, o.USDPerHour, o.GPUCount)
		}
	}
	return nil
}

// offerKey is an offers row's identity: every column but id.
type offerKey struct {
	provider, gpu        string
	count                float64
	region, market, tier string
	instance             string
}

func keyOf(o pricing.Offer) offerKey {
	return offerKey{o.Provider, o.GPU, o.GPUCount, o.Region, string(o.Market), o.Tier, o.InstanceType}
}

// offerIDs returns the offers row id of each offer, in order, inserting
// the offers never seen before. It reads the known offers of the run's
// providers once instead of querying row by row, and numbers new offers
// itself: the write transaction holds the database's only write lock
// (on PostgreSQL, SaveRun's lock on offers), so max(id) cannot move under
// it.
func offerIDs(ctx context.Context, tx *sql.Tx, offers []pricing.Offer) ([]int64, error) {
	known := make(map[offerKey]int64)
	var providers []string
	for _, o := range offers {
		if !slices.Contains(providers, o.Provider) {
			providers = append(providers, o.Provider)
		}
	}
	for _, p := range providers {
		rows, err := tx.QueryContext(ctx, `SELECT id, provider, gpu, gpu_count, region, market, tier, instance_type
			FROM offers WHERE provider = ?`, p)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var k offerKey
			if err := rows.Scan(&id, &k.provider, &k.gpu, &k.count, &k.region, &k.market, &k.tier, &k.instance); err != nil {
				rows.Close()
				return nil, err
			}
			known[k] = id
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	var next int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM offers").Scan(&next); err != nil {
		return nil, err
	}

	ids := make([]int64, len(offers))
	var fresh []int // indexes of offers to insert
	for i, o := range offers {
		id, ok := known[keyOf(o)]
		if !ok {
			// An offer listed twice gets two ids here, and the second
			// insert then fails the UNIQUE constraint, failing the run.
			next++
			id = next
			fresh = append(fresh, i)
		}
		ids[i] = id
	}
	ins := newBatchInserter(tx, `INSERT INTO offers (id, provider, gpu, gpu_count, region, market, tier, instance_type) VALUES `, 8)
	defer ins.close()
	for chunk := range slices.Chunk(fresh, ingestBatch) {
		args := make([]any, 0, 8*len(chunk))
		for _, i := range chunk {
			o := offers[i]
			args = append(args, ids[i], o.Provider, o.GPU, o.GPUCount, o.Region, string(o.Market), o.Tier, o.InstanceType)
		}
		if err := ins.exec(ctx, len(chunk), args); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func insertObservations(ctx context.Context, tx *sql.Tx, runID int64, offers []pricing.Offer, ids []int64) error {
	ins := newBatchInserter(tx, `INSERT INTO observations
		(offer_id, run_id, observed_at, usd_per_hour, usd_per_gpu_hour, samples, source, published_at) VALUES `, 8)
	defer ins.close()
	// A run's offers mostly share one observation time (and publication
	// time): format each once.
	var lastAt, lastPub time.Time
	var lastText, lastPubText string
	for start := 0; start < len(offers); start += ingestBatch {
		chunk := offers[start:min(start+ingestBatch, len(offers))]
		args := make([]any, 0, 8*len(chunk))
		for i, o := range chunk {
			if lastText == "" || !o.ObservedAt.Equal(lastAt) {
				lastAt, lastText = o.ObservedAt, formatTime(o.ObservedAt)
			}
			if o.PublishedAt.IsZero() {
				args = append(args, ids[start+i], runID, lastText, o.USDPerHour, o.USDPerGPUHour, o.Samples, o.Source, nil)
				continue
			}
			if !o.PublishedAt.Equal(lastPub) {
				lastPub, lastPubText = o.PublishedAt, formatTime(o.PublishedAt)
			}
			args = append(args, ids[start+i], runID, lastText, o.USDPerHour, o.USDPerGPUHour, o.Samples, o.Source, lastPubText)
		}
		if err := ins.exec(ctx, len(chunk), args); err != nil {
			return err
		}
	}
	return nil
}

// batchInserter runs multi-row INSERTs of up to ingestBatch rows, keeping
// the full-size statement prepared: compiling a statement of thousands of
// parameters costs more than running it.
type batchInserter struct {
	tx     *sql.Tx
	prefix string
	cols   int
	full   *sql.Stmt
}

func newBatchInserter(tx *sql.Tx, prefix string, cols int) *batchInserter {
	return &batchInserter{tx: tx, prefix: prefix, cols: cols}
}

// exec inserts n rows whose values are args, n*cols of them.
func (b *batchInserter) exec(ctx context.Context, n int, args []any) error {
	if n != ingestBatch {
		_, err := b.tx.ExecContext(ctx, batchInsert(b.prefix, b.cols, n), args...)
		return err
	}
	if b.full == nil {
		st, err := b.tx.PrepareContext(ctx, batchInsert(b.prefix, b.cols, n))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.ExecContext(ctx, args...)
	return err
}

func (b *batchInserter) close() {
	if b.full != nil {
		b.full.Close()
	}
}

// batchInsert appends n groups of cols placeholders to prefix.
func batchInsert(prefix string, cols, n int) string {
	group := "(" + strings.Repeat("?, ", cols-1) + "?)"
	var b strings.Builder
	b.Grow(len(prefix) + n*(len(group)+2))
	b.WriteString(prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(group)
	}
	return b.String()
}

// runColumns are the columns scanRun reads, in its order.
const runColumns = `id, provider, started_at, finished_at, as_of, status, rows, unknown, error, published_at`

func scanRun(s scanner) (pricing.Run, error) {
	var (
		r                       pricing.Run
		started, finished, asOf string
		status                  string
		published               sql.NullString
	)
	if err := s.Scan(&r.ID, &r.Provider, &started, &finished, &asOf, &status, &r.Rows, &r.Unknown, &r.Error, &published); err != nil {
		return pricing.Run{}, err
	}
	r.Status = pricing.RunStatus(status)
	var err error
	if r.PublishedAt, err = parseOptionalTime(published); err != nil {
		return pricing.Run{}, err
	}
	if r.Started, err = parseTime(started); err != nil {
		return pricing.Run{}, err
	}
	if r.Finished, err = parseTime(finished); err != nil {
		return pricing.Run{}, err
	}
	if r.AsOf, err = parseTime(asOf); err != nil {
		return pricing.Run{}, err
	}
	return r, nil
}

// LastGoodRun implements pricing.Sink: the provider's latest ok run by
// as-of time, and false when it has none.
func (db *DB) LastGoodRun(ctx context.Context, provider string) (pricing.Run, bool, error) {
	r, err := scanRun(db.ro.QueryRowContext(ctx, `SELECT `+runColumns+` FROM price_runs
		WHERE provider = ? AND status = 'ok' ORDER BY as_of DESC, id DESC LIMIT 1`, provider))
	if errors.Is(err, sql.ErrNoRows) {
		return pricing.Run{}, false, nil
	}
	if err != nil {
		return pricing.Run{}, false, db.wrap("last good run of "+provider, err)
	}
	return r, true, nil
}

// ProviderHealth is where one provider's prices stand: its latest run of
// any outcome and its latest good run, whose prices are the current ones.
type ProviderHealth struct {
	Provider string
	Last     pricing.Run
	LastGood *pricing.Run // nil when the provider never refreshed successfully
}

// Stale reports whether the provider is behind at now (pricing.SourceBehind).
func (h ProviderHealth) Stale(now time.Time) bool {
	return pricing.SourceBehind(h.Provider, h.Last, h.LastGood, now)
}

// providerHealthQuery selects each provider's latest run (good 0) and
// latest ok run (good 1) with one index seek each per provider
// (price_runs_latest, price_runs_by_provider), walking the distinct
// providers as currentRuns does: flat in the number of runs.
const providerHealthQuery = `WITH RECURSIVE providers (name) AS (
		SELECT min(provider) FROM price_runs
		UNION ALL
		SELECT (SELECT min(provider) FROM price_runs WHERE provider > name) FROM providers WHERE name IS NOT NULL),
	latest (id, good) AS (
		SELECT (SELECT id FROM price_runs WHERE provider = name ORDER BY started_at DESC, id DESC LIMIT 1), 0
		FROM providers WHERE name IS NOT NULL
		UNION ALL
		SELECT (SELECT id FROM price_runs WHERE provider = name AND status = 'ok' ORDER BY as_of DESC, id DESC LIMIT 1), 1
		FROM providers WHERE name IS NOT NULL)
	SELECT ` + runColumns + `, good FROM latest JOIN price_runs USING (id) ORDER BY provider, good`

// ProviderHealth returns, for every provider that ever ran (imports
// included), its latest run and its latest good run, by provider name.
func (db *DB) ProviderHealth(ctx context.Context) ([]ProviderHealth, error) {
	rows, err := db.ro.QueryContext(ctx, providerHealthQuery)
	if err != nil {
		return nil, db.wrap("provider health", err)
	}
	defer rows.Close()
	var out []ProviderHealth
	for rows.Next() {
		var (
			r                       pricing.Run
			started, finished, asOf string
			status                  string
			good                    bool
			published               sql.NullString
		)
		if err := rows.Scan(&r.ID, &r.Provider, &started, &finished, &asOf, &status, &r.Rows, &r.Unknown, &r.Error, &published, &good); err != nil {
			return nil, db.wrap("provider health", err)
		}
		r.Status = pricing.RunStatus(status)
		if r.PublishedAt, err = parseOptionalTime(published); err != nil {
			return nil, db.wrap("provider health", err)
		}
		for _, p := range []struct {
			s string
			t *time.Time
		}{{started, &r.Started}, {finished, &r.Finished}, {asOf, &r.AsOf}} {
			if *p.t, err = parseTime(p.s); err != nil {
				return nil, db.wrap("provider health", err)
			}
		}
		if good {
			out[len(out)-1].LastGood = &r
			continue
		}
		out = append(out, ProviderHealth{Provider: r.Provider, Last: r})
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("provider health", err)
	}
	return out, nil
}

// offerColumns are the columns scanOffer reads, in its order, for a query
// joining observations (b) to offers (o).
const offerColumns = `o.provider, o.instance_type, o.gpu, o.gpu_count, o.market, o.tier, o.region,
	b.usd_per_hour, b.usd_per_gpu_hour, b.source, b.observed_at, b.samples, b.published_at`

// currentRuns selects the id of each provider's latest ok run with one
// index seek per provider (price_runs_by_provider), whatever the number of
// runs: the recursive part walks the distinct providers by seeking past
// each one (a skip scan written out, so the plan does not depend on the
// SQLite version's optimiser), and each provider's latest ok run is the
// last index entry of (provider, 'ok').
const currentRuns = `WITH RECURSIVE providers (name) AS (
		SELECT min(provider) FROM price_runs
		UNION ALL
		SELECT (SELECT min(provider) FROM price_runs WHERE provider > name) FROM providers WHERE name IS NOT NULL)
	SELECT (SELECT id FROM price_runs WHERE provider = name AND status = 'ok' ORDER BY as_of DESC, id DESC LIMIT 1) AS id
	FROM providers WHERE name IS NOT NULL`

// currentObservations selects the current observations, as b: those of
// each provider's latest good run, and of an offer seen by two such runs
// (a provider's own API and a published catalog, or an imported sheet,
// naming the same offer) the fresher one only: by as-of time, the
// source's publication time when earlier than the observation.
const currentObservations = `(SELECT * FROM (
	SELECT b.*, row_number() OVER (PARTITION BY b.offer_id
		ORDER BY CASE WHEN b.published_at < b.observed_at THEN b.published_at ELSE b.observed_at END DESC,
			b.observed_at DESC, b.run_id DESC) AS newest
	FROM observations b WHERE b.run_id IN (` + currentRuns + `)) AS ranked WHERE newest = 1) b`

// CurrentOffers returns every current offer: the observations of each
// provider's latest good run, by GPU, cheapest per GPU-hour first.
func (db *DB) CurrentOffers(ctx context.Context) ([]pricing.Offer, error) {
	offers, err := db.queryOffers(ctx, currentOffersQuery+`
		ORDER BY o.gpu, b.usd_per_gpu_hour, o.provider, o.region, o.instance_type`)
	if err != nil {
		return nil, db.wrap("current offers", err)
	}
	return offers, nil
}

// currentOffersQuery reads the current offers; callers add WHERE and ORDER BY.
const currentOffersQuery = `SELECT ` + offerColumns + ` FROM ` + currentObservations + ` JOIN offers o ON o.id = b.offer_id`

// OffersForGPU returns every current offer for one catalog GPU id,
// cheapest per GPU-hour first.
func (db *DB) OffersForGPU(ctx context.Context, gpu string) ([]pricing.Offer, error) {
	offers, err := db.queryOffers(ctx, currentOffersQuery+` WHERE o.gpu = ?
		ORDER BY b.usd_per_gpu_hour, o.provider, o.region, o.instance_type`, gpu)
	if err != nil {
		return nil, db.wrap("current offers for "+gpu, err)
	}
	return offers, nil
}

// CheapestOffers returns, per GPU, the cheapest current offer of whole
// GPUs on demand and the cheapest spot offer (where there is one), by
// price per GPU-hour, ordered by GPU id then market.
func (db *DB) CheapestOffers(ctx context.Context) ([]pricing.Offer, error) {
	snap, err := db.PriceSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	return snap.CheapestPerGPU(), nil
}

// PriceSnapshot loads every current offer into a pricing.Snapshot: one
// query, then lookups from memory.
func (db *DB) PriceSnapshot(ctx context.Context) (*pricing.Snapshot, error) {
	offers, err := db.CurrentOffers(ctx)
	if err != nil {
		return nil, err
	}
	return pricing.NewSnapshotAt(offers, db.Now()), nil
}

// PriceSource returns what the estimator prices answers with: the
// cheapest current on-demand price of one full GPU-hour from the store,
// and for a GPU the store has no price for, the embedded default sheet's.
// It reads the store once; load a new one per batch of answers.
func (db *DB) PriceSource(ctx context.Context) (sizing.PriceSource, error) {
	snap, err := db.PriceSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	return pricing.Chain{snap, pricing.DefaultSheet()}, nil
}

// ObservationsBetween returns every price observed by a good run in
// [from, to), oldest first: the history the weekly digest compares.
func (db *DB) ObservationsBetween(ctx context.Context, from, to time.Time) ([]pricing.Offer, error) {
	f, t := formatTime(from), formatTime(to)
	offers, err := db.queryOffers(ctx, `SELECT `+offerColumns+` FROM price_runs r
		JOIN observations b ON b.run_id = r.id
		JOIN offers o ON o.id = b.offer_id
		WHERE r.status = 'ok' AND r.last_observed >= ? AND r.first_observed < ?
			AND b.observed_at >= ? AND b.observed_at < ?
		ORDER BY b.observed_at, o.provider, o.gpu, b.offer_id`, f, t, f, t)
	if err != nil {
		return nil, db.wrap("price observations", err)
	}
	return offers, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (db *DB) queryOffers(ctx context.Context, query string, args ...any) ([]pricing.Offer, error) {
	rows, err := db.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var offers []pricing.Offer
	for rows.Next() {
		var (
			o         pricing.Offer
			market    string
			observed  string
			published sql.NullString
		)
		if err := rows.Scan(&o.Provider, &o.InstanceType, &o.GPU, &o.GPUCount, &market, &o.Tier, &o.Region,
			&o.USDPerHour, &o.USDPerGPUHour, &o.Source, &observed, &o.Samples, &published); err != nil {
			return nil, err
		}
		o.Market = pricing.Market(market)
		if o.PublishedAt, err = parseOptionalTime(published); err != nil {
			return nil, err
		}
		if o.ObservedAt, err = parseTime(observed); err != nil {
			return nil, err
		}
		offers = append(offers, o)
	}
	return offers, rows.Err()
}
