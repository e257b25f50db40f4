package pricing

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

const gcpTestKey = "AIzaSyTEST-gcp+key/0123456789abcdefghij"

func newTestGCP(url, key string) *GCP {
	g := NewGCP(url, key, &http.Client{Timeout: 5 * time.Second}, nil)
	g.now = func() time.Time { return fetchedAt }
	return g
}

func TestGCPFetch(t *testing.T) {
	pages := map[string]string{"": "gcp/skus-page1.json", "CAEaAggC": "gcp/skus-page2.json", "CAEaAggD": "gcp/skus-page3.json"}
	var mu sync.Mutex
	var tokens []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/services/6F81-5844-456A/skus" {
			t.Errorf("request = %s %s, want GET /v1/services/6F81-5844-456A/skus", r.Method, r.URL.Path)
		}
		q := r.URL.Query()
		if q.Get("key") != gcpTestKey || q.Get("currencyCode") != "USD" || q.Get("pageSize") != "5000" {
			t.Errorf("query key=%q currencyCode=%q pageSize=%q, want the key, USD and 5000", q.Get("key"), q.Get("currencyCode"), q.Get("pageSize"))
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("Authorization = %q, want none", r.Header.Get("Authorization"))
		}
		mu.Lock()
		tokens = append(tokens, q.Get("pageToken"))
		mu.Unlock()
		file, ok := pages[q.Get("pageToken")]
		if !ok {
			t.Errorf("unexpected pageToken %q", q.Get("pageToken"))
			http.Error(w, "bad token", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(testdata(t, file))
	}))
	defer srv.Close()

	got, err := newTestGCP(srv.URL, gcpTestKey).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", "CAEaAggC", "CAEaAggD"}, tokens); diff != "" {
		t.Errorf("page tokens sent (-want +got):\n%s", diff)
	}
	checkOffers(t, "gcp", got.Offers)
	passGate(t, got.Offers)
	// Whole machines: GPUs + vCPU x the family's core SKU + GiB x its RAM
	// SKU, from testdata/gcp. a2-highgpu-1g on demand is 2.933908 + 12 x
	// 0.031611 + 85 x 0.004237 = $3.673385, the reference's figure (the
	// A100 alone is $2.93); spot $1.4678 (the reference's ≈$1.47). A T4 on
	// n1-standard-4 is 0.35 + 4 x 0.031611 + 15 x 0.004237 = $0.54, not the
	// T4 SKU's $0.35. g2-standard-4 $0.7067 (reference $0.7068).
	// a3-highgpu-8g is $88.489 (reference $88.49), only in us-central1,
	// the one region with A3 core and RAM SKUs; the H100's other regions
	// have no machine price and no offer. "H100 Mega 80GB" prices
	// a3-megagpu-8g with the A3Plus SKUs. A4's spot B200 slice is an
	// eighth of the whole VM: 8 x $4.25. Spot L4 and H200 have no spot
	// G2/A3 core SKUs in the fixture, so no spot offer; the DWS calendar
	// slice is not on-demand capacity.
	want := []string{
		"gcp us-central1 on_demand  a2-highgpu-1g 1xa100-40 $3.6734/h $3.6734/GPU-h",
		"gcp us-central1 on_demand  a2-highgpu-2g 2xa100-40 $7.3468/h $3.6734/GPU-h",
		"gcp us-central1 on_demand  a2-highgpu-4g 4xa100-40 $14.6935/h $3.6734/GPU-h",
		"gcp us-central1 on_demand  a2-highgpu-8g 8xa100-40 $29.3871/h $3.6734/GPU-h",
		"gcp us-central1 on_demand  a2-megagpu-16g 16xa100-40 $55.7395/h $3.4837/GPU-h",
		"gcp us-central1 on_demand  a3-highgpu-8g 8xh100 $88.4893/h $11.0612/GPU-h",
		"gcp us-central1 on_demand  a3-megagpu-8g 8xh100 $98.6129/h $12.3266/GPU-h",
		"gcp us-central1 on_demand  a3-ultragpu-8g 8xh200 $96.4098/h $12.0512/GPU-h",
		"gcp us-central1 on_demand  g2-standard-24 2xl4 $2.0001/h $1.0001/GPU-h",
		"gcp us-central1 on_demand  g2-standard-4 1xl4 $0.7067/h $0.7067/GPU-h",
		"gcp us-central1 on_demand  g2-standard-48 4xl4 $4.0002/h $1.0001/GPU-h",
		"gcp us-central1 on_demand  g2-standard-96 8xl4 $8.0004/h $1.0001/GPU-h",
		"gcp us-central1 spot  a2-highgpu-1g 1xa100-40 $1.4678/h $1.4678/GPU-h",
		"gcp us-central1 spot  a2-highgpu-2g 2xa100-40 $2.9356/h $1.4678/GPU-h",
		"gcp us-central1 spot  a2-highgpu-4g 4xa100-40 $5.8712/h $1.4678/GPU-h",
		"gcp us-central1 spot  a2-highgpu-8g 8xa100-40 $11.7424/h $1.4678/GPU-h",
		"gcp us-central1 spot  a2-megagpu-16g 16xa100-40 $22.2710/h $1.3919/GPU-h",
		"gcp us-central1 spot  a4-highgpu-8g 8xb200 $34.0000/h $4.2500/GPU-h",
		"gcp us-east1 on_demand  a2-highgpu-1g 1xa100-40 $3.6734/h $3.6734/GPU-h",
		"gcp us-east1 on_demand  a2-highgpu-2g 2xa100-40 $7.3468/h $3.6734/GPU-h",
		"gcp us-east1 on_demand  a2-highgpu-4g 4xa100-40 $14.6935/h $3.6734/GPU-h",
		"gcp us-east1 on_demand  a2-highgpu-8g 8xa100-40 $29.3871/h $3.6734/GPU-h",
		"gcp us-east1 on_demand  a2-megagpu-16g 16xa100-40 $55.7395/h $3.4837/GPU-h",
		"gcp us-east1 on_demand  n1-standard-4 1xt4 $0.5400/h $0.5400/GPU-h",
		"gcp us-east1 spot  a2-highgpu-1g 1xa100-40 $1.4678/h $1.4678/GPU-h",
		"gcp us-east1 spot  a2-highgpu-2g 2xa100-40 $2.9356/h $1.4678/GPU-h",
		"gcp us-east1 spot  a2-highgpu-4g 4xa100-40 $5.8712/h $1.4678/GPU-h",
		"gcp us-east1 spot  a2-highgpu-8g 8xa100-40 $11.7424/h $1.4678/GPU-h",
		"gcp us-east1 spot  a2-megagpu-16g 16xa100-40 $22.2710/h $1.3919/GPU-h",
	}
	if diff := cmp.Diff(want, summaries(got.Offers)); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	for _, o := range got.Offers {
		if !strings.Contains(o.Source, "whole VM") || strings.Contains(o.Source, "component only") {
			t.Errorf("%s %s: source %q does not say it is a whole VM", o.InstanceType, o.Region, o.Source)
		}
	}
	// The commitment, the licence, the zero-priced T4 and the DWS slice
	// are skipped, not unknown.
	wantUnknown := map[string]int{"RTX 6000 96GB": 1}
	if diff := cmp.Diff(wantUnknown, got.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestGCPModel(t *testing.T) {
	tests := map[string]string{
		"Nvidia Tesla A100 GPU running in Americas":                                   "Tesla A100 GPU",
		"Spot Preemptible Nvidia Tesla A100 80GB GPU running in EMEA":                 "Tesla A100 80GB GPU",
		"Nvidia H100 80GB Mega GPU attached to Spot Preemptible VMs running in Tokyo": "H100 80GB Mega GPU",
		"Nvidia H100 Mega 80GB GPU running in Americas":                               "H100 Mega 80GB GPU",
		"H200 141GB GPU running in Belgium":                                           "H200 141GB GPU",
		"A4 Nvidia B200 (1 gpu slice) running in Netherlands":                         "A4 Nvidia B200 (1 gpu slice)",
		"Reserved Nvidia H100 80GB Mega GPU in Americas":                              "Reserved Nvidia H100 80GB Mega GPU in Americas",
		"": "",
	}
	for desc, want := range tests {
		if got := gcpModel(desc); got != want {
			t.Errorf("gcpModel(%q) = %q, want %q", desc, got, want)
		}
	}
}

// TestGCPFaults covers failures on the first and later pages; the key is
// in every request URL and must be in no error.
func TestGCPFaults(t *testing.T) {
	page1 := string(testdata(t, "gcp/skus-page1.json"))
	tests := []struct {
		name  string
		serve func(w http.ResponseWriter, token string)
		want  string
	}{
		{"api disabled", func(w http.ResponseWriter, _ string) {
			w.WriteHeader(http.StatusForbidden)
			w.Write(testdata(t, "gcp/disabled.json"))
		}, "gcp: HTTP 403: "},
		{"bad key echoed", func(w http.ResponseWriter, _ string) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":400,"message":"API key not valid: ` + gcpTestKey + `"}}`))
		}, "gcp: HTTP 400"},
		{"token repeats", func(w http.ResponseWriter, _ string) {
			w.Write([]byte(page1))
		}, `gcp: page 2 repeats page token "CAEaAggC"`},
		{"html on page 2", func(w http.ResponseWriter, token string) {
			if token == "" {
				w.Write([]byte(page1))
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Error 502 (Server Error)</body></html>"))
		}, "gcp: got an HTML page"},
		{"truncated page 2", func(w http.ResponseWriter, token string) {
			if token == "" {
				w.Write([]byte(page1))
				return
			}
			w.Write([]byte(`{"skus":[{"skuId":"x","description":"Nvidia L4 GPU running in Americas"`))
		}, "gcp: page 2: decode skus"},
		{"units not a number", func(w http.ResponseWriter, _ string) {
			w.Write([]byte(`{"skus":[{"skuId":"039F","description":"Nvidia L4 GPU running in Americas","category":{"resourceFamily":"Compute","resourceGroup":"GPU","usageType":"OnDemand"},"serviceRegions":["us-central1"],"pricingInfo":[{"pricingExpression":{"usageUnit":"h","tieredRates":[{"unitPrice":{"currencyCode":"USD","units":"0.7"}}]}}]}]}`))
		}, `gcp: page 1: sku 039F: unitPrice.units "0.7" is not an integer`},
		{"error object with 200", func(w http.ResponseWriter, _ string) {
			w.Write([]byte(`{"error":{"code":429,"message":"Quota exceeded for key ` + gcpTestKey + `"}}`))
		}, "gcp: page 1: api error 429: Quota exceeded for key [redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.serve(w, r.URL.Query().Get("pageToken"))
			}))
			defer srv.Close()
			_, err := newTestGCP(srv.URL, gcpTestKey).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), gcpTestKey) || strings.Contains(err.Error(), "AIzaSyTEST") {
				t.Errorf("error %q carries the API key", err)
			}
		})
	}
}

// TestGCPKeyNotInTransportErrors: a refused connection's error names the
// URL, key and all, unless the fetcher strips it.
func TestGCPKeyNotInTransportErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	g := newTestGCP(url, gcpTestKey)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := g.Fetch(ctx)
	if err == nil {
		t.Fatal("Fetch from a closed server succeeded")
	}
	if !strings.HasPrefix(err.Error(), "gcp: ") || strings.Contains(err.Error(), "AIzaSyTEST") || strings.Contains(err.Error(), "key=") {
		t.Errorf("error = %q, want one naming gcp without the key", err)
	}
}

func TestGCPNeedsKey(t *testing.T) {
	_, err := newTestGCP("http://127.0.0.1:1", "").Fetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "GCP_API_KEY") {
		t.Errorf("error = %v, want one naming GCP_API_KEY", err)
	}
}

func FuzzDecodeGCPPage(f *testing.F) {
	for _, name := range []string{"gcp/skus-page1.json", "gcp/skus-page2.json", "gcp/skus-page3.json", "gcp/disabled.json"} {
		f.Add(testdata(f, name))
	}
	f.Add([]byte(`{"skus":[{"description":"Nvidia L4 GPU running in Americas","category":{"resourceFamily":"Compute","resourceGroup":"GPU","usageType":"OnDemand"},"serviceRegions":["r"],"pricingInfo":[{"pricingExpression":{"usageUnit":"h","tieredRates":[{"unitPrice":{"units":"-9223372036854775808","nanos":-999999999}}]}}]}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cat := newGCPCatalog()
		if _, err := decodeGCPPage(raw, cat); err != nil {
			return
		}
		res := cat.offers(fetchedAt, "src")
		checkOffers(t, "gcp", res.Offers)
		for _, o := range res.Offers {
			if o.GPUCount < 1 || o.Region == "" || !strings.Contains(o.Source, "whole VM") {
				t.Errorf("offer %+v: want a whole machine in a named region", o)
			}
		}
	})
}

// TestProviderTablesUseCatalogIDs keeps the four providers' name tables to
// GPU ids the sizing catalog defines.
func TestProviderTablesUseCatalogIDs(t *testing.T) {
	catalog := map[string]bool{}
	for _, g := range sizing.GPUs() {
		catalog[g.ID] = true
	}
	ids := map[string]string{}
	for name, id := range runpodGPUs {
		ids["runpod id "+name] = id
	}
	for name, id := range runpodDisplayNames {
		ids["runpod displayName "+name] = id
	}
	for name, sizes := range vastGPUs {
		for _, s := range sizes {
			ids["vast "+name+" as "+s.gpu] = s.gpu
		}
	}
	for name, id := range lambdaGPUs {
		ids["lambda "+name] = id
	}
	for name, id := range gcpGPUs {
		ids["gcp "+name] = id
	}
	for where, id := range ids {
		if !catalog[id] {
			t.Errorf("%s maps to %q, which is not a sizing catalog GPU id", where, id)
		}
	}
}

// BenchmarkDecodeGCPPage decodes a full 5000-SKU page, the size the
// fetcher asks for, built from the fixture's SKUs.
func BenchmarkDecodeGCPPage(b *testing.B) {
	var page struct {
		SKUs []json.RawMessage `json:"skus"`
	}
	if err := json.Unmarshal(testdata(b, "gcp/skus-page2.json"), &page); err != nil {
		b.Fatal(err)
	}
	skus := make([]json.RawMessage, 0, 5000)
	for len(skus) < 5000 {
		skus = append(skus, page.SKUs...)
	}
	raw, err := json.Marshal(map[string]any{"skus": skus[:5000], "nextPageToken": "next"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := decodeGCPPage(raw, newGCPCatalog()); err != nil {
			b.Fatal(err)
		}
	}
}
