-- PostgreSQL twin of ../0011_slack_installations.sql.
CREATE TABLE slack_installations (
    enterprise_id  TEXT    NOT NULL,
    team_id        TEXT    NOT NULL,
    is_enterprise_install BOOLEAN NOT NULL,
    app_id         TEXT    NOT NULL,
    bot_user_id    TEXT    NOT NULL CHECK (bot_user_id <> ''),
    scope          TEXT    NOT NULL,
    bot_token      BYTEA   NOT NULL,
    refresh_token  BYTEA,
    expires_at     TEXT,
    digest_channel TEXT    NOT NULL DEFAULT '',
    installed_at   TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL,
    PRIMARY KEY (enterprise_id, team_id),
    CHECK (enterprise_id <> '' OR team_id <> ''),
    CHECK ((refresh_token IS NULL) = (expires_at IS NULL))
);

ALTER TABLE leases ADD COLUMN term BIGINT NOT NULL DEFAULT 0 CHECK (term >= 0);
