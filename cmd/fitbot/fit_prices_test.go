package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
)

// TestFitFreshMachineWritesNothing: the README's first command on a
// machine with no database answers from the embedded default sheet and
// writes no file, neither at FITBOT_DB nor at the default path.
func TestFitFreshMachineWritesNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  bool
	}{{"FITBOT_DB set", true}, {"default path", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if tt.env {
				useDB(t)
			} else {
				t.Setenv("FITBOT_DB", "")
			}
			code, out, errOut := runCmd(t, "fit", "13B", "lora", "4090")
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			// The default sheet's RTX 4090 (pricing/data/default_prices.csv): RunPod
			// Community's of September, not TensorDock's of January, stale since.
			if !strings.Contains(out, "(price: runpod on-demand, 2026-09-25)") {
				t.Errorf("not priced from the default sheet:\n%s", out)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("fit wrote %v into the working directory", entries)
			}
			if path := os.Getenv("FITBOT_DB"); path != "" {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("fit created the database %s (stat: %v)", path, err)
				}
			}
		})
	}
}

// TestFitPricesFromStore: with a database, fit prices from the store's
// current prices (a negotiated $0.11 RTX 4090) and falls back to the
// default sheet for a card the store has no price for.
func TestFitPricesFromStore(t *testing.T) {
	path := useDB(t)
	observed := day(29, 6, 0)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SaveRun(context.Background(),
		pricing.Run{Provider: "negotiated", Started: observed, Finished: observed, AsOf: observed, Status: pricing.RunOK, Rows: 1},
		[]pricing.Offer{{Provider: "negotiated", InstanceType: "4090-box", GPU: "rtx-4090", GPUCount: 1,
			Market: pricing.MarketOnDemand, Region: "eu", USDPerHour: 0.11, USDPerGPUHour: 0.11, Source: "contract", ObservedAt: observed, Samples: 1}})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		question []string
		want     string
	}{
		{[]string{"fit", "13B", "lora", "4090"}, "$0.11/h (price: negotiated on-demand, 2026-11-29)"},
		{[]string{"fit", "13B", "lora", "l40s"}, "(price: "},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, tt.question...)
		if code != exitOK || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", tt.question, code, errOut)
		}
		if !strings.Contains(out, tt.want) {
			t.Errorf("%v: want %q in\n%s", tt.question, tt.want, out)
		}
		if strings.Contains(tt.want, "negotiated") {
			continue
		}
		if strings.Contains(out, "negotiated") || strings.Contains(out, "no price known") {
			t.Errorf("%v: the store has no L40S price; want the default sheet's:\n%s", tt.question, out)
		}
	}
}

// TestFitSpotPrices: `fitbot fit spot price for a100s` lists the spot
// offers of every A100 (the built-in sheet has them for the 40 GB and the
// 80 GB PCIe, none for the SXM 80 GB), cheapest first; a card without
// one says so first, and --json marks it (#31).
func TestFitSpotPrices(t *testing.T) {
	code, out, _ := runFit(t, "spot", "price", "for", "a100s")
	if code != exitOK || !strings.HasPrefix(out, "VARIANT") || strings.Contains(out, "on_demand") ||
		!strings.Contains(out, "A100 SXM 40 GB   0.40") || strings.Index(out, "A100 SXM 40 GB") > strings.Index(out, "A100 PCIe 80 GB") {
		t.Errorf("exit %d, want the A100s' spot offers, cheapest first:\n%s", code, out)
	}
	code, out, _ = runFit(t, "spot", "price", "for", "an", "l40s")
	if code != exitOK || !strings.HasPrefix(out, "I can't price spot for the L40S 48 GB: no spot offer known; on-demand shown.\n") {
		t.Errorf("exit %d, want the missing spot price said first:\n%s", code, out)
	}
	code, out, _ = runFit(t, "--json", "spot", "price", "for", "an", "l40s")
	var got struct {
		Spot   bool `json:"spot"`
		Prices []struct {
			NoSpotOffer bool `json:"no_spot_offer"`
			Offers      []struct {
				Market string `json:"market"`
			} `json:"offers"`
		} `json:"prices"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK || !got.Spot || len(got.Prices) != 1 || !got.Prices[0].NoSpotOffer || got.Prices[0].Offers[0].Market != "on_demand" {
		t.Errorf("--json: exit %d, %+v (%v):\n%s", code, got, err, out)
	}
}

// TestFitProviderPrices: `fitbot fit price of h100 on lambda vs runpod`
// lists the offers of the providers named only (the built-in sheet has
// both for the H100), and a provider without one is said first (#31).
func TestFitProviderPrices(t *testing.T) {
	code, out, _ := runFit(t, "price", "of", "h100", "on", "lambda", "vs", "runpod")
	if code != exitOK || !strings.Contains(out, "lambda ") || !strings.Contains(out, "runpod ") || strings.Contains(out, "aws ") || strings.Contains(out, "azure ") {
		t.Errorf("exit %d, want the lambda and runpod offers only:\n%s", code, out)
	}
	code, out, _ = runFit(t, "t4", "price", "on", "lambda")
	if code != exitOK || !strings.HasPrefix(out, "lambda has no price known for the T4 16 GB (") {
		t.Errorf("exit %d, want lambda's missing T4 price said first:\n%s", code, out)
	}
	code, out, _ = runFit(t, "h200", "price", "on", "lambda", "vs", "coreweave")
	if code != exitOK || strings.Contains(out, "No current offers") {
		t.Errorf("exit %d, want the providers' missing price said once, not contradicted:\n%s", code, out)
	}
}
