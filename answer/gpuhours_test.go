package answer

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// fitText answers one question on the embedded price sheet.
func fitText(t *testing.T, text string) sizing.Answer {
	t.Helper()
	s := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	f, err := s.Fit(context.Background(), s.Read(text))
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return f.Answer
}

// TestGPUHoursBudgetCoversRun: a GPU-hours budget with a token count is
// answered first with whether it covers the run, whose GPU-hours are its
// hours × its GPUs ("2000 a100 gpu-hours" is never read as 2000 GPUs).
func TestGPUHoursBudgetCoversRun(t *testing.T) {
	a := fitText(t, "we got 2000 a100 gpu-hours from the university cluster, can we train a 1b model from scratch on 20b tokens with that?")
	if a.Request.GPUs != 1 || a.Request.GPU != "a100-80" || a.Request.GPUHours != 2000 {
		t.Fatalf("request %d× %s budget %v, want 1× a100-80 with 2000 GPU-hours", a.Request.GPUs, a.Request.GPU, a.Request.GPUHours)
	}
	g, h := a.GPUHours, a.Throughput.Hours
	if g == nil || g.Run == nil || h == nil || math.Abs(*g.Run-*h*float64(a.Request.GPUs)) > 1e-9 {
		t.Fatalf("gpu_hours %+v, want the run's hours %v × %d GPUs", g, h, a.Request.GPUs)
	}
	if *g.Run < 200 || *g.Run > 400 || g.Covers == nil || !*g.Covers {
		t.Errorf("run %v A100-hours covered %v, want 200-400 (6 × 1B × 20B FLOPs at A100 speed) and covered", *g.Run, g.Covers)
	}
	want := "✅ 2,000 A100-hours cover it: the run of 20B tokens takes about " + hoursCount(*g.Run) + " A100-hours (1× A100 SXM 80 GB for "
	if len(a.Targets) == 0 || !strings.HasPrefix(a.Targets[0], want) || !strings.HasSuffix(a.Targets[0], "% of the budget") {
		t.Errorf("targets %q, want first %q…%% of the budget", a.Targets, want)
	}
}

// TestGPUHoursBudgetBuysTokens: with no token count, a budget says how
// many tokens it trains at the answer's speed, and twice the budget
// trains twice the tokens.
func TestGPUHoursBudgetBuysTokens(t *testing.T) {
	a := fitText(t, "we have 500 gpu hours on a100 40gb, how many tokens can we pretrain for a 410m pythia model")
	b := fitText(t, "we have 1000 gpu hours on a100 40gb, how many tokens can we pretrain for a 410m pythia model")
	if a.GPUHours == nil || a.GPUHours.Tokens == nil || b.GPUHours == nil || b.GPUHours.Tokens == nil {
		t.Fatalf("gpu_hours %+v and %+v, want tokens bought", a.GPUHours, b.GPUHours)
	}
	tps := *a.Throughput.TokensPerSecond
	if want := 500 / sizing.RunHours(1, tps); math.Abs(*a.GPUHours.Tokens-want) > 1 {
		t.Errorf("500 GPU-hours train %v tokens, want %v at %v tokens/s", *a.GPUHours.Tokens, want, tps)
	}
	if r := *b.GPUHours.Tokens / *a.GPUHours.Tokens; math.Abs(r-2) > 1e-9 {
		t.Errorf("twice the budget trains %v× the tokens, want 2×", r)
	}
	if tok := *a.GPUHours.Tokens; tok < 60e9 || tok > 90e9 {
		t.Errorf("500 A100-hours train %v tokens of a 410M model, want about 75B", tok)
	}
	want := "500 A100-hours train about " + display.Count(*a.GPUHours.Tokens) + " tokens: 1× A100 SXM 40 GB for 20.8 days at "
	if len(a.Targets) == 0 || !strings.HasPrefix(a.Targets[0], want) {
		t.Errorf("targets %q, want first %q", a.Targets, want)
	}
}

// TestGPUHoursAsked: the run's GPU-hours asked are said first: its
// hours × its GPUs, on the fewest cards when they are named in the plural.
func TestGPUHoursAsked(t *testing.T) {
	for _, c := range []struct {
		text string
		gpus int
		unit string
	}{
		{"pretrain a 3b model from scratch on 60B tokens — how many a100 gpu hours is that roughly", 1, "A100-hours"},
		{"how many gpu hours to finetune llama 3 8b on 1b tokens on h100s", 2, "H100-hours"},
	} {
		a := fitText(t, c.text)
		g := a.GPUHours
		if g == nil || g.Run == nil || a.Request.GPUs != c.gpus || math.Abs(*g.Run-*a.Throughput.Hours*float64(c.gpus)) > 1e-9 {
			t.Fatalf("%q: %d GPUs, gpu_hours %+v, want %d × the run's hours", c.text, a.Request.GPUs, g, c.gpus)
		}
		want := "The run of " + display.Count(float64(a.Request.Tokens)) + " tokens takes about " + hoursCount(*g.Run) + " " + c.unit
		if len(a.Targets) == 0 || !strings.HasPrefix(a.Targets[0], want) {
			t.Errorf("%q: targets %q, want first %q", c.text, a.Targets, want)
		}
	}
}

// TestGPUHoursNeverDropped: a budget that does not cover the run says
// what it trains; serving and questions that run the other way round say
// they do not use it; a run with no token count says what 1B tokens take.
func TestGPUHoursNeverDropped(t *testing.T) {
	for text, want := range map[string]string{
		"pretrain a 3b model on 60b tokens on an a100 with 500 gpu hours": "❌ 500 A100-hours do not cover it: the run of 60B tokens takes about ",
		"serve llama 3 8b on a100 with 500 gpu hours":                     "500 A100-hours are not used to size serving: they keep 1× A100 SXM 80 GB running for 20.8 days",
		"how many gpu hours to lora llama 3 8b on h100":                   `GPU-hours not counted: no token count said (1B tokens take about `,
	} {
		a := fitText(t, text)
		if len(a.Targets) == 0 || !strings.HasPrefix(a.Targets[0], want) {
			t.Errorf("%q: targets %q, want first %q", text, a.Targets, want)
		}
	}
	s := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}, Asker: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	a, err := s.AskAnswer(context.Background(), s.Read("which gpu for 7b lora with 100 gpu hours"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(a.Targets, "\n"), "100 GPU-hours not checked") {
		t.Errorf("which-GPU targets %q, want the budget said not checked", a.Targets)
	}
}
