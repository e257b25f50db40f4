-- Measured runs: what a run of a plan really used, recorded by the team
-- (`fitbot plans measure`, `/fit plan N measured ...`, an nvidia-smi log,
-- a JSON file or Prometheus's DCGM series), kept beside what fitbot said
-- of the plan when the run was recorded, so the error stays what it was
-- even when the estimator changes later.
--
-- A run is read through its plan: only where the plan may be read (see
-- store.Scope). plan_id has no FOREIGN KEY on purpose: migrations rebuild
-- plans (0013) by DROP TABLE, which with foreign keys on would delete
-- every run; the store checks the plan in the same transaction instead.
-- A figure not measured is NULL; a run has at least one.
CREATE TABLE plan_runs (
    id                         INTEGER PRIMARY KEY,
    plan_id                    INTEGER NOT NULL,
    recorded_at                TEXT    NOT NULL,
    recorded_by                TEXT    NOT NULL DEFAULT '', -- the Slack user id; '' on the command line
    via                        TEXT    NOT NULL
        CHECK (via IN ('slack', 'cli', 'nvidia-smi', 'json', 'prometheus')),
    peak_bytes                 INTEGER CHECK (peak_bytes IS NULL OR peak_bytes > 0),
    tokens_per_second          REAL    CHECK (tokens_per_second IS NULL OR tokens_per_second > 0),
    hours                      REAL    CHECK (hours IS NULL OR hours > 0),
    tensor_active              REAL    CHECK (tensor_active IS NULL OR (tensor_active > 0 AND tensor_active <= 1)),
    predicted_peak_bytes       INTEGER NOT NULL CHECK (predicted_peak_bytes >= 0),
    predicted_tokens_per_second REAL   CHECK (predicted_tokens_per_second IS NULL OR predicted_tokens_per_second > 0),
    predicted_hours            REAL    CHECK (predicted_hours IS NULL OR predicted_hours > 0),
    CHECK (peak_bytes IS NOT NULL OR tokens_per_second IS NOT NULL OR hours IS NOT NULL OR tensor_active IS NOT NULL)
) STRICT;

CREATE INDEX plan_runs_by_plan ON plan_runs (plan_id, recorded_at);
