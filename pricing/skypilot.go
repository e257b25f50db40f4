package pricing

import (
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

// DefaultSkyPilotURL is where SkyPilot publishes its catalogs (a GitHub
// Action regenerates them every 7 hours): <base>/<cloud>/vms.csv. No key
// is needed.
const DefaultSkyPilotURL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"

// SkyPilotClouds are the SkyPilot catalogs fitbot reads: clouds it has no
// direct fetcher for. Each is a provider of its own under its SkyPilot
// name.
var SkyPilotClouds = []string{"hyperbolic", "hyperstack", "primeintellect", "shadeform", "jarvislabs"}

// skypilotMemory finds the memory of a GpuInfo entry: SkyPilot writes it
// as a Python dict ({'Gpus': [{'Name': 'H100', ..., 'MemoryInfo':
// {'SizeInMiB': 81920}}]}) or as JSON.
var skypilotMemory = regexp.MustCompile(`["']SizeInMiB["']\s*:\s*([0-9.]+)`)

// skypilotGPUName finds the first GPU name of a GpuInfo entry, which may
// say the form factor the accelerator name leaves out.
var skypilotGPUName = regexp.MustCompile(`["']Name["']\s*:\s*["']([^"']*)["']`)

// SkyPilot reads one of SkyPilot's published catalog CSVs: whole-instance
// prices (Price, SpotPrice) per instance type and region. The columns are
// found by header name: their order differs from cloud to cloud. Each
// cloud is a fetcher of its own ("skypilot:hyperstack") whose offers are
// the cloud's ("hyperstack"), each naming the catalog in Source.
type SkyPilot struct {
	cloud   string
	baseURL string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// NewSkyPilot returns the fetcher of one SkyPilot cloud catalog reading
// baseURL (DefaultSkyPilotURL when empty) through hc. A nil logger
// discards.
func NewSkyPilot(cloud, baseURL string, hc *http.Client, logger *slog.Logger) *SkyPilot {
	if baseURL == "" {
		baseURL = DefaultSkyPilotURL
	}
	return &SkyPilot{cloud: cloud, baseURL: strings.TrimSuffix(baseURL, "/"), hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}

// Name returns "skypilot:" and the cloud.
func (s *SkyPilot) Name() string { return "skypilot:" + s.cloud }

// OffersProvider is the provider the catalog's offers are filed under.
func (s *SkyPilot) OffersProvider() string { return s.cloud }

// Fetch reads the cloud's vms.csv. The prices are as of its Last-Modified
// time when the server gives one.
func (s *SkyPilot) Fetch(ctx context.Context) (FetchResult, error) {
	var modified time.Time
	raw, err := providerCall(ctx, s.hc, providerRequest{
		provider: s.Name(), method: http.MethodGet, url: s.baseURL + "/" + s.cloud + "/vms.csv",
		header: http.Header{"Accept": {"text/csv, text/plain"}}, lastModified: &modified,
	})
	if err != nil {
		return FetchResult{}, err
	}
	res, dropped, err := decodeSkyPilot(raw, s.cloud, s.now().UTC(), modified, "skypilot catalog v8/"+s.cloud+"/vms.csv")
	if err != nil {
		return FetchResult{}, fmt.Errorf("%s: %w", s.Name(), err)
	}
	if dropped > 0 {
		s.logger.Warn("prices: catalog rows outside the per-GPU bounds skipped", "provider", s.Name(), "rows", dropped)
	}
	logUnknown(s.logger, s.Name(), res.Unknown)
	return res, nil
}

// decodeSkyPilot reads a vms.csv: InstanceType, AcceleratorName,
// AcceleratorCount, Price, SpotPrice, Region (and GpuInfo for memory) in
// any order. A row gives an on-demand offer when Price is set and a spot
// one when SpotPrice is; rows without accelerators are skipped. It
// returns the offers, the number of prices skipped for a per-GPU price
// outside the bounds, and an error for a file that is not such a catalog.
func decodeSkyPilot(raw []byte, cloud string, at, published time.Time, source string) (FetchResult, int, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("vms.csv: header: %w", err)
	}
	col, err := columns(header, "InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
	if err != nil {
		return FetchResult{}, 0, fmt.Errorf("vms.csv: %w", err)
	}
	spotCol, hasSpot := indexOf(header, "SpotPrice")
	infoCol, hasInfo := indexOf(header, "GpuInfo")
	upstreamCol, hasUpstream := indexOf(header, "UpstreamCloudId")
	zoneCol, hasZone := indexOf(header, "AvailabilityZone")
	res := FetchResult{Unknown: map[string]int{}}
	dropped := 0
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return FetchResult{}, 0, fmt.Errorf("vms.csv: %w", err)
		}
		if line > maxCatalogRows {
			return FetchResult{}, 0, fmt.Errorf("vms.csv: more than %d rows", maxCatalogRows)
		}
		if len(rec) != len(header) {
			return FetchResult{}, 0, fmt.Errorf("vms.csv line %d: %d fields, the header has %d", line, len(rec), len(header))
		}
		name := strings.TrimSpace(rec[col["AcceleratorName"]])
		count, err := strconv.ParseFloat(rec[col["AcceleratorCount"]], 64)
		if name == "" || err != nil || !(count >= 1) || math.IsInf(count, 0) {
			continue // CPU instances
		}
		instance := rec[col["InstanceType"]]
		mem, upstream, infoName := 0.0, "", ""
		if hasInfo {
			mem = skypilotGiB(rec[infoCol])
			if m := skypilotGPUName.FindStringSubmatch(rec[infoCol]); m != nil {
				infoName = m[1]
			}
		}
		if hasUpstream {
			upstream = rec[upstreamCol]
		}
		hint := formHint(instance, upstream) + " " + infoName
		gpu, ok := catalogGPU(name, mem, hint)
		if !ok && mem > 0 {
			gpu, ok = catalogGPU(name, mem/count, hint) // GpuInfo giving the entry's total
		}
		if !ok || !isCatalogID(gpu) {
			res.Unknown[name]++
			continue
		}
		spec := gpuSpec{GPU: gpu, Count: count}
		prices := []struct {
			m     Market
			field string
		}{{MarketOnDemand, rec[col["Price"]]}}
		if hasSpot {
			prices = append(prices, struct {
				m     Market
				field string
			}{MarketSpot, rec[spotCol]})
		}
		for _, p := range prices {
			if strings.TrimSpace(p.field) == "" {
				continue
			}
			usd, err := strconv.ParseFloat(strings.TrimSpace(p.field), 64)
			if err != nil {
				return FetchResult{}, 0, fmt.Errorf("vms.csv line %d: price %q is not a number", line, truncate(p.field, 20))
			}
			if !(usd > 0) || math.IsInf(usd, 0) {
				continue
			}
			if !inBounds(usd / count) {
				dropped++
				continue
			}
			region := rec[col["Region"]]
			if hasZone && strings.TrimSpace(rec[zoneCol]) != "" {
				region = strings.TrimSpace(rec[zoneCol]) // PrimeIntellect: Region is the country, the zone the datacentre
			}
			o := instanceOffer(cloud, instance, spec, p.m, "", region, usd, at, source)
			o.PublishedAt = published
			res.Offers = append(res.Offers, o)
		}
	}
	res.Offers = cheapestPerKey(res.Offers)
	return res, dropped, nil
}

// hyperstackFlavour is a Hyperstack flavour name: n3-<GPU>x<count>, with
// -SXM5 before the count for its SXM machines.
var hyperstackFlavour = regexp.MustCompile(`(?i)^n3-([A-Z0-9]+?)(-SXM\d)?x\d+(-NVLink)?$`)

// formHint is the text a row's form factor is read from (with GpuInfo's
// GPU name): the instance name and the upstream cloud's own id for it (PrimeIntellect's
// UpstreamCloudId: "A100_PCIE_80GB", "gpu_8x_h100_sxm5"). Hyperstack
// names its PCIe flavours without saying so (n3-H100x1; its own SkyPilot
// catalog lists them as H100-80G-PCIe), so a Hyperstack flavour without
// -SXM reads as PCIe.
func formHint(instance, upstream string) string {
	hint := instance + " " + upstream
	if m := hyperstackFlavour.FindStringSubmatch(upstream); m != nil && m[2] == "" && !strings.Contains(strings.ToUpper(upstream), "SXM") {
		hint += " PCIE"
	}
	return hint
}

// skypilotGiB reads the first GPU memory of a GpuInfo field, in GiB: MiB
// as the key says, or GB where a catalog wrote GB under that key (a value
// below 1024 cannot be a GPU's MiB); 0 when there is none.
func skypilotGiB(info string) float64 {
	m := skypilotMemory.FindStringSubmatch(info)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	if v < 1024 {
		return v
	}
	return v / 1024
}
