package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
)

// TestOneStalenessRule: `fitbot prices` and /readyz call the same
// providers behind (pricing.SourceBehind): a source 30 hours without a
// refresh, not an imported sheet of the same age, which /readyz counted
// before.
func TestOneStalenessRule(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	asOf := now.Add(-30 * time.Hour)
	for _, provider := range []string{"runpod", pricing.ImportProvider("sheet.csv")} {
		run := pricing.Run{Provider: provider, Started: asOf, Finished: asOf.Add(time.Second), AsOf: asOf, Status: pricing.RunOK, Rows: 1}
		offer := pricing.Offer{Provider: provider, InstanceType: "NVIDIA GeForce RTX 4090", GPU: "rtx-4090", GPUCount: 1, Market: pricing.MarketOnDemand,
			Tier: "community", USDPerHour: 0.34, USDPerGPUHour: 0.34, ObservedAt: asOf, Samples: 1, Source: "test"}
		if _, err := db.SaveRun(ctx, run, []pricing.Offer{offer}); err != nil {
			t.Fatal(err)
		}
	}
	providers, err := db.ProviderHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stale := priceView{health: providers}.stale(now)
	if len(stale) != 1 || stale[0].Provider != "runpod" {
		t.Errorf("fitbot prices calls %+v stale, want runpod alone", stale)
	}
	h := &health{db: db, metrics: bot.NewMetrics(), now: func() time.Time { return now }, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if got := h.prices(ctx).Detail; got != "1 of 2 providers stale or failing" {
		t.Errorf("/readyz prices: %q, want 1 of 2 providers stale", got)
	}
}
