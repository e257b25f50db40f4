-- The threads of fitbot's answers: a message in one is read against the
-- question the thread's latest answer was for ("what about qlora on a
-- 3090?"), and channel messages in no such thread are ignored. One row
-- per thread, replaced by each answer posted in it. Rows older than the
-- retention the bot is given are deleted.
--
-- Times are UTC text in the fixed-width form of 0001.
CREATE TABLE answer_threads (
    team       TEXT NOT NULL,
    channel    TEXT NOT NULL CHECK (channel <> ''),
    thread_ts  TEXT NOT NULL CHECK (thread_ts <> ''),
    canonical  TEXT NOT NULL CHECK (canonical <> ''), -- sizing.Format of the question answered
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, channel, thread_ts)
) STRICT, WITHOUT ROWID;

CREATE INDEX answer_threads_by_time ON answer_threads (updated_at);

-- The team's own machines, by name ("our box: 2x rtx-4090, 128 GB RAM",
-- "the cluster: 4 nodes of 8 h100"): a question about "our box", or one
-- that names no GPU, is sized on them. team is the Slack team id, '' for
-- the command line.
CREATE TABLE team_hardware (
    team           TEXT NOT NULL,
    name           TEXT NOT NULL CHECK (name <> ''),     -- lower case, as said: "our box"
    gpu            TEXT NOT NULL CHECK (gpu <> ''),      -- catalog id
    gpus           INTEGER NOT NULL CHECK (gpus >= 1),   -- in all
    nodes          INTEGER NOT NULL CHECK (nodes >= 1),
    gpu_memory_gib INTEGER NOT NULL DEFAULT 0 CHECK (gpu_memory_gib >= 0), -- a typed size the catalog card lacks; 0 otherwise
    host_ram_bytes INTEGER NOT NULL DEFAULT 0 CHECK (host_ram_bytes >= 0),
    description    TEXT NOT NULL,                         -- the words it was named with
    created_at     TEXT NOT NULL,
    PRIMARY KEY (team, name)
) STRICT, WITHOUT ROWID;
