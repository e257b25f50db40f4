-- Prices carry their source's publication time where the source gives one
-- (AWS's hawkFilePublicationDate, a feed's Last-Modified, a catalog's
-- version date), so that a feed that stopped being updated but still
-- answers reads as old as it is, not as fresh as the fetch. NULL when the
-- source gives none. On a run, the oldest of its prices'.
ALTER TABLE price_runs ADD COLUMN published_at TEXT;
ALTER TABLE observations ADD COLUMN published_at TEXT;
