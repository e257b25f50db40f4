-- PostgreSQL twin of ../0006_hub_models.sql.
CREATE TABLE hub_models (
    repo_key     TEXT    NOT NULL PRIMARY KEY CHECK (repo_key <> '' AND repo_key = lower(repo_key)),
    repo         TEXT    NOT NULL CHECK (lower(repo) = repo_key),
    revision     TEXT    NOT NULL CHECK (revision <> ''),
    fetched_at   TEXT    NOT NULL,
    gated        TEXT    NOT NULL DEFAULT '' CHECK (gated IN ('', 'auto', 'manual')),
    config       BYTEA,
    params_json  TEXT    NOT NULL CHECK (params_json::json IS NOT NULL),
    params_total BIGINT  NOT NULL CHECK (params_total >= 0),
    etag         TEXT    NOT NULL DEFAULT ''
);
