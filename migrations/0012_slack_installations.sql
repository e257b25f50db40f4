-- Slack installations: one row per workspace fitbot was installed into
-- through OAuth (GET /slack/install), keyed as Bolt's installation store
-- is: by Enterprise Grid organisation and workspace. An org-wide install
-- of an Enterprise Grid organisation has team_id '' and answers every
-- workspace of the organisation that has no install of its own; a
-- workspace outside any organisation has enterprise_id ''.
--
-- The tokens are sealed with AES-256-GCM under FITBOT_TOKEN_KEY (nonce
-- first, then ciphertext and tag; the row's key is the additional data,
-- so a sealed token copied to another row does not open): the database
-- never holds a token in clear. refresh_token and expires_at are NULL
-- when the app does not rotate tokens; with rotation the bot token lasts
-- 12 hours and the single-use refresh token is swapped with it.
-- digest_channel is where this workspace's weekly digest goes ('' none).
--
-- Times are UTC text in the fixed-width form of 0001 (text order is time
-- order).
CREATE TABLE slack_installations (
    enterprise_id  TEXT    NOT NULL,
    team_id        TEXT    NOT NULL,
    is_enterprise_install INTEGER NOT NULL CHECK (is_enterprise_install IN (0, 1)),
    app_id         TEXT    NOT NULL,
    bot_user_id    TEXT    NOT NULL CHECK (bot_user_id <> ''),
    scope          TEXT    NOT NULL,
    bot_token      BLOB    NOT NULL,
    refresh_token  BLOB,
    expires_at     TEXT,
    digest_channel TEXT    NOT NULL DEFAULT '',
    installed_at   TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL,
    PRIMARY KEY (enterprise_id, team_id),
    CHECK (enterprise_id <> '' OR team_id <> ''),
    CHECK ((refresh_token IS NULL) = (expires_at IS NULL))
) STRICT, WITHOUT ROWID;

-- A fencing token on leases: it grows by one each time the lease changes
-- hands (not on a renewal), so a holder can tell that the term it started
-- work under is still the current one, and a log line can say which term
-- did what.
ALTER TABLE leases ADD COLUMN term INTEGER NOT NULL DEFAULT 0 CHECK (term >= 0);
