package pricing

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var fetchNow = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// requestLog records the requests a test server saw, for asserting them.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := r.Method + " " + r.URL.Path
	if r.URL.RawQuery != "" {
		s += "?" + r.URL.RawQuery
	}
	l.reqs = append(l.reqs, s)
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

const (
	awsUSEast1Path = "/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/US East (N. Virginia)/Linux/index.json"
	awsUSWest2Path = "/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/US West (Oregon)/Linux/index.json"
)

// awsServer serves the recorded AWS files; files maps a path to a
// testdata file, and a handler in before, when set, answers first.
func awsServer(t *testing.T, log *requestLog, files map[string]string, before http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.Method != http.MethodGet {
			t.Errorf("%s %s, want GET", r.Method, r.URL.Path)
		}
		if before != nil {
			before(w, r)
			if w.Header().Get("X-Handled") != "" {
				return
			}
		}
		name, ok := files[r.URL.Path]
		if !ok {
			t.Errorf("unexpected request for %q", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(testdata(t, name))
	}))
	t.Cleanup(srv.Close)
	return srv
}

var awsFiles = map[string]string{
	awsUSEast1Path: "aws/ondemand_us-east-1.json",
	awsUSWest2Path: "aws/ondemand_us-west-2.json",
	"/spot.json":   "aws/spot.json",
}

func testAWS(url string) *AWS {
	a := NewAWS(url, nil, nil)
	a.Regions = []string{"us-east-1", "us-west-2"}
	a.now = func() time.Time { return fetchNow }
	return a
}

// summary is an offer in one comparable line.
func summary(o Offer) string {
	return fmt.Sprintf("%s %s %s %s %s %gx%s $%.4f/h $%.4f/GPU-h", o.Provider, o.Region, o.Market, o.Tier, o.InstanceType, o.GPUCount, o.GPU, o.USDPerHour, o.USDPerGPUHour)
}

func summaries(offers []Offer) []string {
	out := make([]string, len(offers))
	for i, o := range offers {
		out[i] = summary(o)
	}
	slices.Sort(out)
	return out
}

func TestAWSFetch(t *testing.T) {
	var log requestLog
	srv := awsServer(t, &log, awsFiles, nil)
	res, err := testAWS(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	// Prices are the recorded files'; the per-GPU figures are the
	// instance price over awsInstances' GPU count (p5.48xlarge: 55.04/8).
	want := []string{
		"aws us-east-1 on_demand  g4dn.xlarge 1xt4 $0.5260/h $0.5260/GPU-h",
		"aws us-east-1 on_demand  g5.12xlarge 4xa10g $5.6720/h $1.4180/GPU-h",
		"aws us-east-1 on_demand  g5.xlarge 1xa10g $1.0060/h $1.0060/GPU-h",
		"aws us-east-1 on_demand  g6.xlarge 1xl4 $0.8048/h $0.8048/GPU-h",
		"aws us-east-1 on_demand  g6e.xlarge 1xl40s $1.8610/h $1.8610/GPU-h",
		"aws us-east-1 on_demand  p4d.24xlarge 8xa100-40 $21.9576/h $2.7447/GPU-h",
		"aws us-east-1 on_demand  p4de.24xlarge 8xa100-80 $27.4471/h $3.4309/GPU-h",
		"aws us-east-1 on_demand  p5.48xlarge 8xh100 $55.0400/h $6.8800/GPU-h",
		"aws us-east-1 on_demand  p5.4xlarge 1xh100 $6.8800/h $6.8800/GPU-h",
		"aws us-east-1 on_demand  p5en.48xlarge 8xh200 $63.2960/h $7.9120/GPU-h",
		"aws us-east-1 on_demand  p6-b200.48xlarge 8xb200 $113.9328/h $14.2416/GPU-h",
		"aws us-east-1 spot  g5.xlarge 1xa10g $0.4530/h $0.4530/GPU-h",
		"aws us-east-1 spot  g6e.xlarge 1xl40s $0.7021/h $0.7021/GPU-h",
		"aws us-east-1 spot  p3.2xlarge 1xv100-16 $0.9180/h $0.9180/GPU-h",
		"aws us-east-1 spot  p4d.24xlarge 8xa100-40 $9.1234/h $1.1404/GPU-h",
		"aws us-west-2 on_demand  g4dn.xlarge 1xt4 $0.5260/h $0.5260/GPU-h",
		"aws us-west-2 on_demand  g6.xlarge 1xl4 $0.8048/h $0.8048/GPU-h",
		"aws us-west-2 on_demand  p5.48xlarge 8xh100 $55.0400/h $6.8800/GPU-h",
		"aws us-west-2 spot  g4dn.xlarge 1xt4 $0.1578/h $0.1578/GPU-h",
		"aws us-west-2 spot  p5.48xlarge 8xh100 $23.1200/h $2.8900/GPU-h",
	}
	if diff := cmp.Diff(want, summaries(res.Offers)); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
	// The AMD g4ad and the new g7e are GPU instances the table does not
	// map: counted, never guessed. CPU instances (m5, c7i, inf2) are not
	// GPU offers and not counted.
	if diff := cmp.Diff(map[string]int{"g4ad.xlarge": 2, "g7e.2xlarge": 1}, res.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
	for _, o := range res.Offers {
		if err := checkOffer(o); err != nil {
			t.Errorf("offer fails the store gate: %v", err)
		}
		if !o.ObservedAt.Equal(fetchNow) || !strings.Contains(o.Source, "awsstatic.com") && !strings.Contains(o.Source, "spot.json") {
			t.Errorf("offer %s: observed %v, source %q", o.InstanceType, o.ObservedAt, o.Source)
		}
	}
	wantReqs := []string{"GET " + awsUSEast1Path, "GET " + awsUSWest2Path, "GET /spot.json"}
	if diff := cmp.Diff(wantReqs, log.all()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestAWSRequestEscapesLocation(t *testing.T) {
	var raw []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw = append(raw, r.URL.EscapedPath())
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	if _, err := testAWS(srv.URL).Fetch(context.Background()); err == nil {
		t.Fatal("Fetch succeeded against a 404")
	}
	want := "/pricing/2.0/meteredUnitMaps/ec2/USD/current/ec2-ondemand-without-sec-sel/US%20East%20%28N.%20Virginia%29/Linux/index.json"
	if len(raw) != 1 || raw[0] != want {
		t.Errorf("requested %q, want one request for %q", raw, want)
	}
}

func TestAWSRetriesAfter429(t *testing.T) {
	var log requestLog
	var once sync.Once
	srv := awsServer(t, &log, awsFiles, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spot.json" {
			return
		}
		once.Do(func() {
			w.Header().Set("X-Handled", "1")
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		})
	})
	res, err := testAWS(srv.URL).Fetch(context.Background())
	if err != nil {
		t.Fatalf("Fetch after one 429: %v", err)
	}
	if len(res.Offers) != 20 {
		t.Errorf("%d offers after a retried 429, want 20", len(res.Offers))
	}
	if got := log.all(); len(got) != 4 || got[2] != "GET /spot.json" || got[3] != "GET /spot.json" {
		t.Errorf("requests %q, want the spot feed asked twice", got)
	}
}

func TestAWSFaults(t *testing.T) {
	tests := []struct {
		name string
		path string // the file replaced
		body string
		want string
	}{
		{"html page with status 200", awsUSEast1Path, "<!DOCTYPE html><html><body>Access Denied</body></html>", "aws: got an HTML page"},
		{"truncated on-demand file", awsUSEast1Path, `{"manifest":{"currencyCode":"USD"},"regions":{"US East (N. Virginia)":{"p5`, "aws: on-demand prices, us-east-1: decode"},
		{"not dollars", awsUSEast1Path, `{"manifest":{"currencyCode":"EUR"},"regions":{}}`, `currency "EUR", want USD`},
		{"other location", awsUSEast1Path, `{"manifest":{"currencyCode":"USD"},"regions":{"EU (Ireland)":{}}}`, `no prices for "US East (N. Virginia)"`},
		{"bad price", awsUSEast1Path, `{"manifest":{"currencyCode":"USD"},"regions":{"US East (N. Virginia)":{"k":{"price":"lots","Instance Type":"p5.48xlarge"}}}}`, `p5.48xlarge: price "lots"`},
		{"spot feed per month", "/spot.json", `{"config":{"rate":"permonth","currencies":["USD"],"regions":[]}}`, `rate "permonth"`},
		{"spot feed empty", "/spot.json", `{"config":{"rate":"perhr","currencies":["USD"],"regions":[]}}`, "lists no regions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log requestLog
			srv := awsServer(t, &log, awsFiles, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tt.path {
					w.Header().Set("X-Handled", "1")
					w.Write([]byte(tt.body))
				}
			})
			res, err := testAWS(srv.URL).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "aws: ") {
				t.Errorf("error %v, want one starting with aws: and containing %q", err, tt.want)
			}
			if len(res.Offers) != 0 {
				t.Errorf("%d offers returned with the error", len(res.Offers))
			}
		})
	}
}

// checkDecoded asserts what every decoder promises whatever its input:
// catalog GPUs, positive finite prices, a consistent per-GPU price.
func checkDecoded(t *testing.T, offers []Offer) {
	t.Helper()
	for _, o := range offers {
		if _, ok := CanonicalGPU(o.GPU); !ok || o.GPU == "" {
			t.Fatalf("offer with GPU %q", o.GPU)
		}
		if !(o.USDPerHour > 0) || math.IsInf(o.USDPerHour, 0) || !(o.GPUCount > 0) {
			t.Fatalf("offer %s priced %v for %v GPUs", o.InstanceType, o.USDPerHour, o.GPUCount)
		}
		if math.Abs(o.USDPerGPUHour*o.GPUCount-o.USDPerHour) > 1e-9*o.USDPerHour {
			t.Fatalf("offer %s: per-GPU %v x %v != %v", o.InstanceType, o.USDPerGPUHour, o.GPUCount, o.USDPerHour)
		}
	}
}

func FuzzDecodeAWSOnDemand(f *testing.F) {
	f.Add(testdata(f, "aws/ondemand_us-east-1.json"))
	f.Add([]byte(`{"manifest":{"currencyCode":"USD"},"regions":{"US East (N. Virginia)":{"k":{"price":"1e400","Instance Type":"p5.48xlarge"}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		offers, err := decodeAWSOnDemand(raw, "us-east-1", "US East (N. Virginia)", fetchNow, "fuzz", map[string]int{})
		if err != nil && offers != nil {
			t.Fatal("offers returned with an error")
		}
		checkDecoded(t, offers)
	})
}

func FuzzDecodeAWSSpot(f *testing.F) {
	f.Add(testdata(f, "aws/spot.json"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		offers, err := decodeAWSSpot(raw, []string{"us-east-1", "us-west-2"}, fetchNow, "fuzz", map[string]int{})
		if err != nil && offers != nil {
			t.Fatal("offers returned with an error")
		}
		checkDecoded(t, offers)
	})
}

// TestAWSPublicationDates is the regression test for frozen feeds: the
// on-demand files carry manifest.hawkFilePublicationDate, the spot feed
// its Last-Modified, and a feed that stopped being regenerated (the
// legacy spot feed froze on 2024-05-13 and kept answering) yields prices
// as old as its publication, which rank as stale, and a refresh that
// says so; a fresh feed's do not.
func TestAWSPublicationDates(t *testing.T) {
	tests := []struct {
		name          string
		spotModified  string
		wantSpotStale bool
	}{
		{"fresh spot feed", "Mon, 30 Nov 2026 05:52:00 GMT", false},
		{"frozen spot feed", "Mon, 13 May 2024 17:00:00 GMT", true},
		{"no Last-Modified", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log requestLog
			srv := awsServer(t, &log, awsFiles, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/spot.json" && tt.spotModified != "" {
					w.Header().Set("Last-Modified", tt.spotModified)
				}
			})
			a := testAWS(srv.URL)
			res, err := a.Fetch(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			onDemandPublished := time.Date(2026, 11, 27, 19, 48, 17, 0, time.UTC)
			for _, o := range res.Offers {
				switch o.Market {
				case MarketOnDemand:
					if o.Region == "us-east-1" && !o.PublishedAt.Equal(onDemandPublished) {
						t.Errorf("%s on demand published %v, want the manifest's %v", o.InstanceType, o.PublishedAt, onDemandPublished)
					}
					if o.Stale(fetchNow) {
						t.Errorf("%s on demand, published 2.5 days ago, ranks stale", o.InstanceType)
					}
				case MarketSpot:
					if o.Stale(fetchNow) != tt.wantSpotStale {
						t.Errorf("%s spot stale = %v, want %v (published %v)", o.InstanceType, o.Stale(fetchNow), tt.wantSpotStale, o.PublishedAt)
					}
				}
			}
			sink := &memorySink{}
			reports, _ := (&Refresher{Fetchers: []Fetcher{a}, Sink: sink, Clock: func() time.Time { return fetchNow }}).Refresh(context.Background())
			if reports[0].Run.Status != RunOK || reports[0].Stale() != tt.wantSpotStale {
				t.Errorf("refresh %s, Stale() = %v; want ok, %v", reports[0].Run.Status, reports[0].Stale(), tt.wantSpotStale)
			}
		})
	}
}
