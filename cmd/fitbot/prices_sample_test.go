package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPricesPrimeIntellectSample replays real PrimeIntellect catalog rows
// (pricing/testdata/samples, see its SOURCES.md) end to end: `prices
// refresh` stores them and `prices h100` ranks them. Hyperstack's $1.90
// H100 is the PCIe card, so the cheapest H100 SXM is DataCrunch's $1.97,
// and the two datacentres of one country stay two offers.
func TestPricesPrimeIntellectSample(t *testing.T) {
	useDB(t)
	body, err := os.ReadFile(filepath.Join("..", "..", "pricing", "testdata", "samples", "skypilot", "v8", "primeintellect", "vms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/skypilot/v8/primeintellect/vms.csv" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Last-Modified", time.Now().UTC().Format(http.TimeFormat))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("FITBOT_SKYPILOT_URL", srv.URL+"/skypilot/v8")

	code, out, errOut := runCmd(t, "prices", "refresh", "--provider", "skypilot:primeintellect")
	if code != exitOK || !strings.Contains(out, "ok") {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	got := pricesJSONOf(t, "h100")
	forms := map[string]string{}
	for _, o := range got.Offers {
		if o.Provider == "primeintellect" {
			forms[o.InstanceType+" "+o.Region] = o.GPU
		}
	}
	for key, want := range map[string]string{
		"hyperstack__1xH100_80GB__28__180 CANADA-1":   "h100-pcie",
		"hyperstack__8xH100_80GB__252__1440 CANADA-1": "h100-pcie",
		"hyperstack__8xH100_80GB__192__960 US-1":      "h100",
		"datacrunch__1xH100_80GB__30__120 FIN-02":     "h100",
		"lambdalabs__1xH100_80GB__26__225 us-south-2": "h100",
	} {
		if forms[key] != want {
			t.Errorf("%s filed as %q, want %q (offers %v)", key, forms[key], want, forms)
		}
	}
	best := 0.0
	for _, o := range got.Offers {
		if o.GPU == "h100" && o.Market == "on_demand" && (best == 0 || o.USDPerGPUHour < best) {
			best = o.USDPerGPUHour
		}
	}
	if best != 1.97 {
		t.Errorf("cheapest H100 SXM $%.2f/GPU-h, want DataCrunch's $1.97", best)
	}
	a100 := pricesJSONOf(t, "a100-80")
	regions := map[string]bool{}
	for _, o := range a100.Offers {
		if o.InstanceType == "datacrunch__2xA100_80GB__44__240" && o.Market == "on_demand" {
			regions[o.Region] = true
		}
	}
	if !regions["FIN-01"] || !regions["FIN-02"] {
		t.Errorf("DataCrunch's 2x A100 in %v, want FIN-01 and FIN-02 apart", regions)
	}
}
