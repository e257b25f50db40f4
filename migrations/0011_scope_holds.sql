-- Plan scope: a plan is read only where it may be read. Each plan keeps
-- the kind of conversation it was asked in:
--   public  a public channel: readable from any channel of its workspace (team)
--   private a private channel or a group DM: readable in that channel, or by its asker
--   dm      a direct message with fitbot: readable there, or by its asker
--   cli     the command line (team ''): readable from the command line
-- A plan is never readable from another workspace (see store.Scope).
--
-- Plans kept before this migration did not record the kind. A Slack plan
-- from then is taken as private (readable where it was asked and by its
-- asker: nobody loses a plan, nobody gains one), or dm when its channel id
-- is a DM's (D...); a command-line plan is cli.
ALTER TABLE plans ADD COLUMN channel_kind TEXT NOT NULL DEFAULT 'private'
    CHECK (channel_kind IN ('public', 'private', 'dm', 'cli'));
UPDATE plans SET channel_kind = 'cli' WHERE source = 'cli';
UPDATE plans SET channel_kind = 'dm' WHERE source = 'slack' AND channel LIKE 'D%';

-- A workspace's newest plans for one model read straight off the index.
CREATE INDEX plans_by_team_model ON plans (team, model_key, created_at);

-- Price holds: an offer whose price is far from what the GPU costs
-- elsewhere and lately (pricing.Sanity: median and MAD of the GPU's recent
-- observations across providers, in its market) is held aside instead of
-- quoted. One row per offer held, replaced while it stays held; the next
-- refresh that sees the offer again at about the same price lets it in and
-- deletes the row. first_run is the run that first held it, last_run the
-- latest; held_at / last_held_at their times.
CREATE TABLE price_holds (
    provider         TEXT    NOT NULL CHECK (provider <> ''),
    offer_key        TEXT    NOT NULL CHECK (offer_key <> ''), -- pricing.Offer's identity: gpu, count, region, market, tier, instance type
    gpu              TEXT    NOT NULL CHECK (gpu <> ''),
    market           TEXT    NOT NULL,
    instance_type    TEXT    NOT NULL,
    region           TEXT    NOT NULL,
    usd_per_gpu_hour REAL    NOT NULL CHECK (usd_per_gpu_hour > 0),
    median_usd       REAL    NOT NULL CHECK (median_usd > 0), -- the reference it was judged against
    reason           TEXT    NOT NULL,
    first_run        INTEGER NOT NULL,
    last_run         INTEGER NOT NULL,
    held_at          TEXT    NOT NULL,
    last_held_at     TEXT    NOT NULL,
    PRIMARY KEY (provider, offer_key)
) STRICT, WITHOUT ROWID;

CREATE INDEX price_holds_by_time ON price_holds (last_held_at);
