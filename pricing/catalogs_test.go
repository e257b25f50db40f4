package pricing

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// catalogModified is the Last-Modified the catalog stand-ins send: the
// hour's publishing run.
var catalogModified = time.Date(2026, 11, 30, 21, 7, 0, 0, time.UTC)

// catalogServer serves testdata/<dir> laid out as the real buckets are
// (gpuhunt: v3/<provider>/version and v3/<provider>/<version>/catalog.zip;
// SkyPilot: v8/<cloud>/vms.csv), with a fixed Last-Modified when modified
// is set.
func catalogServer(t *testing.T, dir string, modified bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := os.ReadFile(filepath.Join("testdata", dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if modified {
			w.Header().Set("Last-Modified", catalogModified.Format(http.TimeFormat))
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fetchOne(t *testing.T, f Fetcher) FetchResult {
	t.Helper()
	res, err := f.Fetch(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	for _, o := range res.Offers {
		if err := checkOffer(o); err != nil {
			t.Errorf("%s: offer fails the store gate: %v", f.Name(), err)
		}
	}
	return res
}

// TestGPUHuntCatalogs replays gpuhunt's v3 layout: per provider a version
// pointer and a zip holding <provider>.csv in its v2 columns. Prices are
// per instance; the per-GPU figures are the instance price over the GPUs.
func TestGPUHuntCatalogs(t *testing.T) {
	srv := catalogServer(t, "gpuhunt/v3", true)
	tests := []struct {
		catalog, provider string
		want              []string
		unknown           map[string]int
	}{
		{"aws", "aws", []string{
			// p4de is the A100 SXM 80 GB by fitbot's own AWS table.
			"aws us-east-1 on_demand  g6.xlarge 1xl4 $0.8048/h $0.8048/GPU-h",
			"aws us-east-1 on_demand  p4de.24xlarge 8xa100-80 $27.4471/h $3.4309/GPU-h",
			"aws us-east-1 on_demand  p5.48xlarge 8xh100 $55.0400/h $6.8800/GPU-h",
			"aws us-east-1 spot  p5.48xlarge 8xh100 $23.1200/h $2.8900/GPU-h",
		}, map[string]int{}},
		{"gcp", "gcp", []string{
			// Whole VMs as gpuhunt prices them. The DWS calendar-mode row
			// (booked ahead) is left out, the gcp-a4 one (a flag for old
			// dstack versions) kept; the TPU is not a GPU.
			"gcp us-central1-a on_demand  a2-highgpu-1g 1xa100-40 $3.6734/h $3.6734/GPU-h",
			"gcp us-central1-a on_demand  a3-highgpu-8g 8xh100 $88.4900/h $11.0612/GPU-h",
			"gcp us-central1-b spot  a4-highgpu-8g 8xb200 $34.0000/h $4.2500/GPU-h",
		}, map[string]int{}},
		{"lambdalabs", "lambda", []string{
			"lambda us-east-1 on_demand  gpu_1x_gh200 1xgh200 $2.2900/h $2.2900/GPU-h",
			"lambda us-east-1 on_demand  gpu_1x_h100_sxm5 1xh100 $4.2900/h $4.2900/GPU-h",
			"lambda us-east-1 on_demand  gpu_8x_b200_sxm6 8xb200 $53.5200/h $6.6900/GPU-h",
			"lambda us-east-1 on_demand  gpu_8x_h100_sxm5 8xh100 $31.9200/h $3.9900/GPU-h",
		}, map[string]int{}},
		{"nebius", "nebius", []string{
			"nebius eu-north1 on_demand  gpu-h100-sxm 1xh100 $3.8500/h $3.8500/GPU-h",
			"nebius eu-north1 on_demand  gpu-h100-sxm 8xh100 $30.8000/h $3.8500/GPU-h",
			"nebius eu-north1 on_demand  gpu-h200-sxm 1xh200 $4.5000/h $4.5000/GPU-h",
			"nebius eu-north1 on_demand  gpu-l40s-a 1xl40s $1.5500/h $1.5500/GPU-h",
		}, map[string]int{}},
		{"verda", "verda", []string{
			"verda FIN-01 on_demand  1A100.22V 1xa100-80 $1.1200/h $1.1200/GPU-h",
			"verda FIN-01 spot  1A100.22V 1xa100-80 $0.5300/h $0.5300/GPU-h",
			"verda FIN-02 on_demand  1H100.80S.30V 1xh100 $1.9700/h $1.9700/GPU-h",
			"verda FIN-02 on_demand  8H100.80S.176V 8xh100 $15.7700/h $1.9712/GPU-h",
		}, map[string]int{}},
		{"azure", "azure", []string{
			// NCads A100 v4 is the PCIe card by fitbot's own Azure table.
			"azure eastus on_demand  Standard_NC24ads_A100_v4 1xa100-80-pcie $3.6730/h $3.6730/GPU-h",
			"azure eastus on_demand  Standard_ND96isr_H100_v5 8xh100 $98.3200/h $12.2900/GPU-h",
		}, map[string]int{}},
		{"oci", "oci", []string{
			"oci us-ashburn-1 on_demand  BM.GPU.H100.8 8xh100 $80.0000/h $10.0000/GPU-h",
			"oci us-ashburn-1 on_demand  VM.GPU.A10.1 1xa10 $2.0000/h $2.0000/GPU-h",
			"oci us-ashburn-1 spot  VM.GPU.A10.1 1xa10 $1.0000/h $1.0000/GPU-h", // preemptible at 50%, flagged oci-spot
		}, map[string]int{}},
		{"cloudrift", "cloudrift", []string{
			"cloudrift us-east-nc-nr-1 on_demand  rtx49-10c-kn.1 1xrtx-4090 $0.3900/h $0.3900/GPU-h",
			"cloudrift us-east-nc-nr-1 on_demand  rtx59-16c-nr.1 1xrtx-5090 $0.6500/h $0.6500/GPU-h",
		}, map[string]int{}},
		{"runpod", "runpod", []string{ // the runpod-cluster row is left out
			"runpod EU-RO-1 on_demand  NVIDIA GeForce RTX 4090 1xrtx-4090 $0.5900/h $0.5900/GPU-h",
			"runpod EU-RO-1 spot  NVIDIA GeForce RTX 4090 1xrtx-4090 $0.2900/h $0.2900/GPU-h",
			"runpod US-TX-3 on_demand  NVIDIA H100 80GB HBM3 1xh100 $2.9900/h $2.9900/GPU-h",
		}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.catalog, func(t *testing.T) {
			g := NewGPUHunt(tt.catalog, tt.provider, srv.URL, srv.Client(), nil)
			g.now = func() time.Time { return fetchNow }
			res := fetchOne(t, g)
			if diff := cmp.Diff(tt.want, summaries(res.Offers)); diff != "" {
				t.Errorf("offers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unknown, res.Unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
			for _, o := range res.Offers {
				if o.Provider != tt.provider || !strings.HasPrefix(o.Source, "gpuhunt catalog "+tt.catalog+"/20261130-2105") || !o.PublishedAt.Equal(catalogModified) {
					t.Errorf("offer %s: provider %q, source %q, published %v", o.InstanceType, o.Provider, o.Source, o.PublishedAt)
				}
			}
		})
	}
}

// TestGPUHuntFaults: a bad version pointer, a missing catalog, a zip
// without the provider's CSV or with a price that is not a number fail
// the catalog's fetch with a message naming it.
func TestGPUHuntFaults(t *testing.T) {
	zipOf := func(name, body string) []byte {
		var b bytes.Buffer
		z := zip.NewWriter(&b)
		w, _ := z.Create(name)
		w.Write([]byte(body))
		z.Close()
		return b.Bytes()
	}
	header := "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data\n"
	tests := []struct {
		name    string
		version string
		zip     []byte
		want    string
	}{
		{"version not a version", "latest", nil, `version "latest" is not a YYYYMMDD-N`},
		{"no catalog", "20261130-1", nil, "HTTP 404"},
		{"wrong file in the zip", "20261130-1", zipOf("aws.csv", header), "catalog.zip has no nebius.csv"},
		{"not a zip", "20261130-1", []byte("PK not really"), "catalog.zip: zip"},
		{"missing column", "20261130-1", zipOf("nebius.csv", "instance_name,location\n"), "header lacks price, gpu_count, gpu_name, gpu_memory, spot"},
		{"bad price", "20261130-1", zipOf("nebius.csv", header+"gpu-h100-sxm,eu-north1,abc,16,200,1,H100,80.0,False,,nvidia,,x86,{}\n"), `line 2: price "abc" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/nebius/version":
					w.Write([]byte(tt.version))
				case strings.HasSuffix(r.URL.Path, "/catalog.zip") && tt.zip != nil:
					w.Write(tt.zip)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			_, err := NewGPUHunt("nebius", "nebius", srv.URL, srv.Client(), nil).Fetch(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "gpuhunt:nebius: ") {
				t.Errorf("error %v, want one from gpuhunt:nebius containing %q", err, tt.want)
			}
		})
	}
}

// TestSkyPilotCatalogs replays SkyPilot's v8 vms.csv files, whose columns
// come in a different order per cloud; per-GPU figures are Price (and
// SpotPrice) over AcceleratorCount.
func TestSkyPilotCatalogs(t *testing.T) {
	srv := catalogServer(t, "skypilot/v8", false)
	tests := []struct {
		cloud   string
		want    []string
		unknown map[string]int
	}{
		{"hyperbolic", []string{
			"hyperbolic default on_demand  1x-H100-75-722 1xh100 $1.2900/h $1.2900/GPU-h",
			"hyperbolic default on_demand  2x-H100-149-1443 2xh100 $2.5800/h $1.2900/GPU-h",
		}, map[string]int{}},
		{"hyperstack", []string{
			"hyperstack CANADA-1 on_demand  n3-A100x1 1xa100-80-pcie $1.3500/h $1.3500/GPU-h",
			"hyperstack CANADA-1 on_demand  n3-H100-SXM5x8 8xh100 $19.2000/h $2.4000/GPU-h",
			"hyperstack CANADA-1 on_demand  n3-H100x1 1xh100-pcie $1.9000/h $1.9000/GPU-h",
			"hyperstack CANADA-1 on_demand  n3-L40x1 1xl40 $1.0000/h $1.0000/GPU-h",
			"hyperstack CANADA-1 on_demand  n3-RTX-A6000x1 1xrtx-a6000 $0.5000/h $0.5000/GPU-h",
		}, map[string]int{}},
		{"primeintellect", []string{
			// Region is the country; the datacentre is AvailabilityZone.
			"primeintellect FIN-01 on_demand  datacrunch__1xA100_80GB__22__120 1xa100-80 $1.1200/h $1.1200/GPU-h",
			"primeintellect FIN-01 spot  datacrunch__1xA100_80GB__22__120__SPOT 1xa100-80 $0.5300/h $0.5300/GPU-h",
			"primeintellect us-central1 on_demand  nebius__1xH200_141GB__16__200 1xh200 $2.6680/h $2.6680/GPU-h",
			"primeintellect us-west-3 on_demand  lambdalabs__8xH100_80GB__208__1800 8xh100 $23.9200/h $2.9900/GPU-h",
		}, map[string]int{}},
		{"shadeform", []string{
			// GpuInfo writes GB under SizeInMiB here: 40 is the 40 GB A100.
			"shadeform culpeper-usa-1 on_demand  crusoe_A100-80G-sxm4x8 8xa100-80 $18.4000/h $2.3000/GPU-h",
			"shadeform newyork-usa-1 on_demand  paperspace_A5000 1xrtx-a5000 $1.4200/h $1.4200/GPU-h",
			"shadeform newyork-usa-1 on_demand  paperspace_H100 1xh100 $5.9900/h $5.9900/GPU-h",
			"shadeform paris-france-5 on_demand  scaleway_L4 1xl4 $0.9500/h $0.9500/GPU-h",
			"shadeform phoenix-usa-2 on_demand  lambdalabs_A100-sxm4 1xa100-40 $1.9900/h $1.9900/GPU-h",
		}, map[string]int{}},
		{"jarvislabs", []string{
			"jarvislabs IN2 on_demand  1x_H100_24V_200G 1xh100 $3.4900/h $3.4900/GPU-h",
			"jarvislabs IN2 on_demand  1x_L4_28V_124G 1xl4 $0.4400/h $0.4400/GPU-h",
			"jarvislabs IN2 on_demand  8x_H200_224V_2400G 8xh200 $36.7200/h $4.5900/GPU-h",
		}, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.cloud, func(t *testing.T) {
			s := NewSkyPilot(tt.cloud, srv.URL, srv.Client(), nil)
			s.now = func() time.Time { return fetchNow }
			res := fetchOne(t, s)
			if diff := cmp.Diff(tt.want, summaries(res.Offers)); diff != "" {
				t.Errorf("offers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unknown, res.Unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
			for _, o := range res.Offers {
				if o.Provider != tt.cloud || o.Source != "skypilot catalog v8/"+tt.cloud+"/vms.csv" {
					t.Errorf("offer %s: provider %q, source %q", o.InstanceType, o.Provider, o.Source)
				}
			}
		})
	}
}

// TestCatalogRunsFileOffersUnderTheirProvider: a catalog's run is its own
// ("gpuhunt:nebius") and its offers are the provider's; the gate takes
// them, and refuses an offer of another provider in the same run.
func TestCatalogRunsFileOffersUnderTheirProvider(t *testing.T) {
	srv := catalogServer(t, "gpuhunt/v3", true)
	g := NewGPUHunt("nebius", "nebius", srv.URL, srv.Client(), nil)
	sink := &memorySink{}
	reports, err := (&Refresher{Fetchers: []Fetcher{g}, Sink: sink, Clock: func() time.Time { return fetchNow }}).Refresh(context.Background())
	if err != nil || reports[0].Run.Provider != "gpuhunt:nebius" || reports[0].Run.Rows != 4 {
		t.Fatalf("refresh %+v, %v; want gpuhunt:nebius ok with 4 offers", reports[0].Run, err)
	}
	if !reports[0].Run.PublishedAt.Equal(catalogModified) {
		t.Errorf("run published %v, want %v", reports[0].Run.PublishedAt, catalogModified)
	}
	if err := validateRun("nebius", []Offer{{Provider: "aws", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, USDPerHour: 3, USDPerGPUHour: 3, ObservedAt: fetchNow}}, nil); err == nil {
		t.Error("an aws offer passed the gate of a nebius catalog run")
	}
}

func FuzzDecodeSkyPilot(f *testing.F) {
	for _, c := range SkyPilotClouds {
		f.Add(testdata(f, "skypilot/v8/"+c+"/vms.csv"))
	}
	f.Add(testdata(f, "samples/skypilot/v8/primeintellect/vms.csv"))
	f.Add(testdata(f, "samples/skypilot/v8/shadeform/vms.csv"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, _, err := decodeSkyPilot(raw, "x", fetchNow, time.Time{}, "fuzz")
		if err != nil && len(res.Offers) > 0 {
			t.Fatal("offers returned with an error")
		}
		checkDecoded(t, res.Offers)
	})
}

func FuzzDecodeGPUHunt(f *testing.F) {
	for _, c := range GPUHuntCatalogs {
		f.Add(testdata(f, "gpuhunt/v3/"+c.Catalog+"/20261130-2105/catalog.zip"), c.Catalog)
	}
	f.Fuzz(func(t *testing.T, raw []byte, catalog string) {
		res, _, err := decodeGPUHunt(raw, catalog, "x", fetchNow, fetchNow, "fuzz")
		if err != nil && len(res.Offers) > 0 {
			t.Fatal("offers returned with an error")
		}
		checkDecoded(t, res.Offers)
	})
}

// TestGPUHuntEveryName feeds one gpuhunt catalog row for each GPU gpuhunt
// knows (testdata/gpuhunt/names.txt) through the catalog reader: every
// row is either filed under the card names.txt says or reported among
// the unknown names with its row count; none is dropped silently.
func TestGPUHuntEveryName(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gpuhunt", "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data\n")
	want := map[string]string{} // instance -> card, "" for unknown
	rows, mapped := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		rows++
		instance := fmt.Sprintf("probe-%d", rows)
		fmt.Fprintf(&csv, "%s,test-1,1.5,8,64.0,1,%s,%s.0,False,,%s,,x86,{}\n", instance, f[0], f[1], f[2])
		if f[3] != "-" {
			want[instance] = f[3]
			mapped++
		} else {
			want[instance] = ""
		}
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, _ := z.Create("probe.csv")
	w.Write([]byte(csv.String()))
	z.Close()
	res, dropped, err := decodeGPUHunt(b.Bytes(), "probe", "probe", fetchNow, fetchNow, "probe")
	if err != nil || dropped != 0 {
		t.Fatalf("decode: %v (%d dropped)", err, dropped)
	}
	got := map[string]string{}
	for _, o := range res.Offers {
		got[o.InstanceType] = o.GPU
	}
	unknown := 0
	for _, n := range res.Unknown {
		unknown += n
	}
	for instance, card := range want {
		if got[instance] != card {
			t.Errorf("%s: filed under %q, want %q", instance, got[instance], card)
		}
	}
	if len(res.Offers)+unknown != rows {
		t.Errorf("%d offers + %d unknown rows of %d: some rows were dropped silently", len(res.Offers), unknown, rows)
	}
	t.Logf("gpuhunt's %d GPU names: %d map to a card, %d are reported as unknown", rows, mapped, rows-mapped)
}
