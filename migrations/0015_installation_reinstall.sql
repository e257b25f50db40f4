-- A workspace whose stored refresh token Slack no longer takes
-- (invalid_refresh_token: spent by a refresh whose answer was lost, or
-- revoked) cannot get a new bot token until someone installs fitbot there
-- again. reinstall_since says since when (UTC text, the form of 0001), ''
-- while the tokens are good; a new install (SaveInstallation) clears it.
-- `fitbot workspaces` and /readyz read it.
ALTER TABLE slack_installations ADD COLUMN reinstall_since TEXT NOT NULL DEFAULT '';
