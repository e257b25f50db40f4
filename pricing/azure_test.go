package pricing

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var azureRegionInFilter = regexp.MustCompile(`armRegionName eq '([a-z0-9]+)'`)

// azureServer replays testdata/azure/<region>_<page>.json, page 1 for no
// $skip and page N+1 for $skip=N*1000, with {{BASE}} in NextPageLink
// pointing back at the server. It checks every request's query.
func azureServer(t *testing.T, log *requestLog, before http.HandlerFunc) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(azureHandler(t, log, before, func() string { return srv.URL }))
	t.Cleanup(srv.Close)
	return srv
}

// azureHandler is azureServer's handler, writing linkBase() for {{BASE}}.
func azureHandler(t *testing.T, log *requestLog, before http.HandlerFunc, linkBase func() string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if before != nil {
			before(w, r)
			if w.Header().Get("X-Handled") != "" {
				return
			}
		}
		q := r.URL.Query()
		if r.URL.Path != "/api/retail/prices" || q.Get("api-version") != azureAPIVersion ||
			q.Get("currencyCode") != "'USD'" || q.Get("meterRegion") != "'primary'" {
			t.Errorf("unexpected request %s", r.URL)
		}
		m := azureRegionInFilter.FindStringSubmatch(q.Get("$filter"))
		if m == nil || q.Get("$filter") != azureFilter(m[1]) {
			t.Errorf("filter %q, want azureFilter(region)", q.Get("$filter"))
			http.Error(w, "bad filter", http.StatusBadRequest)
			return
		}
		page := 1
		if s := q.Get("$skip"); s != "" {
			n, _ := strconv.Atoi(s)
			page = n/1000 + 1
		}
		body := testdata(t, fmt.Sprintf("azure/%s_%d.json", m[1], page))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(bytes.ReplaceAll(body, []byte("{{BASE}}"), []byte(linkBase())))
	}
}

// TestAzureFollowsLinksWithTheDefaultPort is the regression test for the
// real API's paging links, which spell out the scheme's default port
// (https://prices.azure.com:443/api/retail/prices?...$skip=1000) while
// the fetcher's base URL does not. The stand-in answers for
// prices.azure.com itself over TLS, so the links are the real ones.
func TestAzureFollowsLinksWithTheDefaultPort(t *testing.T) {
	var log requestLog
	srv := httptest.NewUnstartedServer(azureHandler(t, &log, nil, func() string { return "https://prices.azure.com:443" }))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.InsecureSkipVerify = true // the test certificate is not prices.azure.com's
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	a := NewAzure(DefaultAzureURL, &http.Client{Transport: tr}, nil)
	a.Regions = []string{"eastus"}
	a.now = func() time.Time { return fetchNow }
	res, err := a.Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got := len(log.all()); got != 3 {
		t.Errorf("%d pages fetched, want the 3 of eastus", got)
	}
	if len(res.Offers) != 15 {
		t.Errorf("%d offers, want eastus's 15", len(res.Offers))
	}
}

func TestSameHost(t *testing.T) {
	base, _ := url.Parse("https://prices.azure.com")
	tests := []struct {
		link    string
		wantErr bool
	}{
		{"https://prices.azure.com/api/retail/prices?$skip=1000", false},
		{"https://prices.azure.com:443/api/retail/prices?$skip=1000", false},
		{"HTTPS://Prices.Azure.com:443/api/retail/prices", false},
		{"https://prices.azure.com:8443/api/retail/prices", true},
		{"http://prices.azure.com:443/api/retail/prices", true},
		{"http://prices.azure.com/api/retail/prices", true},
		{"https://prices.azure.com.evil.example/api/retail/prices", true},
		{"", false},
	}
	for _, tt := range tests {
		_, err := sameHost(base, tt.link)
		if (err != nil) != tt.wantErr {
			t.Errorf("sameHost(%q) error %v, want error %v", tt.link, err, tt.wantErr)
		}
	}
}

func testAzure(url string) *Azure {
	a := NewAzure(url, nil, nil)
	a.Regions = []string{"eastus", "westus2"}
	a.now = func() time.Time { return fetchNow }
	return a
}

func TestAzureFetch(t *testing.T) {
	var log requestLog
	srv := azureServer(t, &log, nil)
	res, err := testAzure(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	// Figures are the recorded rows'. Reservations are whole-term prices
	// over the term's hours (19307/8760, 41227/26280); NV6ads A10 v5 is
	// a sixth of an A10. Windows, " Win", Low Priority, DevTest, zero and
	// per-month rows are gone.
	want := []string{
		"azure eastus on_demand  Standard_NC24ads_A100_v4 1xa100-80-pcie $3.6730/h $3.6730/GPU-h",
		"azure eastus on_demand  Standard_NC40ads_H100_v5 1xh100-nvl $6.9800/h $6.9800/GPU-h",
		"azure eastus on_demand  Standard_NC4as_T4_v3 1xt4 $0.5260/h $0.5260/GPU-h",
		"azure eastus on_demand  Standard_ND96amsr_A100_v4 8xa100-80 $32.7702/h $4.0963/GPU-h",
		"azure eastus on_demand  Standard_ND96asr_v4 8xa100-40 $27.1968/h $3.3996/GPU-h",
		"azure eastus on_demand  Standard_ND96isr_H100_v5 8xh100 $98.3200/h $12.2900/GPU-h",
		"azure eastus on_demand  Standard_ND96isr_H200_v5 8xh200 $84.8000/h $10.6000/GPU-h",
		"azure eastus on_demand  Standard_NV6ads_A10_v5 0.16666666666666666xa10 $0.4540/h $2.7240/GPU-h",
		"azure eastus reserved 1-year Standard_NC24ads_A100_v4 1xa100-80-pcie $2.2040/h $2.2040/GPU-h",
		"azure eastus reserved 3-year Standard_NC24ads_A100_v4 1xa100-80-pcie $1.5688/h $1.5688/GPU-h",
		// Savings-plan rates are hourly already; the Windows row's is skipped.
		"azure eastus reserved savings-1-year Standard_NC24ads_A100_v4 1xa100-80-pcie $2.6079/h $2.6079/GPU-h",
		"azure eastus reserved savings-1-year Standard_ND96isr_H100_v5 8xh100 $72.7568/h $9.0946/GPU-h",
		"azure eastus reserved savings-3-year Standard_NC24ads_A100_v4 1xa100-80-pcie $1.6898/h $1.6898/GPU-h",
		"azure eastus reserved savings-3-year Standard_ND96isr_H100_v5 8xh100 $49.1600/h $6.1450/GPU-h",
		"azure eastus spot  Standard_NC24ads_A100_v4 1xa100-80-pcie $0.7346/h $0.7346/GPU-h",
		"azure westus2 on_demand  Standard_NC24ads_A100_v4 1xa100-80-pcie $3.6730/h $3.6730/GPU-h",
		"azure westus2 on_demand  Standard_ND96isr_H100_v5 8xh100 $98.3200/h $12.2900/GPU-h",
		"azure westus2 spot  Standard_NC24ads_A100_v4 1xa100-80-pcie $0.9000/h $0.9000/GPU-h",
		"azure westus2 spot  Standard_ND96isr_H100_v5 8xh100 $39.3300/h $4.9162/GPU-h",
	}
	if diff := cmp.Diff(want, summaries(res.Offers)); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"Standard_NV12s_v3": 2}, res.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
	for _, o := range res.Offers {
		if err := checkOffer(o); err != nil {
			t.Errorf("offer fails the store gate: %v", err)
		}
	}
	reqs := log.all()
	var skips []string
	for _, r := range reqs {
		dec, err := url.QueryUnescape(r)
		if err != nil {
			t.Fatal(err)
		}
		m := azureRegionInFilter.FindStringSubmatch(dec)
		skip := "-"
		if i := strings.Index(r, "$skip="); i >= 0 {
			skip = r[i+len("$skip="):]
		}
		if m == nil {
			t.Errorf("request %q has no region filter", r)
			continue
		}
		skips = append(skips, m[1]+" "+skip)
	}
	if diff := cmp.Diff([]string{"eastus -", "eastus 1000", "eastus 2000", "westus2 -"}, skips); diff != "" {
		t.Errorf("pages walked (-want +got):\n%s", diff)
	}
}

func TestAzureRetriesAfter429(t *testing.T) {
	var log requestLog
	var calls atomic.Int32
	srv := azureServer(t, &log, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 { // the second page's first try
			w.Header().Set("X-Handled", "1")
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"Error":{"Code":"TooManyRequests"}}`, http.StatusTooManyRequests)
		}
	})
	res, err := testAzure(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch after one 429: %v", err)
	}
	if len(res.Offers) != 19 || len(log.all()) != 5 {
		t.Errorf("%d offers from %d requests, want 19 from 5 (one retried)", len(res.Offers), len(log.all()))
	}
}

func TestAzureFaults(t *testing.T) {
	page := func(items, link string) string {
		return `{"BillingCurrency":"USD","Items":[` + items + `],"NextPageLink":` + link + `}`
	}
	row := `{"currencyCode":"USD","retailPrice":3.673,"armRegionName":"eastus","productName":"Virtual Machines NCads A100 v4 Series","skuName":"NC24ads A100 v4","unitOfMeasure":"1 Hour","type":"Consumption","armSkuName":"Standard_NC24ads_A100_v4"}`
	tests := []struct {
		name string
		body func(base string) string
		want string
	}{
		{"html page with status 200", func(string) string { return "<html><body>Service Unavailable</body></html>" }, "azure: got an HTML page"},
		{"truncated page", func(string) string { return `{"BillingCurrency":"USD","Items":[{"currencyCode":"US` }, "azure: eastus, page 1: decode"},
		{"no items", func(string) string { return `{"BillingCurrency":"USD"}` }, "has no Items"},
		{"euros", func(string) string {
			return strings.Replace(page(row, "null"), `"currencyCode":"USD"`, `"currencyCode":"EUR"`, 1)
		}, `currency "EUR", want USD`},
		{"page repeats", func(base string) string {
			return page(row, `"`+base+`/api/retail/prices?api-version=x&$skip=1000"`)
		}, "repeats an earlier page"},
		{"link to another host", func(string) string { return page(row, `"https://evil.example/api/retail/prices"`) }, "NextPageLink leaves"},
		{"row of another region", func(string) string { return page(strings.Replace(row, "eastus", "westus", 1), "null") }, `region "westus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tt.body(srv.URL)))
			}))
			defer srv.Close()
			a := testAzure(srv.URL)
			a.Regions = []string{"eastus"}
			res, err := a.Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "azure: ") {
				t.Errorf("error %v, want one starting with azure: and containing %q", err, tt.want)
			}
			if len(res.Offers) != 0 {
				t.Errorf("%d offers returned with the error", len(res.Offers))
			}
		})
	}
}

func FuzzDecodeAzurePage(f *testing.F) {
	for _, name := range []string{"azure/eastus_1.json", "azure/eastus_2.json", "azure/eastus_3.json", "azure/westus2_1.json"} {
		f.Add(testdata(f, name))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		offers, _, err := decodeAzurePage(raw, fetchNow, map[string]int{})
		if err != nil && offers != nil {
			t.Fatal("offers returned with an error")
		}
		checkDecoded(t, offers)
	})
}
