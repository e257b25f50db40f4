package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
)

// hubHTTPTimeout bounds one request to the Hub from the command line.
const hubHTTPTimeout = 15 * time.Second

// hubCachePath is where Hub models are cached when there is no database:
// fitbot/hub.db under the user cache directory (~/.cache on Linux,
// ~/Library/Caches on macOS), so that `fitbot fit` on a fresh machine
// leaves no fitbot.db in the working directory. "" when the system has no
// cache directory.
func hubCachePath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fitbot", "hub.db")
}

// openHubCache opens the cache for Hub models: the database when it
// exists, else the file under the user cache directory. A cache that
// cannot be opened is noted on stderr; the Hub still answers without it.
func (a *app) openHubCache(ctx context.Context) *store.DB {
	path := a.dbPath()
	if !a.dbExists() {
		if path = hubCachePath(); path == "" {
			return nil
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		fmt.Fprintf(a.stderr, "fitbot: Hugging Face models are not cached this time: %v\n", err)
		return nil
	}
	return db
}

// hubResolver builds the command line's resolver: a stale cache entry is
// fetched again before it answers, and stands in when the Hub fails.
func (a *app) hubResolver(cache hub.Cache) (*hub.Resolver, error) {
	endpoint, token, err := a.env.hubSettings()
	if err != nil {
		return nil, err
	}
	return &hub.Resolver{
		Client: &hub.Client{BaseURL: endpoint, Token: token.reveal(), HTTP: samehost.StripClient(nil), Timeout: hubHTTPTimeout},
		Cache:  cache,
		Logger: slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, nil
}

// resolveHub finishes a parse with the Hugging Face Hub when the question
// names a Hub repo or a model the catalog lacks; any other parse is
// returned as given, without opening anything.
func (a *app) resolveHub(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error) {
	if p.Hub == "" && p.Missing.Words == "" {
		return p, parseErr
	}
	var cache hub.Cache
	if db := a.openHubCache(ctx); db != nil {
		defer a.closeStore(db)
		cache = db
	}
	return a.resolveHubWith(ctx, cache, question, p, parseErr)
}

// resolveHubWith is resolveHub with the cache already open.
func (a *app) resolveHubWith(ctx context.Context, cache hub.Cache, question string, p reading.Request, parseErr error) (reading.Request, error) {
	if p.Hub == "" && p.Missing.Words == "" {
		return p, parseErr
	}
	r, err := a.hubResolver(cache)
	if err != nil {
		return p, err
	}
	return r.ResolveParsed(ctx, question, p, parseErr)
}

// hubRepo is the repo of a cached Hub model named without its
// organisation ("qwen3 14b"), looked up in the database's cache and in
// the user cache directory's (where models asked about before the
// database existed are kept).
func (a *app) hubRepo(ctx context.Context, words string) (string, bool) {
	var paths []string
	if a.dbExists() {
		paths = append(paths, a.dbPath())
	}
	if p := hubCachePath(); p != "" {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		db, err := store.Open(ctx, path)
		if err != nil {
			continue
		}
		entries, err := db.HubModelsNamed(ctx, hub.NameKey(words))
		a.closeStore(db)
		if err != nil {
			fmt.Fprintf(a.stderr, "fitbot: cached Hugging Face models not searched: %v\n", err)
			continue
		}
		if len(entries) > 0 {
			return entries[0].Repo, true
		}
	}
	return "", false
}
