package pricing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultRunPodURL is the RunPod API host; the GraphQL endpoint is
// /graphql under it.
const DefaultRunPodURL = "https://api.runpod.io"

// runpodQuery asks for the pod price list: one call, every GPU type, per-GPU
// prices for both clouds and both markets. lowestPrice (per-location stock)
// is left out: it multiplies the call count and is not a price.
const runpodQuery = `query GpuTypes { gpuTypes { id displayName secureCloud communityCloud securePrice communityPrice secureSpotPrice communitySpotPrice } }`

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

// RunPod reads RunPod's pod price list from its GraphQL gpuTypes query. It
// needs no key. Prices are per GPU-hour for the secure and community
// clouds, on demand and spot.
type RunPod struct {
	baseURL string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// NewRunPod returns a RunPod fetcher reading baseURL (DefaultRunPodURL
// when empty) through hc. A nil logger discards.
func NewRunPod(baseURL string, hc *http.Client, logger *slog.Logger) *RunPod {
	if baseURL == "" {
		baseURL = DefaultRunPodURL
	}
	return &RunPod{baseURL: baseURL, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
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
	raw, err := providerCall(ctx, r.hc, providerRequest{
		provider: "runpod", method: http.MethodPost, url: endpoint, body: body,
		header: http.Header{"Content-Type": {"application/json"}},
	})
	if err != nil {
		return FetchResult{}, err
	}
	res, dropped, err := decodeRunPod(raw, r.now().UTC(), endpoint)
	if err != nil {
		return FetchResult{}, fmt.Errorf("runpod: %w", err)
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

// The helpers below are this file's minimal HTTP plumbing for the four
// marketplace and keyed fetchers: retries with backoff and Retry-After, a
// body cap, and errors that name the provider and never carry a URL's
// query string or a header.

// maxProviderBody caps one response body. GCP's largest SKU page is a few
// MB; anything past this is not a price list.
const maxProviderBody = 32 << 20

// providerAttempts is how many times a request is tried on 429 and 5xx.
const providerAttempts = 4

// maxRetryAfter caps how long one Retry-After makes a refresh wait.
const maxRetryAfter = 30 * time.Second

type providerRequest struct {
	provider string
	method   string
	url      string // may hold a key in its query; never printed
	body     []byte
	header   http.Header
	secrets  []string // scrubbed from any error text
}

// providerCall performs req, retrying 429 and 5xx answers with exponential
// backoff (Retry-After wins when given), and returns the body of a 200
// that is not an HTML page.
func providerCall(ctx context.Context, hc *http.Client, req providerRequest) ([]byte, error) {
	backoff := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		raw, retry, after, err := providerOnce(ctx, hc, req)
		if err == nil {
			return raw, nil
		}
		if !retry || attempt == providerAttempts {
			return nil, err
		}
		wait := after
		if wait < 0 {
			wait = backoff
			backoff *= 2
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: %w (retrying after %v)", req.provider, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// providerOnce makes one attempt. retry says whether the failure is worth
// another try; after is the server's Retry-After, negative when it gave
// none.
func providerOnce(ctx context.Context, hc *http.Client, req providerRequest) (raw []byte, retry bool, after time.Duration, err error) {
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, req.url, body)
	if err != nil {
		return nil, false, -1, fmt.Errorf("%s: build request: %s", req.provider, scrub(err.Error(), req.secrets))
	}
	for k, vs := range req.header {
		hr.Header[k] = vs
	}
	if hr.Header.Get("Accept") == "" {
		hr.Header.Set("Accept", "application/json")
	}
	resp, err := hc.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL, which may carry a key
		}
		if ctx.Err() != nil {
			return nil, false, -1, fmt.Errorf("%s: %w", req.provider, ctx.Err())
		}
		return nil, true, -1, fmt.Errorf("%s: %s %s: %w", req.provider, req.method, hr.URL.Path, scrubErr(err, req.secrets))
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, maxProviderBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, -1, fmt.Errorf("%s: read body: %w", req.provider, ctx.Err())
		}
		return nil, true, -1, fmt.Errorf("%s: read body: %s", req.provider, scrub(err.Error(), req.secrets))
	}
	if len(raw) > maxProviderBody {
		return nil, false, -1, fmt.Errorf("%s: response larger than %d bytes", req.provider, maxProviderBody)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, true, retryAfter(resp.Header.Get("Retry-After")),
			fmt.Errorf("%s: HTTP %d: %s", req.provider, resp.StatusCode, snippet(raw, req.secrets))
	case resp.StatusCode != http.StatusOK:
		return nil, false, -1, fmt.Errorf("%s: HTTP %d: %s", req.provider, resp.StatusCode, snippet(raw, req.secrets))
	}
	if looksLikeHTML(resp.Header.Get("Content-Type"), raw) {
		return nil, false, -1, fmt.Errorf("%s: got an HTML page, not JSON (status 200): %s", req.provider, snippet(raw, req.secrets))
	}
	return raw, false, 0, nil
}

// retryAfter reads a Retry-After header in seconds or as an HTTP date,
// capped at maxRetryAfter; it is negative when none was given.
func retryAfter(h string) time.Duration {
	if h == "" {
		return -1
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return min(time.Duration(s)*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(h); err == nil {
		return min(max(time.Until(t), 0), maxRetryAfter)
	}
	return -1
}

func looksLikeHTML(contentType string, raw []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "text/html") {
		return true
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n\ufeff")
	return len(trimmed) > 0 && trimmed[0] == '<'
}

// snippet is the start of a body, flattened to one printable line, for an
// error message.
func snippet(raw []byte, secrets []string) string {
	s := strings.Join(strings.Fields(string(raw[:min(len(raw), 400)])), " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\ufffd' {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return "(empty body)"
	}
	return truncate(scrub(s, secrets), 200)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// scrubErr keeps err's chain (for errors.Is on timeouts) unless its text
// holds a secret, in which case only the scrubbed text survives.
func scrubErr(err error, secrets []string) error {
	if s := scrub(err.Error(), secrets); s != err.Error() {
		return errors.New(s)
	}
	return err
}

func orDefaultClient(hc *http.Client) *http.Client {
	if hc == nil {
		return &http.Client{Timeout: 60 * time.Second}
	}
	return hc
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// logUnknown logs the names a provider published that no table maps.
func logUnknown(l *slog.Logger, provider string, unknown map[string]int) {
	if len(unknown) == 0 {
		return
	}
	l.Info("prices: unrecognised GPU names skipped", "provider", provider, "names", len(unknown), "unknown", unknown)
}
