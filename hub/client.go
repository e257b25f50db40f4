// Package hub reads models from the Hugging Face Hub: the model info API
// (/api/models/{repo}: revision, gating, safetensors counts), a repo's
// config.json (/{repo}/resolve/{revision}/config.json; a diffusers
// pipeline's model_index.json instead) and the search
// API, and resolves the Hub ids, links and names a question holds into
// sizing models, through a cache that answers when the Hub cannot.
//
// It depends on sizing alone; the cache is an interface the store
// implements. The base URL and the token are passed in (cmd/fitbot reads
// HF_ENDPOINT and HF_TOKEN); the token is sent as a Bearer header and
// never appears in an error or a log line.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/sizing"
)

// DefaultEndpoint is the public Hub, the base URL when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// maxBody bounds what one answer may hold: a model info or a config.json
// is a few kilobytes; a search page a few tens.
const maxBody = 4 << 20

// Client talks to the Hub's HTTP API.
type Client struct {
	BaseURL string       // "" is DefaultEndpoint
	Token   string       // sent as "Authorization: Bearer"; "" for anonymous
	HTTP    *http.Client // nil is http.DefaultClient
	// Timeout bounds each request (0: 10 seconds); a context deadline
	// that comes sooner wins.
	Timeout time.Duration
}

// Info is what the model info endpoint says about a repo.
type Info struct {
	ID      string            // the repo id as the Hub spells it
	SHA     string            // the commit of the main branch
	Gated   string            // "" for an open repo, else "auto" or "manual"
	Weights sizing.HubWeights // safetensors counts; zero when the Hub has none
	Config  json.RawMessage   // the subset of config.json the Hub shows (architectures, model_type, quantization_config)
}

// modelInfo is the JSON of GET /api/models/{repo}. gated is false or a
// string ("auto", "manual").
type modelInfo struct {
	ID          string          `json:"id"`
	SHA         string          `json:"sha"`
	Gated       json.RawMessage `json:"gated"`
	Config      json.RawMessage `json:"config"`
	Safetensors *struct {
		Parameters map[string]int64 `json:"parameters"`
		Total      int64            `json:"total"`
	} `json:"safetensors"`
}

// ModelInfo fetches the model info of repo.
func (c *Client) ModelInfo(ctx context.Context, repo string) (Info, error) {
	body, _, _, err := c.get(ctx, repo, "/api/models/"+escapeRepo(repo), "")
	if err != nil {
		return Info{}, err
	}
	var mi modelInfo
	if err := json.Unmarshal(body, &mi); err != nil {
		return Info{}, &Error{Kind: KindBadAnswer, Repo: repo, Problem: fmt.Sprintf("the Hugging Face Hub's model info for %s is not the JSON fitbot expects: %v", repo, err)}
	}
	if mi.SHA == "" {
		return Info{}, &Error{Kind: KindBadAnswer, Repo: repo, Problem: fmt.Sprintf("the Hugging Face Hub's model info for %s has no revision (sha)", repo)}
	}
	info := Info{ID: mi.ID, SHA: mi.SHA, Config: mi.Config}
	if info.ID == "" {
		info.ID = repo
	}
	var gated string
	if json.Unmarshal(mi.Gated, &gated) == nil {
		info.Gated = gated
	}
	if st := mi.Safetensors; st != nil {
		info.Weights = sizing.HubWeights{ByDType: st.Parameters, Total: st.Total}
		if info.Weights.Total == 0 {
			for _, n := range st.Parameters {
				info.Weights.Total += n
			}
		}
	}
	return info, nil
}

// Config fetches config.json of repo at revision. With etag set, an
// unchanged file answers 304 and notModified is true (body is nil).
func (c *Client) Config(ctx context.Context, repo, revision, etag string) (body []byte, newETag string, notModified bool, err error) {
	return c.get(ctx, repo, "/"+escapeRepo(repo)+"/resolve/"+url.PathEscape(revision)+"/config.json", etag)
}

// ModelIndex fetches a diffusers pipeline's model_index.json of repo at
// revision: its components and their classes.
func (c *Client) ModelIndex(ctx context.Context, repo, revision string) ([]byte, error) {
	body, _, _, err := c.get(ctx, repo, "/"+escapeRepo(repo)+"/resolve/"+url.PathEscape(revision)+"/model_index.json", "")
	return body, err
}

// Hit is one model the search API found.
type Hit struct {
	ID        string `json:"id"`
	Downloads int64  `json:"downloads"`
}

// Search asks the search API for up to limit models whose id contains
// query, most downloaded first.
func (c *Client) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	v := url.Values{"search": {query}, "sort": {"downloads"}, "direction": {"-1"}, "limit": {fmt.Sprint(limit)}}
	body, _, _, err := c.get(ctx, "", "/api/models?"+v.Encode(), "")
	if err != nil {
		return nil, err
	}
	var hits []Hit
	if err := json.Unmarshal(body, &hits); err != nil {
		return nil, &Error{Kind: KindBadAnswer, Problem: fmt.Sprintf("the Hugging Face Hub's search answer is not the JSON fitbot expects: %v", err)}
	}
	return hits, nil
}

// get fetches path and turns every refusal into an *Error.
func (c *Client) get(ctx context.Context, repo, path, etag string) ([]byte, string, bool, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		base = DefaultEndpoint
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, "", false, fmt.Errorf("hub: build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "fitbot")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	hc := c.HTTP
	if hc == nil {
		hc = defaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", false, unreachable(ctx, repo, base, timeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, "", false, unreachable(ctx, repo, base, timeout, err)
	}
	if resp.StatusCode == http.StatusNotModified && etag != "" {
		return nil, etag, true, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", false, refusal(resp, body, repo, c.Token != "")
	}
	if len(body) > maxBody {
		return nil, "", false, &Error{Kind: KindBadAnswer, Repo: repo, Problem: fmt.Sprintf("the Hugging Face Hub's answer for %s is over %d MiB; fitbot reads config files, not weights", orHub(repo), maxBody>>20)}
	}
	return body, resp.Header.Get("ETag"), false, nil
}

// unreachable is the error for a request that got no answer.
func unreachable(ctx context.Context, repo, base string, timeout time.Duration, err error) error {
	problem := fmt.Sprintf("the Hugging Face Hub (%s) could not be reached", base)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		problem = fmt.Sprintf("the Hugging Face Hub (%s) did not answer within %v", base, timeout)
	}
	return &Error{Kind: KindUnreachable, Repo: repo, Problem: problem, err: err}
}

// escapeRepo escapes each part of a repo id for a URL path, keeping the slash.
func escapeRepo(repo string) string {
	org, name, ok := strings.Cut(repo, "/")
	if !ok {
		return url.PathEscape(repo)
	}
	return url.PathEscape(org) + "/" + url.PathEscape(name)
}

func orHub(repo string) string {
	if repo == "" {
		return "the search"
	}
	return repo
}

// defaultClient is the client of a Client without one: it follows the
// Hub's redirects (a renamed repo, a file on the CDN), but without the
// token once the host changes.
var defaultClient = samehost.StripClient(nil)
