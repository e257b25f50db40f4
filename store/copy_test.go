//go:build cgo

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/migrations"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// TestCopyToPostgres fills a SQLite database with a row of every kind,
// copies it into PostgreSQL, and reads it back there: the counts agree,
// the rows read the same, new ids continue after the copied ones, and a
// second copy into the now non-empty database is refused.
func TestCopyToPostgres(t *testing.T) {
	if testPostgres == "" {
		t.Skip("needs FITBOT_TEST_POSTGRES")
	}
	ctx := context.Background()
	src, err := open(ctx, filepath.Join(t.TempDir(), "fitbot.db"), options{migrations: migrations.FS, target: -1, now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	for i := range 3 {
		p := samplePlan("meta-llama/llama-3.1-8b", testNow.Add(time.Duration(i)*time.Minute))
		p.Fits = i%2 == 0
		if _, err := src.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	at := testNow.Add(-time.Hour)
	offers := []pricing.Offer{offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 55.04, at)}
	saveRun(t, src, okRun("aws", at, offers), offers)
	e := hub.Entry{Repo: "Qwen/Qwen3-14B", Revision: "8268fe3026cb304910457689366670e803a6fd56", FetchedAt: testNow,
		Config: []byte(`{"model_type":"qwen3"}`), Weights: sizing.HubWeights{ByDType: map[string]int64{"BF16": 14768307200}, Total: 14768307200}}
	if err := src.PutHubModel(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := src.RememberThread(ctx, "T1", "C1", "1700000000.000100", "8B lora h100"); err != nil {
		t.Fatal(err)
	}
	if err := src.SaveMachine(ctx, "T1", sizing.Machine{Name: "our box", GPU: "rtx-4090", GPUs: 2, Nodes: 1, Description: "2x rtx-4090"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.ClaimDigest(ctx, "C1", testNow.Add(-7*24*time.Hour), testNow, "a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := src.SeeEvent(ctx, "Ev1", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := src.SaveInstallation(ctx, Installation{EnterpriseID: "E1", EnterpriseInstall: true, AppID: "A1", BotUserID: "UB",
		BotToken: []byte{0, 1, 2}, RefreshToken: []byte{3}, Expires: testNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	dst := openPostgresTest(t)
	counts, err := src.CopyTo(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	filled := map[string]bool{}
	for _, c := range counts {
		filled[c.Table] = c.Source > 0
	}
	for _, table := range append(copyOrder, "slack_installations") {
		if !filled[table] {
			t.Errorf("table %s: nothing copied; the test should fill it", table)
		}
	}
	want, _ := src.Plan(ctx, AllPlans(), 2)
	got, err := dst.Plan(ctx, AllPlans(), 2)
	if err != nil || got.Question != want.Question || got.Fits != want.Fits || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("plan 2 copied as %+v (%v), want %+v", got, err, want)
	}
	if h, ok, err := dst.HubModel(ctx, "qwen/qwen3-14b"); !ok || err != nil || string(h.Config) != string(e.Config) {
		t.Errorf("hub model copied as %+v, %v, %v", h, ok, err)
	}
	if in, err := dst.FindInstallation(ctx, "E1", "T2"); err != nil || !in.EnterpriseInstall || string(in.BotToken) != "\x00\x01\x02" {
		t.Errorf("installation copied as %+v, %v", in, err)
	}
	cur, err := dst.CurrentOffers(ctx)
	if err != nil || len(cur) != 1 || cur[0].USDPerHour != 55.04 {
		t.Errorf("current offers after the copy: %v, %v", cur, err)
	}
	p := samplePlan("meta-llama/llama-3.1-8b", testNow)
	if id, err := dst.SavePlan(ctx, &p); err != nil || id != 4 {
		t.Errorf("first new plan after the copy: id %d, %v; want 4", id, err)
	}
	if _, err := src.CopyTo(ctx, dst); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("second copy = %v, want ErrNotEmpty", err)
	}
}
