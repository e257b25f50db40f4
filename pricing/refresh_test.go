package pricing

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memorySink is an in-memory Sink that keeps every run it is given.
type memorySink struct {
	mu      sync.Mutex
	runs    []Run
	offers  map[int64][]Offer
	failFor string // SaveRun fails for this provider
}

func (s *memorySink) LastGoodRun(_ context.Context, provider string) (Run, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.runs) - 1; i >= 0; i-- {
		if r := s.runs[i]; r.Provider == provider && r.Status == RunOK {
			return r, true, nil
		}
	}
	return Run{}, false, nil
}

func (s *memorySink) SaveRun(_ context.Context, run Run, offers []Offer) (Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if run.Provider == s.failFor {
		return Run{}, errors.New("disk full")
	}
	run.ID = int64(len(s.runs) + 1)
	s.runs = append(s.runs, run)
	if s.offers == nil {
		s.offers = map[int64][]Offer{}
	}
	s.offers[run.ID] = offers
	return run, nil
}

// fakeFetcher returns fixed offers, an error, or panics.
type fakeFetcher struct {
	name   string
	offers []Offer
	err    error
	panic  bool
	block  bool // wait for the context to end
	calls  atomic.Int32
	active *atomic.Int32 // concurrent fetches, for the bound
	peak   *atomic.Int32
}

func (f *fakeFetcher) Name() string { return f.name }

func (f *fakeFetcher) Fetch(ctx context.Context) (FetchResult, error) {
	f.calls.Add(1)
	if f.active != nil {
		n := f.active.Add(1)
		defer f.active.Add(-1)
		for {
			p := f.peak.Load()
			if n <= p || f.peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	switch {
	case f.panic:
		panic("index out of range")
	case f.block:
		<-ctx.Done()
		return FetchResult{}, ctx.Err()
	case f.err != nil:
		return FetchResult{}, f.err
	}
	return FetchResult{Offers: f.offers, Unknown: map[string]int{"Tesla K80": 2}}, nil
}

var refreshAt = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

func h100Offers(provider string, n int, usd float64) []Offer {
	out := make([]Offer, n)
	for i := range out {
		out[i] = Offer{Provider: provider, InstanceType: "node-" + string(rune('a'+i)), GPU: "h100", GPUCount: 8, Market: MarketOnDemand,
			USDPerHour: usd, USDPerGPUHour: usd / 8, ObservedAt: refreshAt, Samples: 1}
	}
	return out
}

func TestRefreshOutcomes(t *testing.T) {
	bad := h100Offers("bad", 2, 55.04)
	bad[1].USDPerHour, bad[1].USDPerGPUHour = 0.08, 0.01 // the "$0.01 B200" parser bug
	dup := h100Offers("dup", 2, 55.04)
	dup[1].InstanceType = dup[0].InstanceType
	mixed := h100Offers("mixed", 1, 55.04)
	mixed[0].Provider = "other"

	sink := &memorySink{}
	// shrink had 10 offers in its last good run; 4 now is a lost page.
	sink.runs = append(sink.runs, Run{ID: 100, Provider: "shrink", Status: RunOK, Rows: 10, AsOf: refreshAt.Add(-6 * time.Hour)})
	fetchers := []Fetcher{
		&fakeFetcher{name: "good", offers: h100Offers("good", 3, 55.04)},
		&fakeFetcher{name: "down", err: errors.New("down: HTTP 503: upstream unavailable")},
		&fakeFetcher{name: "bad", offers: bad},
		&fakeFetcher{name: "dup", offers: dup},
		&fakeFetcher{name: "mixed", offers: mixed},
		&fakeFetcher{name: "empty"},
		&fakeFetcher{name: "shrink", offers: h100Offers("shrink", 4, 55.04)},
		&fakeFetcher{name: "panics", panic: true},
	}
	r := &Refresher{Fetchers: fetchers, Sink: sink, Clock: func() time.Time { return refreshAt }}
	reports, err := r.Refresh(context.Background())

	want := []struct {
		status RunStatus
		errHas string
	}{
		{RunOK, ""},
		{RunFailed, "HTTP 503"},
		{RunRejected, "1 of 2 offers look wrong: h100 node-b: $0.01 per GPU-hour is outside $0.05-$100"},
		{RunRejected, "listed twice"},
		{RunRejected, `offer of provider "other" in mixed's run`},
		{RunRejected, "no offers"},
		{RunRejected, "4 offers, fewer than half of the 10 in the last good run"},
		{RunFailed, "internal error (panic: index out of range)"},
	}
	if len(reports) != len(want) {
		t.Fatalf("%d reports, want %d", len(reports), len(want))
	}
	for i, w := range want {
		got := reports[i].Run
		if got.Provider != fetchers[i].Name() || got.Status != w.status || !strings.Contains(got.Error, w.errHas) {
			t.Errorf("report %d: %s %s %q, want %s %s containing %q", i, got.Provider, got.Status, got.Error, fetchers[i].Name(), w.status, w.errHas)
		}
		if (got.Status == RunOK) != !reports[i].Stale() {
			t.Errorf("report %d: Stale() = %v with status %s", i, reports[i].Stale(), got.Status)
		}
		if got.ID == 0 {
			t.Errorf("report %d: run not saved", i)
		}
		if n := len(sink.offers[got.ID]); (got.Status == RunOK) != (n > 0) {
			t.Errorf("report %d: %s run stored %d offers", i, got.Status, n)
		}
	}
	if good := reports[0].Run; good.Rows != 3 || good.Unknown != 1 || !good.Started.Equal(refreshAt) || !good.AsOf.Equal(refreshAt) {
		t.Errorf("good run = %+v, want 3 rows, 1 unknown name, started and as of %v", good, refreshAt)
	}
	if reports[0].Unknown["Tesla K80"] != 2 {
		t.Errorf("good report's unknown names = %v, want Tesla K80 twice", reports[0].Unknown)
	}
	if lg := reports[6].LastGood; lg == nil || lg.ID != 100 {
		t.Errorf("shrink's report does not carry its last good run: %+v", lg)
	}
	if err == nil {
		t.Fatal("Refresh returned no error with seven providers not refreshed")
	}
	for _, name := range []string{"refresh down: failed", "refresh bad: rejected", "refresh panics: failed"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %q", err, name)
		}
	}
	if strings.Contains(err.Error(), "refresh good") {
		t.Errorf("error %q names the provider that refreshed", err)
	}
}

func TestRefreshTimesOutOneProvider(t *testing.T) {
	sink := &memorySink{}
	r := &Refresher{
		Fetchers: []Fetcher{&fakeFetcher{name: "hangs", block: true}, &fakeFetcher{name: "good", offers: h100Offers("good", 1, 55.04)}},
		Sink:     sink,
		Timeout:  50 * time.Millisecond,
	}
	start := time.Now()
	reports, _ := r.Refresh(context.Background())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Refresh took %v with a 50ms provider timeout", took)
	}
	if got := reports[0].Run; got.Status != RunFailed || !strings.Contains(got.Error, "gave up after 50ms") {
		t.Errorf("hanging provider: %s %q, want failed after the timeout", got.Status, got.Error)
	}
	if reports[1].Run.Status != RunOK {
		t.Errorf("the other provider: %s %q, want ok", reports[1].Run.Status, reports[1].Run.Error)
	}
}

func TestRefreshBoundsConcurrency(t *testing.T) {
	var active, peak atomic.Int32
	var fetchers []Fetcher
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		fetchers = append(fetchers, &fakeFetcher{name: name, offers: h100Offers(name, 1, 55.04), active: &active, peak: &peak})
	}
	r := &Refresher{Fetchers: fetchers, Sink: &memorySink{}, Parallel: 2}
	if _, err := r.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak concurrent fetches %d, want at most 2", p)
	}
}

func TestRefreshSinkFailure(t *testing.T) {
	sink := &memorySink{failFor: "good"}
	r := &Refresher{Fetchers: []Fetcher{&fakeFetcher{name: "good", offers: h100Offers("good", 1, 55.04)}}, Sink: sink}
	reports, err := r.Refresh(context.Background())
	if err == nil || reports[0].Run.Status != RunFailed || !strings.Contains(reports[0].Run.Error, "storing the run: disk full") {
		t.Errorf("a run the sink could not store: %+v, %v; want failed with the store's error", reports[0].Run, err)
	}
}

func TestReportUnknownGPUs(t *testing.T) {
	r := Report{Unknown: map[string]int{"GH200 (gpu_1x_gh200 96.0GB)": 1, "GH200 (gpu_8x_gh200 96.0GB)": 2, "RTX4060": 3}}
	want := map[string]int{"GH200": 3, "RTX4060": 3}
	if got := r.UnknownGPUs(); !maps.Equal(got, want) {
		t.Errorf("UnknownGPUs = %v, want %v", got, want)
	}
}
