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
	// KeyOptional: the provider answers without its key too, and sends
	// it when KeyEnv is set (RunPod).
	KeyOptional bool
	Regional    bool // its regions are chosen with FITBOT_<NAME>_REGIONS
	new         func(baseURL, key string, hc *http.Client, logger *slog.Logger) Fetcher
	// many, for a published multi-provider catalog, makes one fetcher per
	// catalog file instead of new's one, so that each keeps its own last
	// good prices.
	many func(baseURL string, hc *http.Client, logger *slog.Logger) []Fetcher
}

// URLEnv is the environment variable that points the provider elsewhere
// (a mirror, a test server): FITBOT_AWS_URL for aws.
func (p Provider) URLEnv() string { return "FITBOT_" + strings.ToUpper(p.Name) + "_URL" }

// RegionsEnv is the environment variable that lists a regional
// provider's regions, comma-separated: FITBOT_AWS_REGIONS for aws.
func (p Provider) RegionsEnv() string { return "FITBOT_" + strings.ToUpper(p.Name) + "_REGIONS" }

// Providers lists every provider fitbot knows, in refresh order: the ones
// that need no key, then the keyed ones.
func Providers() []Provider {
	return []Provider{
		{Name: "aws", Regional: true, new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAWS(u, hc, l) }},
		{Name: "azure", Regional: true, new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAzure(u, hc, l) }},
		{Name: "runpod", KeyEnv: "RUNPOD_API_KEY", KeyOptional: true, new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewRunPod(u, k, hc, l) }},
		{Name: "vast", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewVast(u, hc, l) }},
		{Name: "gpuhunt", many: gpuhuntFetchers},
		{Name: "skypilot", many: skypilotFetchers},
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
// whose key is set. With only set, just that provider (every catalog file
// of a catalog source, or one: "gpuhunt:nebius"), and an error when it is
// unknown or its key is missing. A FITBOT_<NAME>_URL that is not an
// absolute http(s) URL is an error naming the variable.
func Fetchers(getenv func(string) string, only string, hc *http.Client, logger *slog.Logger) ([]Fetcher, error) {
	var out []Fetcher
	found := false
	source, file, oneFile := strings.Cut(only, ":") // "gpuhunt:nebius": one catalog file
	for _, p := range Providers() {
		if only != "" && p.Name != source {
			continue
		}
		found = true
		key := ""
		if p.KeyEnv != "" {
			key = strings.TrimSpace(getenv(p.KeyEnv))
			if key == "" && !p.KeyOptional {
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
		if p.many != nil {
			for _, f := range p.many(base, hc, logger) {
				if !oneFile || f.Name() == only {
					out = append(out, f)
				}
			}
			if oneFile && len(out) == 0 {
				return nil, fmt.Errorf("%s has no catalog %q", p.Name, file)
			}
			continue
		}
		if oneFile {
			return nil, fmt.Errorf("provider %s has no catalogs; use --provider %s", p.Name, p.Name)
		}
		f := p.new(base, key, hc, logger)
		if p.Regional {
			if err := setRegions(f, p.RegionsEnv(), getenv(p.RegionsEnv())); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	if !found {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", only, strings.Join(ProviderNames(), ", "))
	}
	return out, nil
}

// setRegions applies a FITBOT_<NAME>_REGIONS list to a regional fetcher;
// an empty list keeps its defaults.
func setRegions(f Fetcher, env, list string) error {
	var regions []string
	for r := range strings.SplitSeq(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			regions = append(regions, r)
		}
	}
	if len(regions) == 0 {
		return nil
	}
	switch f := f.(type) {
	case *AWS:
		for _, r := range regions {
			if _, ok := awsLocations[r]; !ok {
				return fmt.Errorf("%s: %q is not an AWS region fitbot prices (known: %s)", env, r, strings.Join(AWSRegions(), ", "))
			}
		}
		f.Regions = regions
	case *Azure:
		for _, r := range regions {
			if !isSlug(r) {
				return fmt.Errorf("%s: %q is not an Azure region name such as eastus", env, r)
			}
		}
		f.Regions = regions
	}
	return nil
}

func gpuhuntFetchers(base string, hc *http.Client, logger *slog.Logger) []Fetcher {
	var out []Fetcher
	for _, c := range GPUHuntCatalogs {
		out = append(out, NewGPUHunt(c.Catalog, c.Provider, base, hc, logger))
	}
	return out
}

func skypilotFetchers(base string, hc *http.Client, logger *slog.Logger) []Fetcher {
	var out []Fetcher
	for _, c := range SkyPilotClouds {
		out = append(out, NewSkyPilot(c, base, hc, logger))
	}
	return out
}
