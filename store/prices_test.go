//go:build cgo

package store

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var _ sizing.PriceSource = (*pricing.Snapshot)(nil)

// offer builds a per-instance offer observed at at; prices are the
// reference's §6 figures.
func offer(provider, gpu string, count float64, market pricing.Market, region, instance string, usd float64, at time.Time) pricing.Offer {
	return pricing.Offer{
		Provider: provider, InstanceType: instance, GPU: gpu, GPUCount: count, Market: market, Region: region,
		USDPerHour: usd, USDPerGPUHour: usd / count, Source: "test", ObservedAt: at, Samples: 1,
	}
}

func okRun(provider string, at time.Time, offers []pricing.Offer) pricing.Run {
	return pricing.Run{Provider: provider, Started: at, Finished: at.Add(time.Second), AsOf: at, Status: pricing.RunOK, Rows: len(offers)}
}

func saveRun(t *testing.T, db *DB, run pricing.Run, offers []pricing.Offer) pricing.Run {
	t.Helper()
	saved, err := db.SaveRun(context.Background(), run, offers)
	if err != nil {
		t.Fatalf("SaveRun %s: %v", run.Provider, err)
	}
	return saved
}

func TestSaveRunAndCurrentOffers(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	t1 := t0.Add(6 * time.Hour)
	db.Now = func() time.Time { return t1 } // every price fresh

	awsOld := []pricing.Offer{
		offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 98.32, t0),
		offer("aws", "a100-40", 8, pricing.MarketOnDemand, "us-east-1", "p4d.24xlarge", 32.77, t0),
	}
	awsNew := []pricing.Offer{
		offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, t1),
		offer("aws", "a100-40", 8, pricing.MarketOnDemand, "us-east-1", "p4d.24xlarge", 21.96, t1),
		offer("aws", "h100", 8, pricing.MarketSpot, "us-east-1", "p5.48xlarge", 30.00, t1),
	}
	runpod := []pricing.Offer{offer("runpod", "h100", 1, pricing.MarketOnDemand, "all", "NVIDIA H100 80GB HBM3", 2.69, t0)}

	first := saveRun(t, db, okRun("aws", t0, awsOld), awsOld)
	saveRun(t, db, okRun("runpod", t0, runpod), runpod)
	second := saveRun(t, db, okRun("aws", t1, awsNew), awsNew)
	if first.ID == 0 || second.ID <= first.ID {
		t.Errorf("run ids %d then %d, want increasing", first.ID, second.ID)
	}

	got, err := db.CurrentOffers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []pricing.Offer{awsNew[1], runpod[0], awsNew[2], awsNew[0]}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("CurrentOffers (-want +got):\n%s", diff)
	}

	h100, err := db.OffersForGPU(ctx, "h100")
	if err != nil {
		t.Fatal(err)
	}
	if len(h100) != 3 || h100[0].Provider != "runpod" || h100[2].USDPerHour != 55.04 {
		t.Errorf("OffersForGPU(h100) = %+v, want runpod, aws spot, aws on-demand", h100)
	}

	cheap, err := db.CheapestOffers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, o := range cheap {
		summary = append(summary, fmt.Sprintf("%s %s %s %.4g", o.GPU, o.Market, o.Provider, o.USDPerGPUHour))
	}
	wantSummary := []string{"a100-40 on_demand aws 2.745", "h100 on_demand runpod 2.69", "h100 spot aws 3.75"}
	if diff := cmp.Diff(wantSummary, summary); diff != "" {
		t.Errorf("CheapestOffers (-want +got):\n%s", diff)
	}

	// The whole history stays: both aws runs and the runpod run.
	hist, err := db.ObservationsBetween(ctx, t0, t1.Add(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 6 {
		t.Errorf("ObservationsBetween returned %d observations, want 6", len(hist))
	}
	before, err := db.ObservationsBetween(ctx, t0, t1)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 3 {
		t.Errorf("ObservationsBetween [t0, t1) returned %d, want the 3 of t0 (the range is half-open)", len(before))
	}
}

func TestFailedRunKeepsLastGoodPrices(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	good := []pricing.Offer{offer("azure", "h100", 8, pricing.MarketOnDemand, "eastus", "Standard_ND96isr_H100_v5", 98.32, t0)}
	saveRun(t, db, okRun("azure", t0, good), good)
	failed := pricing.Run{Provider: "azure", Started: t0.Add(time.Hour), Finished: t0.Add(time.Hour), AsOf: t0.Add(time.Hour),
		Status: pricing.RunFailed, Error: "azure: HTTP 503"}
	saveRun(t, db, failed, nil)

	cur, err := db.CurrentOffers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 1 || cur[0].USDPerHour != 98.32 {
		t.Errorf("after a failed run CurrentOffers = %+v, want the last good price", cur)
	}
	last, ok, err := db.LastGoodRun(ctx, "azure")
	if err != nil || !ok || !last.AsOf.Equal(t0) || last.Rows != 1 {
		t.Errorf("LastGoodRun = %+v, %v, %v; want the run at %v with 1 row", last, ok, err, t0)
	}
	if _, ok, _ := db.LastGoodRun(ctx, "gcp"); ok {
		t.Error("LastGoodRun found a run for a provider that never ran")
	}

	health, err := db.ProviderHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(health) != 1 {
		t.Fatalf("ProviderHealth = %+v, want one provider", health)
	}
	h := health[0]
	if h.Last.Status != pricing.RunFailed || h.Last.Error != "azure: HTTP 503" || h.LastGood == nil || !h.LastGood.AsOf.Equal(t0) {
		t.Errorf("ProviderHealth = %+v (last good %+v), want last failed and last good at t0", h, h.LastGood)
	}
	if !h.Stale(t0.Add(2 * time.Hour)) {
		t.Error("a provider whose last run failed is not stale")
	}
}

func TestSaveRunIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	// The same offer twice violates the observations key half-way
	// through the insert; nothing of the run may remain.
	o := offer("onprem", "a100-80", 1, pricing.MarketOnDemand, "dc1", "node", 0.9, t0)
	offers := make([]pricing.Offer, 0, 2*ingestBatch)
	for i := range ingestBatch + 10 {
		offers = append(offers, offer("onprem", "a100-80", 1, pricing.MarketOnDemand, "dc1", fmt.Sprintf("node-%d", i), 0.9, t0))
	}
	offers = append(offers, o, o)
	if _, err := db.SaveRun(ctx, okRun("onprem", t0, offers), offers); err == nil {
		t.Fatal("SaveRun stored a run with a duplicate offer")
	}
	var runs, obs, offs int
	for table, n := range map[string]*int{"price_runs": &runs, "observations": &obs, "offers": &offs} {
		if err := db.ro.QueryRow("SELECT count(*) FROM " + table).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	if runs+obs+offs != 0 {
		t.Errorf("after a failed SaveRun: %d runs, %d observations, %d offers; want none", runs, obs, offs)
	}
}

func TestSaveRunRefusesBadRuns(t *testing.T) {
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	good := offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, t0)
	zero := good
	zero.USDPerHour, zero.USDPerGPUHour = 0, 0
	for name, tc := range map[string]struct {
		run    pricing.Run
		offers []pricing.Offer
	}{
		"no provider":        {pricing.Run{Started: t0, AsOf: t0, Status: pricing.RunOK}, nil},
		"bad status":         {pricing.Run{Provider: "aws", Started: t0, AsOf: t0, Status: "maybe"}, nil},
		"failed with offers": {pricing.Run{Provider: "aws", Started: t0, AsOf: t0, Status: pricing.RunFailed}, []pricing.Offer{good}},
		"zero price":         {okRun("aws", t0, nil), []pricing.Offer{zero}},
		"no time":            {pricing.Run{Provider: "aws", Status: pricing.RunOK}, nil},
	} {
		if _, err := db.SaveRun(context.Background(), tc.run, tc.offers); err == nil {
			t.Errorf("%s: SaveRun accepted it", name)
		}
	}
}

func TestPriceSourceFallsBackToDefaultSheet(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	empty, err := db.PriceSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sheet, _ := pricing.DefaultSheet().GPUHourPrice("h100")
	if got, ok := empty.GPUHourPrice("h100"); !ok || got != sheet {
		t.Errorf("empty store: h100 = %+v, %v; want the default sheet's %+v", got, ok, sheet)
	}

	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	offers := []pricing.Offer{
		offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, t0),
		offer("aws", "h100", 8, pricing.MarketSpot, "us-east-1", "p5.48xlarge", 16.00, t0),
		offer("azure", "a10", 1.0/6, pricing.MarketOnDemand, "eastus", "Standard_NV6ads_A10_v5", 0.1, t0),
	}
	saveRun(t, db, okRun("aws", t0, offers[:2]), offers[:2])
	saveRun(t, db, okRun("azure", t0, offers[2:]), offers[2:])
	src, err := db.PriceSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := sizing.Price{USDPerGPUHour: 6.88, Provider: "aws", Market: "on_demand", Region: "us-east-1", AsOf: t0}
	if got, _ := src.GPUHourPrice("h100"); got != want {
		t.Errorf("h100 = %+v, want the store's on-demand %+v (spot never prices an answer)", got, want)
	}
	sheetA10, _ := pricing.DefaultSheet().GPUHourPrice("a10")
	if got, _ := src.GPUHourPrice("a10"); got != sheetA10 {
		t.Errorf("a10 = %+v, want the default sheet's %+v (a fractional slice is not a GPU-hour)", got, sheetA10)
	}
}

// TestCurrentOffersUsesIndexes keeps the hot reads off full scans of the
// observations table, which grows with every refresh.
func TestCurrentOffersUsesIndexes(t *testing.T) {
	skipOnPostgres(t) // about SQLite: its files, schema table or query planner
	db := openTest(t)
	for _, tc := range []struct {
		query string
		args  []any
		want  string
	}{
		{currentOffersQuery, nil, "SEARCH b USING PRIMARY KEY (run_id=?)"},
		{currentRuns, nil, "SEARCH price_runs USING COVERING INDEX price_runs_by_provider (provider=? AND status=?)"},
		{`SELECT ` + offerColumns + ` FROM price_runs r JOIN observations b ON b.run_id = r.id JOIN offers o ON o.id = b.offer_id
			WHERE r.status = 'ok' AND r.last_observed >= ? AND r.first_observed < ? AND b.observed_at >= ? AND b.observed_at < ?`,
			[]any{"a", "b", "a", "b"}, "SEARCH b USING PRIMARY KEY (run_id=?)"},
	} {
		plan := explain(t, db, tc.query, tc.args...)
		if !strings.Contains(plan, tc.want) {
			t.Errorf("query plan %q does not use %s", plan, tc.want)
		}
		if strings.Contains(plan, "SCAN price_runs") || strings.Contains(plan, "SCAN b") {
			t.Errorf("query plan %q scans a table that grows with every refresh", plan)
		}
	}
}

// BenchmarkIngest stores one run of 100,000 offers into a real SQLite file
// in one transaction: the offers rows and their observations.
func BenchmarkIngest(b *testing.B) {
	const n = 100_000
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	offers := make([]pricing.Offer, n)
	gpus := []string{"h100", "a100-80", "l40s", "rtx-4090", "l4"}
	for i := range offers {
		offers[i] = offer("bench", gpus[i%len(gpus)], 1, pricing.MarketOnDemand, fmt.Sprintf("region-%d", i%50),
			fmt.Sprintf("instance-%06d", i), 1+float64(i%1000)/100, at)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		db := openAt(b, filepath.Join(b.TempDir(), "bench.db"), nil, -1)
		b.StartTimer()
		if _, err := db.SaveRun(ctx, okRun("bench", at, offers), offers); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "offers/op")
}

func TestImportAndRefreshOfOneOfferShowTheNewer(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	backfill := []pricing.Offer{
		offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 98.32, t0.AddDate(0, -6, 0)),
		offer("onprem", "a100-80", 1, pricing.MarketOnDemand, "dc1", "", 0.9, t0.AddDate(0, -6, 0)),
	}
	live := []pricing.Offer{offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, t0)}
	saveRun(t, db, okRun("aws", t0, live), live)
	imp := okRun(pricing.ImportProvider("backfill.csv"), t0.AddDate(0, -6, 0), backfill)
	imp.Started = t0.Add(time.Hour) // imported after the refresh
	saveRun(t, db, imp, backfill)
	cur, err := db.CurrentOffers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range cur {
		got = append(got, fmt.Sprintf("%s %s %g", o.Provider, o.InstanceType, o.USDPerHour))
	}
	if diff := cmp.Diff([]string{"onprem  0.9", "aws p5.48xlarge 55.04"}, got); diff != "" {
		t.Errorf("current offers (-want +got):\n%s", diff)
	}
	hist, err := db.ObservationsBetween(ctx, t0.AddDate(-1, 0, 0), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || hist[0].USDPerHour != 98.32 && hist[1].USDPerHour != 98.32 {
		t.Errorf("history %+v, want both aws prices and the on-prem one", hist)
	}
}

// TestRefreshKeepsPricesOfAHangingProvider runs real fetchers against
// replayed payloads into a real database: when one provider hangs past
// the refresh timeout, the others land and its previous prices stay
// current.
func TestRefreshKeepsPricesOfAHangingProvider(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	var hang atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := "runpod/gputypes.json"
		if r.URL.Path == "/api/retail/prices" {
			if hang.Load() {
				<-r.Context().Done()
				return
			}
			file = "azure/westus2_1.json"
		}
		body, err := os.ReadFile(filepath.Join("..", "pricing", "testdata", file))
		if err != nil {
			t.Error(err)
		}
		w.Write(body)
	}))
	defer srv.Close()
	azure := pricing.NewAzure(srv.URL, srv.Client(), nil)
	azure.Regions = []string{"westus2"}
	r := &pricing.Refresher{
		Fetchers: []pricing.Fetcher{azure, pricing.NewRunPod(srv.URL, "", srv.Client(), nil)},
		Sink:     db,
		Timeout:  300 * time.Millisecond,
	}
	if _, err := r.Refresh(ctx); err != nil {
		t.Fatalf("first refresh: %v", err)
	}
	before, err := db.OffersForGPU(ctx, "h100")
	if err != nil {
		t.Fatal(err)
	}

	hang.Store(true)
	reports, err := r.Refresh(ctx)
	if err == nil || reports[0].Run.Status != pricing.RunFailed || !strings.Contains(reports[0].Run.Error, "gave up after 300ms") {
		t.Fatalf("second refresh: %v; azure %+v, want it failed on the timeout", err, reports[0].Run)
	}
	if reports[1].Run.Status != pricing.RunOK {
		t.Errorf("runpod did not land: %+v", reports[1].Run)
	}
	after, err := db.OffersForGPU(ctx, "h100")
	if err != nil {
		t.Fatal(err)
	}
	azureOf := func(offers []pricing.Offer) []pricing.Offer {
		var out []pricing.Offer
		for _, o := range offers {
			if o.Provider == "azure" {
				out = append(out, o)
			}
		}
		return out
	}
	if diff := cmp.Diff(azureOf(before), azureOf(after)); diff != "" || len(azureOf(after)) != 2 {
		t.Errorf("azure's h100 offers after it hung (-before +after):\n%s", diff)
	}
	health, err := db.ProviderHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range health {
		if stale := h.Stale(time.Now()); stale != (h.Provider == "azure") {
			t.Errorf("%s stale = %v", h.Provider, stale)
		}
	}
	var runs int
	if err := db.ro.QueryRow("SELECT count(*) FROM price_runs").Scan(&runs); err != nil || runs != 4 {
		t.Errorf("%d runs recorded, want 4 (two refreshes of two providers)", runs)
	}
}

// TestPublicationDatesRoundTrip: a feed's publication date is stored with
// each price and the run, read back with the current offers, and a
// provider whose feed stopped moving is reported stale even though its
// refresh just succeeded.
func TestPublicationDatesRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	frozen := time.Date(2024, 5, 13, 17, 0, 0, 0, time.UTC)
	spot := offer("aws", "h100", 8, pricing.MarketSpot, "us-east-1", "p5.48xlarge", 23.12, now)
	spot.PublishedAt = frozen
	od := offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, now)
	run := okRun("aws", now, []pricing.Offer{spot, od})
	run.PublishedAt = frozen
	saveRun(t, db, run, []pricing.Offer{spot, od})

	offers, err := db.CurrentOffers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[pricing.Market]time.Time{}
	for _, o := range offers {
		got[o.Market] = o.PublishedAt
	}
	if !got[pricing.MarketSpot].Equal(frozen) || !got[pricing.MarketOnDemand].IsZero() {
		t.Errorf("published dates read back %v, want spot %v and none on demand", got, frozen)
	}
	health, err := db.ProviderHealth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(health) != 1 || !health[0].LastGood.PublishedAt.Equal(frozen) || !health[0].Stale(now) {
		t.Errorf("health %+v: want aws stale with its feed published %v", health, frozen)
	}
}

// TestCatalogAndDirectPricesOfOneOffer: when AWS's own feed and gpuhunt's
// catalog price the same offer, the fresher price is current, judged by
// as-of time (a catalog fetched later but published earlier is older),
// and both stay in the history.
func TestCatalogAndDirectPricesOfOneOffer(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return t0.Add(3 * time.Hour) }
	direct := offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, t0.Add(time.Hour))
	saveRun(t, db, okRun("aws", t0.Add(time.Hour), []pricing.Offer{direct}), []pricing.Offer{direct})

	catalog := offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 49.54, t0.Add(2*time.Hour))
	catalog.PublishedAt = t0 // gpuhunt's run of an hour before the direct fetch
	catalog.Source = "gpuhunt catalog aws/20261130-6"
	run := okRun("gpuhunt:aws", t0.Add(2*time.Hour), []pricing.Offer{catalog})
	run.PublishedAt = t0
	saveRun(t, db, run, []pricing.Offer{catalog})

	cur, err := db.OffersForGPU(ctx, "h100")
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 1 || cur[0].USDPerHour != 55.04 {
		t.Fatalf("current %+v, want the direct feed's $55.04 (fresher as of)", cur)
	}

	// A newer catalog publication wins over the direct price.
	newer := catalog
	newer.ObservedAt, newer.PublishedAt = t0.Add(3*time.Hour), t0.Add(150*time.Minute)
	run = okRun("gpuhunt:aws", newer.ObservedAt, []pricing.Offer{newer})
	run.PublishedAt = newer.PublishedAt
	saveRun(t, db, run, []pricing.Offer{newer})
	if cur, _ = db.OffersForGPU(ctx, "h100"); len(cur) != 1 || cur[0].USDPerHour != 49.54 || cur[0].Source != catalog.Source {
		t.Fatalf("current %+v, want the newer catalog's $49.54", cur)
	}
	hist, err := db.ObservationsBetween(ctx, t0, t0.Add(4*time.Hour))
	if err != nil || len(hist) != 3 {
		t.Errorf("history has %d observations (%v), want all 3", len(hist), err)
	}
}

// TestPriceSourcePrefersFreshPrices: answers quote a fresh price over a
// cheaper stale one (a Vast median past its 8-hour limit), and the price
// they quote carries its as-of time.
func TestPriceSourcePrefersFreshPrices(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	vast := offer("vast", "a100-80", 1, pricing.MarketOnDemand, "all", "verified-median", 0.80, now.Add(-9*time.Hour))
	runpod := offer("runpod", "a100-80", 1, pricing.MarketOnDemand, "all", "NVIDIA A100-SXM4-80GB", 1.39, now.Add(-time.Hour))
	saveRun(t, db, okRun("vast", vast.ObservedAt, []pricing.Offer{vast}), []pricing.Offer{vast})
	saveRun(t, db, okRun("runpod", runpod.ObservedAt, []pricing.Offer{runpod}), []pricing.Offer{runpod})
	src, err := db.PriceSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := src.GPUHourPrice("a100-80")
	if !ok || p.Provider != "runpod" || p.USDPerGPUHour != 1.39 || !p.AsOf.Equal(runpod.ObservedAt) {
		t.Errorf("price %+v, want runpod's fresh $1.39", p)
	}
}
