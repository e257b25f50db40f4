-- Slack events fitbot has already taken: Slack delivers an event again
-- when it did not see an acknowledgement in time (X-Slack-Retry-Num, or a
-- Socket Mode retry_attempt), with the same event_id. The bot records the
-- id before answering and answers only the first delivery. Ids older than
-- a day are deleted; Slack's last retry comes about five minutes after the
-- first delivery.
--
-- Times are UTC text in the fixed-width form of 0001 (text order is time
-- order).
CREATE TABLE slack_events (
    event_id TEXT NOT NULL PRIMARY KEY CHECK (event_id <> ''),
    seen_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- The cleanup deletes by age.
CREATE INDEX slack_events_by_time ON slack_events (seen_at);
