package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fitbot/fitbot/pricing"
)

// The store keeps the offers the price sanity check held aside
// (pricing/sanity.go) in price_holds (migration 0011): it is a
// pricing.HoldStore.

const holdColumns = `provider, offer_key, gpu, market, instance_type, region, usd_per_gpu_hour, median_usd, reason,
	held_at, last_held_at`

// PriceHolds implements pricing.HoldStore: the offers the provider's
// refreshes hold aside now.
func (db *DB) PriceHolds(ctx context.Context, provider string) ([]pricing.Hold, error) {
	holds, err := db.queryHolds(ctx, `SELECT `+holdColumns+` FROM price_holds WHERE provider = ?
		ORDER BY gpu, usd_per_gpu_hour, offer_key`, provider)
	if err != nil {
		return nil, db.wrap("price holds of "+provider, err)
	}
	return holds, nil
}

// HeldOffers returns every provider's offers held aside now, by GPU,
// cheapest first: `fitbot prices GPU` names them.
func (db *DB) HeldOffers(ctx context.Context) ([]pricing.Hold, error) {
	holds, err := db.queryHolds(ctx, `SELECT `+holdColumns+` FROM price_holds ORDER BY gpu, usd_per_gpu_hour, offer_key`)
	if err != nil {
		return nil, db.wrap("price holds", err)
	}
	return holds, nil
}

// HoldsBetween returns the offers held by a refresh in [from, to), every
// provider's, by GPU: the digest names them in its source health.
func (db *DB) HoldsBetween(ctx context.Context, from, to time.Time) ([]pricing.Hold, error) {
	holds, err := db.queryHolds(ctx, `SELECT `+holdColumns+` FROM price_holds WHERE last_held_at >= ? AND last_held_at < ?
		ORDER BY gpu, usd_per_gpu_hour, offer_key`, formatTime(from), formatTime(to))
	if err != nil {
		return nil, db.wrap("price holds", err)
	}
	return holds, nil
}

// ReplacePriceHolds implements pricing.HoldStore: holds become the
// provider's held offers, as of the run runID, in one transaction. An
// offer held before keeps the run that first held it.
func (db *DB) ReplacePriceHolds(ctx context.Context, provider string, runID int64, holds []pricing.Hold) error {
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		first := map[string]int64{}
		rows, err := tx.QueryContext(ctx, `SELECT offer_key, first_run FROM price_holds WHERE provider = ?`, provider)
		if err != nil {
			return err
		}
		for rows.Next() {
			var key string
			var run int64
			if err := rows.Scan(&key, &run); err != nil {
				rows.Close()
				return err
			}
			first[key] = run
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM price_holds WHERE provider = ?`, provider); err != nil {
			return err
		}
		for _, h := range holds {
			firstRun, ok := first[h.Key()]
			if !ok || h.HeldAt.Equal(h.LastHeldAt) {
				firstRun = runID
			}
			o := h.Offer
			if _, err := tx.ExecContext(ctx, `INSERT INTO price_holds (`+holdColumns+`, first_run, last_run)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				provider, h.Key(), o.GPU, string(o.Market), o.InstanceType, o.Region, o.USDPerGPUHour, h.MedianUSDPerGPUHour, h.Reason(),
				formatTime(h.HeldAt), formatTime(h.LastHeldAt), firstRun, runID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return db.wrap("save the held offers of "+provider, err)
	}
	return nil
}

func (db *DB) queryHolds(ctx context.Context, query string, args ...any) ([]pricing.Hold, error) {
	rows, err := db.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var holds []pricing.Hold
	for rows.Next() {
		var (
			h            pricing.Hold
			market       string
			held, latest string
		)
		o := &h.Offer
		if err := rows.Scan(&h.Refresh, &h.OfferKey, &o.GPU, &market, &o.InstanceType, &o.Region, &o.USDPerGPUHour,
			&h.MedianUSDPerGPUHour, &h.Why, &held, &latest); err != nil {
			return nil, err
		}
		o.Market = pricing.Market(market)
		if h.HeldAt, err = parseTime(held); err != nil {
			return nil, err
		}
		if h.LastHeldAt, err = parseTime(latest); err != nil {
			return nil, err
		}
		o.ObservedAt = h.LastHeldAt
		holds = append(holds, h)
	}
	return holds, rows.Err()
}
