package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFitFastestServing: "fastest" on a
// serving question was dropped and the cards came cheapest first. Both
// faces say the plan is fastest first, and the JSON carries
// serve.fastest and request.fastest with the options in speed order.
func TestFitFastestServing(t *testing.T) {
	for _, q := range []string{
		"fastest way to serve mixtral 8x22b, latency matters, what cards",
		"fastest gpu to serve llama 3.1 70b",
	} {
		t.Run(q, func(t *testing.T) {
			code, out, errOut := runFit(t, q)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(first, "Fastest first for ") || !strings.Contains(first, "one request at a time (batch 1)") || !strings.Contains(first, "/month") {
				t.Errorf("first line %q, want it fastest first, for one request, priced", first)
			}
			if !strings.Contains(out, "fastest first: ") || !strings.Contains(out, "ranked by tokens/s each") {
				t.Errorf("assumptions do not say the ranking:\n%s", out)
			}
			code, out, errOut = runFit(t, "--json", q)
			if code != exitOK {
				t.Fatalf("--json: exit %d, stderr %q", code, errOut)
			}
			var got struct {
				Kind    string `json:"kind"`
				Request struct {
					Fastest bool `json:"fastest"`
				} `json:"request"`
				Serve struct {
					Mode    string `json:"mode"`
					Fastest bool   `json:"fastest"`
					Options []struct {
						Serving struct {
							TokensPerSecondPerUser float64  `json:"tokens_per_second_per_user"`
							USDPerMonth            *float64 `json:"usd_per_month"`
						} `json:"serving"`
					} `json:"options"`
				} `json:"serve"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if got.Kind != "serve" || got.Serve.Mode != "plan" || !got.Serve.Fastest || !got.Request.Fastest || len(got.Serve.Options) < 2 {
				t.Fatalf("kind %q, mode %q, serve.fastest %v, request.fastest %v, %d options", got.Kind, got.Serve.Mode, got.Serve.Fastest, got.Request.Fastest, len(got.Serve.Options))
			}
			for i, o := range got.Serve.Options {
				if i > 0 && o.Serving.TokensPerSecondPerUser > got.Serve.Options[i-1].Serving.TokensPerSecondPerUser {
					t.Errorf("option %d at %.1f tok/s each follows one at %.1f", i, o.Serving.TokensPerSecondPerUser, got.Serve.Options[i-1].Serving.TokensPerSecondPerUser)
				}
				if o.Serving.USDPerMonth == nil {
					t.Errorf("option %d has no price", i)
				}
			}
		})
	}
}
