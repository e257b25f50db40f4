-- PostgreSQL twin of ../0013_plan_kind_serve.sql: plans of kind 'serve'.
-- The column's CHECK from 0009 has PostgreSQL's default name.
ALTER TABLE plans DROP CONSTRAINT plans_kind_check;
ALTER TABLE plans ADD CONSTRAINT plans_kind_check
    CHECK (kind IN ('fit', 'largest', 'context', 'which-gpu', 'buy-rent', 'serve'));
