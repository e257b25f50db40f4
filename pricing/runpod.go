package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"
)

// DefaultRunPodURL is the RunPod API host; the GraphQL endpoint is
// /graphql under it.
const DefaultRunPodURL = "https://api.runpod.io"

// runpodQuery asks for the pod price list: one call, every GPU type, per-GPU
// prices for both clouds and both markets. lowestPrice (per-location stock)
// is left out: it multiplies the call count and is not a price.
const runpodQuery = `query GpuTypes { gpuTypes { id displayName secureCloud communityCloud securePrice communityPrice secureSpotPrice communitySpotPrice oneMonthPrice threeMonthPrice sixMonthPrice } }`

// runpodGPUs maps RunPod's gpuTypes ids (the nvidia-smi names) to sizing
// catalog ids. runpodDisplayNames is the fallback for an id RunPod renames.
var runpodGPUs = map[string]string{
	"NVIDIA H100 80GB HBM3":          "h100",
	"NVIDIA H100 PCIe":               "h100-pcie",
	"NVIDIA H100 NVL":                "h100-nvl",
	"NVIDIA H200":                    "h200",
	"NVIDIA B200":                    "b200",
	"NVIDIA A100-SXM4-80GB":          "a100-80",
	"NVIDIA A100 80GB PCIe":          "a100-80-pcie",
	"NVIDIA GeForce RTX 4090":        "rtx-4090",
	"NVIDIA GeForce RTX 3090":        "rtx-3090",
	"NVIDIA GeForce RTX 5090":        "rtx-5090",
	"NVIDIA GeForce RTX 4080":        "rtx-4080",
	"NVIDIA GeForce RTX 3080":        "rtx-3080",
	"NVIDIA GeForce RTX 3070":        "rtx-3070",
	"NVIDIA L40S":                    "l40s",
	"NVIDIA L4":                      "l4",
	"NVIDIA A40":                     "a40",
	"NVIDIA RTX A6000":               "rtx-a6000",
	"NVIDIA RTX 6000 Ada Generation": "rtx-6000-ada",
	"AMD Instinct MI300X OAM":        "mi300x",
}

var runpodDisplayNames = map[string]string{
	"H100 SXM":     "h100",
	"H100 PCIe":    "h100-pcie",
	"H100 NVL":     "h100-nvl",
	"H200 SXM":     "h200",
	"B200":         "b200",
	"A100 SXM":     "a100-80",
	"A100 PCIe":    "a100-80-pcie",
	"RTX 4090":     "rtx-4090",
	"RTX 3090":     "rtx-3090",
	"RTX 5090":     "rtx-5090",
	"RTX 4080":     "rtx-4080",
	"RTX 3080":     "rtx-3080",
	"RTX 3070":     "rtx-3070",
	"L40S":         "l40s",
	"L4":           "l4",
	"A40":          "a40",
	"RTX A6000":    "rtx-a6000",
	"RTX 6000 Ada": "rtx-6000-ada",
	"MI300X":       "mi300x",
}

// RunPod reads RunPod's pod price list from its GraphQL gpuTypes query:
// per GPU-hour, the secure and community clouds on demand and spot, and
// the secure cloud's 1-, 3- and 6-month prices as reserved offers (Tier
// "1-month", "3-month", "6-month") where RunPod gives them.
// The catalogue answers without a key; where RunPod asks for one (a 401),
// RUNPOD_API_KEY is sent as "Authorization: Bearer <key>", as RunPod's
// own SDK does, and never appears in a URL, a log or an error. Prices are
// per GPU-hour for the secure and community clouds, on demand and spot.
type RunPod struct{ keyed }

// NewRunPod returns a RunPod fetcher reading baseURL (DefaultRunPodURL
// when empty) through hc, with apiKey as its Bearer token when not empty.
// A nil logger discards.
func NewRunPod(baseURL, apiKey string, hc *http.Client, logger *slog.Logger) *RunPod {
	return &RunPod{newKeyed(baseURL, DefaultRunPodURL, apiKey, hc, logger)}
}

// Name returns "runpod".
func (r *RunPod) Name() string { return "runpod" }

// Fetch posts the gpuTypes query once and returns one offer per GPU type,
// cloud (Tier secure or community) and market that has a price.
func (r *RunPod) Fetch(ctx context.Context) (FetchResult, error) {
	body, err := json.Marshal(map[string]any{"query": runpodQuery, "variables": map[string]any{}})
	if err != nil {
		return FetchResult{}, fmt.Errorf("runpod: %w", err)
	}
	endpoint := strings.TrimSuffix(r.baseURL, "/") + "/graphql"
	header := http.Header{"Content-Type": {"application/json"}}
	var secrets []string
	if r.apiKey != "" {
		header.Set("Authorization", "Bearer "+r.apiKey)
		secrets = []string{r.apiKey}
	}
	raw, err := providerCall(ctx, r.hc, providerRequest{
		provider: "runpod", method: http.MethodPost, url: endpoint, body: body,
		header: header, secrets: secrets,
	})
	if err != nil {
		if r.apiKey == "" && strings.Contains(err.Error(), "HTTP 401") {
			err = fmt.Errorf("%w: RunPod wants an API key; set RUNPOD_API_KEY", err)
		}
		return FetchResult{}, err
	}
	res, dropped, err := decodeRunPod(raw, r.now().UTC(), endpoint)
	if err != nil {
		// A GraphQL error message may quote the request, key included.
		return FetchResult{}, fmt.Errorf("runpod: %s", scrub(err.Error(), secrets))
	}
	if len(dropped) > 0 {
		r.logger.Warn("prices: runpod prices outside the per-GPU bounds skipped", "prices", dropped)
	}
	logUnknown(r.logger, "runpod", res.Unknown)
	return res, nil
}

type runpodResponse struct {
	Data *struct {
		GPUTypes []runpodGPUType `json:"gpuTypes"`
	} `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

type runpodGPUType struct {
	ID                 string   `json:"id"`
	DisplayName        string   `json:"displayName"`
	SecureCloud        *bool    `json:"secureCloud"`
	CommunityCloud     *bool    `json:"communityCloud"`
	SecurePrice        *float64 `json:"securePrice"`
	CommunityPrice     *float64 `json:"communityPrice"`
	SecureSpotPrice    *float64 `json:"secureSpotPrice"`
	CommunitySpotPrice *float64 `json:"communitySpotPrice"`
	// The secure cloud's longer-term (savings plan) prices, per GPU-hour.
	OneMonthPrice   *float64 `json:"oneMonthPrice"`
	ThreeMonthPrice *float64 `json:"threeMonthPrice"`
	SixMonthPrice   *float64 `json:"sixMonthPrice"`
}

// decodeRunPod turns a gpuTypes response into offers. A GraphQL errors
// array is an error even when data is present, because a partial price
// list would look like removed offers. A price outside the store's
// per-GPU bounds (an odd spot price) is skipped and listed in dropped, so
// that one row cannot fail the whole list at the gate; a unit change
// would drop every row and fail the run.
func decodeRunPod(raw []byte, at time.Time, source string) (res FetchResult, dropped []string, err error) {
	var resp runpodResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return FetchResult{}, nil, fmt.Errorf("decode gpuTypes: %w", err)
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, 0, len(resp.Errors))
		for _, e := range resp.Errors {
			msgs = append(msgs, e.Message)
		}
		return FetchResult{}, nil, fmt.Errorf("graphql errors: %s", truncate(strings.Join(msgs, "; "), 300))
	}
	if resp.Data == nil || resp.Data.GPUTypes == nil {
		return FetchResult{}, nil, errors.New("response has no data.gpuTypes")
	}
	res = FetchResult{Unknown: map[string]int{}}
	for _, g := range resp.Data.GPUTypes {
		gpu, ok := runpodGPUs[g.ID]
		if !ok {
			gpu, ok = runpodDisplayNames[g.DisplayName]
		}
		if !ok || !priced(gpu) {
			res.Unknown[runpodName(g)]++
			continue
		}
		secure := g.SecureCloud == nil || *g.SecureCloud
		community := g.CommunityCloud == nil || *g.CommunityCloud
		rows := []struct {
			on     bool
			price  *float64
			tier   string
			market Market
		}{
			{secure, g.SecurePrice, "secure", MarketOnDemand},
			{community, g.CommunityPrice, "community", MarketOnDemand},
			{secure, g.SecureSpotPrice, "secure", MarketSpot},
			{community, g.CommunitySpotPrice, "community", MarketSpot},
			{secure, g.OneMonthPrice, "1-month", MarketReserved},
			{secure, g.ThreeMonthPrice, "3-month", MarketReserved},
			{secure, g.SixMonthPrice, "6-month", MarketReserved},
		}
		for _, row := range rows {
			if !row.on || !positive(row.price) {
				continue
			}
			if !inBounds(*row.price) {
				// One odd spot price must not fail the whole price list at
				// the store's gate; a unit change would empty it instead.
				dropped = append(dropped, fmt.Sprintf("%s %s %s $%g", runpodName(g), row.tier, row.market, *row.price))
				continue
			}
			res.Offers = append(res.Offers, Offer{
				Provider:      "runpod",
				InstanceType:  runpodName(g),
				GPU:           gpu,
				GPUCount:      1,
				Market:        row.market,
				Tier:          row.tier,
				Region:        "all",
				USDPerHour:    *row.price,
				USDPerGPUHour: *row.price,
				Source:        source + " gpuTypes (per GPU-hour)",
				ObservedAt:    at,
				Samples:       1,
			})
		}
	}
	return res, dropped, nil
}

// priced reports whether the store's gate accepts a catalog id. A table
// entry it does not accept yet is counted with the unknown names instead
// of failing the provider's whole run.
func priced(gpu string) bool { return isCatalogID(gpu) }

func runpodName(g runpodGPUType) string {
	if g.ID != "" {
		return g.ID
	}
	return g.DisplayName
}

// positive reports whether p points at a finite price above zero.
func positive(p *float64) bool {
	return p != nil && *p > 0 && !math.IsInf(*p, 0) && !math.IsNaN(*p)
}
