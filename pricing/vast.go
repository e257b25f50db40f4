package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultVastURL is the Vast.ai console host; offers are searched at
// /api/v0/bundles/ under it.
const DefaultVastURL = "https://console.vast.ai"

// vastLimit is how many offers one search asks for. Vast lists a few
// thousand verified, rentable offers for the GPUs below; a full answer
// means the sample may be cut short, which Fetch logs.
const vastLimit = 3000

// vastVRAMTolerance is how far a reported gpu_ram may sit from a known
// size and still snap to it (gpuhunt uses the same 7%).
const vastVRAMTolerance = 0.07

// vastSize is one memory size a Vast GPU name is sold in.
type vastSize struct {
	gib float64 // nominal GiB as the card reports it
	gpu string  // sizing catalog id
}

// vastGPUs maps Vast's gpu_name to the sizes it comes in. A100s and V100s
// share a name across memory sizes, so the reported gpu_ram decides.
var vastGPUs = map[string][]vastSize{
	"RTX 4090":    {{24, "rtx-4090"}},
	"RTX 3090":    {{24, "rtx-3090"}},
	"RTX 5090":    {{32, "rtx-5090"}},
	"RTX 4080":    {{16, "rtx-4080"}},
	"RTX 4070":    {{12, "rtx-4070"}},
	"RTX 3080":    {{10, "rtx-3080"}},
	"RTX 3070":    {{8, "rtx-3070"}},
	"RTX 3060":    {{12, "rtx-3060"}},
	"RTX A6000":   {{48, "rtx-a6000"}},
	"RTX 6000Ada": {{48, "rtx-6000-ada"}},
	"A40":         {{48, "a40"}},
	"A10":         {{24, "a10"}},
	"L4":          {{24, "l4"}},
	"L40S":        {{48, "l40s"}},
	"Tesla T4":    {{16, "t4"}},
	"Tesla V100":  {{16, "v100-16"}, {32, "v100-32"}},
	"A100 PCIE":   {{40, "a100-40-pcie"}, {80, "a100-80-pcie"}},
	"A100 SXM4":   {{40, "a100-40"}, {80, "a100-80"}},
	"H100 PCIE":   {{80, "h100-pcie"}},
	"H100 SXM":    {{80, "h100"}},
	"H100 NVL":    {{94, "h100-nvl"}},
	"H200":        {{141, "h200"}},
	"B200":        {{180, "b200"}},
}

// Vast reads the Vast.ai marketplace and aggregates it per GPU: the
// cheapest and the median per-GPU price of verified, rentable, unrented
// on-demand offers, and the same for the interruptible bid floor
// (min_bid), each with the number of offers behind it.
//
// One search covers every GPU in its table (the names go in the query's
// gpu_name "in" filter): Vast rate-limits searches without documenting the
// limits, so a refresh makes one call, and the server-side name filter
// spends the whole limit on GPUs fitbot prices.
type Vast struct {
	baseURL string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// NewVast returns a Vast fetcher reading baseURL (DefaultVastURL when
// empty) through hc. A nil logger discards.
func NewVast(baseURL string, hc *http.Client, logger *slog.Logger) *Vast {
	if baseURL == "" {
		baseURL = DefaultVastURL
	}
	return &Vast{baseURL: baseURL, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}

// Name returns "vast".
func (v *Vast) Name() string { return "vast" }

// vastQuery is the search body: per-field operators, as the CLI sends them.
func vastQuery() map[string]any {
	names := slices.Sorted(maps.Keys(vastGPUs))
	return map[string]any{
		"gpu_name": map[string]any{"in": names},
		"verified": map[string]any{"eq": true},
		"rentable": map[string]any{"eq": true},
		"rented":   map[string]any{"eq": false},
		"num_gpus": map[string]any{"gte": 1},
		"type":     "on-demand",
		"order":    [][]string{{"dph_total", "asc"}},
		"limit":    vastLimit,
	}
}

// Fetch runs one search and returns, per GPU, four aggregate offers:
// on-demand min and median, spot (bid floor) min and median.
func (v *Vast) Fetch(ctx context.Context) (FetchResult, error) {
	body, err := json.Marshal(vastQuery())
	if err != nil {
		return FetchResult{}, fmt.Errorf("vast: %w", err)
	}
	endpoint := strings.TrimSuffix(v.baseURL, "/") + "/api/v0/bundles/"
	raw, err := providerCall(ctx, v.hc, providerRequest{
		provider: "vast", method: http.MethodPost, url: endpoint, body: body,
		header: http.Header{"Content-Type": {"application/json"}},
	})
	if err != nil {
		return FetchResult{}, err
	}
	res, n, err := decodeVast(raw, v.now().UTC(), endpoint)
	if err != nil {
		return FetchResult{}, fmt.Errorf("vast: %w", err)
	}
	if n >= vastLimit {
		v.logger.Warn("prices: vast returned a full page; the sample may be cut short", "offers", n, "limit", vastLimit)
	}
	logUnknown(v.logger, "vast", res.Unknown)
	return res, nil
}

type vastResponse struct {
	Offers *[]vastOffer `json:"offers"`
}

// vastOffer holds the fields used. cpu_cores is often null and gpu_ram is
// imprecise (95830 for a 94 GB H100 NVL); neither is trusted alone.
type vastOffer struct {
	ID       int64    `json:"id"`
	GPUName  string   `json:"gpu_name"`
	NumGPUs  float64  `json:"num_gpus"`
	GPURAM   float64  `json:"gpu_ram"` // MiB per GPU
	CPUCores *float64 `json:"cpu_cores"`
	DPHTotal *float64 `json:"dph_total"`
	MinBid   *float64 `json:"min_bid"`
	// Verification is "verified", "unverified" or "deverified"; real
	// offers carry no boolean verified field.
	Verification string `json:"verification"`
	Rentable     *bool  `json:"rentable"`
	Rented       *bool  `json:"rented"`
}

// decodeVast aggregates a search answer. It returns the offers found, the
// number of raw offers read, and an error for a payload that is not a
// search answer. Offers the server should have filtered out (not
// verification "verified", not rentable, or rented) are dropped again
// here; an offer that does not say it is verified is not.
func decodeVast(raw []byte, at time.Time, source string) (FetchResult, int, error) {
	var resp vastResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return FetchResult{}, 0, fmt.Errorf("decode offers: %w", err)
	}
	if resp.Offers == nil {
		return FetchResult{}, 0, errors.New("response has no offers array")
	}
	res := FetchResult{Unknown: map[string]int{}}
	onDemand := map[string][]float64{}
	spot := map[string][]float64{}
	for _, o := range *resp.Offers {
		if o.Verification != "verified" || is(o.Rentable, false) || is(o.Rented, true) {
			continue
		}
		gpu, ok := vastGPU(o.GPUName, o.GPURAM)
		if !ok || !priced(gpu) {
			res.Unknown[vastName(o)]++
			continue
		}
		// num_gpus counts whole GPUs; gpu_frac is the offer's share of the
		// machine's GPUs (4 of 8 is 0.5), not a fraction of a GPU.
		gpus := o.NumGPUs
		if !(gpus >= 1) || math.IsInf(gpus, 0) {
			continue
		}
		// A host may ask anything; a listing outside the store's per-GPU
		// bounds is an outlier nobody rents, not a market price, and
		// would fail the whole run at the gate.
		if positive(o.DPHTotal) && inBounds(*o.DPHTotal/gpus) {
			onDemand[gpu] = append(onDemand[gpu], *o.DPHTotal/gpus)
		}
		if positive(o.MinBid) && inBounds(*o.MinBid/gpus) {
			spot[gpu] = append(spot[gpu], *o.MinBid/gpus)
		}
	}
	res.Offers = append(res.Offers, vastAggregate(onDemand, MarketOnDemand, "dph_total", at, source)...)
	res.Offers = append(res.Offers, vastAggregate(spot, MarketSpot, "min_bid", at, source)...)
	return res, len(*resp.Offers), nil
}

// vastAggregate makes the min and median rows of each GPU's per-GPU
// prices, in GPU order.
func vastAggregate(prices map[string][]float64, market Market, field string, at time.Time, source string) []Offer {
	var out []Offer
	for _, gpu := range slices.Sorted(maps.Keys(prices)) {
		ps := prices[gpu]
		sort.Float64s(ps)
		med := ps[len(ps)/2]
		if len(ps)%2 == 0 {
			med = (ps[len(ps)/2-1] + ps[len(ps)/2]) / 2
		}
		for _, s := range []struct {
			kind  string
			price float64
		}{{"min", ps[0]}, {"median", med}} {
			if !(s.price > 0) || math.IsInf(s.price, 0) {
				continue
			}
			out = append(out, Offer{
				Provider:      "vast",
				InstanceType:  "verified-" + s.kind,
				GPU:           gpu,
				GPUCount:      1,
				Market:        market,
				Region:        "all",
				USDPerHour:    s.price,
				USDPerGPUHour: s.price,
				Source:        fmt.Sprintf("%s: %s of %d verified offers, %s per GPU", source, s.kind, len(ps), field),
				ObservedAt:    at,
				Samples:       len(ps),
			})
		}
	}
	return out
}

// vastGPU maps a gpu_name and reported MiB to a catalog id, snapping the
// memory to the nearest size the name is sold in, within 7%.
func vastGPU(name string, ramMiB float64) (string, bool) {
	sizes, ok := vastGPUs[name]
	if !ok || !(ramMiB > 0) {
		return "", false
	}
	gib := ramMiB / 1024
	best, bestDiff := "", math.Inf(1)
	for _, s := range sizes {
		if d := math.Abs(gib-s.gib) / s.gib; d <= vastVRAMTolerance && d < bestDiff {
			best, bestDiff = s.gpu, d
		}
	}
	return best, best != ""
}

func vastName(o vastOffer) string {
	return fmt.Sprintf("%s (%.0f GiB)", o.GPUName, o.GPURAM/1024)
}

func inBounds(usdPerGPUHour float64) bool {
	return usdPerGPUHour >= MinUSDPerGPUHour && usdPerGPUHour <= MaxUSDPerGPUHour
}

// is reports whether an optional flag is present and equal to want.
func is(b *bool, want bool) bool { return b != nil && *b == want }
