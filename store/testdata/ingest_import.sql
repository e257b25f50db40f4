-- The sqlite3 command-line baseline for BenchmarkIngest: the same 100,000
-- offers loaded with .import into the same schema (migrations 0001 and
-- 0002, and 0008 for the publication columns, the store's pragmas), in one transaction. From the repository
-- root, write BenchmarkIngest's rows as CSV, then time the load:
--   awk 'BEGIN{print "provider,gpu,gpu_count,region,pricing,usd_per_hour,instance_type";
--     split("h100 a100-80 l40s rtx-4090 l4",g," "); for(i=0;i<100000;i++)
--     printf "bench,%s,1,region-%d,on_demand,%g,instance-%06d\n", g[i%5+1], i%50, 1+(i%1000)/100, i}' > /tmp/bench100k.csv
--   rm -f /tmp/import.db*; time sqlite3 /tmp/import.db < store/testdata/ingest_import.sql
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = ON;
.read migrations/0001_plans.sql
.read migrations/0002_prices.sql
.read migrations/0008_price_publication.sql
.timer on
BEGIN IMMEDIATE;
CREATE TEMP TABLE sheet (provider TEXT, gpu TEXT, gpu_count REAL, region TEXT, pricing TEXT, usd_per_hour REAL, instance_type TEXT);
.import --csv --skip 1 /tmp/bench100k.csv sheet
INSERT INTO price_runs (provider, started_at, finished_at, as_of, status, rows, unknown, first_observed, last_observed)
    VALUES ('bench', '2026-11-30T00:00:00.000000000Z', '2026-11-30T00:00:01.000000000Z', '2026-11-30T00:00:00.000000000Z', 'ok', 100000, 0,
            '2026-11-30T00:00:00.000000000Z', '2026-11-30T00:00:00.000000000Z');
INSERT INTO offers (id, provider, gpu, gpu_count, region, market, tier, instance_type)
    SELECT rowid, provider, gpu, gpu_count, region, pricing, '', instance_type FROM sheet;
INSERT INTO observations (offer_id, run_id, observed_at, usd_per_hour, usd_per_gpu_hour, samples, source)
    SELECT rowid, 1, '2026-11-30T00:00:00.000000000Z', usd_per_hour, usd_per_hour / gpu_count, 1, 'test' FROM sheet;
COMMIT;
