package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
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
// built-in sheet while the store cannot be read, the store's once it
// can, reloaded only after an invalidation (a refresh) or a minute; and
// that the questions that run the other way round are answered too.
func TestLiveAnswerer(t *testing.T) {
	store := &flakyPrices{err: errors.New("database is locked")}
	l := &liveAnswerer{prices: store, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	p, err := sizing.Parse("13B lora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	price := func() float64 {
		t.Helper()
		a, err := l.Answer(p.Query)
		if err != nil || a.Price == nil {
			t.Fatalf("Answer = %+v, %v; want a priced answer", a.Price, err)
		}
		return a.Price.USDPerGPUHour
	}
	sheet, _ := pricing.DefaultSheet().GPUHourPrice("rtx-4090")
	if got := price(); got != sheet.USDPerGPUHour {
		t.Errorf("with the store failing, price %v, want the built-in sheet's %v", got, sheet.USDPerGPUHour)
	}
	store.src, store.err = fixedPrice(0.42), nil
	if got := price(); got != sheet.USDPerGPUHour || store.reads != 1 {
		t.Errorf("within the minute, price %v after %d reads; want the loaded prices kept, one read", got, store.reads)
	}
	l.invalidate()
	if got := price(); got != 0.42 || store.reads != 2 {
		t.Errorf("after a refresh, price %v after %d reads; want the store's 0.42, two reads", got, store.reads)
	}
	store.err = errors.New("disk I/O error")
	l.invalidate()
	if got := price(); got != 0.42 {
		t.Errorf("with the store failing again, price %v; want the prices loaded before", got)
	}

	ask, err := sizing.Parse("which gpu 13b lora")
	if err != nil || ask.Intent != sizing.IntentWhichGPU {
		t.Fatalf("Parse(which gpu 13b lora) = %v, %v", ask.Intent, err)
	}
	a, err := l.Ask(ask)
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

// TestLiveAnswerDoesNotWaitForReload: while one request reloads the
// prices from a slow store, another is answered at once with the prices
// already loaded.
func TestLiveAnswerDoesNotWaitForReload(t *testing.T) {
	store := &blockingPrices{started: make(chan struct{}), release: make(chan struct{})}
	l := &liveAnswerer{prices: store, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	p, err := sizing.Parse("13B lora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Answer(p.Query); err != nil { // the first load
		t.Fatal(err)
	}
	l.invalidate()
	reloaded := make(chan error, 1)
	go func() { _, err := l.Answer(p.Query); reloaded <- err }()
	<-store.started // that request is now reading the store
	answered := make(chan error, 1)
	go func() { _, err := l.Answer(p.Query); answered <- err }()
	select {
	case err := <-answered:
		if err != nil {
			t.Errorf("Answer during a reload: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("an answer waited for another request's reload")
	}
	close(store.release)
	if err := <-reloaded; err != nil {
		t.Errorf("the reloading answer: %v", err)
	}
}
