-- Plans: every answer fitbot gave, kept so the team can find earlier
-- decisions for a model and re-price them later.
--
-- Times are UTC text in a fixed-width RFC 3339 form with nanoseconds
-- (2026-11-30T01:02:03.000000000Z), so text order is time order.
-- model_key is the catalog model id, or bare:<params> for a bare size
-- (bare:<experts>x<params per expert> for a bare mixture of experts).
CREATE TABLE plans (
    id             INTEGER PRIMARY KEY,
    created_at     TEXT    NOT NULL,
    source         TEXT    NOT NULL CHECK (source IN ('slack', 'cli')),
    team           TEXT    NOT NULL DEFAULT '',
    channel        TEXT    NOT NULL DEFAULT '',
    user_id        TEXT    NOT NULL DEFAULT '',
    question       TEXT    NOT NULL,
    canonical      TEXT    NOT NULL,
    request_json   TEXT    NOT NULL CHECK (json_valid(request_json)),
    model_key      TEXT    NOT NULL CHECK (model_key <> ''),
    fits           INTEGER NOT NULL CHECK (fits IN (0, 1)),
    headroom       TEXT    NOT NULL,
    gpu            TEXT    NOT NULL,
    gpus           INTEGER NOT NULL CHECK (gpus >= 0),
    per_gpu_bytes  INTEGER NOT NULL CHECK (per_gpu_bytes >= 0),
    usd_per_hour   REAL    CHECK (usd_per_hour IS NULL OR usd_per_hour >= 0),
    price_provider TEXT    NOT NULL DEFAULT '',
    price_as_of    TEXT
) STRICT;

-- Newest plans for one model: the rowid (id) is the index's last column,
-- so ORDER BY created_at DESC, id DESC is read straight off the index.
CREATE INDEX plans_by_model ON plans (model_key, created_at);

-- Newest plans across all models (the digest, "recent plans").
CREATE INDEX plans_by_time ON plans (created_at);
