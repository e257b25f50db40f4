-- PostgreSQL twin of ../0011_scope_holds.sql.
ALTER TABLE plans ADD COLUMN channel_kind TEXT NOT NULL DEFAULT 'private'
    CHECK (channel_kind IN ('public', 'private', 'dm', 'cli'));
UPDATE plans SET channel_kind = 'cli' WHERE source = 'cli';
UPDATE plans SET channel_kind = 'dm' WHERE source = 'slack' AND channel LIKE 'D%';

CREATE INDEX plans_by_team_model ON plans (team, model_key, created_at);

CREATE TABLE price_holds (
    provider         TEXT    NOT NULL CHECK (provider <> ''), -- the refresh (fetcher) that held it
    offer_key        TEXT    NOT NULL CHECK (offer_key <> ''), -- the offer's identity (pricing.Hold.Key)
    offer_provider   TEXT    NOT NULL,
    gpu              TEXT    NOT NULL CHECK (gpu <> ''),
    gpu_count        DOUBLE PRECISION NOT NULL CHECK (gpu_count > 0),
    region           TEXT    NOT NULL,
    market           TEXT    NOT NULL,
    tier             TEXT    NOT NULL,
    instance_type    TEXT    NOT NULL,
    usd_per_hour     DOUBLE PRECISION NOT NULL CHECK (usd_per_hour > 0),
    usd_per_gpu_hour DOUBLE PRECISION NOT NULL CHECK (usd_per_gpu_hour > 0),
    median_usd       DOUBLE PRECISION NOT NULL CHECK (median_usd > 0), -- the reference band it fell outside
    low_usd          DOUBLE PRECISION NOT NULL,
    high_usd         DOUBLE PRECISION NOT NULL,
    voices           BIGINT NOT NULL,
    last_run         BIGINT NOT NULL,                -- the price_runs id that last held it
    held_at          TEXT    NOT NULL,               -- first held
    last_held_at     TEXT    NOT NULL,
    PRIMARY KEY (provider, offer_key)
);

CREATE INDEX price_holds_by_time ON price_holds (last_held_at);
