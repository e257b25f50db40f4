package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
)

// fakeClouds is one test server standing in for every keyless provider,
// replaying the pricing package's recorded payloads. mutate may change a
// body before it is served; kill, when it returns true, makes the server
// drop the connection half-way through the body.
type fakeClouds struct {
	t      *testing.T
	srv    *httptest.Server
	mutate atomic.Pointer[func(path string, body []byte) []byte]
	kill   atomic.Pointer[func(r *http.Request) bool]
}

var azureFixtureRegion = regexp.MustCompile(`armRegionName eq '([a-z0-9]+)'`)

func newFakeClouds(t *testing.T) *fakeClouds {
	t.Helper()
	return newWrappedFakeClouds(t, func(h http.Handler) http.Handler { return h })
}

// newWrappedFakeClouds is newFakeClouds with a middleware around its
// handler, set before the server starts (a handler swapped under a running
// server is a data race).
func newWrappedFakeClouds(t *testing.T, wrap func(http.Handler) http.Handler) *fakeClouds {
	t.Helper()
	fc := &fakeClouds{t: t}
	fc.srv = httptest.NewServer(wrap(http.HandlerFunc(fc.serve)))
	t.Cleanup(fc.srv.Close)
	return fc
}

func (fc *fakeClouds) serve(w http.ResponseWriter, r *http.Request) {
	var file string
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, "/gpuhunt/") || strings.HasPrefix(p, "/skypilot/"):
		file = strings.TrimPrefix(p, "/") // the buckets' own layout under testdata
	case p == "/graphql":
		file = "runpod/gputypes.json"
	case p == "/api/v0/bundles/":
		file = "vast/bundles.json"
	case p == "/spot.json":
		file = "aws/spot.json"
	case p == "/api/v1/instance-types":
		file = "lambda/instance-types.json"
	case strings.HasSuffix(p, "/skus"):
		file = map[string]string{"": "gcp/skus-page1.json", "CAEaAggC": "gcp/skus-page2.json", "CAEaAggD": "gcp/skus-page3.json"}[r.URL.Query().Get("pageToken")]
	case strings.HasSuffix(p, "/US East (N. Virginia)/Linux/index.json"):
		file = "aws/ondemand_us-east-1.json"
	case strings.HasSuffix(p, "/US West (Oregon)/Linux/index.json"):
		file = "aws/ondemand_us-west-2.json"
	case p == "/api/retail/prices":
		m := azureFixtureRegion.FindStringSubmatch(r.URL.Query().Get("$filter"))
		if m == nil {
			http.Error(w, "no region", http.StatusBadRequest)
			return
		}
		page := 1
		if s := r.URL.Query().Get("$skip"); s != "" {
			fmt.Sscan(s, &page)
			page = page/1000 + 1
		}
		file = fmt.Sprintf("azure/%s_%d.json", m[1], page)
	default:
		fc.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
		return
	}
	body, err := os.ReadFile(filepath.Join("..", "..", "pricing", "testdata", file))
	if err != nil {
		fc.t.Error(err)
		http.NotFound(w, r)
		return
	}
	body = bytes.ReplaceAll(body, []byte("{{BASE}}"), []byte("http://"+r.Host)) // not fc.srv: set after the server starts
	if m := fc.mutate.Load(); m != nil {
		body = (*m)(r.URL.Path, body)
	}
	if k := fc.kill.Load(); k != nil && (*k)(r) {
		// Promise the whole body, send half, and hang up.
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// useClouds points every keyless provider at fc (the direct APIs with two
// regions each, and the gpuhunt and SkyPilot catalogs).
func useClouds(t *testing.T, fc *fakeClouds) {
	for _, p := range []string{"AWS", "AZURE", "RUNPOD", "VAST"} {
		t.Setenv("FITBOT_"+p+"_URL", fc.srv.URL)
	}
	t.Setenv("FITBOT_GPUHUNT_URL", fc.srv.URL+"/gpuhunt/v3")
	t.Setenv("FITBOT_SKYPILOT_URL", fc.srv.URL+"/skypilot/v8")
	t.Setenv("RUNPOD_API_KEY", "")
	t.Setenv("FITBOT_AWS_REGIONS", "us-east-1,us-west-2")
	t.Setenv("FITBOT_AZURE_REGIONS", "eastus,westus2")
	t.Setenv("LAMBDA_API_KEY", "")
	t.Setenv("GCP_API_KEY", "")
}

// pricesJSONOf runs `fitbot prices --json ARGS` and decodes it.
func pricesJSONOf(t *testing.T, args ...string) pricesJSON {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"prices", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("prices --json %v: exit %d: %s", args, code, errOut)
	}
	var got pricesJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("prices --json output is not JSON: %v\n%s", err, out)
	}
	return got
}

func TestPricesRefreshTwiceKeepsHistory(t *testing.T) {
	path := useDB(t)
	fc := newFakeClouds(t)
	useClouds(t, fc)

	code, out, errOut := runCmd(t, "prices", "refresh")
	if code != exitOK {
		t.Fatalf("first refresh: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"aws  ", "azure  ", "runpod  ", "vast  "} {
		if !strings.Contains(out, want) || strings.Contains(out, "failed") {
			t.Errorf("refresh output lacks an ok line for %q:\n%s", want, out)
		}
	}

	// AWS cuts p5.48xlarge from $55.04 to $49.54 between the refreshes.
	cut := func(path string, body []byte) []byte {
		if strings.Contains(path, "meteredUnitMaps") {
			return bytes.ReplaceAll(body, []byte(`"55.0400000000"`), []byte(`"49.5400000000"`))
		}
		return body
	}
	fc.mutate.Store(&cut)
	if code, out, errOut := runCmd(t, "prices", "refresh", "--provider", "aws"); code != exitOK {
		t.Fatalf("second refresh: exit %d\n%s%s", code, out, errOut)
	}

	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hist, err := db.ObservationsBetween(ctx, time.Time{}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var p5 []string
	for _, o := range hist {
		if o.Provider == "aws" && o.InstanceType == "p5.48xlarge" && o.Market == pricing.MarketOnDemand && o.Region == "us-east-1" && strings.Contains(o.Source, "awsstatic") {
			p5 = append(p5, fmt.Sprintf("%.2f", o.USDPerHour))
		}
	}
	if diff := cmp.Diff([]string{"55.04", "49.54"}, p5); diff != "" {
		t.Errorf("p5.48xlarge us-east-1 history (-want +got):\n%s", diff)
	}

	got := pricesJSONOf(t, "h100")
	if got.Source != "store" {
		t.Errorf("source %q, want store", got.Source)
	}
	var now []string
	for _, o := range got.Offers {
		if o.Provider == "aws" && o.InstanceType == "p5.48xlarge" && o.Market == "on_demand" {
			now = append(now, fmt.Sprintf("%s %.2f %.4f", o.Region, o.USDPerHour, o.USDPerGPUHour))
		}
	}
	// gpuhunt's AWS catalog prices us-east-1 too, published on 2026-11-30,
	// after AWS's own file of 2026-11-27: the fresher price is current
	// there, and both are in the history.
	if diff := cmp.Diff([]string{"us-west-2 49.54 6.1925", "us-east-1 55.04 6.8800"}, now); diff != "" {
		t.Errorf("current p5.48xlarge on-demand offers (-want +got):\n%s", diff)
	}
}

func TestPricesRefreshProviderDiesMidway(t *testing.T) {
	useDB(t)
	fc := newFakeClouds(t)
	useClouds(t, fc)
	if code, out, errOut := runCmd(t, "prices", "refresh"); code != exitOK {
		t.Fatalf("first refresh: exit %d\n%s%s", code, out, errOut)
	}
	before := pricesJSONOf(t, "a100-80-pcie")

	// Azure hangs up half-way through every page; RunPod raises prices.
	azureDies := func(r *http.Request) bool { return r.URL.Path == "/api/retail/prices" }
	fc.kill.Store(&azureDies)
	raise := func(path string, body []byte) []byte {
		if path == "/graphql" {
			return bytes.ReplaceAll(body, []byte(`"communityPrice": 1.19`), []byte(`"communityPrice": 1.29`))
		}
		return body
	}
	fc.mutate.Store(&raise)
	code, out, errOut := runCmd(t, "prices", "refresh")
	if code != exitFailure {
		t.Errorf("refresh with a dead provider: exit %d, want %d", code, exitFailure)
	}
	if !regexp.MustCompile(`(?m)^azure\s+failed\s+azure: .*keeping its 19 prices from`).MatchString(out) {
		t.Errorf("refresh output does not report azure failed with its kept prices:\n%s%s", out, errOut)
	}
	for _, p := range []string{"aws", "runpod", "vast"} {
		if !regexp.MustCompile(`(?m)^` + p + `\s+ok\s+\d+ offers`).MatchString(out) {
			t.Errorf("refresh output has no ok line for %s:\n%s", p, out)
		}
	}

	after := pricesJSONOf(t, "a100-80-pcie")
	pick := func(p pricesJSON, provider string) []string {
		var out []string
		for _, o := range p.Offers {
			if o.Provider == provider {
				out = append(out, fmt.Sprintf("%s %s %s %s %.4f %s", o.Region, o.Market, o.Tier, o.InstanceType, o.USDPerHour, o.ObservedAt.Format(time.RFC3339Nano)))
			}
		}
		return out
	}
	if diff := cmp.Diff(pick(before, "azure"), pick(after, "azure")); diff != "" || len(pick(after, "azure")) == 0 {
		t.Errorf("azure's offers changed after its refresh failed (-before +after):\n%s", diff)
	}
	if got := pick(after, "runpod"); !strings.Contains(strings.Join(got, "\n"), "community NVIDIA A100 80GB PCIe 1.2900") {
		t.Errorf("runpod's new prices did not land: %q", got)
	}
	stale := map[string]bool{}
	for _, s := range after.StaleProviders {
		stale[s.Provider] = true
	}
	if !stale["azure"] || len(stale) != 1 {
		t.Errorf("stale providers %v, want azure alone", after.StaleProviders)
	}
}

func TestPricesWithoutDatabaseShowsDefaultSheet(t *testing.T) {
	path := useDB(t)
	code, out, errOut := runCmd(t, "prices")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"h100 ", "rtx-4090 ", "From fitbot's built-in price sheet", "dated 2026-01-01 to 2026-11-09", "fitbot prices refresh"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("prices created a database just to read")
	}
	got := pricesJSONOf(t)
	if got.Source != "default_sheet" || len(got.Cheapest) < 15 {
		t.Errorf("--json: source %q with %d GPUs, want the default sheet", got.Source, len(got.Cheapest))
	}
}

func TestPricesImport(t *testing.T) {
	path := useDB(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "rates.csv")
	os.WriteFile(good, []byte("provider,gpu,gpu_count,region,pricing,usd_per_hour,instance_type\n"+
		"coreweave,h100,8,us-east-04,reserved,17.60,gd-8xh100ib-i128\n"+
		"onprem,A100 SXM 80GB,1,dc1,on_demand,0.90,\n"), 0o644)
	code, out, errOut := runCmd(t, "prices", "import", "--at", "2026-11-01T00:00:00Z", good)
	if code != exitOK || !strings.Contains(out, "Imported 2 offers from rates.csv (2 GPUs, providers coreweave, onprem)") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	got := pricesJSONOf(t, "a100-80")
	if len(got.Offers) != 1 || got.Offers[0].Provider != "onprem" || got.Offers[0].USDPerGPUHour != 0.9 ||
		!got.Offers[0].ObservedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("after import, a100-80 offers = %+v", got.Offers)
	}

	// A file with one bad line stores nothing: the good line before it
	// included.
	bad := filepath.Join(dir, "more.csv")
	os.WriteFile(bad, []byte("provider,gpu,gpu_count,region,pricing,usd_per_hour,instance_type\n"+
		"onprem,l40s,1,dc1,on_demand,0.70,\n"+
		"onprem,l40s,1,dc2,on_demand,free,\n"), 0o644)
	code, _, errOut = runCmd(t, "prices", "import", bad)
	if code != exitUsage || !strings.Contains(errOut, `line 3: usd_per_hour "free" is not a number`) || !strings.Contains(errOut, "Nothing was imported") {
		t.Errorf("bad import: exit %d\n%s", code, errOut)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l40s, err := db.OffersForGPU(ctx, "l40s")
	if err != nil || len(l40s) != 0 {
		t.Errorf("after a refused import, l40s offers = %v, %v; want none", l40s, err)
	}
}

func TestPricesBadInput(t *testing.T) {
	useDB(t)
	t.Setenv("GCP_API_KEY", "")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prices", "h1000"}, exitUsage, `unknown GPU "h1000"`},
		{[]string{"prices", "--csv"}, exitUsage, "unknown flag --csv"},
		{[]string{"prices", "refresh", "--provider", "oracle"}, exitUsage, `unknown provider "oracle"`},
		{[]string{"prices", "refresh", "--provider", "gcp"}, exitUsage, "needs an API key in GCP_API_KEY"},
		{[]string{"prices", "refresh", "--provider"}, exitUsage, "--provider needs a name"},
		{[]string{"prices", "import"}, exitUsage, "takes one CSV file"},
		{[]string{"prices", "import", "--at", "yesterday", "x.csv"}, exitUsage, `--at "yesterday" is not an RFC 3339 time`},
		{[]string{"prices", "import", "/no/such/file.csv"}, exitUsage, "cannot read /no/such/file.csv: no such file or directory"},
	}
	for _, tt := range tests {
		code, _, errOut := runCmd(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "Try: ") {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q and a Try: hint", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// TestPricesText checks the two tables and the footer against golden
// files, at a fixed time.
func TestPricesText(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := now.Add(-3 * time.Hour)
	offers := []pricing.Offer{
		{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand, Region: "us-east-1", USDPerHour: 55.04, USDPerGPUHour: 6.88, ObservedAt: at},
		{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketSpot, Region: "us-west-2", USDPerHour: 23.12, USDPerGPUHour: 2.89, ObservedAt: at},
		{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, Tier: "community", Region: "all", USDPerHour: 2.69, USDPerGPUHour: 2.69, ObservedAt: now.Add(-50 * time.Minute)},
		// GCP's H100 spot price above its own on-demand price: flagged,
		// never the cheapest.
		{Provider: "gcp", InstanceType: "a3-highgpu-1g", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, Region: "us-central1", USDPerHour: 11.06, USDPerGPUHour: 11.06, ObservedAt: at},
		{Provider: "gcp", InstanceType: "a3-highgpu-1g", GPU: "h100", GPUCount: 1, Market: pricing.MarketSpot, Region: "us-central1", USDPerHour: 12.10, USDPerGPUHour: 12.10, ObservedAt: at},
		{Provider: "azure", InstanceType: "Standard_NV6ads_A10_v5", GPU: "a10", GPUCount: 1.0 / 6, Market: pricing.MarketOnDemand, Region: "eastus", USDPerHour: 0.454, USDPerGPUHour: 2.724, ObservedAt: now.AddDate(0, 0, -3)},
		// The A100 family: three variants, and a 334-day-old bargain that
		// is listed, marked stale, and never the cheapest.
		{Provider: "runpod", InstanceType: "NVIDIA A100 80GB PCIe", GPU: "a100-80-pcie", GPUCount: 1, Market: pricing.MarketOnDemand, Tier: "community", Region: "all", USDPerHour: 1.19, USDPerGPUHour: 1.19, ObservedAt: now.Add(-2 * time.Hour)},
		{Provider: "runpod", InstanceType: "NVIDIA A100-SXM4-80GB", GPU: "a100-80", GPUCount: 1, Market: pricing.MarketOnDemand, Tier: "secure", Region: "all", USDPerHour: 1.79, USDPerGPUHour: 1.79, ObservedAt: now.Add(-2 * time.Hour)},
		{Provider: "tensordock", InstanceType: "a100-sxm4-80gb", GPU: "a100-80", GPUCount: 1, Market: pricing.MarketOnDemand, Region: "-", USDPerHour: 0.85, USDPerGPUHour: 0.85, ObservedAt: now.AddDate(0, 0, -334)},
		{Provider: "lambda", InstanceType: "gpu_8x_a100", GPU: "a100-40", GPUCount: 8, Market: pricing.MarketOnDemand, Region: "all", USDPerHour: 14.32, USDPerGPUHour: 1.79, ObservedAt: at},
	}
	v := priceView{snap: pricing.NewSnapshotAt(offers, now), dbPath: "/var/lib/fitbot/fitbot.db", health: []store.ProviderHealth{
		{Provider: "aws", Last: pricing.Run{Status: pricing.RunOK, AsOf: at}, LastGood: &pricing.Run{Status: pricing.RunOK, AsOf: at}},
		{Provider: "azure", Last: pricing.Run{Status: pricing.RunFailed, Error: "azure: HTTP 503: upstream unavailable (eastus, page 1)"},
			LastGood: &pricing.Run{Status: pricing.RunOK, AsOf: now.AddDate(0, 0, -3)}},
		{Provider: "import:rates.csv", Last: pricing.Run{Status: pricing.RunOK, AsOf: now.AddDate(0, -2, 0)}, LastGood: &pricing.Run{AsOf: now.AddDate(0, -2, 0)}},
	}}
	var b strings.Builder
	writeCheapest(&b, v.snap, now)
	b.WriteString("---\n")
	writeOffers(&b, "h100", v.offersFor("h100"), v.snap, now)
	b.WriteString("---\n")
	writeOffers(&b, "a10", v.offersFor("a10"), v.snap, now)
	b.WriteString("---\n")
	writeFamilyOffers(&b, "a100", v.offersFor(pricing.GPUFamily("a100")...), v.snap, now)
	v.writeFooter(&b, now)
	golden.Check(t, filepath.Join("testdata", "prices/cheapest_and_offers.txt"), []byte(b.String()))

	var j bytes.Buffer
	enc := json.NewEncoder(&j)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v.output("", nil, now)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "prices/cheapest.json"), j.Bytes())
}

// TestPricesFamily: `prices a100` lists every A100 variant, each named;
// `prices h100` the SXM, PCIe and NVL; a variant's own name lists it alone.
func TestPricesFamily(t *testing.T) {
	useDB(t)
	tests := []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"prices", "a100"}, []string{"VARIANT", "A100 SXM 80 GB", "A100 PCIe 80 GB", "A100 SXM 40 GB"}, nil},
		{[]string{"prices", "H100"}, []string{"H100 SXM 80 GB", "H100 PCIe 80 GB", "H100 NVL 94 GB"}, nil},
		{[]string{"prices", "a100", "pcie"}, []string{"NVIDIA A100 80GB PCIe"}, []string{"VARIANT", "A100-SXM4-80GB"}},
		// More than a card is read as the price question in words: spot.
		{[]string{"prices", "spot", "h100"}, []string{"spot", "a3-highgpu-1g"}, []string{"on_demand"}},
		{[]string{"fit", "what's the monthly cost of an h100 on lambda"}, []string{"Around the clock (a month is 730 h): H100 SXM 80 GB $2,913 per GPU (lambda on-demand, $3.99/GPU-h; the 8-GPU instance $23,302 a month)"}, nil},
		{[]string{"fit", "whats the monthly cost of 8x h100"}, []string{"Around the clock (a month is 730 h): 8× H100 SXM 80 GB $31.92/h, $23,302 a month ($3.99 per GPU-h; lambda on-demand)"}, nil},
		{[]string{"fit", "what's cheaper per month, 8x A100 on gcp or 8x H100 on lambda"}, []string{"8× A100 SXM 80 GB $40.55/h, $29,603 a month ($5.07 per GPU-h; gcp on-demand); 8× H100 SXM 80 GB $31.92/h, $23,302 a month ($3.99 per GPU-h; lambda on-demand)"}, nil},
		// Every card named gets its price per hour.
		{[]string{"fit", "manager here - what's it cost per month to rent one 8xh100 node"}, []string{"8× H100 SXM 80 GB $31.92/h, $23,302 a month ($3.99 per GPU-h; lambda on-demand)"}, []string{"a10g"}},
		{[]string{"fit", "how much to rent 8x h100 for a week"}, []string{"For a week: 8× H100 SXM 80 GB $5,363 at lambda. Around the clock (a month is 730 h): 8× H100 SXM 80 GB $31.92/h, $23,302 a month ($3.99 per GPU-h; lambda on-demand)"}, []string{"digest"}},
		// A run's length is the period, said first.
		{[]string{"fit", "cost of a 3 day run on 64 h100s"}, []string{"For a 3 day run: 64× H100 SXM 80 GB $11,059 at vast."}, nil},
		{[]string{"fit", "how much would three a100s cost per hour on lambda"}, []string{"3× A100 SXM 80 GB $8.37/h, $6,110 a month ($2.79 per GPU-h; lambda on-demand; the 8-GPU instance $16,294 a month)"}, nil},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, tt.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.args, w, out)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(out, w) {
				t.Errorf("%v: output has %q:\n%s", tt.args, w, out)
			}
		}
	}
	// The month asked comes first, before the offers it is priced from.
	if _, out, _ := runCmd(t, "fit", "whats the monthly cost of 8x h100"); !strings.HasPrefix(out, "Around the clock") {
		t.Errorf("monthly cost: the month line is not first:\n%s", out)
	}
	code, out, _ := runCmd(t, "prices", "--json", "a100")
	var got pricesJSON
	if code != exitOK || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("--json a100: exit %d: %s", code, out)
	}
	gpus := map[string]bool{}
	for _, o := range got.Offers {
		gpus[o.GPU] = true
	}
	if len(got.Family) != 4 || !gpus["a100-80"] || !gpus["a100-80-pcie"] || !gpus["a100-40"] {
		t.Errorf("--json a100: family %v, offers of %v; want the four variants and offers of three", got.Family, gpus)
	}
}

// TestFreshInstallPricesTenProviders: with no key at all, one refresh
// against loopback stand-ins of every keyless source (the four direct
// APIs, gpuhunt's catalogs and SkyPilot's, in their real layouts) prices
// at least ten providers, each price naming its source.
func TestFreshInstallPricesTenProviders(t *testing.T) {
	useDB(t)
	fc := newFakeClouds(t)
	useClouds(t, fc)
	t.Setenv("LAMBDA_API_KEY", "")
	t.Setenv("GCP_API_KEY", "")
	code, out, errOut := runCmd(t, "prices", "refresh")
	if code != exitOK {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{`gpuhunt:nebius +ok`, `skypilot:hyperstack +ok`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("refresh output lacks %q:\n%s", want, out)
		}
	}
	providers := map[string]bool{}
	for _, gpu := range []string{"h100", "a100-80", "a100-80-pcie", "a100-40", "h200", "l4", "l40s", "rtx-4090", "rtx-5090", "a10", "b200", "h100-pcie", "rtx-a6000"} {
		for _, o := range pricesJSONOf(t, gpu).Offers {
			providers[o.Provider] = true
			if o.Source == "" {
				t.Errorf("%s %s %s has no source", o.Provider, o.GPU, o.InstanceType)
			}
		}
	}
	if len(providers) < 10 {
		t.Errorf("%d providers priced (%v), want at least 10", len(providers), slices.Sorted(maps.Keys(providers)))
	}
}

// TestRefreshSummary: Slack's refresh reply stays one short line with 19
// sources: counts, then only the sources that are not current.
func TestRefreshSummary(t *testing.T) {
	frozen := time.Date(2024, 5, 13, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	reports := []pricing.Report{
		{Run: pricing.Run{Provider: "aws", Status: pricing.RunOK, Rows: 20, Finished: now, PublishedAt: frozen}},
		{Run: pricing.Run{Provider: "gpuhunt:nebius", Status: pricing.RunOK, Rows: 4, Finished: now, PublishedAt: now.Add(-time.Hour)}},
		{Run: pricing.Run{Provider: "vast", Status: pricing.RunFailed, Finished: now}},
	}
	want := "Refreshed prices: 2 of 3 sources ok, 24 offers. Not current: aws stale (published 2024-05-13), vast failed."
	if got := refreshSummary(reports); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}

	// A held offer is named, in the reply, the table and the JSON.
	held := pricing.Hold{Refresh: "gpuhunt:nebius", Offer: pricing.Offer{Provider: "nebius", GPU: "h100", InstanceType: "gpu-h100-sxm",
		Region: "eu-north1", Market: pricing.MarketOnDemand, USDPerHour: 0.06, USDPerGPUHour: 0.06, GPUCount: 1},
		MedianUSDPerGPUHour: 6.88, LowUSD: 0.609, HighUSD: 77.7, Voices: 5,
		Why: "h100 gpu-h100-sxm eu-north1: $0.06/GPU-h is below the $0.609-$77.7 band around the median $6.88 of 5 sources"}
	reports[1].Held = []pricing.Hold{held}
	wantHeld := " Held aside as implausible (not quoted; a second refresh at the same price lets them in): gpuhunt:nebius h100 gpu-h100-sxm eu-north1: $0.06/GPU-h is below the $0.609-$77.7 band around the median $6.88 of 5 sources."
	if got := refreshSummary(reports); got != want+wantHeld {
		t.Errorf("summary with a held offer %q, want %q", got, want+wantHeld)
	}
	var table strings.Builder
	writeReports(&table, reports)
	if !strings.Contains(table.String(), "  held          h100 gpu-h100-sxm eu-north1: $0.06/GPU-h is below") {
		t.Errorf("prices refresh table does not name the held offer:\n%s", table.String())
	}
	if j := reportsJSON(reports); len(j[1].Held) != 1 || j[1].Held[0].USDPerGPUHour != 0.06 || j[1].Held[0].MedianUSD != 6.88 || j[0].Held == nil {
		t.Errorf("prices refresh --json held = %+v", j)
	}
}
