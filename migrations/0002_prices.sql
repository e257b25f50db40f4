-- Prices: every refresh of every provider (and every imported price sheet)
-- as a run, the offers ever seen, and the price each run observed for each
-- offer. Observations are only ever appended, so the history of any offer
-- can be read back; a provider's current prices are the observations of
-- its latest ok run (by as_of), so a failed or rejected run leaves the
-- previous good prices in force.
--
-- Times are UTC text in the fixed-width form of 0001 (text order is time
-- order). Prices are US dollars per hour, positive.

-- One refresh of one provider, or one imported sheet (provider
-- import:<file>). rows is what the fetch returned; only an ok run has
-- observations, all observed within [first_observed, last_observed], which
-- lets a time-range read find its runs first and their observations by key.
CREATE TABLE price_runs (
    id          INTEGER PRIMARY KEY,
    provider    TEXT    NOT NULL CHECK (provider <> ''),
    started_at  TEXT    NOT NULL,
    finished_at TEXT    NOT NULL,
    as_of       TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('ok', 'failed', 'rejected')),
    rows        INTEGER NOT NULL CHECK (rows >= 0),
    unknown     INTEGER NOT NULL CHECK (unknown >= 0),
    error       TEXT    NOT NULL DEFAULT '',
    first_observed TEXT,
    last_observed  TEXT
) STRICT;

-- The latest (good) run per provider; the runs observed in a time range.
CREATE INDEX price_runs_by_provider ON price_runs (provider, status, as_of);
CREATE INDEX price_runs_by_time ON price_runs (status, last_observed);

-- One way of renting GPUs, as a provider lists it. An offer is the same
-- offer from run to run when every column but id is equal.
CREATE TABLE offers (
    id            INTEGER PRIMARY KEY,
    provider      TEXT NOT NULL CHECK (provider <> ''),
    gpu           TEXT NOT NULL CHECK (gpu <> ''),
    gpu_count     REAL NOT NULL CHECK (gpu_count > 0),
    region        TEXT NOT NULL,
    market        TEXT NOT NULL CHECK (market IN ('on_demand', 'spot', 'reserved')),
    tier          TEXT NOT NULL,
    instance_type TEXT NOT NULL,
    UNIQUE (provider, instance_type, region, market, tier, gpu, gpu_count)
) STRICT;

-- What one run saw one offer cost. Append-only.
CREATE TABLE observations (
    offer_id         INTEGER NOT NULL REFERENCES offers (id),
    run_id           INTEGER NOT NULL REFERENCES price_runs (id),
    observed_at      TEXT    NOT NULL,
    usd_per_hour     REAL    NOT NULL CHECK (usd_per_hour > 0),
    usd_per_gpu_hour REAL    NOT NULL CHECK (usd_per_gpu_hour > 0),
    samples          INTEGER NOT NULL CHECK (samples >= 0),
    source           TEXT    NOT NULL,
    PRIMARY KEY (run_id, offer_id)
) STRICT, WITHOUT ROWID;

-- One offer's history.
CREATE INDEX observations_by_offer ON observations (offer_id, observed_at);
