-- Each provider's latest run of any outcome, read with one index seek per
-- provider (store.ProviderHealth), however many runs there are: without
-- it `fitbot prices` sorted every run ever recorded (20,000 runs, 0.8 s).
-- The latest good run uses price_runs_by_provider (0002).
CREATE INDEX price_runs_latest ON price_runs (provider, started_at, id);
