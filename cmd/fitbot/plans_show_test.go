package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
)

// fakePrices is a price list by GPU id, every price from "fake" on one day.
type fakePrices map[string]float64

func (f fakePrices) GPUHourPrice(gpu string) (sizing.Price, bool) {
	usd, ok := f[gpu]
	return sizing.Price{USDPerGPUHour: usd, Provider: "fake", Market: "on_demand", AsOf: day(29, 0, 0)}, ok
}

// planToday is the plan today's estimator would save for question.
func planToday(t *testing.T, question string, prices sizing.PriceSource) store.Plan {
	t.Helper()
	parsed, err := reading.Parse(question)
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{Prices: prices}).Answer(parsed.Query)
	if err != nil {
		t.Fatal(err)
	}
	p := store.NewPlan(store.Who{Source: store.SourceCLI}, plan.FromAnswer(question, parsed.Query, a))
	p.ID, p.CreatedAt = 1, day(2, 9, 15)
	return p
}

func TestReanswerPlan(t *testing.T) {
	onlyT4 := fakePrices{"t4": 0.50}

	t.Run("nothing changed", func(t *testing.T) {
		p := planToday(t, "mistral 7b qlora t4", onlyT4)
		r := reanswerPlan(p, onlyT4)
		if r.Problem != "" || r.Now == nil {
			t.Fatalf("not re-answered: %s", r.Problem)
		}
		if len(r.Changes) != 0 || r.CheaperFit != nil {
			t.Errorf("changes %q, cheaper fit %+v; want none for a plan made with today's prices", r.Changes, r.CheaperFit)
		}
	})

	t.Run("price and verdict moved, a cheaper card priced", func(t *testing.T) {
		p := planToday(t, "mistral 7b qlora t4", nil) // no price then
		p.Fits, p.Headroom = false, string(sizing.HeadroomOver)
		today := fakePrices{"t4": 0.50, "rtx-3090": 0.20}
		r := reanswerPlan(p, today)
		if r.Now == nil {
			t.Fatalf("not re-answered: %s", r.Problem)
		}
		want := []string{
			"verdict: does not fit then, " + plan.Verdict(r.Now.Fits, string(r.Now.Headroom)) + " now",
			"cost per hour: no price then, $0.50 now",
		}
		if d := cmp.Diff(want, r.Changes); d != "" {
			t.Errorf("changes (-want +got):\n%s", d)
		}
		if r.CheaperFit == nil || r.CheaperFit.GPU != "rtx-3090" || !r.CheaperFit.Fits || *r.CheaperFit.USDPerHour != 0.20 {
			t.Errorf("cheaper fit = %+v, want the $0.20 RTX 3090", r.CheaperFit)
		}
	})

	t.Run("cost per hour then and now", func(t *testing.T) {
		p := planToday(t, "mistral 7b qlora t4", onlyT4)
		p.USDPerHour = new(0.80)
		r := reanswerPlan(p, onlyT4)
		if d := cmp.Diff([]string{"cost per hour: $0.80 then, $0.50 now (-38%)"}, r.Changes); d != "" {
			t.Errorf("changes (-want +got):\n%s", d)
		}
	})

	t.Run("config model", func(t *testing.T) {
		p := planToday(t, "mistral 7b qlora t4", onlyT4)
		p.ModelKey = "config:my-finetune"
		if r := reanswerPlan(p, onlyT4); r.Now != nil || !strings.Contains(r.Problem, "config.json") {
			t.Errorf("re-answered a config plan: %+v", r)
		}
	})

	t.Run("canonical text today's parser rejects", func(t *testing.T) {
		p := planToday(t, "mistral 7b qlora t4", onlyT4)
		p.Canonical = "mistral-7b-v0.1 qlora quantum-gpu-9000"
		if r := reanswerPlan(p, onlyT4); r.Now != nil || !strings.Contains(r.Problem, "no longer reads") {
			t.Errorf("problem = %q, want the parser's refusal", r.Problem)
		}
	})
}

// TestPlansShow runs `plans show` on a store with no prices of its own,
// so today's are the default sheet's: a plan
// saved at an old price shows then and now, a plan saved today shows
// nothing changed.
func TestPlansShow(t *testing.T) {
	path := useDB(t)
	old := planToday(t, "can we lora mistral 7b on a 4090?", pricing.DefaultSheet())
	old.ID, old.USDPerHour = 0, new(9.99)
	current := planToday(t, "llama 3.1 8b qlora l4", pricing.DefaultSheet())
	current.ID, current.CreatedAt = 0, time.Time{}
	seedPlans(t, path, old, current)

	code, out, errOut := runCmd(t, "plans", "show", "1")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	now := planToday(t, old.Question, pricing.DefaultSheet())
	if now.USDPerHour == nil {
		t.Fatal("the default sheet has no rtx-4090 price; the test needs one")
	}
	for _, want := range []string{
		"Plan 1, 2026-11-02 09:15 UTC, asked by cli\n",
		"  asked:     can we lora mistral 7b on a 4090?\n",
		"  canonical: fit mistral-7b-v0.1 lora rtx-4090\n",
		fmt.Sprintf("cost per hour: $9.99 then, %s now", usd(now.USDPerHour)),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCmd(t, "plans", "show", "#2")
	if code != exitOK || !strings.Contains(out, "Nothing changed") {
		t.Errorf("plans show #2: exit %d, want nothing changed:\n%s", code, out)
	}

	code, out, _ = runCmd(t, "plans", "show", "--json", "1")
	var r struct {
		Plan struct {
			ID         int64   `json:"id"`
			USDPerHour float64 `json:"usd_per_hour"`
		} `json:"plan"`
		Now        *sizing.Answer      `json:"now"`
		Problem    string              `json:"problem"`
		Changes    []string            `json:"changes"`
		CheaperFit *sizing.Alternative `json:"cheaper_fit"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if r.Plan.ID != 1 || r.Plan.USDPerHour != 9.99 || r.Now == nil || r.Now.Request.GPU != "rtx-4090" || len(r.Changes) == 0 {
		t.Errorf("plans show --json 1 = %+v", r)
	}
}

// TestPlansShowUsesStoredPrices: a price the store holds (a refresh or an
// import) beats the default sheet in today's answer.
func TestPlansShowUsesStoredPrices(t *testing.T) {
	path := useDB(t)
	p := planToday(t, "mistral 7b lora 4090", pricing.DefaultSheet())
	p.ID = 0
	seedPlans(t, path, p)

	observed := day(29, 6, 0)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SaveRun(context.Background(),
		pricing.Run{Provider: "negotiated", Started: observed, Finished: observed, AsOf: observed, Status: pricing.RunOK, Rows: 1},
		[]pricing.Offer{{Provider: "negotiated", InstanceType: "4090-box", GPU: "rtx-4090", GPUCount: 1,
			Market: pricing.MarketOnDemand, Region: "eu", USDPerHour: 0.11, USDPerGPUHour: 0.11, Source: "contract", ObservedAt: observed, Samples: 1}})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCmd(t, "plans", "show", "1")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "$0.11/h (negotiated, 2026-11-29)") {
		t.Errorf("today's price is not the stored one:\n%s", out)
	}
}
