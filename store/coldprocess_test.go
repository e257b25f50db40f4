package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
)

// storeSize is how much one benchmark store holds.
type storeSize struct {
	name                           string
	observations, plans, hubModels int
}

// The small store is one refresh of the benchmark's providers, a few
// plans and cached models; the large one a year and more of refreshes.
var (
	smallStore = storeSize{"small", 2 * scaleProviders * scaleOffersPerRun, 30, 50}
	largeStore = storeSize{"large", 1_000_000, 3_000, 5_000}
)

// coldCommands are the commands BenchmarkColdProcess runs, each as a
// fresh process.
var coldCommands = [][]string{
	{"prices", "a100"},
	{"prices"},
	{"models"},
	{"plans", "llama", "3.1", "8b"},
}

// BenchmarkColdProcess runs each of coldCommands as a new fitbot
// process (built from ../cmd/fitbot) against a small store and a large
// one (1M price observations, 3,000 plans, 5,000 cached Hub models): the
// whole process, opening and closing the store included, should take
// about as long on both. BENCHMARKS.md has the figures.
//
//	go test ./store -run '^$' -bench ColdProcess -benchtime 10x
func BenchmarkColdProcess(b *testing.B) {
	skipOnPostgres(b)
	bin := filepath.Join(b.TempDir(), "fitbot")
	build := exec.Command("go", "build", "-o", bin, "../cmd/fitbot")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	paths := map[string]string{}
	for _, size := range []storeSize{smallStore, largeStore} {
		start := time.Now()
		paths[size.name] = buildColdStore(b, size)
		b.Logf("built the %s store (%d observations, %d plans, %d Hub models) in %v", size.name,
			size.observations, size.plans, size.hubModels, time.Since(start).Round(time.Millisecond))
	}
	for _, args := range coldCommands {
		for _, size := range []storeSize{smallStore, largeStore} {
			b.Run(fmt.Sprintf("%s/%s", filepath.Join(args...), size.name), func(b *testing.B) {
				for b.Loop() {
					cmd := exec.Command(bin, args...)
					cmd.Env = []string{"FITBOT_DB=" + paths[size.name], "HOME=" + b.TempDir(), "HF_ENDPOINT=http://127.0.0.1:1", "PATH=" + os.Getenv("PATH")}
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("fitbot %v: %v\n%s", args, err, out)
					}
				}
			})
		}
	}
}

// buildColdStore writes a store of size and closes it, returning its path.
func buildColdStore(b *testing.B, size storeSize) string {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "fitbot.db")
	db := openAt(b, path, nil, -1)
	if err := fillPrices(ctx, db, size.observations); err != nil {
		b.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join("..", "hub", "testdata", "config_qwen3-1.7b.json"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range size.hubModels {
		e := hub.Entry{Repo: fmt.Sprintf("org-%d/Model-%d-1.7B", i, i), Revision: fmt.Sprintf("%040x", i), FetchedAt: testNow.Add(-time.Duration(i) * time.Minute),
			Config: config, Weights: sizing.HubWeights{ByDType: map[string]int64{"BF16": 2_031_739_904}, Total: 2_031_739_904}}
		if err := db.PutHubModel(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	models := sizing.Models()
	usd := 2.69
	for i := range size.plans {
		m := models[i%30]
		p := &Plan{Source: SourceCLI, CreatedAt: testNow.Add(-time.Duration(i) * time.Minute), Summary: plan.Summary{
			Question: m.ID + " lora h100", Canonical: m.ID + " lora h100", ModelKey: m.ID, Kind: plan.KindFit,
			Fits: true, Headroom: "comfortable", GPU: "h100", GPUs: 1, PerGPUBytes: 40 << 30, USDPerHour: &usd, PriceProvider: "runpod"}}
		if i%30 == 0 {
			p.ModelKey, p.Question, p.Canonical = "llama-3.1-8b", "llama 3.1 8b lora h100", "llama-3.1-8b lora h100"
		}
		if _, err := db.SavePlan(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
