package pricing

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultGPUHuntURL is where dstack's gpuhunt publishes its per-provider
// catalogs, refreshed every hour: <base>/<provider>/version names the
// latest version, <base>/<provider>/<version>/catalog.zip holds
// <provider>.csv. No key is needed.
const DefaultGPUHuntURL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"

// GPUHuntCatalogs are the catalogs gpuhunt collects offline, by gpuhunt's
// name, and the provider name fitbot files their offers under.
var GPUHuntCatalogs = []struct{ Catalog, Provider string }{
	{"aws", "aws"}, {"azure", "azure"}, {"gcp", "gcp"}, {"lambdalabs", "lambda"}, {"nebius", "nebius"},
	{"verda", "verda"}, {"oci", "oci"}, {"runpod", "runpod"}, {"cloudrift", "cloudrift"},
}

// gpuhuntVersion is a catalog version: the UTC date and the run number.
var gpuhuntVersion = regexp.MustCompile(`^(\d{8})-\d+$`)

// maxCatalogRows bounds one catalog file; gpuhunt's largest (AWS, every
// instance type in every region, spot and on demand) is well under it.
const maxCatalogRows = 2_000_000

// GPUHunt reads one of gpuhunt's published catalogs: whole-instance
// prices per region, on demand and spot, already collected from the
// provider's own API by gpuhunt. Each catalog is a fetcher of its own
// ("gpuhunt:nebius"), so one that fails keeps its last good prices
// without holding back the others; its offers are the provider's
// ("nebius"), each naming the catalog and version in Source. Where fitbot
// also reads the provider directly (AWS, Azure, RunPod), the same offer
// priced by both is current from whichever is fresher; both stay in the
// history.
type GPUHunt struct {
	catalog  string // gpuhunt's name: "lambdalabs"
	provider string // fitbot's: "lambda"
	baseURL  string
	hc       *http.Client
	logger   *slog.Logger
	now      func() time.Time
}

// NewGPUHunt returns the fetcher of one gpuhunt catalog (a GPUHuntCatalogs
// entry) reading baseURL (DefaultGPUHuntURL when empty) through hc. A nil
// logger discards.
func NewGPUHunt(catalog, provider, baseURL string, hc *http.Client, logger *slog.Logger) *GPUHunt {
	if baseURL == "" {
		baseURL = DefaultGPUHuntURL
	}
	return &GPUHunt{catalog: catalog, provider: provider, baseURL: strings.TrimSuffix(baseURL, "/"), hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}

// Name returns "gpuhunt:" and the catalog's name.
func (g *GPUHunt) Name() string { return "gpuhunt:" + g.catalog }

// OffersProvider is the provider the catalog's offers are filed under.
func (g *GPUHunt) OffersProvider() string { return g.provider }

// Fetch reads the catalog's version pointer, then that version's zip. The
// prices are as of the zip's Last-Modified time (the run that published
// it), or the version's date when the server gives none.
func (g *GPUHunt) Fetch(ctx context.Context) (FetchResult, error) {
	name := g.Name()
	raw, err := providerCall(ctx, g.hc, providerRequest{provider: name, method: http.MethodGet, url: g.baseURL + "/" + g.catalog + "/version", header: http.Header{"Accept": {"text/plain"}}})
	if err != nil {
		return FetchResult{}, fmt.Errorf("%w (version)", err)
	}
	version := strings.TrimSpace(string(raw))
	m := gpuhuntVersion.FindStringSubmatch(version)
	if m == nil {
		return FetchResult{}, fmt.Errorf("%s: version %q is not a YYYYMMDD-N catalog version", name, truncate(version, 40))
	}
	published, err := time.Parse("20060102", m[1])
	if err != nil {
		return FetchResult{}, fmt.Errorf("%s: version %q: %w", name, version, err)
	}
	var modified time.Time
	path := "/" + g.catalog + "/" + version + "/catalog.zip"
	raw, err = providerCall(ctx, g.hc, providerRequest{provider: name, method: http.MethodGet, url: g.baseURL + path, header: http.Header{"Accept": {"application/zip"}}, lastModified: &modified})
	if err != nil {
		return FetchResult{}, fmt.Errorf("%w (catalog %s)", err, version)
	}
	if !modified.IsZero() {
		published = modified
	}
	source := "gpuhunt catalog " + g.catalog + "/" + version
	res, dropped, err := decodeGPUHunt(raw, g.catalog, g.provider, g.now().UTC(), published, source)
	if err != nil {
		return FetchResult{}, fmt.Errorf("%s: %s: %w", name, version, err)
	}
	if dropped > 0 {
		g.logger.Warn("prices: catalog rows outside the per-GPU bounds skipped", "provider", name, "rows", dropped)
	}
	logUnknown(g.logger, name, res.Unknown)
	return res, nil
}

// decodeGPUHunt reads a catalog zip: <catalog>.csv in gpuhunt's v2 column
// layout (instance_name, location, price, cpu, memory, gpu_count,
// gpu_name, gpu_memory, spot, disk_size, gpu_vendor, flags, cpu_arch,
// provider_data), found by header name. price is per instance-hour.
// Rows without GPUs are skipped, and so are rows flagged as capacity one
// cannot simply rent by the hour (notOnDemandCapacity). It returns
// the offers, the number of rows skipped for a per-GPU price outside the
// bounds, and an error for a file that is not such a catalog.
func decodeGPUHunt(raw []byte, catalog, provider string, at, published time.Time, source string) (FetchResult, int, error) {
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("catalog.zip: %w", err)
	}
	var file *zip.File
	for _, f := range zr.File {
		if f.Name == catalog+".csv" {
			file = f
		}
	}
	if file == nil {
		return FetchResult{}, 0, fmt.Errorf("catalog.zip has no %s.csv", catalog)
	}
	rc, err := file.Open()
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("%s.csv: %w", catalog, err)
	}
	defer rc.Close()
	r := csv.NewReader(io.LimitReader(rc, 8*maxProviderBody))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("%s.csv: header: %w", catalog, err)
	}
	col, err := columns(header, "instance_name", "location", "price", "gpu_count", "gpu_name", "gpu_memory", "spot")
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("%s.csv: %w", catalog, err)
	}
	flags, hasFlags := indexOf(header, "flags")
	vendor, hasVendor := indexOf(header, "gpu_vendor")
	res := FetchResult{Unknown: map[string]int{}}
	dropped := 0
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return FetchResult{}, 0, fmt.Errorf("%s.csv: %w", catalog, err)
		}
		if line > maxCatalogRows {
			return FetchResult{}, 0, fmt.Errorf("%s.csv: more than %d rows", catalog, maxCatalogRows)
		}
		count, err := strconv.ParseFloat(rec[col["gpu_count"]], 64)
		if err != nil || !(count >= 1) || math.IsInf(count, 0) {
			continue // CPU-only instances and unreadable counts
		}
		if hasFlags && notOnDemandCapacity(rec[flags]) {
			continue
		}
		if hasVendor && rec[vendor] != "" && !strings.EqualFold(rec[vendor], "nvidia") && !strings.EqualFold(rec[vendor], "amd") {
			continue // TPUs and other accelerators
		}
		price, err := strconv.ParseFloat(rec[col["price"]], 64)
		if err != nil {
			return FetchResult{}, 0, fmt.Errorf("%s.csv line %d: price %q is not a number", catalog, line, truncate(rec[col["price"]], 20))
		}
		if !(price > 0) || math.IsInf(price, 0) {
			continue
		}
		instance, name := rec[col["instance_name"]], rec[col["gpu_name"]]
		spec, ok := knownInstance(provider, instance)
		if !ok {
			mem, _ := strconv.ParseFloat(rec[col["gpu_memory"]], 64)
			gpu, found := catalogGPU(name, mem, instance)
			if !found || !isCatalogID(gpu) {
				res.Unknown[fmt.Sprintf("%s (%s %sGB)", name, instance, rec[col["gpu_memory"]])]++
				continue
			}
			spec = gpuSpec{GPU: gpu, Count: count}
		}
		if !inBounds(price / spec.Count) {
			dropped++
			continue
		}
		market := MarketOnDemand
		if strings.EqualFold(rec[col["spot"]], "true") {
			market = MarketSpot
		}
		o := instanceOffer(provider, instance, spec, market, "", rec[col["location"]], price, at, source)
		o.PublishedAt = published
		res.Offers = append(res.Offers, o)
	}
	res.Offers = cheapestPerKey(res.Offers)
	return res, dropped, nil
}

// notOnDemandCapacity reports whether a row's gpuhunt flags mark capacity
// that is not rented by the hour like the rest: GCP's DWS calendar mode
// (booked ahead), RunPod clusters, previews and CPU pods. Other flags
// ("oci-spot", "gcp-a4", "gcp-g4", the ARM superchips') only tell dstack
// versions apart and are kept.
func notOnDemandCapacity(flags string) bool {
	for _, f := range strings.Fields(flags) {
		if strings.Contains(f, "dws") || strings.Contains(f, "cluster") || strings.HasSuffix(f, "-preview") || strings.HasSuffix(f, "-cpu") {
			return true
		}
	}
	return false
}

// knownInstance looks an instance up in the direct fetchers' own tables,
// which know its form factor where a catalog's GPU name does not (AWS's
// p4de is the A100 SXM 80 GB, Azure's NCads A100 v4 the PCIe card).
func knownInstance(provider, instance string) (gpuSpec, bool) {
	switch provider {
	case "aws":
		s, ok := awsInstances[instance]
		return s, ok
	case "azure":
		s, ok := azureSKUs[instance]
		return s, ok
	}
	return gpuSpec{}, false
}

// columns finds each wanted column in a header, by name.
func columns(header []string, want ...string) (map[string]int, error) {
	out := make(map[string]int, len(want))
	var missing []string
	for _, w := range want {
		i, ok := indexOf(header, w)
		if !ok {
			missing = append(missing, w)
			continue
		}
		out[w] = i
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header lacks %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func indexOf(header []string, name string) (int, bool) {
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), name) {
			return i, true
		}
	}
	return 0, false
}
