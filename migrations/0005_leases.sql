-- Leases: one named lease per row, held by one running fitbot at a time
-- until expires_at. The scheduler's lease ("scheduler") makes one instance
-- the leader that runs the price refresh and the digest when several
-- instances share this database.
--
-- A lease is taken or renewed by one statement that succeeds only when
-- the row is free (expired or released) or already held by the caller;
-- releasing sets expires_at to the release time. Times are UTC text in the
-- fixed-width form of 0001, so text order is time order.
CREATE TABLE leases (
    name        TEXT NOT NULL PRIMARY KEY CHECK (name <> ''),
    holder      TEXT NOT NULL CHECK (holder <> ''),
    acquired_at TEXT NOT NULL,
    expires_at  TEXT NOT NULL
) STRICT;
