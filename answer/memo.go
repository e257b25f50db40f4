package answer

import (
	"context"
	"reflect"
	"sync"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// Memo keeps the estimator's and the asker's answers by the question
// they answered. A team asks the same question often (same model, same
// card), and the estimate with its alternatives search, or the search of
// a question that runs the other way round (~2 ms, ~10k allocations for
// the largest model), is the same every time until the prices or the
// catalogs change. So the answers are kept under the version of
// everything they are made from besides the question; a version the
// memo has not seen empties it, so it never serves an answer older than
// its sources. The question is compared whole on a hit, so that a field
// the canonical form leaves out cannot make two questions share an
// answer. A model the query carries whole (a Hugging Face Hub model, a
// --config) is answered every time: the Hub cache can change under it,
// and the version does not count the Hub cache's changes.
type Memo struct {
	version func() uint64

	mu      sync.Mutex
	at      uint64
	fits    map[string]memoFit
	asks    map[string]memoAsk
	started bool
}

// maxMemo bounds each of the memo's tables; past it an arbitrary entry goes.
const maxMemo = 1024

type memoFit struct {
	q sizing.Query
	a sizing.Answer // shared by every hit: never changed once kept
}

type memoAsk struct {
	p reading.Request
	a sizing.AskAnswer // shared by every hit: never changed once kept
}

// NewMemo returns a Memo under version: a function that returns the
// version of the prices and catalogs the answers are made from. It must
// grow whenever any of them changes (a sum of counters that only grow
// will do), and be cheap: it is called once per answer.
func NewMemo(version func() uint64) *Memo {
	return &Memo{version: version, fits: make(map[string]memoFit), asks: make(map[string]memoAsk)}
}

// Estimator is next with its answers kept.
func (m *Memo) Estimator(next Estimator) Estimator { return memoEstimator{m, next} }

// Asker is next with its answers kept; nil stays nil.
func (m *Memo) Asker(next Asker) Asker {
	if next == nil {
		return nil
	}
	return memoAsker{m, next}
}

type memoEstimator struct {
	m    *Memo
	next Estimator
}

// Answer implements Estimator.
func (e memoEstimator) Answer(ctx context.Context, q sizing.Query) (sizing.Answer, error) {
	key := sizing.Format(q)
	if key == "" || q.Arch != nil {
		return e.next.Answer(ctx, q)
	}
	version := e.m.version()
	if a, ok := lookup(e.m, version, e.m.fits, key, func(f memoFit) (sizing.Answer, bool) { return f.a, reflect.DeepEqual(f.q, q) }); ok {
		return a, nil
	}
	a, err := e.next.Answer(ctx, q)
	if err == nil {
		keep(e.m, version, e.m.fits, key, memoFit{q, a})
	}
	return a, err
}

type memoAsker struct {
	m    *Memo
	next Asker
}

// Ask implements Asker. A question that says a deadline (one that names
// a day moves with the clock), a budget or a price is searched every
// time.
func (k memoAsker) Ask(ctx context.Context, p reading.Request) (sizing.AskAnswer, error) {
	key := reading.FormatAsk(p)
	if key == "" || p.Query.Arch != nil || p.Deadline != (reading.Deadline{}) || p.Money != (reading.Money{}) {
		return k.next.Ask(ctx, p)
	}
	version := k.m.version()
	if a, ok := lookup(k.m, version, k.m.asks, key, func(e memoAsk) (sizing.AskAnswer, bool) { return e.a, reflect.DeepEqual(e.p, p) }); ok {
		return a, nil
	}
	a, err := k.next.Ask(ctx, p)
	if err == nil {
		keep(k.m, version, k.m.asks, key, memoAsk{p, a})
	}
	return a, err
}

// lookup finds key's entry in table under version, when same says the
// entry answers the question asked.
func lookup[E, A any](m *Memo, version uint64, table map[string]E, key string, same func(E) (A, bool)) (A, bool) {
	m.mu.Lock()
	e, found := table[key]
	current := m.started && m.at == version
	m.mu.Unlock()
	var zero A
	if !found || !current {
		return zero, false
	}
	return same(e)
}

// keep puts e under key in table when version is still the memo's (or
// newer: the memo is emptied for it); an answer made under an older
// version (the prices moved while it was being made) is not kept.
func keep[E any](m *Memo, version uint64, table map[string]E, key string, e E) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !m.started || version > m.at:
		clear(m.fits)
		clear(m.asks)
		m.at, m.started = version, true
	case version < m.at:
		return
	}
	if _, ok := table[key]; !ok && len(table) >= maxMemo {
		for k := range table {
			delete(table, k)
			break
		}
	}
	table[key] = e
}
