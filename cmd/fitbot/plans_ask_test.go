package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestInversePlans: `fitbot fit --save` keeps an answer to a question
// that runs the other way round as a plan of its kind; `plans` lists it,
// `plans largest` finds the largest-model plans that name no model, and
// `plans show` re-asks its canonical question, saying only whether the
// one-line answer changed.
func TestInversePlans(t *testing.T) {
	path := useDB(t)
	code, out, errOut := runCmd(t, "fit", "--save", "what", "2x4090", "lora")
	if code != exitOK || errOut != "" || !strings.Contains(out, "Largest models that fit") ||
		!strings.HasSuffix(out, "\nsaved as plan 1 (fitbot plans show 1 re-answers it later)\n") {
		t.Fatalf("fit --save (largest): exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	code, out, errOut = runCmd(t, "fit", "--json", "--save", "which gpu 13b lora on 1B tokens")
	var ask sizing.AskAnswer
	if err := json.Unmarshal([]byte(out), &ask); err != nil || code != exitOK || ask.WhichGPU == nil {
		t.Fatalf("fit --json --save (which gpu): exit %d, stdout is not one which-GPU answer (%v):\n%s", code, err, out)
	}
	if errOut != "saved as plan 2 (fitbot plans show 2 re-answers it later)\n" {
		t.Errorf("fit --json --save (which gpu): stderr %q", errOut)
	}

	_, out, _ = runCmd(t, "plans")
	if !strings.Contains(out, "largest: 2× RTX 4090 24 GB: LoRA up to") || !strings.Contains(out, "which-gpu: ") {
		t.Errorf("plans does not show the inverse plans by kind and answer:\n%s", out)
	}
	_, out, _ = runCmd(t, "plans", "largest")
	if !strings.Contains(out, "Plans for largest questions") || !strings.Contains(out, "what 2x4090 lora") || strings.Contains(out, "which gpu") {
		t.Errorf("plans largest:\n%s", out)
	}
	_, out, _ = runCmd(t, "plans", "13B")
	if !strings.Contains(out, "which gpu 13b lora on 1B tokens") {
		t.Errorf("plans 13B does not list the which-GPU plan that names 13B:\n%s", out)
	}

	code, out, errOut = runCmd(t, "plans", "show", "1")
	for _, want := range []string{"Plan 1 (largest question)", "canonical: fit what lora 2xrtx-4090", "then:      2× RTX 4090 24 GB: LoRA up to",
		"Asked again today:", "Largest models that fit", "Answer unchanged."} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("plans show 1: exit %d, stderr %q, no %q in:\n%s", code, errOut, want, out)
		}
	}

	code, out, _ = runCmd(t, "plans", "show", "--json", "2")
	var r struct {
		Plan    planOutput        `json:"plan"`
		Now     *sizing.Answer    `json:"now"`
		NowAsk  *sizing.AskAnswer `json:"now_ask"`
		Changes []string          `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("plans show --json 2: exit %d, %v:\n%s", code, err, out)
	}
	if r.Plan.Kind != plan.KindWhichGPU || r.Plan.Answer == "" || r.Now != nil || r.NowAsk == nil || r.NowAsk.WhichGPU == nil || len(r.Changes) != 0 {
		t.Errorf("plans show --json 2 = kind %q, answer %q, now %v, now_ask %v, changes %q", r.Plan.Kind, r.Plan.Answer, r.Now, r.NowAsk, r.Changes)
	}

	// A plan whose answer then differs from today's says so.
	seedPlans(t, path, store.Plan{Source: store.SourceCLI, Summary: plan.Summary{Kind: plan.KindContext,
		Question: "llama 3.1 8b l4 max context", Canonical: "llama-3.1-8b inference l4 max context",
		ModelKey: "llama-3.1-8b", Answer: "longest context 4,096 tokens (bound by memory)", GPU: "l4", GPUs: 1}})
	code, out, _ = runCmd(t, "plans", "show", "3")
	if code != exitOK || !strings.Contains(out, "Answer changed") || !strings.Contains(out, "longest context 4,096 tokens (bound by memory) then; longest context") {
		t.Errorf("plans show 3 (an answer that moved): exit %d:\n%s", code, out)
	}
	// A canonical question today's parser reads as a fit question is
	// not re-answered, and says why.
	seedPlans(t, path, store.Plan{Source: store.SourceCLI, Summary: plan.Summary{Kind: plan.KindLargest,
		Question: "13b lora 4090", Canonical: "13b lora rtx-4090", ModelKey: "ask:largest", Answer: "x"}})
	code, out, _ = runCmd(t, "plans", "show", "4")
	if code != exitOK || !strings.Contains(out, "Not re-answered: today's parser cannot read its question: it no longer reads as a largest question.") {
		t.Errorf("plans show 4 (no longer an inverse question): exit %d:\n%s", code, out)
	}
}
