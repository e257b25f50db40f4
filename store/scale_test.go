package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// scaleProviders and scaleOffersPerRun shape the data-scale benchmark's
// price history: every refresh of every provider observes the same
// scaleOffersPerRun offers, so n observations are n/scaleOffersPerRun runs.
const (
	scaleProviders    = 20
	scaleOffersPerRun = 50
)

// BenchmarkPricesAtScale reads the current prices (every offer, and one
// GPU's) from price histories of 10k, 100k and 1M observations. The
// current prices are always the same 1,000 offers, so a read that stays
// flat from 10k to 1M touches only the latest run of each provider.
func BenchmarkPricesAtScale(b *testing.B) {
	ctx := context.Background()
	atScale(b, "observations", fillPrices, func(db *DB, n int) {
		b.Run(fmt.Sprintf("CurrentOffers/%d", n), func(b *testing.B) {
			for b.Loop() {
				offers, err := db.CurrentOffers(ctx)
				if err != nil || len(offers) != scaleProviders*scaleOffersPerRun {
					b.Fatalf("CurrentOffers = %d offers, %v", len(offers), err)
				}
			}
		})
		b.Run(fmt.Sprintf("OffersForGPU/%d", n), func(b *testing.B) {
			for b.Loop() {
				offers, err := db.OffersForGPU(ctx, "h100")
				if err != nil || len(offers) == 0 {
					b.Fatalf("OffersForGPU = %d offers, %v", len(offers), err)
				}
			}
		})
	})
}

// atScale builds a database of 10k, 100k and 1M rows with fill (10k only
// under -short) and runs the lookups of bench on each.
func atScale(b *testing.B, rows string, fill func(context.Context, *DB, int) error, bench func(db *DB, n int)) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
		start := time.Now()
		if err := fill(context.Background(), db, n); err != nil {
			b.Fatal(err)
		}
		b.Logf("built %d %s in %v", n, rows, time.Since(start).Round(time.Millisecond))
		bench(db, n)
	}
}

// fillPrices writes n observations as runs of scaleOffersPerRun offers,
// the providers taking turns one refresh an hour, in one transaction.
func fillPrices(ctx context.Context, db *DB, n int) error {
	runs := n / scaleOffersPerRun
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			INSERT INTO offers (id, provider, gpu, gpu_count, region, market, tier, instance_type)
			SELECT i + 1, 'provider-' || (i / %d), CASE i %% 4 WHEN 0 THEN 'h100' WHEN 1 THEN 'a100-80' WHEN 2 THEN 'l40s' ELSE 'rtx-4090' END,
				1, 'region-' || (i %% 7), 'on_demand', '', 'instance-' || i FROM n`,
				scaleProviders*scaleOffersPerRun-1, scaleOffersPerRun),
			fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			INSERT INTO price_runs (id, provider, started_at, finished_at, as_of, status, rows, unknown, first_observed, last_observed)
			SELECT i + 1, 'provider-' || (i %% %d), t, t, t, CASE WHEN i %% 7 = 6 THEN 'failed' ELSE 'ok' END, %d, 0, t, t
			FROM (SELECT i, strftime('%%Y-%%m-%%dT%%H:%%M:%%S.000000000Z', %d + i * 3600, 'unixepoch') AS t FROM n)`,
				runs-1, scaleProviders, scaleOffersPerRun, epoch),
			fmt.Sprintf(`INSERT INTO observations (offer_id, run_id, observed_at, usd_per_hour, usd_per_gpu_hour, samples, source)
			SELECT (r.id - 1) %% %d * %d + k.i + 1, r.id, r.as_of, 1 + (r.id + k.i) %% 300 / 100.0, 1 + (r.id + k.i) %% 300 / 100.0, 1, 'bench'
			FROM price_runs r, (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d) SELECT i FROM n) k
			WHERE r.status = 'ok'`,
				scaleProviders, scaleOffersPerRun, scaleOffersPerRun-1),
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkHubLookupsAtScale finds a cached Hub model by its name
// without the organisation, and lists the most recent ones for /fit
// models, among 10k, 100k and 1M cached models (each with a 4 KB
// config.json, which neither read touches but for the rows it returns).
func BenchmarkHubLookupsAtScale(b *testing.B) {
	ctx := context.Background()
	atScale(b, "cached models", fillHubModels, func(db *DB, n int) {
		b.Run(fmt.Sprintf("Named/%d", n), func(b *testing.B) {
			for b.Loop() {
				entries, err := db.HubModelsNamed(ctx, "model123b")
				if err != nil || len(entries) != 1 {
					b.Fatalf("HubModelsNamed = %d entries, %v", len(entries), err)
				}
			}
		})
		b.Run(fmt.Sprintf("Recent/%d", n), func(b *testing.B) {
			for b.Loop() {
				entries, err := db.RecentHubModels(ctx, 41)
				if err != nil || len(entries) != 41 {
					b.Fatalf("RecentHubModels = %d entries, %v", len(entries), err)
				}
			}
		})
	})
}

// fillHubModels caches n models org-i/model-i-b, one fetched a minute.
func fillHubModels(ctx context.Context, db *DB, n int) error {
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			INSERT INTO hub_models (repo_key, repo, revision, fetched_at, config, params_json, params_total, name_key)
			SELECT 'org-' || i || '/model-' || i || '-b', 'org-' || i || '/model-' || i || '-b', 'rev',
				strftime('%%Y-%%m-%%dT%%H:%%M:%%S.000000000Z', %d + i * 60, 'unixepoch'), zeroblob(4096), '{}', 0, 'model' || i || 'b'
			FROM n`, n-1, epoch))
		return err
	})
}
