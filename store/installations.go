package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Installation is one Slack workspace (or Enterprise Grid organisation)
// fitbot was installed into through OAuth. The tokens are sealed by the
// caller (package slackoauth) before they reach the store and opened
// after: the store never sees a token in clear.
type Installation struct {
	EnterpriseID string // the Enterprise Grid organisation, "" outside one
	TeamID       string // the workspace, "" for an org-wide install
	// EnterpriseInstall is an org-wide install: it answers every
	// workspace of EnterpriseID that has no install of its own.
	EnterpriseInstall bool
	AppID             string
	BotUserID         string
	Scope             string
	BotToken          []byte    // sealed
	RefreshToken      []byte    // sealed; nil when the app does not rotate tokens
	Expires           time.Time // when BotToken expires; zero when it does not
	DigestChannel     string    // where this workspace's weekly digest goes, "" none
	Installed         time.Time // when it was first installed (UTC)
	Updated           time.Time // when its tokens last changed (UTC)
	// Reinstall is when Slack refused the stored refresh token (spent or
	// revoked): the workspace needs installing again. Zero while the
	// tokens are good; a new install clears it.
	Reinstall time.Time
}

// Key names an installation in messages: E.../T..., or T... alone.
func (in Installation) Key() string { return InstallationKey(in.EnterpriseID, in.TeamID) }

// InstallationKey names the installation of a workspace (teamID) or, with
// teamID "", an organisation's org-wide one.
func InstallationKey(enterpriseID, teamID string) string {
	switch {
	case enterpriseID == "":
		return teamID
	case teamID == "":
		return enterpriseID + "/*"
	}
	return enterpriseID + "/" + teamID
}

// SaveInstallation stores an installation, replacing the row of the same
// enterprise and team (a re-install). The first install's time and the
// digest channel are kept across re-installs unless in sets a channel.
func (db *DB) SaveInstallation(ctx context.Context, in Installation) error {
	switch {
	case in.EnterpriseID == "" && in.TeamID == "":
		return errors.New("save installation: neither an enterprise nor a team")
	case in.BotUserID == "" || len(in.BotToken) == 0:
		return fmt.Errorf("save installation %s: no bot user or bot token", in.Key())
	case (in.RefreshToken == nil) != in.Expires.IsZero():
		return fmt.Errorf("save installation %s: a refresh token and an expiry go together", in.Key())
	}
	now := formatTime(db.now())
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO slack_installations (enterprise_id, team_id, is_enterprise_install,
				app_id, bot_user_id, scope, bot_token, refresh_token, expires_at, digest_channel, installed_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (enterprise_id, team_id) DO UPDATE SET is_enterprise_install = excluded.is_enterprise_install,
				app_id = excluded.app_id, bot_user_id = excluded.bot_user_id, scope = excluded.scope,
				bot_token = excluded.bot_token, refresh_token = excluded.refresh_token, expires_at = excluded.expires_at,
				digest_channel = CASE WHEN excluded.digest_channel <> '' THEN excluded.digest_channel
					ELSE slack_installations.digest_channel END,
				updated_at = excluded.updated_at, reinstall_since = ''`,
			in.EnterpriseID, in.TeamID, in.EnterpriseInstall, in.AppID, in.BotUserID, in.Scope,
			in.BotToken, nullBytes(in.RefreshToken), optionalTime(in.Expires), in.DigestChannel, now, now)
		return err
	})
	if err != nil {
		return db.wrap("save installation "+in.Key(), err)
	}
	return nil
}

// FindInstallation returns the installation that answers teamID of
// enterpriseID: the workspace's own, else its organisation's org-wide
// one. It wraps ErrNotFound when there is neither.
func (db *DB) FindInstallation(ctx context.Context, enterpriseID, teamID string) (Installation, error) {
	in, err := scanInstallation(db.ro.QueryRowContext(ctx, `SELECT `+installationColumns+` FROM slack_installations
		WHERE (enterprise_id = ? AND team_id = ?) OR (? <> '' AND enterprise_id = ? AND team_id = '')
		ORDER BY team_id DESC LIMIT 1`, enterpriseID, teamID, enterpriseID, enterpriseID))
	if errors.Is(err, sql.ErrNoRows) {
		return Installation{}, fmt.Errorf("slack installation %s: %w", InstallationKey(enterpriseID, teamID), ErrNotFound)
	}
	if err != nil {
		return Installation{}, db.wrap("slack installation "+InstallationKey(enterpriseID, teamID), err)
	}
	return in, nil
}

// Installations returns every installation, by enterprise then team.
func (db *DB) Installations(ctx context.Context) ([]Installation, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT `+installationColumns+` FROM slack_installations ORDER BY enterprise_id, team_id`)
	if err != nil {
		return nil, db.wrap("slack installations", err)
	}
	defer rows.Close()
	var out []Installation
	for rows.Next() {
		in, err := scanInstallation(rows)
		if err != nil {
			return nil, db.wrap("slack installations", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("slack installations", err)
	}
	return out, nil
}

// RotateInstallationTokens replaces an installation's tokens after a
// refresh, only while its refresh token is still oldRefresh: Slack's
// refresh tokens are single-use, so a second refresher that lost the
// race finds 0 rows changed and reports false instead of overwriting the
// winner's tokens with tokens Slack has already replaced.
func (db *DB) RotateInstallationTokens(ctx context.Context, enterpriseID, teamID string, oldRefresh, bot, refresh []byte, expires time.Time) (bool, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE slack_installations SET bot_token = ?, refresh_token = ?, expires_at = ?, updated_at = ?
			WHERE enterprise_id = ? AND team_id = ? AND refresh_token = ?`,
			bot, refresh, formatTime(expires), formatTime(db.now()), enterpriseID, teamID, oldRefresh)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, db.wrap("rotate tokens of "+InstallationKey(enterpriseID, teamID), err)
	}
	return n == 1, nil
}

// MarkReinstall records that Slack refused an installation's refresh
// token, only while spentRefresh is still the stored one (a refresh
// another replica stored since is good news, not a dead workspace), and
// reports whether it marked it. The first mark's time is kept.
func (db *DB) MarkReinstall(ctx context.Context, enterpriseID, teamID string, spentRefresh []byte) (bool, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE slack_installations
			SET reinstall_since = CASE WHEN reinstall_since = '' THEN ? ELSE reinstall_since END
			WHERE enterprise_id = ? AND team_id = ? AND refresh_token = ?`,
			formatTime(db.now()), enterpriseID, teamID, spentRefresh)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, db.wrap("mark "+InstallationKey(enterpriseID, teamID)+" for reinstall", err)
	}
	return n == 1, nil
}

// SetDigestChannel sets where an installation's weekly digest goes.
func (db *DB) SetDigestChannel(ctx context.Context, enterpriseID, teamID, channel string) error {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE slack_installations SET digest_channel = ? WHERE enterprise_id = ? AND team_id = ?`,
			channel, enterpriseID, teamID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return db.wrap("digest channel of "+InstallationKey(enterpriseID, teamID), err)
	}
	if n == 0 {
		return fmt.Errorf("slack installation %s: %w", InstallationKey(enterpriseID, teamID), ErrNotFound)
	}
	return nil
}

// DeleteInstallation forgets an installation and its tokens (the app was
// uninstalled, or its tokens revoked) and reports whether there was one.
func (db *DB) DeleteInstallation(ctx context.Context, enterpriseID, teamID string) (bool, error) {
	var n int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM slack_installations WHERE enterprise_id = ? AND team_id = ?`, enterpriseID, teamID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, db.wrap("delete installation "+InstallationKey(enterpriseID, teamID), err)
	}
	return n > 0, nil
}

const installationColumns = `enterprise_id, team_id, is_enterprise_install, app_id, bot_user_id, scope,
	bot_token, refresh_token, expires_at, digest_channel, installed_at, updated_at, reinstall_since`

func scanInstallation(s scanner) (Installation, error) {
	var (
		in                 Installation
		expires            sql.NullString
		installed, updated string
		reinstall          string
	)
	err := s.Scan(&in.EnterpriseID, &in.TeamID, &in.EnterpriseInstall, &in.AppID, &in.BotUserID, &in.Scope,
		&in.BotToken, &in.RefreshToken, &expires, &in.DigestChannel, &installed, &updated, &reinstall)
	if err != nil {
		return Installation{}, err
	}
	if in.Expires, err = parseOptionalTime(expires); err != nil {
		return Installation{}, err
	}
	if in.Installed, err = parseTime(installed); err != nil {
		return Installation{}, err
	}
	if in.Updated, err = parseTime(updated); err != nil {
		return Installation{}, err
	}
	if reinstall != "" {
		if in.Reinstall, err = parseTime(reinstall); err != nil {
			return Installation{}, err
		}
	}
	return in, nil
}

// nullBytes is b, or NULL when b is nil.
func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}
