-- PostgreSQL twin of ../0007_threads_hardware.sql.
CREATE TABLE answer_threads (
    team       TEXT NOT NULL,
    channel    TEXT NOT NULL CHECK (channel <> ''),
    thread_ts  TEXT NOT NULL CHECK (thread_ts <> ''),
    canonical  TEXT NOT NULL CHECK (canonical <> ''),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, channel, thread_ts)
);

CREATE INDEX answer_threads_by_time ON answer_threads (updated_at);

CREATE TABLE team_hardware (
    team           TEXT NOT NULL,
    name           TEXT NOT NULL CHECK (name <> ''),
    gpu            TEXT NOT NULL CHECK (gpu <> ''),
    gpus           BIGINT NOT NULL CHECK (gpus >= 1),
    nodes          BIGINT NOT NULL CHECK (nodes >= 1),
    gpu_memory_gib BIGINT NOT NULL DEFAULT 0 CHECK (gpu_memory_gib >= 0),
    host_ram_bytes BIGINT NOT NULL DEFAULT 0 CHECK (host_ram_bytes >= 0),
    description    TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (team, name)
);
