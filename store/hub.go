package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/sizing"
)

// HubModel returns the cached Hub model repo (any case) and whether there
// is one.
func (db *DB) HubModel(ctx context.Context, repo string) (hub.Entry, bool, error) {
	row := db.ro.QueryRowContext(ctx, `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag
		FROM hub_models WHERE repo_key = ?`, strings.ToLower(repo))
	e, err := scanHubModel(row)
	if errors.Is(err, sql.ErrNoRows) {
		return hub.Entry{}, false, nil
	}
	if err != nil {
		return hub.Entry{}, false, db.wrap("read hub model "+repo, err)
	}
	return e, true, nil
}

// PutHubModel caches a Hub model, replacing the row for its repo.
func (db *DB) PutHubModel(ctx context.Context, e hub.Entry) error {
	if _, ok := sizing.HubRepoID(e.Repo); !ok {
		return fmt.Errorf("cache hub model: %q is not a Hub repo id", e.Repo)
	}
	params, err := json.Marshal(e.Weights.ByDType)
	if err != nil {
		return fmt.Errorf("cache hub model %s: %w", e.Repo, err)
	}
	if e.Weights.ByDType == nil {
		params = []byte("{}")
	}
	var config any // NULL when the repo has no config.json
	if len(e.Config) > 0 {
		config = e.Config
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO hub_models
			(repo_key, repo, revision, fetched_at, gated, config, params_json, params_total, etag, name_key)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
			ON CONFLICT (repo_key) DO UPDATE SET repo = excluded.repo, revision = excluded.revision,
				fetched_at = excluded.fetched_at, gated = excluded.gated, config = excluded.config,
				params_json = excluded.params_json, params_total = excluded.params_total, etag = excluded.etag,
				name_key = excluded.name_key`,
			strings.ToLower(e.Repo), e.Repo, e.Revision, formatTime(e.FetchedAt), e.Gated, config, string(params), e.Weights.Total, e.ETag,
			repoNameKey(e.Repo))
		return err
	})
	if err != nil {
		return db.wrap("cache hub model "+e.Repo, err)
	}
	return nil
}

// HubModels returns every cached Hub model, by repo id.
func (db *DB) HubModels(ctx context.Context) ([]hub.Entry, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag
		FROM hub_models ORDER BY repo_key`)
	if err != nil {
		return nil, db.wrap("list hub models", err)
	}
	defer rows.Close()
	var out []hub.Entry
	for rows.Next() {
		e, err := scanHubModel(rows)
		if err != nil {
			return nil, db.wrap("list hub models", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("list hub models", err)
	}
	return out, nil
}

// HubModelsMatching returns the cached Hub models whose repo id, lower
// case and without spaces, hyphens and underscores, contains key (every
// one when key is ""), by repo id, and how many match in all. With recent
// above 0 only the recent most recently fetched of them are returned
// (read off hub_models_by_fetched when key is ""), so that listing stays
// as fast with 5,000 cached models as with 50; the configs of the others
// are never read.
func (db *DB) HubModelsMatching(ctx context.Context, key string, recent int) ([]hub.Entry, int, error) {
	where := ""
	var args []any
	if key != "" {
		where = ` WHERE replace(replace(replace(lower(repo), ' ', ''), '-', ''), '_', '') LIKE ? ESCAPE '!'`
		args = append(args, "%"+strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(key)+"%")
	}
	var total int
	if err := db.ro.QueryRowContext(ctx, `SELECT count(*) FROM hub_models`+where, args...).Scan(&total); err != nil {
		return nil, 0, db.wrap("count hub models", err)
	}
	query := `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag FROM hub_models` + where + ` ORDER BY repo_key`
	if recent > 0 {
		query = `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag FROM (SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag, repo_key FROM hub_models` + where +
			` ORDER BY fetched_at DESC LIMIT ` + strconv.Itoa(recent) + `) AS recent ORDER BY repo_key`
	}
	rows, err := db.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, db.wrap("list hub models", err)
	}
	defer rows.Close()
	var out []hub.Entry
	for rows.Next() {
		e, err := scanHubModel(rows)
		if err != nil {
			return nil, 0, db.wrap("list hub models", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.wrap("list hub models", err)
	}
	return out, total, nil
}

// RecentHubModels returns the limit most recently fetched Hub models,
// newest first: one index walk (hub_models_by_fetched), however many
// models are cached.
func (db *DB) RecentHubModels(ctx context.Context, limit int) ([]hub.Entry, error) {
	rows, err := db.ro.QueryContext(ctx, `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag
		FROM hub_models ORDER BY fetched_at DESC LIMIT ?`, limit)
	if err != nil {
		return nil, db.wrap("list recent hub models", err)
	}
	defer rows.Close()
	var out []hub.Entry
	for rows.Next() {
		e, err := scanHubModel(rows)
		if err != nil {
			return nil, db.wrap("list recent hub models", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("list recent hub models", err)
	}
	return out, nil
}

// HubModelsNamed returns the cached Hub models whose name without the
// organisation has the hub.NameKey key, by repo id: one index lookup
// (hub_models_by_name), however many models are cached.
func (db *DB) HubModelsNamed(ctx context.Context, key string) ([]hub.Entry, error) {
	if key == "" {
		return nil, nil
	}
	rows, err := db.ro.QueryContext(ctx, `SELECT repo, revision, fetched_at, gated, config, params_json, params_total, etag
		FROM hub_models WHERE name_key = ? ORDER BY repo_key`, key)
	if err != nil {
		return nil, db.wrap("find hub models named "+key, err)
	}
	defer rows.Close()
	var out []hub.Entry
	for rows.Next() {
		e, err := scanHubModel(rows)
		if err != nil {
			return nil, db.wrap("find hub models named "+key, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("find hub models named "+key, err)
	}
	return out, nil
}

// repoNameKey is the key hub_models_by_name indexes: hub.NameKey of the
// repo's name without its organisation.
func repoNameKey(repo string) string {
	_, name, _ := strings.Cut(repo, "/")
	return hub.NameKey(name)
}

func scanHubModel(s interface{ Scan(...any) error }) (hub.Entry, error) {
	var e hub.Entry
	var fetched, params string
	if err := s.Scan(&e.Repo, &e.Revision, &fetched, &e.Gated, &e.Config, &params, &e.Weights.Total, &e.ETag); err != nil {
		return hub.Entry{}, err
	}
	t, err := parseTime(fetched)
	if err != nil {
		return hub.Entry{}, err
	}
	e.FetchedAt = t
	if err := json.Unmarshal([]byte(params), &e.Weights.ByDType); err != nil {
		return hub.Entry{}, fmt.Errorf("hub model %s: params_json: %w", e.Repo, err)
	}
	if len(e.Weights.ByDType) == 0 {
		e.Weights.ByDType = nil
	}
	return e, nil
}
