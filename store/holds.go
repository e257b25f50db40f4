package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/fitbot/fitbot/pricing"
)

// The store keeps the offers the price sanity check held aside
// (pricing/sanity.go): it is a pricing.HoldStore.

const holdColumns = `offer_provider, gpu, gpu_count, region, market, tier, instance_type, usd_per_hour,
	usd_per_gpu_hour, median_usd, low_usd, high_usd, voices, held_at, last_held_at`

// PriceHolds implements pricing.HoldStore: the offers the provider's
// refreshes hold aside now.
func (db *DB) PriceHolds(ctx context.Context, provider string) ([]pricing.Hold, error) {
	holds, err := db.queryHolds(ctx, `SELECT provider, `+holdColumns+` FROM price_holds WHERE provider = ?
		ORDER BY gpu, usd_per_gpu_hour, offer_key`, provider)
	if err != nil {
		return nil, db.wrap("price holds of "+provider, err)
	}
	return holds, nil
}

// HoldsBetween returns the offers held by a refresh in [from, to), every
// provider's, by GPU: the digest names them in its source health.
func (db *DB) HoldsBetween(ctx context.Context, from, to time.Time) ([]pricing.Hold, error) {
	holds, err := db.queryHolds(ctx, `SELECT provider, `+holdColumns+` FROM price_holds WHERE last_held_at >= ? AND last_held_at < ?
		ORDER BY gpu, usd_per_gpu_hour, offer_key`, formatTime(from), formatTime(to))
	if err != nil {
		return nil, db.wrap("price holds", err)
	}
	return holds, nil
}

// ReplacePriceHolds implements pricing.HoldStore: holds become the
// provider's held offers, as of the run runID, in one transaction.
func (db *DB) ReplacePriceHolds(ctx context.Context, provider string, runID int64, holds []pricing.Hold) error {
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM price_holds WHERE provider = ?`, provider); err != nil {
			return err
		}
		for _, h := range holds {
			o := h.Offer
			if _, err := tx.ExecContext(ctx, `INSERT INTO price_holds (provider, offer_key, `+holdColumns+`, last_run)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				provider, h.Key(), o.Provider, o.GPU, o.GPUCount, o.Region, string(o.Market), o.Tier, o.InstanceType, o.USDPerHour,
				o.USDPerGPUHour, h.MedianUSDPerGPUHour, h.LowUSD, h.HighUSD, h.Voices, formatTime(h.HeldAt), formatTime(h.LastHeldAt), runID); err != nil {
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
		if err := rows.Scan(&h.Refresh, &o.Provider, &o.GPU, &o.GPUCount, &o.Region, &market, &o.Tier, &o.InstanceType, &o.USDPerHour,
			&o.USDPerGPUHour, &h.MedianUSDPerGPUHour, &h.LowUSD, &h.HighUSD, &h.Voices, &held, &latest); err != nil {
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
