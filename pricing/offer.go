// Package pricing owns GPU price offers: the provider fetchers that read
// the providers' real payloads, the embedded default price sheet, the
// price-sheet CSV, the refresh orchestration and its sanity check. The
// weekly digest built from the offers is package digest.
//
// It depends on sizing (for canonical GPU ids and the cards' economics)
// and retry, and on nothing else of fitbot's; persistence reaches it
// through interfaces it declares, which the store implements.
package pricing

import (
	"context"
	"time"
)

// Market is how a price is sold.
type Market string

// The markets. Community and secure tiers (RunPod) are both on demand and
// told apart by Offer.Tier, not by Market.
const (
	MarketOnDemand Market = "on_demand"
	MarketSpot     Market = "spot"
	MarketReserved Market = "reserved"
)

// Offer is one price for one way of renting GPUs at one moment.
type Offer struct {
	Provider      string    // "aws", "azure", "runpod", "vast", "lambda", "gcp", "default-sheet", or an imported name
	InstanceType  string    // the provider's SKU: "p5.48xlarge", "Standard_NC24ads_A100_v4", "NVIDIA H100 80GB HBM3"
	GPU           string    // canonical sizing catalog id: "h100", "a100-80-pcie", "h100-nvl"
	GPUCount      float64   // GPUs in the offer; fractional for sliced GPUs (Azure NVads A10 v5)
	Market        Market    // on_demand, spot or reserved
	Tier          string    // provider tier where one exists ("secure", "community"); "" otherwise
	Region        string    // as the provider names it
	USDPerHour    float64   // price of the whole offer per hour
	USDPerGPUHour float64   // USDPerHour / GPUCount
	Source        string    // where the figure came from: an endpoint, a file and line, a sheet's citation
	ObservedAt    time.Time // when the figure was read (UTC)
	PublishedAt   time.Time // when the source says it published the figure (a feed's publication date); zero when it does not say
	Samples       int       // offers aggregated into this row (marketplaces); 1 for list prices
}

// Fractional reports whether the offer rents part of a GPU; fractional
// offers are kept out of "cheapest full GPU" rankings.
func (o Offer) Fractional() bool { return o.GPUCount < 1 }

// Fetcher reads the current offers of one provider.
type Fetcher interface {
	// Name is the provider's stable name, used in the store and in
	// FITBOT_<NAME>_URL.
	Name() string
	// Fetch returns every offer the provider publishes for GPUs the sizing
	// catalog knows, and how many GPU names it did not recognise.
	Fetch(ctx context.Context) (FetchResult, error)
}

// FetchResult is what one provider returned in one refresh.
type FetchResult struct {
	Offers  []Offer
	Unknown map[string]int // unrecognised GPU or instance names and how often they appeared
}
