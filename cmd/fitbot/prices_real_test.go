package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestRefreshRealPayloadsHoldNone: every recorded real payload (the
// keyless sources, Lambda and GCP with keys; pricing/testdata/SOURCES.md
// names where each comes from) refreshed twice, the second time judged
// against every other provider's current prices, holds no offer, and
// `prices v100` quotes Lambda's real $0.55 V100 (8x Tesla V100 at $4.40),
// which the 4x band around AWS's $3.06 used to hold.
func TestRefreshRealPayloadsHoldNone(t *testing.T) {
	useDB(t)
	fc := newFakeClouds(t)
	useClouds(t, fc)
	for _, v := range []string{"FITBOT_LAMBDA_URL", "FITBOT_GCP_URL"} {
		t.Setenv(v, fc.srv.URL)
	}
	t.Setenv("LAMBDA_API_KEY", "test-lambda-key")
	t.Setenv("GCP_API_KEY", "test-gcp-key")
	for round := 1; round <= 2; round++ {
		code, out, errOut := runCmd(t, "prices", "refresh", "--json")
		if code != exitOK {
			t.Fatalf("refresh %d: exit %d\n%s%s", round, code, out, errOut)
		}
		var reports []reportJSON
		if err := json.Unmarshal([]byte(out), &reports); err != nil {
			t.Fatalf("refresh %d: %v\n%s", round, err, out)
		}
		providers := map[string]bool{}
		for _, r := range reports {
			providers[r.Provider] = true
			for _, h := range r.Held {
				t.Errorf("refresh %d: %s held %s %s at $%.4g: %s", round, r.Provider, h.GPU, h.InstanceType, h.USDPerGPUHour, h.Reason)
			}
		}
		if !providers["lambda"] || !providers["gcp"] {
			t.Fatalf("refresh %d ran %v; want lambda and gcp among them", round, providers)
		}
	}
	lambda := false
	for _, o := range pricesJSONOf(t, "v100-16").Offers {
		if o.Provider == "lambda" && o.USDPerGPUHour == 0.55 {
			lambda = true
		}
	}
	if !lambda {
		_, out, _ := runCmd(t, "prices", "v100-16")
		t.Errorf("prices v100-16 does not quote Lambda's $0.55:\n%s", out)
	}
	if _, out, _ := runCmd(t, "prices", "v100-16"); strings.Contains(out, "held") {
		t.Errorf("prices v100-16 names a held offer:\n%s", out)
	}
}

// TestPricesNamesHeldOffer: a RunPod community H100 at $0.06 (the fault
// report's price, put into the recorded payload) is held by the refresh
// and named by `prices h100` and its JSON, with the reason.
func TestPricesNamesHeldOffer(t *testing.T) {
	useDB(t)
	fc := newFakeClouds(t)
	useClouds(t, fc)
	mutate := func(path string, body []byte) []byte {
		if path == "/graphql" {
			return bytes.Replace(body, []byte(`"communityPrice": 2.69`), []byte(`"communityPrice": 0.06`), 1)
		}
		return body
	}
	fc.mutate.Store(&mutate)
	if code, out, errOut := runCmd(t, "prices", "refresh", "--provider", "runpod"); code != exitOK ||
		!strings.Contains(out, "$0.06/GPU-h is below what an H100 SXM 80 GB costs to own ($0.30/GPU-h") {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	_, out, _ := runCmd(t, "prices", "h100")
	if !strings.Contains(out, "1 offer held (not quoted; a second refresh at the same price lets it in): runpod, h100 NVIDIA H100 80GB HBM3 ") ||
		!strings.Contains(out, "$0.06/GPU-h is below what an H100 SXM 80 GB costs to own") || strings.Contains(out, "0.06  runpod") {
		t.Errorf("prices h100 does not name the held offer, or quotes it:\n%s", out)
	}
	j := pricesJSONOf(t, "h100")
	if len(j.Held) != 1 || j.Held[0].USDPerGPUHour != 0.06 || j.Held[0].MedianUSD < 0.30 || !strings.Contains(j.Held[0].Reason, "costs to own") {
		t.Errorf("prices --json h100 held = %+v", j.Held)
	}
	if j := pricesJSONOf(t, "a100-80"); len(j.Held) != 0 {
		t.Errorf("prices --json a100-80 names another card's hold: %+v", j.Held)
	}
}
