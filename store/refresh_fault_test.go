//go:build cgo

package store

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/google/go-cmp/cmp"
)

// azureFault is how the fake Azure Retail Prices API misbehaves on the
// second refresh; nil serves the recorded page.
type azureFault func(w http.ResponseWriter, r *http.Request, page []byte, base string)

// The faults a price provider shows in the wild, each on its own.
var azureFaults = []struct {
	name  string
	fault azureFault
}{
	{"hangs", func(w http.ResponseWriter, r *http.Request, _ []byte, _ string) {
		<-r.Context().Done()
	}},
	{"resets the connection", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ string) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}},
	{"returns 500", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ string) {
		http.Error(w, `{"Error":{"Code":"InternalServerError","Message":"An error has occurred."}}`, http.StatusInternalServerError)
	}},
	{"429 storm", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ string) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"Error":{"Code":"TooManyRequests"}}`, http.StatusTooManyRequests)
	}},
	{"garbage", func(w http.ResponseWriter, _ *http.Request, _ []byte, _ string) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("<html><body>502 Bad Gateway</body></html>\x00\xff{\"Items\":"))
	}},
	{"endless NextPageLink", func(w http.ResponseWriter, r *http.Request, page []byte, base string) {
		n := 0
		fmt.Sscan(r.URL.Query().Get("page"), &n)
		next := fmt.Sprintf(`"NextPageLink": "%s/api/retail/prices?page=%d"`, base, n+1)
		w.Write(bytes.Replace(page, []byte(`"NextPageLink": null`), []byte(next), 1))
	}},
	{"endless body", func(w http.ResponseWriter, r *http.Request, page []byte, _ string) {
		w.Write([]byte(`{"BillingCurrency":"USD","Items":[`))
		item := page[bytes.Index(page, []byte("  {")) : bytes.Index(page, []byte("  },"))+4]
		for r.Context().Err() == nil {
			if _, err := w.Write(item); err != nil {
				return
			}
		}
	}},
}

// TestRefreshUnderProviderFaults refreshes two real fetchers (Azure and
// RunPod) into a real database, then again with Azure misbehaving in
// each way: the refresh ends within its timeout, RunPod's new prices
// land, Azure's run is recorded as failed, and Azure's earlier prices
// stay current.
func TestRefreshUnderProviderFaults(t *testing.T) {
	if testing.Short() {
		// Each case waits out a real timeout and the endless body streams
		// 32 MiB: the timing bound is not meant for the race detector's
		// slowdown (CI runs this test without -short and -race).
		t.Skip("fault refreshes wait out real timeouts; run without -short")
	}
	page, err := os.ReadFile(filepath.Join("..", "pricing", "testdata", "azure", "westus2_1.json"))
	if err != nil {
		t.Fatal(err)
	}
	runpod, err := os.ReadFile(filepath.Join("..", "pricing", "testdata", "runpod", "gputypes.json"))
	if err != nil {
		t.Fatal(err)
	}
	const timeout = time.Second
	for _, tc := range azureFaults {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := openTest(t)
			var fault atomic.Pointer[azureFault]
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/graphql" {
					w.Write(runpod)
					return
				}
				if f := fault.Load(); f != nil {
					(*f)(w, r, page, srv.URL)
					return
				}
				w.Write(page)
			}))
			defer srv.Close()
			azure := pricing.NewAzure(srv.URL, srv.Client(), nil)
			azure.Regions = []string{"westus2"}
			r := &pricing.Refresher{
				Fetchers: []pricing.Fetcher{azure, pricing.NewRunPod(srv.URL, "", srv.Client(), nil)},
				Sink:     db,
				Timeout:  timeout,
			}
			if _, err := r.Refresh(ctx); err != nil {
				t.Fatalf("healthy refresh: %v", err)
			}
			before := providerOffers(t, db, "azure")
			if len(before) == 0 {
				t.Fatal("the healthy refresh stored no azure offers")
			}

			fault.Store(&tc.fault)
			start := time.Now()
			reports, err := r.Refresh(ctx)
			if took := time.Since(start); took > timeout+time.Second {
				t.Errorf("refresh took %v with a %v timeout", took, timeout)
			}
			if err == nil || reports[0].Run.Status == pricing.RunOK {
				t.Errorf("azure %s: refresh error %v, run %+v; want it failed", tc.name, err, reports[0].Run)
			}
			if reports[1].Run.Status != pricing.RunOK {
				t.Errorf("runpod did not land beside the failing azure: %+v", reports[1].Run)
			}
			if diff := cmp.Diff(before, providerOffers(t, db, "azure")); diff != "" {
				t.Errorf("azure's current offers changed although its refresh failed (-before +after):\n%s", diff)
			}
			t.Logf("azure %s: %s after %v", tc.name, reports[0].Run.Error, time.Since(start).Round(time.Millisecond))
		})
	}
}

// providerOffers are the current offers of one provider, every GPU.
func providerOffers(t *testing.T, db *DB, provider string) []pricing.Offer {
	t.Helper()
	all, err := db.CurrentOffers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []pricing.Offer
	for _, o := range all {
		if o.Provider == provider {
			out = append(out, o)
		}
	}
	return out
}
