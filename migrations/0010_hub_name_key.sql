-- A Hub model named without its organisation ("qwen3 14b" for
-- Qwen/Qwen3-14B) is found by an index, not by reading every cached row
-- and its config.json. name_key is hub.NameKey of the part of the repo id
-- after the slash: lower case, without spaces, hyphens or underscores.
-- Repo ids are ASCII (the Hub allows letters, digits, '-', '_' and '.'),
-- so SQL's lower() computes the same key for the rows already cached.
ALTER TABLE hub_models ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE hub_models SET name_key =
    replace(replace(replace(replace(lower(substr(repo, instr(repo, '/') + 1)), ' ', ''), '-', ''), '_', ''), char(9), '');
CREATE INDEX hub_models_by_name ON hub_models (name_key, repo_key);
-- /fit models lists the most recently fetched models, newest first.
CREATE INDEX hub_models_by_fetched ON hub_models (fetched_at);
