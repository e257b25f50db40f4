package digest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/measure"
	"github.com/fitbot/fitbot/plan"
	"github.com/google/go-cmp/cmp"
)

// digestEnd is the end of the fixture week: Monday 2026-11-30 09:00 UTC,
// when the default schedule posts.
var digestEnd = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// The fixtures' observation times: in the week before, and in the week.
var (
	lastWeek = digestEnd.Add(-10 * 24 * time.Hour) // Fri 2026-11-20
	thisWeek = digestEnd.Add(-3 * 24 * time.Hour)  // Fri 2026-11-27
)

func obs(provider, instance, gpu string, count float64, region string, market pricing.Market, tier string, perHour float64, at time.Time, samples int) pricing.Offer {
	return pricing.Offer{Provider: provider, InstanceType: instance, GPU: gpu, GPUCount: count, Region: region, Market: market, Tier: tier,
		USDPerHour: perHour, USDPerGPUHour: perHour / count, Source: "fixture", ObservedAt: at, Samples: samples}
}

// digestHistory is two weeks of prices built from the moves in
// pricing.md §0 and §5.2: AWS's p5.48xlarge cut ($98.32 → $55.04, −44%,
// in three regions at once) and p4d cut ($32.77 → $21.96, −33%), RunPod
// Secure H100 SXM $3.49 → $3.99 (+14%) and A100 SXM $1.59 → $1.79 (+13%),
// and the Vast H100 median $6.15 (n=3) → $2.40 (n=4), which has too few
// offers to report. Beside them: moves under the thresholds, an offer
// added and one removed, a source seen for the first time, and a Vast
// median with enough offers. quiet keeps this week's prices at last
// week's.
func digestHistory(quiet bool) []pricing.Offer {
	pick := func(old, new float64) float64 {
		if quiet {
			return old
		}
		return new
	}
	var h []pricing.Offer
	both := func(provider, instance, gpu string, count float64, region string, market pricing.Market, tier string, old, new float64, samples int) {
		h = append(h,
			obs(provider, instance, gpu, count, region, market, tier, old, lastWeek, samples),
			obs(provider, instance, gpu, count, region, market, tier, pick(old, new), thisWeek, samples))
	}
	for _, r := range []string{"us-east-1", "us-east-2", "us-west-2"} {
		both("aws", "p5.48xlarge", "h100", 8, r, pricing.MarketOnDemand, "", 98.32, 55.04, 1)
	}
	both("aws", "p5.48xlarge", "h100", 8, "eu-north-1", pricing.MarketOnDemand, "", 110.00, 110.00, 1)
	both("aws", "p4d.24xlarge", "a100-40", 8, "us-east-1", pricing.MarketOnDemand, "", 32.77, 21.96, 1)
	both("aws", "p5.48xlarge", "h100", 8, "us-east-1", pricing.MarketSpot, "", 30.10, 30.12, 1) // +0.07%: noise
	both("runpod", "NVIDIA H100 80GB HBM3", "h100", 1, "all", pricing.MarketOnDemand, "secure", 3.49, 3.99, 1)
	both("runpod", "NVIDIA H100 80GB HBM3", "h100", 1, "all", pricing.MarketOnDemand, "community", 2.69, 2.69, 1)
	both("runpod", "NVIDIA A100-SXM4-80GB", "a100-80", 1, "all", pricing.MarketOnDemand, "secure", 1.59, 1.79, 1)
	both("runpod", "NVIDIA GeForce RTX 4090", "rtx-4090", 1, "all", pricing.MarketOnDemand, "community", 0.34, 0.35, 1) // +2.9%, $0.01
	both("runpod", "NVIDIA GeForce RTX 3090", "rtx-3090", 1, "all", pricing.MarketOnDemand, "community", 0.22, 0.24, 1) // +9.1% but $0.02
	both("gcp", "g2-standard-4", "l4", 1, "us-central1", pricing.MarketOnDemand, "", 0.71, 0.74, 1)                     // +4.2%, $0.03
	both("lambda", "gpu_1x_h100_sxm5", "h100", 1, "us-east-1", pricing.MarketOnDemand, "", 4.29, 4.29, 1)
	// Vast: medians (and minimums, not compared) of many hosts' asks,
	// observed several times a week, the last with every other provider's
	// (a marketplace price a day older than the week's latest is stale).
	for i, p := range []struct{ old, oldMin, new, newMin float64 }{{6.10, 5.90, 2.35, 1.85}, {6.15, 5.95, 2.40, 1.90}, {6.20, 6.00, 2.45, 1.95}} {
		at := time.Duration(i-2) * 24 * time.Hour
		h = append(h,
			obs("vast", "verified-median", "h100", 1, "all", pricing.MarketOnDemand, "", p.old, lastWeek.Add(at), 3),
			obs("vast", "verified-min", "h100", 1, "all", pricing.MarketOnDemand, "", p.oldMin, lastWeek.Add(at), 3),
			obs("vast", "verified-median", "h100", 1, "all", pricing.MarketOnDemand, "", pick(p.old, p.new), thisWeek.Add(at), 4),
			obs("vast", "verified-min", "h100", 1, "all", pricing.MarketOnDemand, "", pick(p.oldMin, p.newMin), thisWeek.Add(at), 4),
			obs("vast", "verified-median", "a100-80", 1, "all", pricing.MarketOnDemand, "", 1.20+0.01*float64(i), lastWeek.Add(at), 12),
			obs("vast", "verified-median", "a100-80", 1, "all", pricing.MarketOnDemand, "", pick(1.20+0.01*float64(i), 0.98+0.01*float64(i)), thisWeek.Add(at), 9),
		)
	}
	if !quiet {
		// New on Lambda; gone from AWS eu-west-1; Nebius seen for the first time.
		h = append(h,
			obs("lambda", "gpu_1x_b200_sxm6", "b200", 1, "us-east-1", pricing.MarketOnDemand, "", 6.99, thisWeek, 1),
			obs("nebius", "gpu-h100-sxm", "h100", 1, "eu-north1", pricing.MarketOnDemand, "", 3.85, thisWeek, 1))
	}
	h = append(h, obs("aws", "p5en.48xlarge", "h200", 8, "eu-west-1", pricing.MarketOnDemand, "", 63.296, lastWeek, 1))
	if quiet {
		h = append(h, obs("aws", "p5en.48xlarge", "h200", 8, "eu-west-1", pricing.MarketOnDemand, "", 63.296, thisWeek, 1))
	}
	return h
}

// digestRuns are the refresh runs of the two weeks: AWS, RunPod, Lambda
// and Vast fine; GCP failing since Nov 25; Azure's last run rejected;
// an imported sheet, which is not a source.
func digestRuns() []pricing.Run {
	day := 24 * time.Hour
	run := func(p string, at time.Time, s pricing.RunStatus, e string) pricing.Run {
		return pricing.Run{Provider: p, Started: at, Finished: at.Add(time.Minute), AsOf: at, Status: s, Error: e}
	}
	var rs []pricing.Run
	for i := range 14 {
		at := digestEnd.Add(-time.Duration(14-i) * day)
		rs = append(rs, run("aws", at, pricing.RunOK, ""), run("runpod", at, pricing.RunOK, ""), run("lambda", at, pricing.RunOK, ""), run("vast", at, pricing.RunOK, ""))
		gcp := pricing.RunOK
		if at.After(digestEnd.Add(-5 * day)) {
			gcp = pricing.RunFailed
		}
		rs = append(rs, run("gcp", at, gcp, "gcp: GET cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus: 403 Forbidden"))
	}
	rs = append(rs,
		run("azure", digestEnd.Add(-4*day), pricing.RunOK, ""),
		run("azure", digestEnd.Add(-2*day), pricing.RunRejected, "azure: 12 offers, fewer than half of the last good run's 310"),
		run("nebius", digestEnd.Add(-3*day), pricing.RunOK, ""),
		run(pricing.ImportProvider("negotiated.csv"), digestEnd.Add(-6*day), pricing.RunFailed, "line 3: bad price"))
	for i := range rs {
		if rs[i].Status == pricing.RunOK {
			rs[i].Error = ""
		}
	}
	return rs
}

// digestPlans are the team's plans: two asks of one 70B QLoRA question,
// a full fine-tune on eight H100s, a LoRA that does not fit a 4090, and
// one from before the 90-day window.
func digestPlans() []Plan {
	day := 24 * time.Hour
	return []Plan{
		{ID: 41, CreatedAt: digestEnd.Add(-2 * day), Summary: plan.Summary{Question: "can we qlora llama 3.1 70b on two a100s, 1B tokens", Canonical: "llama-3.1-70b qlora 2xa100-80 1b tokens",
			GPU: "a100-80", GPUs: 2, Fits: true, USDPerHour: new(2.42)}},
		{ID: 30, CreatedAt: digestEnd.Add(-20 * day), Summary: plan.Summary{Question: "llama 3.1 70b qlora 2 a100 1B tokens", Canonical: "llama-3.1-70b qlora 2xa100-80 1b tokens",
			GPU: "a100-80", GPUs: 2, Fits: true, USDPerHour: new(2.42)}},
		{ID: 38, CreatedAt: digestEnd.Add(-9 * day), Summary: plan.Summary{Question: "mistral 7b full 8 h100 300M tokens", Canonical: "mistral-7b-v0.1 full 8xh100 300m tokens",
			GPU: "h100", GPUs: 8, Fits: true, USDPerHour: new(21.52)}},
		{ID: 22, CreatedAt: digestEnd.Add(-40 * day), Summary: plan.Summary{Question: "/fit 13B lora 4090", Canonical: "13b lora rtx-4090",
			GPU: "rtx-4090", GPUs: 1, Fits: false, USDPerHour: new(0.34)}},
		{ID: 3, CreatedAt: digestEnd.Add(-120 * day), Summary: plan.Summary{Question: "llama 3.1 8b inference l4", Canonical: "llama-3.1-8b inference l4",
			GPU: "l4", GPUs: 1, Fits: true, USDPerHour: new(0.71)}},
	}
}

func digestInput(quiet bool) Input {
	return Input{WeekEnd: digestEnd, Observations: digestHistory(quiet), Runs: digestRuns(), Plans: digestPlans(), Fallback: pricing.DefaultSheet()}
}

// TestDigestGolden pins the digest model of a busy week and a quiet one.
// Run `go test ./pricing -run DigestGolden -update` after an intended
// change and review the diff.
func TestDigestGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		quiet bool
	}{{"week", false}, {"quiet", true}} {
		t.Run(tt.name, func(t *testing.T) {
			d := Build(digestInput(tt.quiet), DefaultConfig())
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(d); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "digest", tt.name+".json"), got.Bytes())
		})
	}
}

// TestDigestMoves checks the moves the busy week must and must not
// report, with the figures from pricing.md.
func TestDigestMoves(t *testing.T) {
	d := Build(digestInput(false), DefaultConfig())
	type row struct {
		GPU, Provider, Tier, Instance string
		Old, New, Pct                 float64
		Regions                       int
	}
	var got []row
	for _, m := range d.Moves {
		got = append(got, row{m.GPU, m.Provider, m.Tier, m.InstanceType, m.OldUSDPerGPUHour, m.NewUSDPerGPUHour, m.ChangePct, len(m.Regions)})
	}
	want := []row{
		{"h100", "aws", "", "p5.48xlarge", 12.29, 6.88, -44.0, 3},        // $98.32 → $55.04 per 8 GPUs
		{"a100-40", "aws", "", "p4d.24xlarge", 4.09625, 2.745, -33.0, 1}, // $32.77 → $21.96
		{"h100", "runpod", "secure", "NVIDIA H100 80GB HBM3", 3.49, 3.99, 14.3, 1},
		{"a100-80", "vast", "", "verified-median", 1.21, 0.99, -18.2, 1}, // medians of n=12 and n=9
		{"a100-80", "runpod", "secure", "NVIDIA A100-SXM4-80GB", 1.59, 1.79, 12.6, 1},
	}
	if diff := cmp.Diff(want, got, cmpPrices); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
	if d.ThinSkipped != 1 {
		t.Errorf("ThinSkipped = %d, want 1 (the Vast H100 median of 3 then 4 offers)", d.ThinSkipped)
	}
	if d.Quiet {
		t.Error("Quiet = true for a week with moves")
	}
	if got, want := d.NewSources, []string{"nebius"}; !cmp.Equal(got, want) {
		t.Errorf("NewSources = %v, want %v", got, want)
	}
	if len(d.NewOffers) != 1 || d.NewOffers[0].GPU != "b200" || len(d.RemovedOffers) != 1 || d.RemovedOffers[0].InstanceType != "p5en.48xlarge" {
		t.Errorf("new %+v, removed %+v; want the Lambda B200 new and the p5en.48xlarge removed", d.NewOffers, d.RemovedOffers)
	}
}

// TestDigestQuiet checks that a week without changes says so in its
// headline, quoting the GPU the team's plans use most, and lists nothing.
func TestDigestQuiet(t *testing.T) {
	d := Build(digestInput(true), DefaultConfig())
	if !d.Quiet || len(d.Moves)+len(d.NewOffers)+len(d.RemovedOffers) != 0 {
		t.Fatalf("quiet week: Quiet %v, %d moves, %d new, %d removed", d.Quiet, len(d.Moves), len(d.NewOffers), len(d.RemovedOffers))
	}
	if !strings.HasPrefix(d.Headline, "No notable GPU price changes this week · cheapest A100 SXM 80 GB now $1.21/GPU-h (vast)") {
		t.Errorf("Headline = %q", d.Headline)
	}
}

// TestDigestThresholds checks each noise control on one offer's two
// weeks.
func TestDigestThresholds(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name     string
		provider string
		old, new float64
		samples  [2]int
		want     bool
	}{
		{"both thresholds met", "aws", 2.00, 2.20, [2]int{1, 1}, true},
		{"exactly 5% and $0.05", "aws", 1.00, 1.05, [2]int{1, 1}, true},
		{"5% but under $0.05", "aws", 0.40, 0.42, [2]int{1, 1}, false},
		{"$0.10 but under 5%", "aws", 4.00, 4.10, [2]int{1, 1}, false},
		{"a cut counts like a rise", "aws", 2.20, 2.00, [2]int{1, 1}, true},
		{"marketplace with enough offers", "vast", 2.00, 2.50, [2]int{5, 7}, true},
		{"marketplace thin last week", "vast", 6.15, 2.40, [2]int{3, 9}, false},
		{"marketplace thin this week", "vast", 6.15, 2.40, [2]int{9, 4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{WeekEnd: digestEnd, Observations: []pricing.Offer{
				obs(tt.provider, "verified-median", "h100", 1, "all", pricing.MarketOnDemand, "", tt.old, lastWeek, tt.samples[0]),
				obs(tt.provider, "verified-median", "h100", 1, "all", pricing.MarketOnDemand, "", tt.new, thisWeek, tt.samples[1]),
			}}
			d := Build(in, cfg)
			if got := len(d.Moves) == 1; got != tt.want {
				t.Errorf("reported = %v, want %v (moves %+v)", got, tt.want, d.Moves)
			}
		})
	}
}

// TestDigestWeekBounds checks that observations outside the two weeks,
// and a provider that did not refresh this week, list nothing as removed.
func TestDigestWeekBounds(t *testing.T) {
	in := Input{WeekEnd: digestEnd, Observations: []pricing.Offer{
		obs("aws", "p4d.24xlarge", "a100-40", 8, "us-east-1", pricing.MarketOnDemand, "", 32.77, digestEnd.Add(-15*24*time.Hour), 1), // too old
		obs("aws", "p4d.24xlarge", "a100-40", 8, "us-east-1", pricing.MarketOnDemand, "", 21.96, digestEnd, 1),                       // next week
		obs("gcp", "a2-highgpu-1g", "a100-40", 1, "us-central1", pricing.MarketOnDemand, "", 3.67, lastWeek, 1),                      // gcp silent this week
	}}
	d := Build(in, DefaultConfig())
	if len(d.Moves)+len(d.NewOffers)+len(d.RemovedOffers) != 0 {
		t.Errorf("moves %+v, new %+v, removed %+v; want none", d.Moves, d.NewOffers, d.RemovedOffers)
	}
	if len(d.Cheapest) != 1 || d.Cheapest[0].Now != nil || d.Cheapest[0].WeekAgo == nil {
		t.Errorf("Cheapest = %+v, want the gcp A100 a week ago only", d.Cheapest)
	}
}

// TestDigestSourceHealth checks which sources the digest calls stale or
// failing, and why.
func TestDigestSourceHealth(t *testing.T) {
	d := Build(Input{WeekEnd: digestEnd, Runs: digestRuns()}, DefaultConfig())
	var got []string
	for _, h := range d.StaleSources {
		got = append(got, h.Provider+": "+h.Reason)
	}
	want := []string{
		"azure: last refresh rejected; prices from Nov 26 09:00 UTC",
		"gcp: last refresh failed; prices from Nov 25 09:00 UTC",
		"nebius: no refresh since Nov 27 09:00 UTC",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stale sources (-want +got):\n%s", diff)
	}
	if d.Sources != 7 {
		t.Errorf("Sources = %d, want 7 (the import is not a source)", d.Sources)
	}
	if g := d.StaleSources[1]; g.FailedRuns != 4 || g.Runs != 7 {
		t.Errorf("gcp runs %d, failed %d; want 7 and 4", g.Runs, g.FailedRuns)
	}
}

// FuzzBuildDigest feeds arbitrary two-week histories to the digest and
// checks its promises: no panic, every move passes both thresholds and
// is sorted by the size of its change, no offer is both moved and new.
func FuzzBuildDigest(f *testing.F) {
	f.Add([]byte{10, 20, 30, 200, 5, 7, 1, 9, 100, 3})
	f.Add([]byte{255, 0, 128, 64, 32, 16, 8, 4, 2, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		gpus := []string{"h100", "a100-80", "rtx-4090"}
		providers := []string{"aws", "vast", "runpod"}
		var h []pricing.Offer
		for i := 0; i+2 < len(data); i += 3 {
			at := lastWeek
			if data[i]&1 == 1 {
				at = thisWeek
			}
			price := 0.05 + float64(data[i+1])/16
			count := float64(1 + data[i+2]%8)
			h = append(h, obs(providers[data[i]>>1%3], "sku", gpus[data[i+2]>>3%3], count, "r", pricing.MarketOnDemand, "", price*count, at, int(data[i+2]%9)))
		}
		cfg := DefaultConfig()
		d := Build(Input{WeekEnd: digestEnd, Observations: h}, cfg)
		for i, m := range d.Moves {
			if abs(m.ChangePct) < cfg.MinChangePct-0.05 || abs(m.ChangeUSD) < cfg.MinChangeUSD-1e-6 {
				t.Errorf("move under the thresholds: %+v", m)
			}
			if i > 0 && abs(m.ChangeUSD) > abs(d.Moves[i-1].ChangeUSD) {
				t.Errorf("moves not sorted by |change|: %v after %v", m.ChangeUSD, d.Moves[i-1].ChangeUSD)
			}
			for _, n := range d.NewOffers {
				if n.GPU == m.GPU && n.Provider == m.Provider && n.InstanceType == m.InstanceType && n.GPUCount == m.GPUCount {
					t.Errorf("offer both moved and new: %+v", m)
				}
			}
		}
	})
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// BenchmarkBuildDigest builds the digest of a large fleet's two weeks:
// 1,000 list-price offers refreshed every six hours and 60 marketplace
// rows hourly (76,160 observations), the fixture's refresh runs and 50
// distinct plans, re-priced with the estimator.
func BenchmarkBuildDigest(b *testing.B) {
	gpus := []string{"h100", "h200", "b200", "a100-80", "a100-40", "l40s", "l4", "a10g", "rtx-4090", "rtx-3090"}
	var h []pricing.Offer
	for step := range 14 * 4 {
		at := digestEnd.Add(-14*24*time.Hour + time.Duration(step)*6*time.Hour)
		for i := range 1000 {
			price := 1 + float64(i%37) + 0.01*float64(step/28)
			h = append(h, obs([]string{"aws", "azure", "gcp", "lambda"}[i%4], fmt.Sprintf("sku-%d", i/40), gpus[i%len(gpus)], 8, fmt.Sprintf("region-%d", i%40),
				pricing.MarketOnDemand, "", price*8, at, 1))
		}
	}
	for hour := range 14 * 24 {
		at := digestEnd.Add(-14*24*time.Hour + time.Duration(hour)*time.Hour)
		for i := range 60 {
			h = append(h, obs("vast", []string{"verified-median", "verified-min"}[i%2], gpus[i/2%len(gpus)], 1, "all", pricing.MarketOnDemand, "", 1+float64(i%7)/10, at, 3+i%9))
		}
	}
	var plans []Plan
	for i := range 50 {
		plans = append(plans, Plan{ID: int64(i), CreatedAt: digestEnd.Add(-time.Duration(i) * 24 * time.Hour),
			Summary: plan.Summary{Question: "q", Canonical: fmt.Sprintf("llama-3.1-8b lora %dxh100", 1+i%8), GPU: "h100", GPUs: 1 + i%8, USDPerHour: new(2.69)}})
	}
	in := Input{WeekEnd: digestEnd, Observations: h, Runs: digestRuns(), Plans: plans, Fallback: pricing.DefaultSheet()}
	for b.Loop() {
		Build(in, DefaultConfig())
	}
}

// TestDigestCheapestSkipsStalePrices: the digest's cheapest table judges
// freshness at the week's latest observation; a RunPod price last seen
// three days before it (its refresh broke) is stale for a marketplace
// and does not beat Lambda's fresh list price, though it is cheaper.
func TestDigestCheapestSkipsStalePrices(t *testing.T) {
	latest := digestEnd.Add(-time.Hour)
	in := Input{WeekEnd: digestEnd, Observations: []pricing.Offer{
		obs("runpod", "NVIDIA H100 80GB HBM3", "h100", 1, "all", pricing.MarketOnDemand, "community", 2.69, latest.Add(-72*time.Hour), 1),
		obs("lambda", "gpu_1x_h100_sxm5", "h100", 1, "us-east-1", pricing.MarketOnDemand, "", 4.29, latest, 1),
	}}
	d := Build(in, DefaultConfig())
	if len(d.Cheapest) != 1 || d.Cheapest[0].Now == nil || d.Cheapest[0].Now.Provider != "lambda" {
		t.Fatalf("cheapest %+v, want lambda's fresh H100", d.Cheapest)
	}
}

// TestDigestReportsAFrozenFeed: a source that refreshes fine every day but
// whose own publication date stopped moving is a stale source in the
// digest, with the date it froze.
func TestDigestReportsAFrozenFeed(t *testing.T) {
	frozen := time.Date(2024, 5, 13, 17, 0, 0, 0, time.UTC)
	var runs []pricing.Run
	for i := range 7 {
		at := digestEnd.Add(-time.Duration(7-i) * 24 * time.Hour)
		runs = append(runs, pricing.Run{Provider: "aws", Started: at, Finished: at.Add(time.Minute), AsOf: at, Status: pricing.RunOK, PublishedAt: frozen},
			pricing.Run{Provider: "vast", Started: at, Finished: at.Add(time.Minute), AsOf: at, Status: pricing.RunOK})
	}
	d := Build(Input{WeekEnd: digestEnd, Runs: runs}, DefaultConfig())
	if len(d.StaleSources) != 1 || d.StaleSources[0].Provider != "aws" || !strings.Contains(d.StaleSources[0].Reason, "published nothing new since May 13 2024") {
		t.Errorf("stale sources %+v, want aws with its frozen feed", d.StaleSources)
	}
}

// TestDigestListsMeasuredRunsFarOff: a run recorded in the week more
// than 15% from fitbot's figure is listed, and makes the week not quiet;
// one within 15% is not.
func TestDigestListsMeasuredRunsFarOff(t *testing.T) {
	gib := int64(1 << 30)
	in := Input{WeekEnd: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Measured: []measure.Pair{
		{PlanID: 12, Method: "lora", GPU: "a100-80", Params: 8e9,
			Predicted: measure.Run{PeakBytes: 30 * gib}, Measured: measure.Run{PeakBytes: 36 * gib}},
		{PlanID: 13, Method: "lora", GPU: "a100-80", Params: 8e9,
			Predicted: measure.Run{PeakBytes: 30 * gib}, Measured: measure.Run{PeakBytes: 31 * gib}},
	}}
	d := Build(in, DefaultConfig())
	if len(d.MeasuredOff) != 1 || d.MeasuredOff[0].PlanID != 12 || d.Quiet {
		t.Errorf("measured off %+v, quiet %v; want plan 12 only, not quiet", d.MeasuredOff, d.Quiet)
	}
}
