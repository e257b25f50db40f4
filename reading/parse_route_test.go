package reading

import (
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		in   string
		want Routing
	}{
		{"how much does an H100 cost per hour?", Routing{Kind: RoutePrice, GPUs: []string{"h100"}}},
		{"is the H200 cheaper than the H100 this week?", Routing{Kind: RoutePrice, GPUs: []string{"h200", "h100"}, Week: true}},
		{"h100s vs h100 price", Routing{Kind: RoutePrice, GPUs: []string{"h100"}}},
		{"gpu prices this week", Routing{Kind: RoutePrice, Week: true}},
		{"what's the monthly cost of an h100 on lambda", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Month: true, Providers: []string{"lambda"}}},
		{"whats the monthly cost of 8x h100", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Counts: []int{8}, Month: true}},
		{"what's cheaper per month, 8x A100 on gcp or 8x H100 on lambda", Routing{Kind: RoutePrice, GPUs: []string{"a100-80", "h100"}, Counts: []int{8, 8}, Month: true,
			Providers: []string{"gcp", "lambda"}, GPUProviders: []string{"gcp", "lambda"}}},
		{"how much to rent 8x h100 for a week on coreweave", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Counts: []int{8}, Providers: []string{"coreweave"}}},
		// The glued "8xh100" names the GPU, not every card listed.
		{"manager here - what's it cost per month to rent one 8xh100 node", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Counts: []int{8}, Month: true}},
		{"cost per month of an 8x h100 box", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Counts: []int{8}, Month: true}},
		{"l40s price per month", Routing{Kind: RoutePrice, GPUs: []string{"l40s"}, Month: true}},
		{"price of h100 on lambda vs runpod", Routing{Kind: RoutePrice, GPUs: []string{"h100"}, Providers: []string{"lambda", "runpod"}}},
		{"a100 price on Lambda Labs, vast.ai or aws", Routing{Kind: RoutePrice, GPUs: []string{"a100-80"}, Providers: []string{"lambda", "vast", "aws"}}},
		{"thanks!", Routing{Kind: RouteChat}},
		{"<@U1> thank you so much 🙏", Routing{Kind: RouteChat}},
		{"hello there", Routing{Kind: RouteChat, Greeting: true}},
		{"hey, thanks!", Routing{Kind: RouteChat}},
		{"help", Routing{Kind: RouteHelp}},
		{"", Routing{Kind: RouteHelp}},
		{"what can you do?", Routing{Kind: RouteHelp}},
		// A price word with a model or a method is the cost of a run.
		{"how much would it cost to lora 13b on a 4090", Routing{Kind: RouteSizing}},
		{"13B lora 4090 buy-vs-rent 3 jobs/week 5h", Routing{Kind: RouteSizing}},
		{"13b lora 4090", Routing{Kind: RouteSizing}},
		{"help me size 13b lora on a 4090", Routing{Kind: RouteSizing}},
	}
	for _, tt := range tests {
		got := Route(tt.in)
		if got.Kind != tt.want.Kind || got.Week != tt.want.Week || got.Greeting != tt.want.Greeting || !slices.Equal(got.GPUs, tt.want.GPUs) ||
			!slices.Equal(got.Providers, tt.want.Providers) || got.Month != tt.want.Month || tt.want.Counts != nil && !slices.Equal(got.Counts, tt.want.Counts) ||
			strings.Contains(tt.in, "for a week") && (got.Hours != 168 || got.Period != "a week") || !slices.Equal(got.GPUProviders, tt.want.GPUProviders) {
			t.Errorf("Route(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestRoutePerPeriod: a cost asked per day or per week is that period's
// rent, also with "for inference" and no model (never a largest-models
// table); "per hour" and "per month" keep their own lines.
func TestRoutePerPeriod(t *testing.T) {
	for _, c := range []struct {
		in     string
		hours  float64
		period string
	}{
		{"what does it cost per day to run 4x h100 for inference 24/7", 24, "a day"},
		{"a100 daily cost", 24, "a day"},
		{"how much is an a100 per week", 168, "a week"},
		{"how much per hour for 8 h100s", 0, ""},
		{"h100 price this week", 0, ""},
	} {
		r := Route(c.in)
		if r.Kind != RoutePrice || r.Hours != c.hours || r.Period != c.period {
			t.Errorf("Route(%q) = %v, %v h, %q; want a price for %v h, %q", c.in, r.Kind, r.Hours, r.Period, c.hours, c.period)
		}
	}
}

// TestRouteRunAsked: a price question that names a training run but no
// model is a price question that says the run is not costed; one that
// names a model is the run's sizing question.
func TestRouteRunAsked(t *testing.T) {
	if r := Route("a100 80gb vs h100 per hour, which is cheaper for a training run"); r.Kind != RoutePrice || !r.RunAsked {
		t.Errorf("no model: %v, run asked %v; want a price with the run asked", r.Kind, r.RunAsked)
	}
	if r := Route("h100 price per hour"); r.RunAsked {
		t.Error("no run said: run asked")
	}
	if r := Route("how much to finetune llama 3 8b on an h100"); r.Kind != RouteSizing {
		t.Errorf("a model named: %v, want sizing", r.Kind)
	}
}

// FuzzRoute: Route never panics, is deterministic, names only catalog
// GPUs (at most once each) and only for price questions.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{"how much is an h100 per hour", "thanks!", "h200 vs h100 this week", "13b lora 4090", "\xff", "$2/h a100 a100s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := Route(in)
		if again := Route(in); again.Kind != r.Kind || !slices.Equal(again.GPUs, r.GPUs) || again.Week != r.Week {
			t.Fatalf("Route(%q) = %+v then %+v", in, r, again)
		}
		if r.Kind != RoutePrice && (len(r.GPUs) > 0 || r.Week) {
			t.Fatalf("Route(%q) = %+v: GPUs or week outside a price question", in, r)
		}
		for i, id := range r.GPUs {
			if _, _, err := sizing.LookupGPU(id); err != nil || slices.Contains(r.GPUs[:i], id) {
				t.Fatalf("Route(%q) GPUs %q: %q is not a catalog id once", in, r.GPUs, id)
			}
		}
	})
}

func TestFamilyModels(t *testing.T) {
	ids := func(word string) []string {
		var out []string
		for _, m := range FamilyModels(word) {
			out = append(out, m.ID)
		}
		return out
	}
	for word, want := range map[string]string{"llama": "llama-3.1-8b", "Qwen": "qwen2.5-7b", "qwen3": "qwen3-0.6b"} {
		if got := ids(word); !slices.Contains(got, want) {
			t.Errorf("FamilyModels(%q) = %q, want it to hold %q", word, got, want)
		}
	}
	if got := ids("qwen3"); slices.Contains(got, "qwen2.5-7b") {
		t.Errorf("FamilyModels(qwen3) = %q holds another generation", got)
	}
	for _, word := range []string{"llama-3.1-8b", "mistral 7b", "h100", "", "big"} {
		if got := ids(word); len(got) != 0 {
			t.Errorf("FamilyModels(%q) = %q, want none", word, got)
		}
	}
}

// BenchmarkRoute measures the routing pass of a sizing question (no
// price word: no parse) and of a price question (one parse).
func BenchmarkRoute(b *testing.B) {
	for _, q := range []string{"@fitbot can we full fine-tune Qwen2.5 7B on a single H100 with 8-bit Adam?", "is the H200 cheaper than the H100 this week?"} {
		b.Run(q[:12], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Route(q)
			}
		})
	}
}

// TestRoutePowerAndFullTime: electricity asked with a slip or shortened
// is the power question, and "full time" is around the clock, never a
// full fine-tune.
func TestRoutePowerAndFullTime(t *testing.T) {
	for _, c := range []struct {
		in    string
		power bool
	}{
		{"whats the monthly electricty cost of 8 h100s", true},
		{"electicity cost of 8 h100s per month", true},
		{"electrcity for 8 h100s monthly", true},
		{"monthly elec cost of 8 h100s", true},
		{"power bill for 8 h100s a month", true},
		{"how much is an a100 per month if we rent it full time", false},
		{"how much is an a100 per month if we rent it full-time", false},
		{"a100 fulltime monthly cost", false},
		{"whats the monthly cost of 8x h100", false},
	} {
		r := Route(c.in)
		if r.Kind != RoutePrice || r.Power != c.power || len(r.GPUs) != 1 {
			t.Errorf("Route(%q) = %v, power %v, GPUs %q; want a price of one card, power %v", c.in, r.Kind, r.Power, r.GPUs, c.power)
		}
	}
	for _, k := range []string{"elect", "electron", "selectivity", "elements"} {
		if powerWord(k) {
			t.Errorf("powerWord(%q) = true, want false", k)
		}
	}
}

// TestRouteCountAfterCard: a price question's GPU count reads alike
// before and after the card ("8 h100s", "h100s x8", "h100 x 8").
func TestRouteCountAfterCard(t *testing.T) {
	for _, q := range []string{"how much per hour for 8 h100s", "how much per hour for h100s x8", "how much per hour for h100 x 8", "how much per hour for 8x h100"} {
		if r := Route(q); r.Kind != RoutePrice || len(r.Counts) != 1 || r.Counts[0] != 8 {
			t.Errorf("Route(%q) = %s with counts %v, want price with 8", q, r.Kind, r.Counts)
		}
	}
	if r := Route("how much per hour for an h100 xl"); len(r.Counts) == 1 && r.Counts[0] != 0 {
		t.Errorf("Route(h100 xl) counts %v, want none", r.Counts)
	}
}
