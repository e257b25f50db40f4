package answer

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// flakyPrices is a price store that fails until told otherwise, and
// counts its reads.
type flakyPrices struct {
	src   sizing.PriceSource
	err   error
	reads int
}

func (f *flakyPrices) PriceSource(context.Context) (sizing.PriceSource, error) {
	f.reads++
	return f.src, f.err
}

// fixedPrice prices every GPU at one figure.
type fixedPrice float64

func (p fixedPrice) GPUHourPrice(string) (sizing.Price, bool) {
	return sizing.Price{USDPerGPUHour: float64(p), Provider: "test", Market: "on_demand"}, true
}

// TestLiveAnswerer checks where serve's answers get their prices: the
// built-in sheet while the store cannot be read, the store's once a load
// succeeds, the prices loaded before when it fails again; that answers
// never read the store themselves; and that the questions that run the
// other way round are answered too.
func TestLiveAnswerer(t *testing.T) {
	ctx := context.Background()
	store := &flakyPrices{err: errors.New("database is locked")}
	l := NewLive(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	p, err := reading.Parse("13B lora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	price := func() float64 {
		t.Helper()
		a, err := l.Answer(ctx, p.Query)
		if err != nil || a.Price == nil {
			t.Fatalf("Answer = %+v, %v; want a priced answer", a.Price, err)
		}
		return a.Price.USDPerGPUHour
	}
	sheet, _ := pricing.DefaultSheet().GPUHourPrice("rtx-4090")
	if got := price(); got != sheet.USDPerGPUHour || store.reads != 0 {
		t.Errorf("before any load, price %v after %d reads; want the built-in sheet's %v and no read", got, store.reads, sheet.USDPerGPUHour)
	}
	l.Load(ctx)
	if got := price(); got != sheet.USDPerGPUHour {
		t.Errorf("with the store failing, price %v, want the built-in sheet's %v", got, sheet.USDPerGPUHour)
	}
	store.src, store.err = fixedPrice(0.42), nil
	l.Load(ctx)
	if got := price(); got != 0.42 {
		t.Errorf("after a load, price %v; want the store's 0.42", got)
	}
	store.err = errors.New("disk I/O error")
	l.Load(ctx)
	if got := price(); got != 0.42 {
		t.Errorf("with the store failing again, price %v; want the prices loaded before", got)
	}
	if store.reads != 3 {
		t.Errorf("%d store reads for three loads and five answers; answers must not read the store", store.reads)
	}

	ask, err := reading.Parse("which gpu 13b lora")
	if err != nil || ask.Intent != sizing.IntentWhichGPU {
		t.Fatalf("Parse(which gpu 13b lora) = %v, %v", ask.Intent, err)
	}
	a, err := l.Ask(ctx, ask)
	if err != nil || a.WhichGPU == nil {
		t.Errorf("Ask(which gpu) = %+v, %v; want the cards that fit", a, err)
	}
}

// blockingPrices answers its first read at once and blocks every later
// read until released, saying when one has started.
type blockingPrices struct {
	reads   atomic.Int32
	started chan struct{}
	release chan struct{}
}

func (b *blockingPrices) PriceSource(context.Context) (sizing.PriceSource, error) {
	if b.reads.Add(1) > 1 {
		b.started <- struct{}{}
		<-b.release
	}
	return fixedPrice(0.42), nil
}

// TestLiveAnswerDoesNotWaitForReload: while a reload reads a slow store,
// an answer comes at once with the prices already loaded.
func TestLiveAnswerDoesNotWaitForReload(t *testing.T) {
	ctx := context.Background()
	store := &blockingPrices{started: make(chan struct{}), release: make(chan struct{})}
	l := NewLive(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	p, err := reading.Parse("13B lora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	l.Load(ctx) // the first load
	reloaded := make(chan struct{})
	go func() { l.Load(ctx); close(reloaded) }()
	<-store.started // the reload is now reading the store
	answered := make(chan error, 1)
	go func() { _, err := l.Answer(ctx, p.Query); answered <- err }()
	select {
	case err := <-answered:
		if err != nil {
			t.Errorf("Answer during a reload: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("an answer waited for a reload")
	}
	close(store.release)
	<-reloaded
}

// countingPrices says on reads each time the store is read.
type countingPrices struct{ reads chan struct{} }

func (c countingPrices) PriceSource(context.Context) (sizing.PriceSource, error) {
	c.reads <- struct{}{}
	return fixedPrice(0.42), nil
}

// TestLiveAnswererRun: the background reload reads the store again and
// again, swaps the prices in, and stops when its context is done.
func TestLiveAnswererRun(t *testing.T) {
	store := countingPrices{reads: make(chan struct{})}
	l := NewLive(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx, time.Millisecond); close(done) }()
	for range 2 {
		select {
		case <-store.reads:
		case <-time.After(5 * time.Second):
			t.Fatal("the background reload never read the store")
		}
	}
	cancel()
	timeout := time.After(5 * time.Second)
	for stopped := false; !stopped; {
		select {
		case <-done:
			stopped = true
		case <-store.reads: // a read already under way when ctx ended
		case <-timeout:
			t.Fatal("run did not stop when its context ended")
		}
	}
	if l.current.Load() == nil {
		t.Error("the reload swapped no prices in")
	}
}

// TestLiveAnswererVersion: the reply cache's version grows with every
// load that swaps prices in (a reload, a refresh), and only then: a load
// that fails keeps the prices, and the version, it had.
func TestLiveAnswererVersion(t *testing.T) {
	ctx := context.Background()
	store := &flakyPrices{err: errors.New("database is locked")}
	l := NewLive(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	v0 := l.Version()
	l.Load(ctx)
	if v := l.Version(); v != v0 {
		t.Errorf("a failed load moved the version from %d to %d; the prices did not change", v0, v)
	}
	store.src, store.err = fixedPrice(0.42), nil
	l.Load(ctx)
	v1 := l.Version()
	if v1 <= v0 {
		t.Errorf("after prices were swapped in the version is %d (was %d); want it grown", v1, v0)
	}
	l.Load(ctx)
	if v2 := l.Version(); v2 <= v1 {
		t.Errorf("after a reload the version is %d (was %d); want it grown", v2, v1)
	}
}
