-- Hugging Face Hub models fitbot has resolved: what the Hub said about
-- each repo (not the model fitbot built from it, so that a better
-- config.json reader applies to rows written before it). One row per repo;
-- repo_key is the repo id in lower case, since the Hub's ids are
-- case-insensitive. params_json is the safetensors count by dtype
-- ({"BF16": 14768307200}); config is config.json as served, NULL when the
-- repo has none; etag is config.json's, for a conditional fetch.
--
-- Times are UTC text in the fixed-width form of 0001 (text order is time
-- order).
CREATE TABLE hub_models (
    repo_key     TEXT    NOT NULL PRIMARY KEY CHECK (repo_key <> '' AND repo_key = lower(repo_key)),
    repo         TEXT    NOT NULL CHECK (lower(repo) = repo_key),
    revision     TEXT    NOT NULL CHECK (revision <> ''),
    fetched_at   TEXT    NOT NULL,
    gated        TEXT    NOT NULL DEFAULT '' CHECK (gated IN ('', 'auto', 'manual')),
    config       BLOB,
    params_json  TEXT    NOT NULL CHECK (json_valid(params_json)),
    params_total INTEGER NOT NULL CHECK (params_total >= 0),
    etag         TEXT    NOT NULL DEFAULT ''
) STRICT, WITHOUT ROWID;
