package pricing

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// Provider is one price source fitbot can refresh from.
type Provider struct {
	Name   string // stable name: the store's provider, FITBOT_<NAME>_URL, --provider NAME
	KeyEnv string // environment variable with its API key; "" when it needs none
	new    func(baseURL, key string, hc *http.Client, logger *slog.Logger) Fetcher
}

// URLEnv is the environment variable that points the provider elsewhere
// (a mirror, a test server): FITBOT_AWS_URL for aws.
func (p Provider) URLEnv() string { return "FITBOT_" + strings.ToUpper(p.Name) + "_URL" }

// Providers lists every provider fitbot knows, in refresh order: the ones
// that need no key, then the keyed ones.
func Providers() []Provider {
	return []Provider{
		{Name: "aws", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAWS(u, hc, l) }},
		{Name: "azure", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAzure(u, hc, l) }},
		{Name: "runpod", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewRunPod(u, hc, l) }},
		{Name: "vast", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewVast(u, hc, l) }},
		{Name: "lambda", KeyEnv: "LAMBDA_API_KEY", new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewLambda(u, k, hc, l) }},
		{Name: "gcp", KeyEnv: "GCP_API_KEY", new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewGCP(u, k, hc, l) }},
	}
}

// ProviderNames lists the names of Providers, in order.
func ProviderNames() []string {
	var names []string
	for _, p := range Providers() {
		names = append(names, p.Name)
	}
	return names
}

// Fetchers builds the fetchers to refresh from, reading the environment
// through getenv: every provider that needs no key, and each keyed one
// whose key is set. With only set, just that provider, and an error when
// it is unknown or its key is missing. A FITBOT_<NAME>_URL that is not an
// absolute http(s) URL is an error naming the variable.
func Fetchers(getenv func(string) string, only string, hc *http.Client, logger *slog.Logger) ([]Fetcher, error) {
	var out []Fetcher
	found := false
	for _, p := range Providers() {
		if only != "" && p.Name != only {
			continue
		}
		found = true
		key := ""
		if p.KeyEnv != "" {
			key = strings.TrimSpace(getenv(p.KeyEnv))
			if key == "" {
				if only != "" {
					return nil, fmt.Errorf("provider %s needs an API key in %s", p.Name, p.KeyEnv)
				}
				continue
			}
		}
		base := strings.TrimSpace(getenv(p.URLEnv()))
		if base != "" {
			u, err := url.Parse(base)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("%s=%q is not an absolute http(s) URL", p.URLEnv(), base)
			}
		}
		out = append(out, p.new(base, key, hc, logger))
	}
	if !found {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", only, strings.Join(ProviderNames(), ", "))
	}
	return out, nil
}
