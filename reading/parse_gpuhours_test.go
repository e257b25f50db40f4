package reading

import (
	"math"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseGPUHours: GPU-hours as people say them are a budget, never a
// count of GPUs ("2000 a100 gpu-hours" is no 2000 A100s answered in "7
// min"), or the run's GPU-hours asked; the card in them is
// the card named; and the canonical form reads back the same.
func TestParseGPUHours(t *testing.T) {
	for _, c := range []struct {
		in     string
		budget float64
		asked  bool
		gpu    string
		gpus   int
		tokens int64
	}{
		{"we got 2000 a100 gpu-hours from the university cluster, can we train a 1b model from scratch on 20b tokens with that?", 2000, false, "a100-80", 0, 20e9},
		{"we have 500 gpu hours on a100 40gb, how many tokens can we pretrain for a 410m pythia model", 500, false, "a100-40", 0, 0},
		{"pretrain a 3b model from scratch on 60B tokens — how many a100 gpu hours is that roughly", 0, true, "a100-80", 0, 60e9},
		{"how many gpu hours to finetune llama 3 8b on 1b tokens on h100s", 0, true, "h100", 0, 1e9},
		{"1b full on 2000 gpu-hours", 2000, false, "", 0, 0},
		{"1b full 2,000 gpu-hours", 2000, false, "", 0, 0},
		{"1b full 2k gpu hrs a100", 2000, false, "a100-80", 0, 0},
		{"1b full 1.5k GPU-h on h100", 1500, false, "h100", 0, 0},
		{"1b full 100 gpu h on h100", 100, false, "h100", 0, 0},
		{"1b full 800 h100-hours", 800, false, "h100", 0, 0},
		{"1b full 500 h100 hours", 500, false, "h100", 0, 0},
		{"1b full 500 a100 40gb gpu hours", 500, false, "a100-40", 0, 0},
		{"1b full 300 node-hours of h100", 2400, false, "h100", 0, 0},
		{"1b full on 2 nodes of 4 a100 with 30 node hours", 120, false, "a100-80", 8, 0},
		{"1b full 300 node-hours", 2400, false, "", 0, 0},
		{"1b full on 8 h100 with 1000 gpu hours", 1000, false, "h100", 8, 0},
		{"7b lora on a100 in gpu-hours", 0, true, "a100-80", 0, 0},
		{"how many h100-hours for 7b lora on 1b tokens", 0, true, "h100", 0, 1e9},
		// Not GPU-hours: a run's length, a price's unit.
		{"train 7b on 8 h100 for 48 hours on 10b tokens", 0, false, "h100", 8, 10e9},
		{"13b lora 4090 at $0.5 per gpu hour", 0, false, "rtx-4090", 0, 0},
		{"13b lora 4090 at $0.5/gpu-hour", 0, false, "rtx-4090", 0, 0},
		{"13b lora 4090, a gpu hour costs $0.5", 0, false, "rtx-4090", 0, 0},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		q := p.Query
		if q.GPUHours != c.budget || q.GPUHoursAsked != c.asked || q.GPU != c.gpu || q.GPUs != c.gpus || q.Tokens != c.tokens {
			t.Errorf("Parse(%q) = budget %v asked %v gpu %q×%d tokens %d, want %v %v %q×%d %d",
				c.in, q.GPUHours, q.GPUHoursAsked, q.GPU, q.GPUs, q.Tokens, c.budget, c.asked, c.gpu, c.gpus, c.tokens)
		}
		// GPU-hours on a card with no count are counted on the fewest of it
		// that fit (never one offloading card's), as cards in
		// the plural are; a count said stands.
		training := q.Method != "" && q.Method != sizing.MethodInference
		gpuHours := q.GPUHours > 0 || q.GPUHoursAsked
		if fewest := strings.Contains(c.in, "h100s") || gpuHours && training && q.GPU != "" && q.GPUs == 0 && q.Nodes == 0; q.Fewest != fewest {
			t.Errorf("Parse(%q): fewest %v, want %v", c.in, q.Fewest, fewest)
		}
		canon := sizing.Format(q)
		again, err := Parse(canon)
		if err != nil || again.Query.GPUHours != q.GPUHours || again.Query.GPUHoursAsked != q.GPUHoursAsked {
			t.Errorf("Parse(Format(%q)) = Parse(%q) = %v %v (%v), want %v %v", c.in, canon, again.Query.GPUHours, again.Query.GPUHoursAsked, err, q.GPUHours, q.GPUHoursAsked)
		}
	}
}

// TestParseGPUHoursNoted: node-hours say the GPUs per node they count,
// and the budget's words are the field's.
func TestParseGPUHoursNoted(t *testing.T) {
	p, err := Parse("1b full 300 node-hours of h100")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), `"300 node-hours" taken as 2400 GPU-hours: 8 GPUs per node`) {
		t.Errorf("notes %q, want the node-hours counted in GPUs said", p.Notes)
	}
	found := false
	for _, f := range p.Fields {
		if f.Name == "gpu_hours" {
			found = f.Value == "2400" && f.Words == "300 node-hours"
		}
	}
	if !found {
		t.Errorf("fields %+v, want gpu_hours 2400 from \"300 node-hours\"", p.Fields)
	}
}

// TestParseGPUHoursRefused: a budget that cannot be is refused with a
// Try, never read as something else.
func TestParseGPUHoursRefused(t *testing.T) {
	for in, want := range map[string]string{
		"1b full a100 0 gpu hours":                      `"0 gpu hours" is not a GPU-hours budget`,
		"1b full a100 2000 gpu hours and 500 gpu hours": "two GPU-hour budgets",
		"1b full a100 5000000000 gpu-hours":             "is not a GPU-hours budget",
	} {
		_, err := Parse(in)
		ie, ok := err.(*sizing.InputError)
		if !ok || !strings.Contains(ie.Problem, want) || ie.Hint == "" {
			t.Errorf("Parse(%q) = %v, want a problem with %q and a Try", in, err, want)
		}
	}
}

// TestCountGPUHours: the run's GPU-hours are its hours × its GPUs, and
// the tokens a budget trains scale with it: a budget of exactly the
// run's GPU-hours trains exactly its tokens.
func TestCountGPUHours(t *testing.T) {
	tps := 40000.0
	r := sizing.Request{Method: sizing.MethodFull, GPUs: 8, Tokens: 20e9}
	g := sizing.CountGPUHours(r, sizing.Throughput{TokensPerSecond: &tps})
	hours := sizing.RunHours(20e9, tps)
	if g.RunHours == nil || *g.RunHours != hours || g.Run == nil || math.Abs(*g.Run-hours*8) > 1e-9 {
		t.Fatalf("run %v h, %v GPU-hours; want %v h × 8", g.RunHours, g.Run, hours)
	}
	if g.Covers != nil || g.Tokens != nil {
		t.Errorf("no budget: covers %v tokens %v, want nil", g.Covers, g.Tokens)
	}
	r.GPUHours = *g.Run
	g = sizing.CountGPUHours(r, sizing.Throughput{TokensPerSecond: &tps})
	if g.Covers == nil || !*g.Covers || g.Tokens == nil || math.Abs(*g.Tokens-20e9) > 1 {
		t.Errorf("budget of the run's GPU-hours: covers %v, tokens %v; want covered, 20B", g.Covers, g.Tokens)
	}
	one := *g.Tokens
	r.GPUHours *= 3
	g = sizing.CountGPUHours(r, sizing.Throughput{TokensPerSecond: &tps})
	if math.Abs(*g.Tokens/one-3) > 1e-9 || *g.BudgetHours != r.GPUHours/8 {
		t.Errorf("3× the budget trains %v tokens over %v h, want 3× %v over the budget / 8 GPUs", *g.Tokens, *g.BudgetHours, one)
	}
	r.GPUHours = hours * 8 / 2
	if g = sizing.CountGPUHours(r, sizing.Throughput{TokensPerSecond: &tps}); *g.Covers {
		t.Errorf("half the run's GPU-hours said to cover it")
	}
	r.Method = sizing.MethodInference
	if g = sizing.CountGPUHours(r, sizing.Throughput{TokensPerSecond: &tps}); g.Run != nil || g.Tokens != nil || g.BudgetHours == nil {
		t.Errorf("serving: run %v tokens %v budget hours %v, want only the budget's hours", g.Run, g.Tokens, g.BudgetHours)
	}
}
