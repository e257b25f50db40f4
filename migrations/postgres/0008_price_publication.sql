-- PostgreSQL twin of ../0008_price_publication.sql.
ALTER TABLE price_runs ADD COLUMN published_at TEXT;
ALTER TABLE observations ADD COLUMN published_at TEXT;
