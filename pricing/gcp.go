package pricing

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultGCPURL is the Cloud Billing Catalog API host.
const DefaultGCPURL = "https://cloudbilling.googleapis.com"

// gcpComputeService is Compute Engine's service id in the catalog.
const gcpComputeService = "6F81-5844-456A"

// gcpMaxPages bounds one walk; Compute Engine is a handful of 5000-SKU
// pages, so more than this is a server that keeps handing out tokens.
const gcpMaxPages = 50

// gcpGPUs maps the model part of a GPU SKU description (what is left of
// "Spot Preemptible Nvidia Tesla A100 80GB GPU running in Americas" once
// the market prefix, the vendor and the location are cut) to sizing
// catalog ids. "Tesla A100 GPU" is the 40 GB card of a2-highgpu; H100
// Mega (a3-megagpu, written "H100 Mega 80GB" and "H100 80GB Mega") and
// Plus are the same SXM card with more networking; newer SKUs drop the
// vendor ("H200 141GB GPU running in Belgium").
var gcpGPUs = map[string]string{
	"Tesla T4 GPU":        "t4",
	"Tesla V100 GPU":      "v100-16",
	"L4 GPU":              "l4",
	"Tesla A100 GPU":      "a100-40",
	"Tesla A100 80GB GPU": "a100-80",
	"H100 80GB GPU":       "h100",
	"H100 Mega 80GB GPU":  "h100",
	"H100 80GB Mega GPU":  "h100",
	"H100 80GB Plus GPU":  "h100",
	"H200 141GB GPU":      "h200",
}

// gcpMachine is a machine type that carries GPUs: GCP bills its vCPUs and
// RAM by the family's core and RAM SKUs on top of the GPUs, and they are
// not optional, so the offer's price is all three.
type gcpMachine struct {
	name   string  // the machine type: "a2-highgpu-1g"
	family string  // whose core and RAM SKUs bill it: "a2"
	gpu    string  // the GPU SKU model it carries (a gcpGPUs key); for a4, gcpB200Slice
	gpus   float64 // GPUs in the machine
	vcpus  float64
	ramGiB float64
}

// gcpB200Slice is the model of A4's B200 SKUs, "(1 gpu slice)": an eighth
// of a whole a4-highgpu-8g (GPU, vCPU and RAM), not a GPU component.
const gcpB200Slice = "A4 Nvidia B200 (1 gpu slice)"

// gcpMachines are the GPU machine types priced, with their shapes from
// GCP's machine-type documentation (as gpuhunt's providers/gcp.py lists
// them). N1 takes T4 and V100 as attached GPUs on any N1 shape; the shape
// priced is the smallest usual one per GPU. Local SSD bundled with
// a2-ultragpu and a3 is left out.
var gcpMachines = []gcpMachine{
	{"n1-standard-4", "n1", "Tesla T4 GPU", 1, 4, 15},
	{"n1-standard-8", "n1", "Tesla V100 GPU", 1, 8, 30},
	{"a2-highgpu-1g", "a2", "Tesla A100 GPU", 1, 12, 85},
	{"a2-highgpu-2g", "a2", "Tesla A100 GPU", 2, 24, 170},
	{"a2-highgpu-4g", "a2", "Tesla A100 GPU", 4, 48, 340},
	{"a2-highgpu-8g", "a2", "Tesla A100 GPU", 8, 96, 680},
	{"a2-megagpu-16g", "a2", "Tesla A100 GPU", 16, 96, 1360},
	{"a2-ultragpu-1g", "a2", "Tesla A100 80GB GPU", 1, 12, 170},
	{"a2-ultragpu-2g", "a2", "Tesla A100 80GB GPU", 2, 24, 340},
	{"a2-ultragpu-4g", "a2", "Tesla A100 80GB GPU", 4, 48, 680},
	{"a2-ultragpu-8g", "a2", "Tesla A100 80GB GPU", 8, 96, 1360},
	{"g2-standard-4", "g2", "L4 GPU", 1, 4, 16},
	{"g2-standard-24", "g2", "L4 GPU", 2, 24, 96},
	{"g2-standard-48", "g2", "L4 GPU", 4, 48, 192},
	{"g2-standard-96", "g2", "L4 GPU", 8, 96, 384},
	{"a3-highgpu-8g", "a3", "H100 80GB GPU", 8, 208, 1872},
	{"a3-megagpu-8g", "a3-megagpu", "H100 Mega 80GB GPU", 8, 208, 1872},
	{"a3-ultragpu-8g", "a3", "H200 141GB GPU", 8, 224, 2952},
	{"a4-highgpu-8g", "", gcpB200Slice, 8, 224, 3968},
}

// gcpFamilies maps the family word of a core or RAM SKU ("A2 Instance
// Core", "N1 Predefined Instance Ram", "A3Plus Instance Core") to the
// machine family it bills.
var gcpFamilies = map[string]string{
	"N1": "n1", "A2": "a2", "G2": "g2", "A3": "a3", "A3Plus": "a3-megagpu",
}

// gcpComponent is one component SKU's hourly price in one region and
// market.
type gcpComponent struct {
	region string
	market Market
}

// gcpPrices are a component's prices by region and market, with the SKU
// that set each.
type gcpPrices map[gcpComponent]gcpRate

type gcpRate struct {
	usd float64
	sku string
}

// add keeps the cheapest price per region and market (a multi-regional
// SKU and a regional one may both price one region).
func (p gcpPrices) add(k gcpComponent, usd float64, sku string) {
	if cur, ok := p[k]; !ok || usd < cur.usd {
		p[k] = gcpRate{usd, sku}
	}
}

// gcpCatalog collects the component SKUs of every page; offers puts them
// together into whole machines.
type gcpCatalog struct {
	gpu     map[string]gcpPrices // by GPU model (gcpGPUs key, or gcpB200Slice)
	core    map[string]gcpPrices // by family
	ram     map[string]gcpPrices // by family
	unknown map[string]int
}

func newGCPCatalog() *gcpCatalog {
	return &gcpCatalog{gpu: map[string]gcpPrices{}, core: map[string]gcpPrices{}, ram: map[string]gcpPrices{}, unknown: map[string]int{}}
}

func (c *gcpCatalog) put(m map[string]gcpPrices, key string, k gcpComponent, usd float64, sku string) {
	if m[key] == nil {
		m[key] = gcpPrices{}
	}
	m[key].add(k, usd, sku)
}

// GCP reads Compute Engine's SKUs from the Cloud Billing Catalog. It
// needs an API key (GCP_API_KEY) with the Cloud Billing API enabled in its
// project, and is only enabled when one is configured.
//
// GCP bills a VM by components, and a GPU SKU alone is not what a GPU
// costs to run: the offers are whole machines (gcpMachines), priced as
// the GPUs plus the vCPUs and RAM of the family's core and RAM SKUs from
// the same catalog, per region where all three are priced (an A2 with one
// A100 is $2.93 of GPU and $0.74 of VM). A4's B200 "(1 gpu slice)" SKUs
// already are an eighth of the whole machine. OnDemand is on_demand,
// Preemptible is spot; commitments and DWS capacity are left out.
type GCP struct{ keyed }

// NewGCP returns a GCP fetcher reading baseURL (DefaultGCPURL when empty)
// through hc with apiKey as the key parameter. A nil logger discards.
func NewGCP(baseURL, apiKey string, hc *http.Client, logger *slog.Logger) *GCP {
	return &GCP{newKeyed(baseURL, DefaultGCPURL, apiKey, hc, logger)}
}

// Name returns "gcp".
func (g *GCP) Name() string { return "gcp" }

// Fetch walks every page of Compute Engine SKUs and returns the GPU
// machines they price. A page token seen twice is an error, not a loop.
func (g *GCP) Fetch(ctx context.Context) (FetchResult, error) {
	if g.apiKey == "" {
		return FetchResult{}, errors.New("gcp: no API key configured (GCP_API_KEY)")
	}
	path := "/v1/services/" + gcpComputeService + "/skus"
	endpoint := strings.TrimSuffix(g.baseURL, "/") + path
	source := "cloudbilling.googleapis.com" + path
	at := g.now().UTC()
	cat := newGCPCatalog()
	seen := map[string]bool{}
	token := ""
	for page := 1; ; page++ {
		if page > gcpMaxPages {
			return FetchResult{}, fmt.Errorf("gcp: more than %d pages of SKUs", gcpMaxPages)
		}
		q := url.Values{"key": {g.apiKey}, "currencyCode": {"USD"}, "pageSize": {"5000"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		raw, err := providerCall(ctx, g.hc, providerRequest{
			provider: "gcp", method: http.MethodGet, url: endpoint + "?" + q.Encode(),
			secrets: []string{g.apiKey, url.QueryEscape(g.apiKey)},
		})
		if err != nil {
			return FetchResult{}, err
		}
		next, err := decodeGCPPage(raw, cat)
		if err != nil {
			return FetchResult{}, fmt.Errorf("gcp: page %d: %s", page, scrub(err.Error(), []string{g.apiKey}))
		}
		if next == "" {
			break
		}
		if seen[next] {
			return FetchResult{}, fmt.Errorf("gcp: page %d repeats page token %q", page, truncate(next, 40))
		}
		seen[next] = true
		token = next
	}
	res := cat.offers(at, source)
	logUnknown(g.logger, "gcp", res.Unknown)
	return res, nil
}

// offers puts each machine together in every region and market where its
// GPU, core and RAM SKUs are all priced, in machine-table order, then
// region, then market.
func (c *gcpCatalog) offers(at time.Time, source string) FetchResult {
	res := FetchResult{Unknown: c.unknown}
	for _, m := range gcpMachines {
		gpus := c.gpu[m.gpu]
		for _, k := range sortedComponents(gpus) {
			g := gpus[k]
			usd := m.gpus * g.usd
			how := fmt.Sprintf("%g x GPU SKU %s", m.gpus, g.sku)
			if m.gpu != gcpB200Slice {
				core, okc := c.core[m.family][k]
				ram, okr := c.ram[m.family][k]
				if !okc || !okr {
					continue // a GPU without its machine's vCPU and RAM is not an offer
				}
				usd += m.vcpus*core.usd + m.ramGiB*ram.usd
				how += fmt.Sprintf(" + %g vCPU x SKU %s + %g GiB x SKU %s", m.vcpus, core.sku, m.ramGiB, ram.sku)
			} else {
				how = fmt.Sprintf("%g x whole-VM slice SKU %s", m.gpus, g.sku)
			}
			gpu := gcpGPUs[m.gpu]
			if m.gpu == gcpB200Slice {
				gpu = "b200"
			}
			res.Offers = append(res.Offers, Offer{
				Provider:      "gcp",
				InstanceType:  m.name,
				GPU:           gpu,
				GPUCount:      m.gpus,
				Market:        k.market,
				Region:        k.region,
				USDPerHour:    usd,
				USDPerGPUHour: usd / m.gpus,
				Source:        source + ": whole VM, " + how,
				ObservedAt:    at,
				Samples:       1,
			})
		}
	}
	return res
}

func sortedComponents(p gcpPrices) []gcpComponent {
	keys := make([]gcpComponent, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b gcpComponent) int {
		return cmp.Or(strings.Compare(a.region, b.region), strings.Compare(string(a.market), string(b.market)))
	})
	return keys
}

// cheapestPerKey keeps the cheapest of offers that are the same offer (a
// multi-regional SKU and a regional one may both price a GPU in one
// region), in first-seen order; the store takes one price per offer.
func cheapestPerKey(offers []Offer) []Offer {
	at := make(map[string]int, len(offers))
	out := offers[:0]
	for _, o := range offers {
		k := o.key()
		if i, ok := at[k]; ok {
			if o.USDPerHour < out[i].USDPerHour {
				out[i] = o
			}
			continue
		}
		at[k] = len(out)
		out = append(out, o)
	}
	return out
}

type gcpPage struct {
	SKUs          *[]gcpSKU `json:"skus"`
	NextPageToken string    `json:"nextPageToken"`
	Error         *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type gcpSKU struct {
	SKUID       string `json:"skuId"`
	Description string `json:"description"`
	Category    struct {
		ResourceFamily string `json:"resourceFamily"`
		ResourceGroup  string `json:"resourceGroup"`
		UsageType      string `json:"usageType"`
	} `json:"category"`
	ServiceRegions []string `json:"serviceRegions"`
	PricingInfo    []struct {
		PricingExpression struct {
			UsageUnit   string `json:"usageUnit"`
			TieredRates []struct {
				StartUsageAmount float64 `json:"startUsageAmount"`
				UnitPrice        struct {
					CurrencyCode string `json:"currencyCode"`
					Units        string `json:"units"` // int64 as a JSON string
					Nanos        int64  `json:"nanos"`
				} `json:"unitPrice"`
			} `json:"tieredRates"`
		} `json:"pricingExpression"`
	} `json:"pricingInfo"`
}

// gcpComponentSKU reads a core or RAM SKU's description: "A2 Instance
// Core running in Americas", "Spot Preemptible N1 Predefined Instance Ram
// running in EMEA", "A3Plus Instance Core running in Tokyo".
var gcpComponentSKU = regexp.MustCompile(`^(?:Spot Preemptible )?(\S+) (?:Predefined )?Instance (Core|Ram) running in `)

// decodeGCPPage adds one page's GPU, core and RAM SKUs to cat and returns
// the next page token ("" on the last page).
func decodeGCPPage(raw []byte, cat *gcpCatalog) (string, error) {
	var page gcpPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return "", fmt.Errorf("decode skus: %w", err)
	}
	if page.Error != nil {
		return "", fmt.Errorf("api error %d: %s", page.Error.Code, truncate(page.Error.Message, 200))
	}
	if page.SKUs == nil && page.NextPageToken == "" {
		return "", errors.New("response has no skus array")
	}
	for _, s := range derefSKUs(page.SKUs) {
		if s.Category.ResourceFamily != "Compute" {
			continue
		}
		var market Market
		switch s.Category.UsageType {
		case "OnDemand":
			market = MarketOnDemand
		case "Preemptible":
			market = MarketSpot
		default:
			continue // commitments and other capacity types
		}
		if strings.Contains(s.Description, "DWS") || strings.Contains(s.Description, "Reserved") {
			continue // calendar-mode and reservation capacity, not sold on demand
		}
		var (
			into map[string]gcpPrices
			key  string
			unit = "h" // GPUs and cores are per hour, RAM per GiB-hour
		)
		if m := gcpComponentSKU.FindStringSubmatch(s.Description); m != nil {
			family, ok := gcpFamilies[m[1]]
			if !ok {
				continue // a family with no GPU machine
			}
			into, key = cat.core, family
			if m[2] == "Ram" {
				into, unit = cat.ram, "GiBy.h"
			}
		} else {
			if s.Category.ResourceGroup != "GPU" {
				continue
			}
			model := gcpModel(s.Description)
			if _, ok := gcpGPUs[model]; !ok && model != gcpB200Slice {
				cat.unknown[model]++
				continue
			}
			into, key = cat.gpu, model
		}
		price, ok, err := gcpPrice(s, unit)
		if err != nil {
			return "", fmt.Errorf("sku %s: %w", s.SKUID, err)
		}
		if !ok {
			continue
		}
		for _, region := range s.ServiceRegions {
			cat.put(into, key, gcpComponent{region, market}, price, s.SKUID)
		}
	}
	return page.NextPageToken, nil
}

func derefSKUs(p *[]gcpSKU) []gcpSKU {
	if p == nil {
		return nil
	}
	return *p
}

// gcpModel cuts a SKU description down to its GPU model: the market
// prefix, the vendor and the location go.
func gcpModel(desc string) string {
	s := desc
	if i := strings.Index(s, " running in "); i >= 0 {
		s = s[:i]
	}
	for _, cut := range []string{" attached to Spot Preemptible VMs", " attached to Preemptible VMs"} {
		s = strings.Replace(s, cut, "", 1)
	}
	for _, prefix := range []string{"Spot Preemptible ", "Preemptible "} {
		s = strings.TrimPrefix(s, prefix)
	}
	if len(s) > 7 && strings.EqualFold(s[:7], "Nvidia ") {
		s = s[7:]
	}
	return strings.TrimSpace(s)
}

// gcpPrice reads the first-tier USD price of a SKU in usageUnit unit ("h"
// or "GiBy.h"): units plus nanos. ok is false for a SKU that is free, in
// another unit or not in USD.
func gcpPrice(s gcpSKU, unit string) (price float64, ok bool, err error) {
	if len(s.PricingInfo) == 0 {
		return 0, false, nil
	}
	// The catalog lists the current price first; later entries are history
	// only when startTime/endTime are asked for.
	expr := s.PricingInfo[0].PricingExpression
	if expr.UsageUnit != unit || len(expr.TieredRates) == 0 {
		return 0, false, nil
	}
	rate := expr.TieredRates[0]
	for _, r := range expr.TieredRates {
		if r.StartUsageAmount == 0 {
			rate = r
			break
		}
	}
	if rate.UnitPrice.CurrencyCode != "" && rate.UnitPrice.CurrencyCode != "USD" {
		return 0, false, nil
	}
	units := int64(0)
	if rate.UnitPrice.Units != "" {
		units, err = strconv.ParseInt(rate.UnitPrice.Units, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("unitPrice.units %q is not an integer", truncate(rate.UnitPrice.Units, 30))
		}
	}
	if rate.UnitPrice.Nanos <= -1e9 || rate.UnitPrice.Nanos >= 1e9 {
		return 0, false, fmt.Errorf("unitPrice.nanos %d is out of range", rate.UnitPrice.Nanos)
	}
	price = float64(units) + float64(rate.UnitPrice.Nanos)/1e9
	if !(price > 0) || math.IsInf(price, 0) {
		return 0, false, nil
	}
	return price, true, nil
}
