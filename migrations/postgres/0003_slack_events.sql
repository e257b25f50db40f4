-- PostgreSQL twin of ../0003_slack_events.sql.
CREATE TABLE slack_events (
    event_id TEXT NOT NULL PRIMARY KEY CHECK (event_id <> ''),
    seen_at  TEXT NOT NULL
);

CREATE INDEX slack_events_by_time ON slack_events (seen_at);
