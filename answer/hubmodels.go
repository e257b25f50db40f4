package answer

import (
	"context"
	"fmt"

	"github.com/fitbot/fitbot/hub"
)

// CachedModel is a Hugging Face Hub model the resolver has cached: a line
// of the models a face lists.
type CachedModel struct {
	Repo           string
	Params, Active int64  // the parameter count, and the active one (they differ for MoE)
	Age            string // how long ago it was fetched, in words
}

// cachedLister is what a ModelResolver may also do: list the Hub models
// it has cached most recently; *hub.Resolver is one.
type cachedLister interface {
	Cached(ctx context.Context, limit int) ([]hub.Entry, error)
}

// CachedModels lists the Hub models the Models resolver fetched most
// recently, at most limit, and whether it holds more; none when there is
// no resolver or it cannot list. An entry whose config no longer makes a
// model is left out.
func (s *Service) CachedModels(ctx context.Context, limit int) (models []CachedModel, more bool, err error) {
	l, ok := s.Models.(cachedLister)
	if !ok {
		return nil, false, nil
	}
	entries, err := l.Cached(ctx, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("list the cached Hub models: %w", err)
	}
	if len(entries) > limit {
		entries, more = entries[:limit], true
	}
	models = make([]CachedModel, 0, len(entries))
	for _, e := range entries {
		m, err := e.Model()
		if err != nil {
			continue
		}
		total, active := m.ParamCount()
		models = append(models, CachedModel{Repo: e.Repo, Params: total, Active: active, Age: hub.Age(s.now().Sub(e.FetchedAt))})
	}
	return models, more, nil
}
