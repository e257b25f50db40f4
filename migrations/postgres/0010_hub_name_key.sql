-- PostgreSQL twin of ../0010_hub_name_key.sql (strpos and chr for
-- SQLite's instr and char).
ALTER TABLE hub_models ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE hub_models SET name_key =
    replace(replace(replace(replace(lower(substr(repo, strpos(repo, '/') + 1)), ' ', ''), '-', ''), '_', ''), chr(9), '');
CREATE INDEX hub_models_by_name ON hub_models (name_key, repo_key);
-- /fit models lists the most recently fetched models, newest first.
CREATE INDEX hub_models_by_fetched ON hub_models (fetched_at);
