-- PostgreSQL twin of ../0009_plan_kinds.sql.
ALTER TABLE plans ADD COLUMN kind TEXT NOT NULL DEFAULT 'fit'
    CHECK (kind IN ('fit', 'largest', 'context', 'which-gpu', 'buy-rent'));
ALTER TABLE plans ADD COLUMN answer TEXT NOT NULL DEFAULT '';
