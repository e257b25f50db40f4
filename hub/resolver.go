package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// DefaultMaxAge is how old a cached entry may be before it is asked
// again: a repo's main branch rarely moves once released.
const DefaultMaxAge = 24 * time.Hour

// Entry is one Hub model as fitbot keeps it: what the Hub said, not the
// model built from it, so that a better config.json reader applies to
// models cached before it.
type Entry struct {
	Repo      string // the repo id as the Hub spells it
	Revision  string // the commit sha of the main branch when fetched
	FetchedAt time.Time
	Gated     string // "", "auto" or "manual"
	Config    []byte // config.json as served (model_index.json for a diffusers pipeline); nil when the repo has none
	Weights   sizing.HubWeights
	ETag      string // config.json's ETag, for a conditional fetch
}

// Model builds the sizing model of the entry.
func (e Entry) Model() (sizing.Model, error) {
	return sizing.ModelFromHub(e.Repo, e.Config, e.Weights)
}

// Cache keeps resolved models across runs; *store.DB is one. Lookups
// ignore the case of the repo id.
type Cache interface {
	HubModel(ctx context.Context, repo string) (Entry, bool, error)
	PutHubModel(ctx context.Context, e Entry) error
	// RecentHubModels returns the limit most recently fetched models,
	// newest first.
	RecentHubModels(ctx context.Context, limit int) ([]Entry, error)
	// HubModelsNamed returns the cached repos whose name without the
	// organisation has the NameKey key, by repo id.
	HubModelsNamed(ctx context.Context, key string) ([]Entry, error)
}

// Resolver resolves Hub models through the Client and the Cache.
type Resolver struct {
	Client *Client
	Cache  Cache         // nil: every question asks the Hub
	MaxAge time.Duration // 0 is DefaultMaxAge
	// Background makes a stale entry answer at once while it is fetched
	// again behind the answer (the bot); otherwise it is fetched first
	// and stands in only when the Hub fails (the command line).
	Background bool
	Now        func() time.Time // nil is time.Now
	Logger     *slog.Logger     // nil is slog.Default()

	wg       sync.WaitGroup
	inflight sync.Map // lower-case repo -> struct{}: background refreshes running
}

// Resolved is a Hub model ready for the estimator.
type Resolved struct {
	Entry Entry
	Model sizing.Model
	Note  string // where the model came from, and how old it is when cached
}

func (r *Resolver) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Resolver) log() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}

func (r *Resolver) maxAge() time.Duration {
	if r.MaxAge <= 0 {
		return DefaultMaxAge
	}
	return r.MaxAge
}

// Wait blocks until the background refreshes have finished.
func (r *Resolver) Wait() { r.wg.Wait() }

// Resolve returns the model of repo: from the cache while it is fresh,
// else from the Hub, else (the Hub down, slow or refusing for now) from
// the cache however old, saying how old.
func (r *Resolver) Resolve(ctx context.Context, repo string) (Resolved, error) {
	cached, found := r.cached(ctx, repo)
	if found && r.now().Sub(cached.FetchedAt) < r.maxAge() {
		return r.resolved(cached, "")
	}
	if found && r.Background {
		r.refreshLater(cached)
		return r.resolved(cached, "")
	}
	e, err := r.fetch(ctx, repo, cached, found)
	if err != nil {
		var he *Error
		if found && errors.As(err, &he) && he.Transient() {
			r.log().Warn("hub: serving a cached model", "repo", repo, "kind", he.Kind, "err", err)
			return r.resolved(cached, fmt.Sprintf("the Hub could not be asked now (%s), so fitbot used its copy", he.Problem))
		}
		return Resolved{}, err
	}
	res, err := r.resolved(e, "")
	if err != nil {
		return Resolved{}, err
	}
	r.put(ctx, e)
	return res, nil
}

// resolved builds the model of e and the note that says where it came from.
func (r *Resolver) resolved(e Entry, why string) (Resolved, error) {
	m, err := e.Model()
	if err != nil {
		return Resolved{}, err
	}
	note := fmt.Sprintf("%s from the Hugging Face Hub (revision %s, fetched %s)", e.Repo, short(e.Revision), Age(r.now().Sub(e.FetchedAt)))
	if why != "" {
		note += ": " + why
	}
	return Resolved{Entry: e, Model: m, Note: note}, nil
}

// cached looks repo up in the cache; a failing cache is logged and
// treated as a miss, since the Hub can still answer.
func (r *Resolver) cached(ctx context.Context, repo string) (Entry, bool) {
	if r.Cache == nil {
		return Entry{}, false
	}
	e, ok, err := r.Cache.HubModel(ctx, repo)
	if err != nil {
		r.log().Warn("hub: reading the cache failed", "repo", repo, "err", err)
		return Entry{}, false
	}
	return e, ok
}

func (r *Resolver) put(ctx context.Context, e Entry) {
	if r.Cache == nil {
		return
	}
	if err := r.Cache.PutHubModel(ctx, e); err != nil {
		r.log().Warn("hub: caching a model failed", "repo", e.Repo, "err", err)
	}
}

// refreshLater fetches a stale entry again behind the answer, once per
// repo at a time.
func (r *Resolver) refreshLater(cached Entry) {
	key := strings.ToLower(cached.Repo)
	if _, running := r.inflight.LoadOrStore(key, struct{}{}); running {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.inflight.Delete(key)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		e, err := r.fetch(ctx, cached.Repo, cached, true)
		if err != nil {
			r.log().Warn("hub: background refresh failed; the cached copy stays", "repo", cached.Repo, "err", err)
			return
		}
		if _, err := e.Model(); err != nil {
			r.log().Warn("hub: refreshed config.json cannot be read; the cached copy stays", "repo", cached.Repo, "err", err)
			return
		}
		r.put(ctx, e)
	}()
}

// fetch asks the Hub for repo: the model info, then config.json at its
// revision unless the cached copy is of the same revision (a conditional
// request on its ETag otherwise).
func (r *Resolver) fetch(ctx context.Context, repo string, cached Entry, found bool) (Entry, error) {
	if r.Client == nil {
		return Entry{}, &Error{Kind: KindUnreachable, Repo: repo, Problem: "fitbot has no Hugging Face Hub client configured"}
	}
	info, err := r.Client.ModelInfo(ctx, repo)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Repo: info.ID, Revision: info.SHA, FetchedAt: r.now().UTC(), Gated: info.Gated, Weights: info.Weights}
	if found && cached.Revision == info.SHA && len(cached.Config) > 0 {
		e.Config, e.ETag = cached.Config, cached.ETag
		return e, nil
	}
	if diffusers(info.Config) {
		// A diffusers pipeline has no config.json at its root: its
		// model_index.json names the family, or else the Hub's own short
		// config does.
		body, err := r.Client.ModelIndex(ctx, info.ID, info.SHA)
		var he *Error
		switch {
		case err == nil:
			e.Config = body
		case errors.As(err, &he) && he.Kind == KindNotFound:
			e.Config = info.Config
		default:
			return Entry{}, err
		}
		return e, nil
	}
	etag := ""
	if found && len(cached.Config) > 0 {
		etag = cached.ETag
	}
	body, tag, unchanged, err := r.Client.Config(ctx, info.ID, info.SHA, etag)
	var he *Error
	switch {
	case err == nil && unchanged:
		e.Config, e.ETag = cached.Config, tag
	case err == nil:
		e.Config, e.ETag = body, tag
	case errors.As(err, &he) && he.Kind == KindNotFound && info.Weights.Total > 0:
		// No config.json (a GGUF or adapter-only layout beside safetensors):
		// the Hub's count alone sizes it, and the model says so.
	default:
		return Entry{}, err
	}
	return e, nil
}

// Find picks the repo a model name the catalog lacks means: the search
// API's most downloaded model whose name is the words, else its most
// downloaded match. Without the Hub it looks among cached models. The
// note says which repo was taken and why.
func (r *Resolver) Find(ctx context.Context, words string) (repo, note string, err error) {
	key := NameKey(words)
	if key == "" {
		return "", "", &Error{Kind: KindNoMatch, Problem: fmt.Sprintf("%q names no model", words)}
	}
	var hits []Hit
	if r.Client == nil {
		err = &Error{Kind: KindUnreachable, Problem: "fitbot has no Hugging Face Hub client configured"}
	} else {
		hits, err = r.Client.Search(ctx, searchQuery(words), 20)
	}
	if err != nil {
		var he *Error
		if errors.As(err, &he) && he.Transient() && r.Cache != nil {
			if repo := r.cachedMatch(ctx, key); repo != "" {
				return repo, fmt.Sprintf("%q taken as %s, a cached Hub model (the Hub's search could not be asked: %s)", words, repo, he.Problem), nil
			}
		}
		return "", "", err
	}
	best := pick(hits, key)
	if best == "" {
		return "", "", &Error{Kind: KindNoMatch, Problem: fmt.Sprintf("the Hugging Face Hub has no model named like %q", words)}
	}
	return best, fmt.Sprintf("%q taken as %s, the most downloaded match on the Hugging Face Hub", words, best), nil
}

// pick chooses among search hits: the most downloaded whose name (after
// the organisation) is the words, else the most downloaded of all.
func pick(hits []Hit, key string) string {
	sorted := append([]Hit(nil), hits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Downloads > sorted[j].Downloads })
	for _, h := range sorted {
		if _, name, ok := strings.Cut(h.ID, "/"); ok && NameKey(name) == key {
			return h.ID
		}
	}
	for _, h := range sorted {
		if _, ok := sizing.HubRepoID(h.ID); ok {
			return h.ID
		}
	}
	return ""
}

// cachedMatch is a cached repo whose name is the words, or "".
func (r *Resolver) cachedMatch(ctx context.Context, key string) string {
	entries, err := r.Cache.HubModelsNamed(ctx, key)
	if err != nil {
		r.log().Warn("hub: searching the cache failed", "err", err)
		return ""
	}
	if len(entries) == 0 {
		return ""
	}
	return entries[0].Repo
}

// Cached lists the limit most recently fetched cached models, newest
// first; none without a cache.
func (r *Resolver) Cached(ctx context.Context, limit int) ([]Entry, error) {
	if r.Cache == nil {
		return nil, nil
	}
	return r.Cache.RecentHubModels(ctx, limit)
}

// CachedRepo is the cached repo that words name without its organisation
// ("qwen3 14b" for Qwen/Qwen3-14B); ok is false when none does.
func (r *Resolver) CachedRepo(ctx context.Context, words string) (repo string, ok bool) {
	if r.Cache == nil {
		return "", false
	}
	repo = r.cachedMatch(ctx, NameKey(words))
	return repo, repo != ""
}

// SameName reports whether words name repo without its organisation, as
// people say it: "qwen3 14b" and "Qwen3-14B" both name Qwen/Qwen3-14B.
func SameName(repo, words string) bool {
	_, name, ok := strings.Cut(repo, "/")
	return ok && NameKey(words) != "" && NameKey(name) == NameKey(words)
}

// searchQuery turns a name as said into the shape of a repo name:
// "qwen3 14b" -> "qwen3-14b", which the search API matches inside ids.
func searchQuery(words string) string {
	return strings.Join(strings.Fields(strings.ToLower(words)), "-")
}

// NameKey is a name without case, spaces, hyphens or underscores, so
// that "qwen3 14b" and "Qwen3-14B" meet. A Cache indexes repos by the
// NameKey of their name without the organisation.
func NameKey(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch c {
		case ' ', '-', '_', '\t':
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// ResolveParsed finishes a parse of question with the Hub: a repo named
// by id or link becomes Query.Arch, and a model name the catalog lacks
// (parseErr then says so) is searched for, put in its place, and read
// again. Each step adds a note naming the repo used. A parse that needs
// neither is returned as given; a name the Hub does not know either keeps
// the parser's own error, with its suggestions.
func (r *Resolver) ResolveParsed(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error) {
	var notes []string
	if p.Hub == "" && p.Missing.Words != "" && p.Missing.End <= len(question) && p.Missing.Start <= p.Missing.End {
		repo, note, err := r.Find(ctx, p.Missing.Words)
		var he *Error
		var ie *sizing.InputError
		switch {
		case errors.As(err, &he) && he.Kind == KindNoMatch:
			return p, parseErr
		case errors.As(err, &he) && errors.As(parseErr, &ie):
			// The parser's own message, with its suggestions, and why the
			// Hub could not help.
			return p, &sizing.InputError{Problem: fmt.Sprintf("%s (the Hugging Face Hub could not be searched for it: %s)", ie.Problem, he.Problem), Hint: ie.Hint}
		case err != nil:
			return p, err
		}
		p, parseErr = reading.Parse(question[:p.Missing.Start] + repo + question[p.Missing.End:])
		notes = append(notes, note)
	}
	if p.Hub == "" || parseErr != nil {
		p.Notes = append(notes, p.Notes...)
		return p, parseErr
	}
	res, err := r.Resolve(ctx, p.Hub)
	if err != nil {
		return p, err
	}
	m := res.Model
	m.Assume(strings.Join(append(notes, res.Note), "; "))
	p.Query.Arch = &m
	return p, nil
}

// Age says how long ago something happened, in the largest whole unit.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	default:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// diffusers reports whether the Hub's short config of a repo names a
// diffusers class: {"diffusers": {"_class_name": "FluxPipeline"}}.
func diffusers(config json.RawMessage) bool {
	var c struct {
		Diffusers *struct {
			Class string `json:"_class_name"`
		} `json:"diffusers"`
	}
	return json.Unmarshal(config, &c) == nil && c.Diffusers != nil && c.Diffusers.Class != ""
}
