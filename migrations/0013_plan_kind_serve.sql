-- Serving plans (issue #30): a capacity or planning question ("how many
-- users can 2xh100 serve llama-3.1-70b", "gpus for 200 users ...") is kept
-- as a plan of kind 'serve' and re-asked like the other inverse kinds.
-- SQLite cannot change a column's CHECK, so the table is rebuilt with the
-- same columns, in the same order, and its indexes made again. No table
-- refers to plans. (0013 was the next free number; #29 and #27, assigned
-- 0013 and 0014, had written none yet: the one that lands later renumbers.)
CREATE TABLE plans_new (
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
    price_as_of    TEXT,
    kind           TEXT    NOT NULL DEFAULT 'fit'
        CHECK (kind IN ('fit', 'largest', 'context', 'which-gpu', 'buy-rent', 'serve')),
    answer         TEXT    NOT NULL DEFAULT '',
    channel_kind   TEXT    NOT NULL DEFAULT 'private'
        CHECK (channel_kind IN ('public', 'private', 'dm', 'cli'))
) STRICT;
INSERT INTO plans_new (id, created_at, source, team, channel, user_id, question, canonical, request_json, model_key,
        fits, headroom, gpu, gpus, per_gpu_bytes, usd_per_hour, price_provider, price_as_of, kind, answer, channel_kind)
    SELECT id, created_at, source, team, channel, user_id, question, canonical, request_json, model_key,
        fits, headroom, gpu, gpus, per_gpu_bytes, usd_per_hour, price_provider, price_as_of, kind, answer, channel_kind
    FROM plans;
DROP TABLE plans;
ALTER TABLE plans_new RENAME TO plans;
CREATE INDEX plans_by_model ON plans (model_key, created_at);
CREATE INDEX plans_by_time ON plans (created_at);
CREATE INDEX plans_by_team_model ON plans (team, model_key, created_at);
