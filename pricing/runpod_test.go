package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fetchedAt is the clock the fetcher tests run at.
var fetchedAt = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

// approx compares prices computed by division to the cent figures of the
// fixtures.
var approx = cmpopts.EquateApprox(0, 1e-9)

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkOffers asserts what every fetcher promises of every offer it
// returns, whatever the payload.
func checkOffers(t testing.TB, provider string, offers []Offer) {
	t.Helper()
	for i, o := range offers {
		switch {
		case o.Provider != provider:
			t.Errorf("offer %d: Provider = %q, want %q", i, o.Provider, provider)
		case o.GPU == "" || o.InstanceType == "":
			t.Errorf("offer %d: empty GPU or InstanceType: %+v", i, o)
		case !(o.GPUCount >= 1) || math.IsInf(o.GPUCount, 0):
			t.Errorf("offer %d: GPUCount = %v", i, o.GPUCount)
		case !(o.USDPerHour > 0) || math.IsInf(o.USDPerHour, 0):
			t.Errorf("offer %d: USDPerHour = %v", i, o.USDPerHour)
		case math.Abs(o.USDPerGPUHour-o.USDPerHour/o.GPUCount) > 1e-9*o.USDPerHour:
			t.Errorf("offer %d: USDPerGPUHour = %v, want %v", i, o.USDPerGPUHour, o.USDPerHour/o.GPUCount)
		case o.Market != MarketOnDemand && o.Market != MarketSpot && o.Market != MarketReserved:
			t.Errorf("offer %d: Market = %q", i, o.Market)
		case o.Samples < 1:
			t.Errorf("offer %d: Samples = %d", i, o.Samples)
		}
	}
}

// passGate asserts offers pass the validation every refresh applies
// before it stores anything.
func passGate(t testing.TB, offers []Offer) {
	t.Helper()
	for i, o := range offers {
		if err := checkOffer(o); err != nil {
			t.Errorf("offer %d fails the store gate: %v", i, err)
		}
	}
}

func newTestRunPod(url string) *RunPod {
	r := NewRunPod(url, "", &http.Client{Timeout: 5 * time.Second}, nil)
	r.now = func() time.Time { return fetchedAt }
	return r
}

func TestRunPodFetch(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/graphql" {
			t.Errorf("request = %s %s, want POST /graphql", r.Method, r.URL.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", ct)
		}
		var body struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("body is not a GraphQL request: %v", err)
		}
		for _, field := range []string{"gpuTypes", "id", "displayName", "securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice"} {
			if !strings.Contains(body.Query, field) {
				t.Errorf("query %q does not ask for %s", body.Query, field)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(testdata(t, "runpod/gputypes.json"))
	}))
	defer srv.Close()

	got, err := newTestRunPod(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", calls.Load())
	}
	checkOffers(t, "runpod", got.Offers)
	passGate(t, got.Offers)
	src := srv.URL + "/graphql gpuTypes (per GPU-hour)"
	row := func(id, gpu, tier string, m Market, p float64) Offer {
		return Offer{Provider: "runpod", InstanceType: id, GPU: gpu, GPUCount: 1, Market: m, Tier: tier,
			Region: "all", USDPerHour: p, USDPerGPUHour: p, Source: src, ObservedAt: fetchedAt, Samples: 1}
	}
	// Prices: pricing.md §6.1 (RunPod H100 SXM sec $3.99 / comm $2.69,
	// A100 SXM sec $1.79 / comm $1.39, A100 PCIe comm $1.19, H100 PCIe sec
	// $2.89 / comm $1.99, RTX 4090 sec $0.74 / comm $0.34); spot figures are
	// the fixture's own.
	want := []Offer{
		row("NVIDIA H100 80GB HBM3", "h100", "secure", MarketOnDemand, 3.99),
		row("NVIDIA H100 80GB HBM3", "h100", "community", MarketOnDemand, 2.69),
		row("NVIDIA H100 80GB HBM3", "h100", "secure", MarketSpot, 2.99),
		row("NVIDIA H100 80GB HBM3", "h100", "community", MarketSpot, 1.75),
		// The secure cloud's longer-term prices, per GPU-hour (the
		// fixture's own figures; oneWeekPrice is not asked for).
		row("NVIDIA H100 80GB HBM3", "h100", "1-month", MarketReserved, 3.69),
		row("NVIDIA H100 80GB HBM3", "h100", "3-month", MarketReserved, 3.49),
		row("NVIDIA H100 80GB HBM3", "h100", "6-month", MarketReserved, 3.29),
		// securePrice null: no secure row.
		row("NVIDIA A100 80GB PCIe", "a100-80-pcie", "community", MarketOnDemand, 1.19),
		row("NVIDIA A100 80GB PCIe", "a100-80-pcie", "community", MarketSpot, 0.6),
		row("NVIDIA A100-SXM4-80GB", "a100-80", "secure", MarketOnDemand, 1.79),
		row("NVIDIA A100-SXM4-80GB", "a100-80", "community", MarketOnDemand, 1.39),
		row("NVIDIA A100-SXM4-80GB", "a100-80", "secure", MarketSpot, 1.1),
		row("NVIDIA A100-SXM4-80GB", "a100-80", "1-month", MarketReserved, 1.64),
		row("NVIDIA A100-SXM4-80GB", "a100-80", "6-month", MarketReserved, 1.49),
		// communityCloud false and zero spot prices: secure on demand only.
		row("NVIDIA H100 NVL", "h100-nvl", "secure", MarketOnDemand, 2.79),
		row("NVIDIA H100 PCIe", "h100-pcie", "secure", MarketOnDemand, 2.89),
		row("NVIDIA H100 PCIe", "h100-pcie", "community", MarketOnDemand, 1.99),
		row("NVIDIA GeForce RTX 4090", "rtx-4090", "secure", MarketOnDemand, 0.74),
		row("NVIDIA GeForce RTX 4090", "rtx-4090", "community", MarketOnDemand, 0.34),
		row("NVIDIA GeForce RTX 4090", "rtx-4090", "community", MarketSpot, 0.29),
		// The A6000's $0.02 spot price is under the store's $0.05 floor.
		row("NVIDIA RTX A6000", "rtx-a6000", "secure", MarketOnDemand, 0.49),
		row("NVIDIA RTX A6000", "rtx-a6000", "community", MarketOnDemand, 0.33),
	}
	if diff := cmp.Diff(want, got.Offers, approx); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	wantUnknown := map[string]int{"NVIDIA RTX A4000": 1, "unknown": 1}
	if diff := cmp.Diff(wantUnknown, got.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestRunPodDisplayNameFallback(t *testing.T) {
	raw := []byte(`{"data":{"gpuTypes":[{"id":"NVIDIA H100 80GB HBM3e-renamed","displayName":"H100 SXM","securePrice":3.49}]}}`)
	got, _, err := decodeRunPod(raw, fetchedAt, "src")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Offers) != 1 || got.Offers[0].GPU != "h100" || got.Offers[0].Tier != "secure" {
		t.Errorf("offers = %+v, want one secure h100 offer", got.Offers)
	}
}

func TestRunPodFaults(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		file        string
		body        string
		want        string // in the error
	}{
		{"graphql errors", 200, "application/json", "runpod/errors.json", "", `runpod: graphql errors: Cannot query field "securePrice"`},
		{"html with status 200", 200, "text/html; charset=UTF-8", "runpod/cloudflare.html", "", "runpod: got an HTML page"},
		{"html served as json", 200, "application/json", "runpod/cloudflare.html", "", "runpod: got an HTML page"},
		{"truncated payload", 200, "application/json", "", `{"data":{"gpuTypes":[{"id":"NVIDIA H100 80GB HBM3","securePrice":3.`, "runpod: decode gpuTypes"},
		{"no data", 200, "application/json", "", `{"data":null}`, "runpod: response has no data.gpuTypes"},
		{"not found", 404, "text/plain", "", "404 page not found", "runpod: HTTP 404: 404 page not found"},
		{"bad request", 400, "application/json", "", `{"errors":[{"message":"Must provide query string."}]}`, "runpod: HTTP 400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			if tt.file != "" {
				body = testdata(t, tt.file)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				w.Write(body)
			}))
			defer srv.Close()
			_, err := newTestRunPod(srv.URL).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestRunPodRetriesAfter429 shows a 429 with Retry-After is waited out and
// the retry's answer used.
func TestRunPodRetriesAfter429(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"errors":[{"message":"rate limited"}]}`)
			return
		}
		w.Write(testdata(t, "runpod/gputypes.json"))
	}))
	defer srv.Close()
	start := time.Now()
	got, err := newTestRunPod(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("calls = %d, want 2", calls.Load())
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, want at least the 1s Retry-After", waited)
	}
	if len(got.Offers) != 22 {
		t.Errorf("offers = %d, want 22", len(got.Offers))
	}
}

func TestRunPodGivesUpOn429Storm(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	_, err := newTestRunPod(srv.URL).Fetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "runpod: HTTP 429") {
		t.Errorf("error = %v, want runpod: HTTP 429", err)
	}
	if calls.Load() != providerAttempts {
		t.Errorf("calls = %d, want %d", calls.Load(), providerAttempts)
	}
}

func TestRunPodRespectsContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := newTestRunPod(srv.URL).Fetch(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "runpod: ") {
		t.Errorf("error = %v, want runpod: ... context deadline exceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Fetch returned after %v, want soon after the 100ms deadline", d)
	}
}

func TestRunPodCapsBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data":{"gpuTypes":[`)
		chunk := []byte(strings.Repeat(`{"id":"x","securePrice":1},`, 1000))
		for written := 0; written <= maxProviderBody; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, err := newTestRunPod(srv.URL).Fetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "runpod: response larger than") {
		t.Errorf("error = %v, want runpod: response larger than ...", err)
	}
}

func FuzzDecodeRunPod(f *testing.F) {
	f.Add(testdata(f, "runpod/gputypes.json"))
	f.Add(testdata(f, "runpod/errors.json"))
	f.Add([]byte(`{"data":{"gpuTypes":[{"id":"NVIDIA L4","securePrice":-1,"communityPrice":1e308}]}}`))
	f.Add([]byte(`{"data":{"gpuTypes":null}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, _, err := decodeRunPod(raw, fetchedAt, "src")
		if err != nil {
			if len(res.Offers) != 0 {
				t.Errorf("error %v came with %d offers", err, len(res.Offers))
			}
			return
		}
		checkOffers(t, "runpod", res.Offers)
		for _, o := range res.Offers {
			if (o.Market == MarketReserved) != slices.Contains([]string{"1-month", "3-month", "6-month"}, o.Tier) ||
				o.Market != MarketReserved && o.Tier != "secure" && o.Tier != "community" {
				t.Errorf("Tier = %q", o.Tier)
			}
			if !inBounds(o.USDPerGPUHour) {
				t.Errorf("$%v per GPU-hour passed, outside the store's bounds", o.USDPerGPUHour)
			}
		}
	})
}

// TestRunPodAPIKey: where RunPod answers 401 without a key, the error
// says which variable to set; with RUNPOD_API_KEY the key goes in the
// Authorization header (never the URL), and an error that echoes it
// shows it redacted.
func TestRunPodAPIKey(t *testing.T) {
	const key = "rpa_TESTKEY0123456789abcdef"
	tests := []struct {
		name      string
		key       string
		answer    string // what the server answers an authorised request with
		wantErr   string
		wantCount int
	}{
		{"no key", "", "", "set RUNPOD_API_KEY", 0},
		{"key", key, "", "", 22},
		{"key echoed in a GraphQL error", key, `{"errors":[{"message":"api key ` + key + ` lacks read scope"}]}`, "[redacted]", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.URL.RawQuery, "api_key") {
					t.Errorf("the key is in the URL: %s", r.URL)
				}
				if r.Header.Get("Authorization") != "Bearer "+key {
					w.WriteHeader(http.StatusUnauthorized)
					w.Write([]byte(`{"errors":[{"message":"Unauthorized"}]}`))
					return
				}
				if tt.answer != "" {
					w.Write([]byte(tt.answer))
					return
				}
				w.Write(testdata(t, "runpod/gputypes.json"))
			}))
			defer srv.Close()
			r := NewRunPod(srv.URL, tt.key, srv.Client(), nil)
			res, err := r.Fetch(context.Background())
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), key) {
				t.Errorf("the key is in the error: %v", err)
			}
			if len(res.Offers) != tt.wantCount {
				t.Errorf("%d offers, want %d", len(res.Offers), tt.wantCount)
			}
		})
	}
}
