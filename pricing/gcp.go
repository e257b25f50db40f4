package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
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
// Mega (a3-megagpu) and Plus are the same SXM card with more networking;
// newer SKUs drop the vendor ("H200 141GB GPU running in Belgium") and A4's
// B200 is sold as "(1 gpu slice)", one GPU.
var gcpGPUs = map[string]string{
	"Tesla T4 GPU":                 "t4",
	"Tesla V100 GPU":               "v100-16",
	"L4 GPU":                       "l4",
	"Tesla A100 GPU":               "a100-40",
	"Tesla A100 80GB GPU":          "a100-80",
	"H100 80GB GPU":                "h100",
	"H100 80GB Mega GPU":           "h100",
	"H100 80GB Plus GPU":           "h100",
	"H200 141GB GPU":               "h200",
	"A4 Nvidia B200 (1 gpu slice)": "b200",
}

// GCP reads Compute Engine's GPU SKUs from the Cloud Billing Catalog. It
// needs an API key (GCP_API_KEY) with the Cloud Billing API enabled in its
// project, and is only enabled when one is configured.
//
// GCP prices a VM by components; a GPU SKU is the GPU's own per-GPU-hour
// price, without the vCPU, RAM and disk of the machine it is attached to.
// The offers say so in Source. There is one offer per SKU and service
// region, since GCP prices differ by region (the cheapest where two SKUs
// price one GPU in one region). Commitments (Commit1Yr,
// Commit3Yr) are left out; OnDemand is on_demand and Preemptible is spot.
type GCP struct {
	baseURL string
	apiKey  string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// NewGCP returns a GCP fetcher reading baseURL (DefaultGCPURL when empty)
// through hc with apiKey as the key parameter. A nil logger discards.
func NewGCP(baseURL, apiKey string, hc *http.Client, logger *slog.Logger) *GCP {
	if baseURL == "" {
		baseURL = DefaultGCPURL
	}
	return &GCP{baseURL: baseURL, apiKey: apiKey, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}

// Name returns "gcp".
func (g *GCP) Name() string { return "gcp" }

// Fetch walks every page of Compute Engine SKUs and returns the GPU ones.
// A page token seen twice is an error, not a loop.
func (g *GCP) Fetch(ctx context.Context) (FetchResult, error) {
	if g.apiKey == "" {
		return FetchResult{}, errors.New("gcp: no API key configured (GCP_API_KEY)")
	}
	path := "/v1/services/" + gcpComputeService + "/skus"
	endpoint := strings.TrimSuffix(g.baseURL, "/") + path
	source := "cloudbilling.googleapis.com" + path
	at := g.now().UTC()
	res := FetchResult{Unknown: map[string]int{}}
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
		next, err := decodeGCPPage(raw, at, source, &res)
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
	res.Offers = cheapestPerKey(res.Offers)
	logUnknown(g.logger, "gcp", res.Unknown)
	return res, nil
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

// decodeGCPPage adds one page's GPU SKUs to res and returns the next page
// token ("" on the last page).
func decodeGCPPage(raw []byte, at time.Time, source string, res *FetchResult) (string, error) {
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
	if res.Unknown == nil {
		res.Unknown = map[string]int{}
	}
	for _, s := range derefSKUs(page.SKUs) {
		if s.Category.ResourceFamily != "Compute" || s.Category.ResourceGroup != "GPU" {
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
		model := gcpModel(s.Description)
		gpu, ok := gcpGPUs[model]
		if !ok || !priced(gpu) {
			res.Unknown[model]++
			continue
		}
		price, ok, err := gcpPrice(s)
		if err != nil {
			return "", fmt.Errorf("sku %s: %w", s.SKUID, err)
		}
		if !ok {
			continue
		}
		for _, region := range s.ServiceRegions {
			res.Offers = append(res.Offers, Offer{
				Provider:      "gcp",
				InstanceType:  "Nvidia " + model,
				GPU:           gpu,
				GPUCount:      1,
				Market:        market,
				Region:        region,
				USDPerHour:    price,
				USDPerGPUHour: price,
				Source:        fmt.Sprintf("%s SKU %s: GPU component only, not a whole VM", source, s.SKUID),
				ObservedAt:    at,
				Samples:       1,
			})
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

// gcpPrice reads the first-tier hourly USD price of a SKU: units plus
// nanos. ok is false for a SKU that is free, not hourly or not in USD.
func gcpPrice(s gcpSKU) (price float64, ok bool, err error) {
	if len(s.PricingInfo) == 0 {
		return 0, false, nil
	}
	// The catalog lists the current price first; later entries are history
	// only when startTime/endTime are asked for.
	expr := s.PricingInfo[0].PricingExpression
	if expr.UsageUnit != "h" || len(expr.TieredRates) == 0 {
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
