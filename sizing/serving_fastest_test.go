package sizing

import (
	"math"
	"testing"
)

// TestServeFastestRanking: a plan asked fastest puts first the option
// whose users get the most tokens/s each, no other option's faster; each
// replica stays within one machine and is priced; with no users said it
// is one request alone.
func TestServeFastestRanking(t *testing.T) {
	tests := []struct {
		q     string
		users int // each option's users in all; 0: one request alone
	}{
		{"fastest way to serve mixtral 8x22b, latency matters, what cards", 0},
		{"fastest gpu to serve llama 3.1 70b", 0},
		{"llama 3.1 8b inference, lowest latency", 0},
		{"serve llama 3.1 70b as fast as possible on h100s", 0},
		{"fastest way to serve llama 3.1 70b for 50 users", 50},
		{"gpus for 200 users of llama 3.1 70b with ttft under 1s, latency matters", 200},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			s := askServe(t, tt.q).Serve
			if s.Mode != "plan" || !s.Fastest || !s.MeetsTargets || len(s.Options) == 0 {
				t.Fatalf("mode %q, fastest %v, meets %v, %d options", s.Mode, s.Fastest, s.MeetsTargets, len(s.Options))
			}
			first := s.Options[0].Serving
			for i, o := range s.Options {
				v := o.Serving
				if v.TokensPerSecondPerUser > first.TokensPerSecondPerUser {
					t.Errorf("option %d (%s) gives %.1f tok/s each, more than the first's %.1f", i, o.GPU, v.TokensPerSecondPerUser, first.TokensPerSecondPerUser)
				}
				if i > 0 && byServeSpeed(s.Options[i-1], o) > 0 {
					t.Errorf("option %d (%s) is out of order", i, o.GPU)
				}
				if v.GPUsPerReplica > 8 || !o.Request.Fastest {
					t.Errorf("option %d: %d GPUs a replica, request fastest %v; want one machine and the ask kept", i, v.GPUsPerReplica, o.Request.Fastest)
				}
				if v.USDPerMonth == nil {
					t.Errorf("option %d (%s) has no price", i, o.GPU)
				}
				switch all := v.Concurrency * max(v.Replicas, 1); {
				case tt.users == 0 && (v.Concurrency != 1 || v.Replicas != 1):
					t.Errorf("option %d: %d × %d users, want one request alone", i, v.Replicas, v.Concurrency)
				case tt.users > 0 && all < tt.users:
					t.Errorf("option %d serves %d users, want %d", i, all, tt.users)
				}
				if o.Quant == QuantAWQ {
					t.Errorf("option %d (%s) in int4 though no format was said and others meet the load", i, o.GPU)
				}
			}
		})
	}
}

// TestServeFastestSpendsCardsOnSpeed: on the same cards and load, the
// fastest plan takes more GPUs a replica than the cheapest (tensor
// parallel reads the weights sooner) and its users get more tokens/s;
// the cheapest plan is still ranked by cost.
func TestServeFastestSpendsCardsOnSpeed(t *testing.T) {
	cheap := askServe(t, "serve llama 3.1 70b in fp8 to 20 users on h100s").Serve
	fast := askServe(t, "fastest way to serve llama 3.1 70b in fp8 to 20 users on h100s").Serve
	if cheap.Fastest || len(cheap.Options) == 0 || len(fast.Options) == 0 {
		t.Fatalf("cheapest plan fastest %v, %d and %d options", cheap.Fastest, len(cheap.Options), len(fast.Options))
	}
	c, f := cheap.Options[0].Serving, fast.Options[0].Serving
	if f.GPUsPerReplica <= c.GPUsPerReplica || f.TokensPerSecondPerUser <= c.TokensPerSecondPerUser {
		t.Errorf("fastest %d GPUs a replica at %.1f tok/s each, cheapest %d at %.1f; want more GPUs and more speed",
			f.GPUsPerReplica, f.TokensPerSecondPerUser, c.GPUsPerReplica, c.TokensPerSecondPerUser)
	}
	prev := 0.0
	for _, o := range cheap.Options {
		if m := monthly(o); m < prev {
			t.Errorf("cheapest plan out of cost order: %.0f after %.0f", m, prev)
		} else {
			prev = m
		}
	}
	if math.IsInf(monthly(fast.Options[0]), 1) {
		t.Error("the fastest option has no price")
	}
}

// TestServeFastestInt4WhenSaid: int4 is planned in a fastest plan when
// the asker names it.
func TestServeFastestInt4WhenSaid(t *testing.T) {
	s := askServe(t, "fastest gpu to serve llama 3.1 70b in awq").Serve
	if len(s.Options) == 0 || s.Options[0].Quant != QuantAWQ {
		t.Fatalf("options %+v, want awq first", s.Options)
	}
}
