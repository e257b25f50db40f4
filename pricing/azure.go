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
	"strings"
	"time"
)

// DefaultAzureURL is the Azure Retail Prices API host; the prices are at
// /api/retail/prices under it. No key is needed.
const DefaultAzureURL = "https://prices.azure.com"

// azureAPIVersion adds savings-plan rates and non-primary meters; from it
// on, filter values are case-sensitive.
const azureAPIVersion = "2023-01-01-preview"

// azureMaxPages caps one region's walk. A filtered GPU walk is one or two
// pages of 1000 items; more than this is a paging bug, not a price list.
const azureMaxPages = 30

// DefaultAzureRegions are the regions an Azure refresh walks, one short
// filtered walk each (pages are positional, so long walks drift).
var DefaultAzureRegions = []string{"eastus", "eastus2", "southcentralus", "westus2", "westus3", "westeurope", "northeurope", "swedencentral"}

// azureTerms converts a reservation's whole-term price to an hourly one
// (Azure's Reservation rows price the whole term, not an hour) and names
// the term as the offer's tier.
var azureTerms = map[string]struct {
	hours float64
	tier  string
}{
	"1 Year":  {365 * 24, "1-year"},
	"3 Years": {3 * 365 * 24, "3-year"},
	"5 Years": {5 * 365 * 24, "5-year"},
}

// Azure reads GPU virtual-machine prices from the Azure Retail Prices API,
// walking each region's GPU series (armSkuName containing _NC, _ND or _NV)
// through NextPageLink. SKUs map to GPUs through an explicit table
// (azureSKUs); NVads A10 v5 sizes are fractional GPUs.
//
// Linux consumption rows are on_demand, Spot rows are spot, Reservation
// rows are reserved at their term price spread over the term's hours
// (Tier "1-year" or "3-year"), and an on-demand row's savingsPlan rates
// are reserved at their hourly rate (Tier "savings-1-year" or
// "savings-3-year"). Windows, Low Priority (retired), DevTest
// and zero-price rows are skipped; a non-USD row fails the fetch.
type Azure struct {
	// Regions are the armRegionName values walked; NewAzure sets
	// DefaultAzureRegions.
	Regions []string

	baseURL string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// NewAzure returns an Azure fetcher for DefaultAzureRegions reading baseURL
// (DefaultAzureURL when empty) through hc. A nil logger discards.
func NewAzure(baseURL string, hc *http.Client, logger *slog.Logger) *Azure {
	if baseURL == "" {
		baseURL = DefaultAzureURL
	}
	return &Azure{baseURL: baseURL, Regions: DefaultAzureRegions, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}

// Name returns "azure".
func (a *Azure) Name() string { return "azure" }

// azureFilter is the OData filter of one region's walk: virtual machines
// of the GPU series only.
func azureFilter(region string) string {
	return "serviceName eq 'Virtual Machines' and armRegionName eq '" + region + "' and " +
		"(contains(armSkuName, '_NC') or contains(armSkuName, '_ND') or contains(armSkuName, '_NV'))"
}

// azureQuery is the query string of one region's first page, written as
// the API documents it ($filter, quoted currency and meter region, spaces
// as %20).
func azureQuery(region string) string {
	return "?api-version=" + azureAPIVersion + "&currencyCode=%27USD%27&meterRegion=%27primary%27&$filter=" +
		strings.ReplaceAll(url.QueryEscape(azureFilter(region)), "+", "%20")
}

// Fetch walks every region's GPU rows. Any failure fails the whole fetch:
// a half-read price list would look like withdrawn offers.
func (a *Azure) Fetch(ctx context.Context) (FetchResult, error) {
	base, err := url.Parse(strings.TrimSuffix(a.baseURL, "/"))
	if err != nil || base.Host == "" {
		return FetchResult{}, fmt.Errorf("azure: base URL %q is not an absolute URL", a.baseURL)
	}
	at := a.now().UTC()
	res := FetchResult{Unknown: map[string]int{}}
	for _, region := range a.Regions {
		next := base.JoinPath("/api/retail/prices").String() + azureQuery(region)
		seen := map[string]bool{}
		for page := 1; next != ""; page++ {
			if page > azureMaxPages {
				return FetchResult{}, fmt.Errorf("azure: %s: more than %d pages", region, azureMaxPages)
			}
			if seen[next] {
				return FetchResult{}, fmt.Errorf("azure: %s: page %d repeats an earlier page's link", region, page)
			}
			seen[next] = true
			raw, err := providerCall(ctx, a.hc, providerRequest{provider: "azure", method: http.MethodGet, url: next})
			if err != nil {
				return FetchResult{}, fmt.Errorf("%w (%s, page %d)", err, region, page)
			}
			offers, link, err := decodeAzurePage(raw, at, res.Unknown)
			if err != nil {
				return FetchResult{}, fmt.Errorf("azure: %s, page %d: %w", region, page, err)
			}
			for _, o := range offers {
				if o.Region != region {
					return FetchResult{}, fmt.Errorf("azure: %s, page %d: a row of region %q in a walk filtered to %s", region, page, o.Region, region)
				}
			}
			res.Offers = append(res.Offers, offers...)
			if next, err = sameHost(base, link); err != nil {
				return FetchResult{}, fmt.Errorf("azure: %s, page %d: %w", region, page, err)
			}
		}
	}
	res.Offers = cheapestPerKey(res.Offers)
	logUnknown(a.logger, "azure", res.Unknown)
	return res, nil
}

// sameHost checks that a NextPageLink stays on the API's origin, so that
// a payload cannot send the fetcher elsewhere; "" ends the walk. Origins
// are compared normalised: the real API spells the scheme's default port
// out (https://prices.azure.com:443/...), which is the same origin as the
// base URL without it.
func sameHost(base *url.URL, link string) (string, error) {
	if link == "" {
		return "", nil
	}
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("NextPageLink %q is not a URL", truncate(link, 80))
	}
	if origin(u) != origin(base) {
		return "", fmt.Errorf("NextPageLink leaves %s for %s", origin(base), origin(u))
	}
	return link, nil
}

// origin is a URL's scheme, host and port, lower-cased and with the
// scheme's default port made explicit: "https://prices.azure.com:443".
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

type azurePage struct {
	BillingCurrency string      `json:"BillingCurrency"`
	Items           *[]azureRow `json:"Items"`
	NextPageLink    *string     `json:"NextPageLink"`
}

type azureRow struct {
	CurrencyCode    string  `json:"currencyCode"`
	RetailPrice     float64 `json:"retailPrice"`
	ArmRegionName   string  `json:"armRegionName"`
	MeterName       string  `json:"meterName"`
	ProductName     string  `json:"productName"`
	SkuName         string  `json:"skuName"`
	ServiceName     string  `json:"serviceName"`
	UnitOfMeasure   string  `json:"unitOfMeasure"`
	Type            string  `json:"type"`
	ArmSkuName      string  `json:"armSkuName"`
	ReservationTerm string  `json:"reservationTerm"`
	// SavingsPlan are the hourly rates of the same meter under a 1- or
	// 3-year savings plan (api-version 2023-01-01-preview on).
	SavingsPlan []struct {
		RetailPrice float64 `json:"retailPrice"`
		Term        string  `json:"term"`
	} `json:"savingsPlan"`
}

// decodeAzurePage turns one page into offers and returns the next page's
// link ("" at the end).
func decodeAzurePage(raw []byte, at time.Time, unknown map[string]int) ([]Offer, string, error) {
	var p azurePage
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, "", fmt.Errorf("decode: %w", err)
	}
	if p.Items == nil {
		return nil, "", errors.New("the page has no Items")
	}
	if p.BillingCurrency != "" && p.BillingCurrency != "USD" {
		return nil, "", fmt.Errorf("billing currency %q, want USD", p.BillingCurrency)
	}
	var offers []Offer
	for _, r := range *p.Items {
		if r.CurrencyCode != "USD" {
			return nil, "", fmt.Errorf("%s: currency %q, want USD", r.ArmSkuName, r.CurrencyCode)
		}
		if skipAzureRow(r) {
			continue
		}
		spec, ok := azureSKUs[r.ArmSkuName]
		if !ok {
			unknown[r.ArmSkuName]++
			continue
		}
		price, market, tier := r.RetailPrice, MarketOnDemand, ""
		switch {
		case r.Type == "Reservation":
			term, ok := azureTerms[r.ReservationTerm]
			if !ok {
				continue // a term we cannot spread over hours
			}
			price, market, tier = price/term.hours, MarketReserved, term.tier
		case strings.Contains(r.SkuName, "Spot") || strings.Contains(r.MeterName, "Spot"):
			market = MarketSpot
		}
		if math.IsNaN(price) || math.IsInf(price, 0) {
			return nil, "", fmt.Errorf("%s: price %v", r.ArmSkuName, r.RetailPrice)
		}
		source := "prices.azure.com " + r.ProductName + " / " + r.SkuName
		offers = append(offers, instanceOffer("azure", r.ArmSkuName, spec, market, tier, r.ArmRegionName, price, at, source))
		if r.Type == "Consumption" && market == MarketOnDemand {
			offers = append(offers, azureSavingsPlans(r, spec, at, source)...)
		}
	}
	link := ""
	if p.NextPageLink != nil {
		link = *p.NextPageLink
	}
	return offers, link, nil
}

// azureSavingsPlans are an on-demand row's savings-plan rates: hourly
// prices for a 1- or 3-year commitment, as reserved offers with Tier
// "savings-1-year" or "savings-3-year". A term fitbot does not know or a
// rate that is not a positive number is skipped.
func azureSavingsPlans(r azureRow, spec gpuSpec, at time.Time, source string) []Offer {
	var out []Offer
	for _, sp := range r.SavingsPlan {
		term, ok := azureTerms[sp.Term]
		if !ok || !(sp.RetailPrice > 0) || math.IsInf(sp.RetailPrice, 0) {
			continue
		}
		out = append(out, instanceOffer("azure", r.ArmSkuName, spec, MarketReserved, "savings-"+term.tier, r.ArmRegionName,
			sp.RetailPrice, at, source+" (savings plan, "+sp.Term+")"))
	}
	return out
}

// skipAzureRow reports rows that are not a Linux GPU-hour price fitbot
// compares: Windows licences, retired Low Priority meters, Dev/Test rates,
// meters not per hour, and zero prices.
func skipAzureRow(r azureRow) bool {
	switch {
	case r.Type != "Consumption" && r.Type != "Reservation":
		return true
	case r.UnitOfMeasure != "1 Hour":
		return true
	case strings.Contains(r.ProductName, "Windows") || strings.HasSuffix(r.ProductName, " Win"):
		return true
	case strings.Contains(r.SkuName, "Low Priority") || strings.Contains(r.MeterName, "Low Priority"):
		return true
	case !(r.RetailPrice > 0):
		return true
	}
	return false
}
