package pricing

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const lambdaTestKey = "secret_lambda-test-key_0123456789abcdef"

func newTestLambda(url, key string) *Lambda {
	l := NewLambda(url, key, &http.Client{Timeout: 5 * time.Second}, nil)
	l.now = func() time.Time { return fetchedAt }
	return l
}

func TestLambdaFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/instance-types" {
			t.Errorf("request = %s %s, want GET /api/v1/instance-types", r.Method, r.URL.Path)
		}
		if got, want := r.Header.Get("Authorization"), "Bearer "+lambdaTestKey; got != want {
			t.Errorf("Authorization = %q, want %q", got, want)
		}
		if r.URL.RawQuery != "" {
			t.Errorf("query = %q, want none (the key goes in the header)", r.URL.RawQuery)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(testdata(t, "lambda/instance-types.json"))
	}))
	defer srv.Close()

	got, err := newTestLambda(srv.URL, lambdaTestKey).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkOffers(t, "lambda", got.Offers)
	passGate(t, got.Offers)
	src := srv.URL + "/api/v1/instance-types price_cents_per_hour (per instance)"
	row := func(name, gpu string, n float64, usd float64) Offer {
		return Offer{Provider: "lambda", InstanceType: name, GPU: gpu, GPUCount: n, Market: MarketOnDemand,
			Region: "all", USDPerHour: usd, USDPerGPUHour: usd / n, Source: src, ObservedAt: fetchedAt, Samples: 1}
	}
	// Per-GPU prices: pricing.md §6.1, lambda plans of 2026-09-20 (H100 SXM
	// 1x $4.29, 8x $3.99; PCIe $3.29; B200 8x $6.69; A100 SXM4 80 GB 8x
	// $2.79; A100 40 GB $1.99; A10 $1.29; 8x Tesla V100 $4.40 from
	// Lambda's own instance table); the fixture holds cents per
	// instance-hour. 8x H100, 8x A100 and 8x B200 have no capacity anywhere
	// and are still listed.
	want := []Offer{
		row("gpu_1x_a10", "a10", 1, 1.29),
		row("gpu_1x_a100", "a100-40-pcie", 1, 1.29), // the fixture's own figure; the PCIe card, not the SXM4
		row("gpu_1x_a100_sxm4", "a100-40", 1, 1.99),
		row("gpu_1x_gh200", "gh200", 1, 2.29),
		row("gpu_1x_h100_pcie", "h100-pcie", 1, 3.29),
		row("gpu_1x_h100_sxm5", "h100", 1, 4.29),
		row("gpu_1x_rtx6000", "quadro-rtx-6000", 1, 0.50), // "RTX 6000 (24 GB)": the Turing Quadro, not the 48 GB Ada
		row("gpu_8x_a100_80gb_sxm4", "a100-80", 8, 22.32),
		row("gpu_8x_b200_sxm6", "b200", 8, 53.52),
		row("gpu_8x_h100_sxm5", "h100", 8, 31.92),
		row("gpu_8x_v100", "v100-16", 8, 4.40), // the API's "Tesla V100 (16 GB)": $0.55/GPU-h
	}
	if diff := cmp.Diff(want, got.Offers, approx); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	if len(got.Unknown) != 0 {
		t.Errorf("unknown names %v; every name of the recorded payload is mapped", got.Unknown)
	}
	renamed := bytes.ReplaceAll(testdata(t, "lambda/instance-types.json"), []byte(`"RTX 6000 (24 GB)"`), []byte(`"RTX 8000 (48 GB)"`))
	got, err = decodeLambda(renamed, fetchedAt, "src")
	if err != nil {
		t.Fatal(err)
	}
	wantUnknown := map[string]int{"gpu_1x_rtx6000 (RTX 8000 (48 GB))": 1}
	if diff := cmp.Diff(wantUnknown, got.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestLambdaCountFromName(t *testing.T) {
	raw := []byte(`{"data":{"gpu_2x_h100_sxm5":{"instance_type":{"name":"gpu_2x_h100_sxm5","gpu_description":"H100 (80 GB SXM5)","price_cents_per_hour":838,"specs":{}},"regions_with_capacity_available":[]}}}`)
	got, err := decodeLambda(raw, fetchedAt, "src")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Offers) != 1 || got.Offers[0].GPUCount != 2 || got.Offers[0].USDPerGPUHour != 4.19 {
		t.Errorf("offers = %+v, want one 2-GPU offer at $4.19 per GPU-hour", got.Offers)
	}
}

// TestLambdaKeyNeverInErrors sends the key to servers that fail in every
// way, including one that echoes it back, and checks no error carries it.
func TestLambdaKeyNeverInErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"invalid key", 401, string(testdata(t, "lambda/invalid-key.json")), "lambda: HTTP 401"},
		{"echoes the key", 403, `{"error":{"code":"global/forbidden","message":"key ` + lambdaTestKey + ` is not allowed"}}`, "lambda: HTTP 403"},
		{"error object with 200", 200, `{"error":{"code":"global/unknown","message":"Bearer ` + lambdaTestKey + `"}}`, "lambda: api error global/unknown"},
		{"html", 200, "<!doctype html><title>Lambda</title>", "lambda: got an HTML page"},
		{"no data", 200, `{}`, "lambda: response has no data map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := newTestLambda(srv.URL, lambdaTestKey).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), lambdaTestKey) {
				t.Errorf("error %q carries the API key", err)
			}
		})
	}
}

func TestLambdaNeedsKey(t *testing.T) {
	_, err := newTestLambda("http://127.0.0.1:1", "").Fetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "LAMBDA_API_KEY") {
		t.Errorf("error = %v, want one naming LAMBDA_API_KEY", err)
	}
}

func FuzzDecodeLambda(f *testing.F) {
	f.Add(testdata(f, "lambda/instance-types.json"))
	f.Add(testdata(f, "lambda/invalid-key.json"))
	f.Add([]byte(`{"data":{"x":{"instance_type":{"name":"gpu_0x_h100_sxm5","gpu_description":"H100 (80 GB SXM5)","price_cents_per_hour":-5,"specs":{"gpus":-1}}}}}`))
	f.Add([]byte(`{"data":{"x":{"instance_type":{"name":"gpu_99999999999999999999x_a10","gpu_description":"A10 (24 GB PCIe)","price_cents_per_hour":9223372036854775807}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := decodeLambda(raw, fetchedAt, "src")
		if err != nil {
			if len(res.Offers) != 0 {
				t.Errorf("error %v came with %d offers", err, len(res.Offers))
			}
			return
		}
		checkOffers(t, "lambda", res.Offers)
		for _, o := range res.Offers {
			if o.Market != MarketOnDemand || o.Region != "all" {
				t.Errorf("offer %+v: want on_demand in region all", o)
			}
		}
	})
}

// TestLambdaLogsUnknownNames: the names the table does not know are the
// early warning that Lambda renamed something, so every refresh logs
// them, with how often each appeared; the key never reaches the log.
func TestLambdaLogsUnknownNames(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Two names Lambda might rename its cards to.
		body := bytes.ReplaceAll(testdata(t, "lambda/instance-types.json"), []byte(`"RTX 6000 (24 GB)"`), []byte(`"RTX 8000 (48 GB)"`))
		w.Write(bytes.ReplaceAll(body, []byte(`"GH200 (96 GB)"`), []byte(`"GH200 (144 GB HBM3e)"`)))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	l := NewLambda(srv.URL, lambdaTestKey, nil, slog.New(slog.NewTextHandler(&buf, nil)))
	for range 2 {
		if _, err := l.Fetch(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	logged := buf.String()
	if n := strings.Count(logged, "unrecognised GPU names"); n != 2 {
		t.Errorf("unknown names logged %d times over 2 refreshes, want 2:\n%s", n, logged)
	}
	for _, want := range []string{"provider=lambda", "names=2", "gpu_1x_gh200 (GH200 (144 GB HBM3e))", "gpu_1x_rtx6000"} {
		if !strings.Contains(logged, want) {
			t.Errorf("log lacks %q:\n%s", want, logged)
		}
	}
	if strings.Contains(logged, lambdaTestKey) {
		t.Error("the API key reached the log")
	}
}
