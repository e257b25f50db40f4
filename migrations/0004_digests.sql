-- Weekly price-change digests: one row per channel and week, written
-- before the digest is posted and completed with the message's timestamp
-- after. The primary key is the exactly-once rule: whoever writes the row
-- posts; everyone else sees it and does not. A row without slack_ts is a
-- post in flight (claimed_by names the poster, claimed_at when it took
-- it), a post that failed (claimed_by '' and last_error saying why), or
-- the trace of a poster that died in between; the last two are taken
-- again, the dead poster's once its claim has run out.
--
-- Times are UTC text in the fixed-width form of 0001 (text order is time
-- order).
CREATE TABLE digests (
    channel      TEXT    NOT NULL CHECK (channel <> ''),
    week_start   TEXT    NOT NULL,
    week_end     TEXT    NOT NULL,
    claimed_by   TEXT    NOT NULL,
    claimed_at   TEXT    NOT NULL,
    attempts     INTEGER NOT NULL CHECK (attempts >= 1),
    last_error   TEXT    NOT NULL DEFAULT '',
    posted_at    TEXT,
    slack_ts     TEXT    CHECK (slack_ts IS NULL OR slack_ts <> ''),
    payload_json TEXT    CHECK (payload_json IS NULL OR json_valid(payload_json)),
    PRIMARY KEY (channel, week_start),
    CHECK ((posted_at IS NULL) = (slack_ts IS NULL))
) STRICT, WITHOUT ROWID;
