-- PostgreSQL twin of ../0004_digests.sql.
CREATE TABLE digests (
    channel      TEXT    NOT NULL CHECK (channel <> ''),
    week_start   TEXT    NOT NULL,
    week_end     TEXT    NOT NULL,
    claimed_by   TEXT    NOT NULL,
    claimed_at   TEXT    NOT NULL,
    attempts     BIGINT  NOT NULL CHECK (attempts >= 1),
    last_error   TEXT    NOT NULL DEFAULT '',
    posted_at    TEXT,
    slack_ts     TEXT    CHECK (slack_ts IS NULL OR slack_ts <> ''),
    payload_json TEXT    CHECK (payload_json IS NULL OR payload_json::json IS NOT NULL),
    PRIMARY KEY (channel, week_start),
    CHECK ((posted_at IS NULL) = (slack_ts IS NULL))
);
