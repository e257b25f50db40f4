-- PostgreSQL twin of ../0016_price_runs_latest.sql.
CREATE INDEX price_runs_latest ON price_runs (provider, started_at, id);
