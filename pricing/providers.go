package pricing

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// Provider is one price source fitbot can refresh from.
type Provider struct {
	Name     string // stable name: the store's provider, --provider NAME
	Keyed    bool   // it needs an API key, and is refreshed only with one
	KeyTaken bool   // it answers without a key, and sends one when given (RunPod)
	Regional bool   // the regions it prices can be chosen
	new      func(baseURL, key string, hc *http.Client, logger *slog.Logger) Fetcher
	// many, for a published multi-provider catalog, makes one fetcher per
	// catalog file instead of new's one, so that each keeps its own last
	// good prices.
	many func(baseURL string, hc *http.Client, logger *slog.Logger) []Fetcher
}

// ProviderSettings is what the operator chose for one provider (the
// command reads them from its environment; pricing knows no variable).
type ProviderSettings struct {
	URL     string   // a mirror or test server; "" for the provider's API
	Key     string   // the API key of a Keyed or KeyTaken provider
	Regions []string // a Regional provider's regions; none for fitbot's list
}

// ErrNoKey is Fetchers' error for a keyed provider asked for by name
// without its key.
var ErrNoKey = errors.New("needs an API key")

// Providers lists every provider fitbot knows, in refresh order: the ones
// that need no key, then the keyed ones.
func Providers() []Provider {
	return []Provider{
		{Name: "aws", Regional: true, new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAWS(u, hc, l) }},
		{Name: "azure", Regional: true, new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewAzure(u, hc, l) }},
		{Name: "runpod", KeyTaken: true, new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewRunPod(u, k, hc, l) }},
		{Name: "vast", new: func(u, _ string, hc *http.Client, l *slog.Logger) Fetcher { return NewVast(u, hc, l) }},
		{Name: "gpuhunt", many: gpuhuntFetchers},
		{Name: "skypilot", many: skypilotFetchers},
		{Name: "lambda", Keyed: true, new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewLambda(u, k, hc, l) }},
		{Name: "gcp", Keyed: true, new: func(u, k string, hc *http.Client, l *slog.Logger) Fetcher { return NewGCP(u, k, hc, l) }},
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

// Fetchers builds the fetchers to refresh from, as settings (by
// provider name) say: every provider that needs no key, and each keyed one
// whose key is set. With only set, just that provider (every catalog file
// of a catalog source, or one: "gpuhunt:nebius"), and an error when it is
// unknown or its key is missing (ErrNoKey). A URL that is not an
// absolute http(s) URL, or a region fitbot does not price, is an error.
func Fetchers(settings map[string]ProviderSettings, only string, hc *http.Client, logger *slog.Logger) ([]Fetcher, error) {
	var out []Fetcher
	found := false
	source, file, oneFile := strings.Cut(only, ":") // "gpuhunt:nebius": one catalog file
	for _, p := range Providers() {
		if only != "" && p.Name != source {
			continue
		}
		found = true
		s := settings[p.Name]
		if p.Keyed && s.Key == "" {
			if only != "" {
				return nil, fmt.Errorf("provider %s %w", p.Name, ErrNoKey)
			}
			continue
		}
		if s.URL != "" {
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, fmt.Errorf("provider %s: %q is not an absolute http(s) URL", p.Name, s.URL)
			}
		}
		if p.many != nil {
			for _, f := range p.many(s.URL, hc, logger) {
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
		f := p.new(s.URL, s.Key, hc, logger)
		if p.Regional && len(s.Regions) > 0 {
			if err := CheckRegions(p.Name, s.Regions); err != nil {
				return nil, fmt.Errorf("provider %s: %w", p.Name, err)
			}
			switch f := f.(type) {
			case *AWS:
				f.Regions = s.Regions
			case *Azure:
				f.Regions = s.Regions
			}
		}
		out = append(out, f)
	}
	if !found {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", only, strings.Join(ProviderNames(), ", "))
	}
	return out, nil
}

// CheckRegions reports the first of a regional provider's regions that
// fitbot cannot price.
func CheckRegions(provider string, regions []string) error {
	for _, r := range regions {
		switch provider {
		case "aws":
			if _, ok := awsLocations[r]; !ok {
				return fmt.Errorf("%q is not an AWS region fitbot prices (known: %s)", r, strings.Join(AWSRegions(), ", "))
			}
		case "azure":
			if !isSlug(r) {
				return fmt.Errorf("%q is not an Azure region name such as eastus", r)
			}
		}
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
