-- PostgreSQL twin of ../0005_leases.sql.
CREATE TABLE leases (
    name        TEXT NOT NULL PRIMARY KEY CHECK (name <> ''),
    holder      TEXT NOT NULL CHECK (holder <> ''),
    acquired_at TEXT NOT NULL,
    expires_at  TEXT NOT NULL
);
