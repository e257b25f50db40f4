-- Plan kinds: besides "does it fit" answers (fit), the answers to the
-- questions that run the other way round are kept too: the largest model
-- that fits (largest), the longest context (context), which GPU
-- (which-gpu) and buy or rent (buy-rent). Plans kept before are fit plans.
--
-- An inverse plan keeps its canonical question (sizing.FormatAsk) in
-- canonical and its answer's one-line summary in answer; its model_key is
-- the model's key when the question names one, else ask:<kind>. Its
-- fits, headroom and per-GPU columns say nothing (0, '', 0): re-answering
-- it re-asks the question. The digest reads fit plans only.
ALTER TABLE plans ADD COLUMN kind TEXT NOT NULL DEFAULT 'fit'
    CHECK (kind IN ('fit', 'largest', 'context', 'which-gpu', 'buy-rent'));
ALTER TABLE plans ADD COLUMN answer TEXT NOT NULL DEFAULT '';
