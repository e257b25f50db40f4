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
	row := func(sku, model, gpu string, m Market, region string, usd float64) Offer {
		return Offer{Provider: "gcp", InstanceType: "Nvidia " + model, GPU: gpu, GPUCount: 1, Market: m,
			Region: region, USDPerHour: usd, USDPerGPUHour: usd, ObservedAt: fetchedAt, Samples: 1,
			Source: "cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus SKU " + sku + ": GPU component only, not a whole VM"}
	}
	// unitPrice units + nanos/1e9 from testdata/gcp: A100 2 + 0.933908 (the
	// reference's example rate), L4 nanos only 0.56004, H200 10.4365 and
	// spot 6.2607 (pricing.md §6.1, tanod 2026-10-13), H100 9.796550569
	// (the regional Virginia SKU at 10.774 loses to it in us-east4).
	want := []Offer{
		row("039F-D0DA-4055", "Tesla A100 GPU", "a100-40", MarketOnDemand, "us-central1", 2.933908),
		row("039F-D0DA-4055", "Tesla A100 GPU", "a100-40", MarketOnDemand, "us-east1", 2.933908),
		row("DEA5-3CA8-6A83", "Tesla A100 GPU", "a100-40", MarketSpot, "us-central1", 1.172),
		row("DEA5-3CA8-6A83", "Tesla A100 GPU", "a100-40", MarketSpot, "us-east1", 1.172),
		row("1A7D-0D26-2EF1", "L4 GPU", "l4", MarketOnDemand, "us-central1", 0.56004),
		row("9F3C-1B6E-7B44", "L4 GPU", "l4", MarketSpot, "us-central1", 0.224016),
		row("4C7E-3F64-1EC1", "H200 141GB GPU", "h200", MarketOnDemand, "us-central1", 10.4365),
		row("5E77-2D68-A6C3", "H200 141GB GPU", "h200", MarketSpot, "us-central1", 6.2607),
		row("6E8D-8A2D-4C1B", "H100 80GB GPU", "h100", MarketOnDemand, "us-central1", 9.796550569),
		row("6E8D-8A2D-4C1B", "H100 80GB GPU", "h100", MarketOnDemand, "us-east4", 9.796550569),
		row("6E8D-8A2D-4C1B", "H100 80GB GPU", "h100", MarketOnDemand, "us-west1", 9.796550569),
	}
	if diff := cmp.Diff(want, got.Offers, approx); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	// The commitment, the CPU core, the licence, the zero-priced T4 and the
	// T4 billed per GiB-month are skipped, not unknown.
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
		var res FetchResult
		_, err := decodeGCPPage(raw, fetchedAt, "src", &res)
		if err != nil {
			return
		}
		checkOffers(t, "gcp", res.Offers)
		for _, o := range res.Offers {
			if o.GPUCount != 1 || o.Region == "" {
				t.Errorf("offer %+v: want one GPU in a named region", o)
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
		var res FetchResult
		if _, err := decodeGCPPage(raw, fetchedAt, "src", &res); err != nil {
			b.Fatal(err)
		}
	}
}
