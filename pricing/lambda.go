package pricing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultLambdaURL is the Lambda Cloud API host; the price list is
// /api/v1/instance-types under it.
const DefaultLambdaURL = "https://cloud.lambda.ai"

// lambdaGPUs maps Lambda's gpu_description, less any "NVIDIA " or
// "Tesla " brand (the API sends "Tesla V100 (16 GB)"), to sizing catalog
// ids. The description carries memory and form factor, which the instance
// name does not always: gpu_1x_a100 is "A100 (40 GB PCIe)", gpu_8x_a100
// the SXM4.
var lambdaGPUs = map[string]string{
	"H100 (80 GB SXM5)":  "h100",
	"H100 (80 GB PCIe)":  "h100-pcie",
	"A100 (40 GB SXM4)":  "a100-40",
	"A100 (40 GB PCIe)":  "a100-40-pcie",
	"A100 (80 GB SXM4)":  "a100-80",
	"A100 (80 GB PCIe)":  "a100-80-pcie",
	"B200 (180 GB SXM6)": "b200",
	"A10 (24 GB PCIe)":   "a10",
	"A6000 (48 GB)":      "rtx-a6000",
	"V100 (16 GB)":       "v100-16",
	"GH200 (96 GB)":      "gh200",
	// gpu_1x_rtx6000: the 24 GB Quadro RTX 6000 (Turing), not the 48 GB
	// RTX 6000 Ada.
	"RTX 6000 (24 GB)": "quadro-rtx-6000",
}

// lambdaCount reads the GPU count from an instance name: gpu_8x_h100_sxm5.
var lambdaCount = regexp.MustCompile(`^gpu_(\d+)x_`)

// Lambda reads Lambda Cloud's instance-type price list. It needs an API
// key and is only enabled when one is configured (LAMBDA_API_KEY).
//
// Each instance type becomes one offer with Region "all": Lambda's list
// price is the same in every region, while regions_with_capacity_available
// is live stock that changes by the hour. One row per region would make
// offers appear and vanish with capacity, so an instance type with no
// capacity anywhere is still listed at its price.
type Lambda struct{ keyed }

// NewLambda returns a Lambda fetcher reading baseURL (DefaultLambdaURL
// when empty) through hc with apiKey as the Bearer token. A nil logger
// discards.
func NewLambda(baseURL, apiKey string, hc *http.Client, logger *slog.Logger) *Lambda {
	return &Lambda{newKeyed(baseURL, DefaultLambdaURL, apiKey, hc, logger)}
}

// Name returns "lambda".
func (l *Lambda) Name() string { return "lambda" }

// Fetch reads the instance types and returns one on-demand offer per
// instance type whose GPU the table knows.
func (l *Lambda) Fetch(ctx context.Context) (FetchResult, error) {
	if l.apiKey == "" {
		return FetchResult{}, errors.New("lambda: no API key configured (LAMBDA_API_KEY)")
	}
	endpoint := strings.TrimSuffix(l.baseURL, "/") + "/api/v1/instance-types"
	raw, err := providerCall(ctx, l.hc, providerRequest{
		provider: "lambda", method: http.MethodGet, url: endpoint,
		header:  http.Header{"Authorization": {"Bearer " + l.apiKey}},
		secrets: []string{l.apiKey},
	})
	if err != nil {
		return FetchResult{}, err
	}
	res, err := decodeLambda(raw, l.now().UTC(), endpoint)
	if err != nil {
		// An API error message may quote the request, key included.
		return FetchResult{}, fmt.Errorf("lambda: %s", scrub(err.Error(), []string{l.apiKey}))
	}
	logUnknown(l.logger, "lambda", res.Unknown)
	return res, nil
}

// lambdaModel cuts the brand words off a gpu_description: "Tesla V100
// (16 GB)" and "NVIDIA H100 (80 GB SXM5)" are the table's "V100 (16 GB)"
// and "H100 (80 GB SXM5)".
func lambdaModel(desc string) string {
	s := strings.TrimSpace(desc)
	for _, brand := range []string{"NVIDIA ", "Nvidia ", "Tesla "} {
		s = strings.TrimPrefix(s, brand)
	}
	return s
}

type lambdaResponse struct {
	Data  map[string]lambdaEntry `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type lambdaEntry struct {
	InstanceType struct {
		Name              string `json:"name"`
		Description       string `json:"description"`
		GPUDescription    string `json:"gpu_description"`
		PriceCentsPerHour *int64 `json:"price_cents_per_hour"`
		Specs             struct {
			GPUs int `json:"gpus"`
		} `json:"specs"`
	} `json:"instance_type"`
	Regions []struct {
		Name string `json:"name"`
	} `json:"regions_with_capacity_available"`
}

// decodeLambda turns the instance-types map into offers, in name order.
// Prices are cents per instance-hour.
func decodeLambda(raw []byte, at time.Time, source string) (FetchResult, error) {
	var resp lambdaResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return FetchResult{}, fmt.Errorf("decode instance-types: %w", err)
	}
	if resp.Error != nil {
		return FetchResult{}, fmt.Errorf("api error %s: %s", resp.Error.Code, truncate(resp.Error.Message, 200))
	}
	if resp.Data == nil {
		return FetchResult{}, errors.New("response has no data map")
	}
	res := FetchResult{Unknown: map[string]int{}}
	for _, key := range slices.Sorted(maps.Keys(resp.Data)) {
		it := resp.Data[key].InstanceType
		name := it.Name
		if name == "" {
			name = key
		}
		gpu, ok := lambdaGPUs[lambdaModel(it.GPUDescription)]
		count := it.Specs.GPUs
		if count <= 0 {
			if m := lambdaCount.FindStringSubmatch(name); m != nil {
				count, _ = strconv.Atoi(m[1])
			}
		}
		if !ok || count <= 0 || !priced(gpu) {
			res.Unknown[name+" ("+it.GPUDescription+")"]++
			continue
		}
		if it.PriceCentsPerHour == nil || *it.PriceCentsPerHour <= 0 {
			continue
		}
		usd := float64(*it.PriceCentsPerHour) / 100
		res.Offers = append(res.Offers, Offer{
			Provider:      "lambda",
			InstanceType:  name,
			GPU:           gpu,
			GPUCount:      float64(count),
			Market:        MarketOnDemand,
			Region:        "all",
			USDPerHour:    usd,
			USDPerGPUHour: usd / float64(count),
			Source:        source + " price_cents_per_hour (per instance)",
			ObservedAt:    at,
			Samples:       1,
		})
	}
	return res, nil
}
