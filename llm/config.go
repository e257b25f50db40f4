package llm

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultTimeout bounds one Reader.Read call, the retry included.
const DefaultTimeout = 8 * time.Second

// DefaultModel is the model asked when Config.Model is empty. It supports
// strict structured outputs on OpenAI and Azure OpenAI.
const DefaultModel = "gpt-4o-mini"

// DefaultAzureAPIVersion is the Azure OpenAI API version used for Azure
// endpoints: the first generally available version with strict structured
// outputs (go-openai's DefaultAzureConfig still says 2023-05-15, which
// rejects response_format json_schema).
const DefaultAzureAPIVersion = "2024-10-21"

// Config says which OpenAI-compatible server to ask and how long to wait.
// The zero value is disabled.
type Config struct {
	// BaseURL is the API root including its version path, e.g.
	// "http://localhost:11434/v1" for Ollama. Empty means OpenAI
	// (https://api.openai.com/v1). An Azure OpenAI resource URL
	// (https://NAME.openai.azure.com) selects Azure mode.
	BaseURL string
	// Model is the model id, or the deployment name on Azure. Empty means
	// DefaultModel. llama.cpp server ignores it.
	Model string
	// APIKey is sent as "Authorization: Bearer" (as "api-key" on Azure).
	// Empty sends no credentials, which local servers accept.
	APIKey string
	// Timeout bounds one Reader.Read call including its retry; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// AzureAPIVersion overrides DefaultAzureAPIVersion in Azure mode.
	AzureAPIVersion string
}

// Enabled reports whether the fallback is on: an API key is set, or a base
// URL is set (a local server such as Ollama or llama.cpp needs no key; a
// remote one that does answers 401, which Reader.Read reports as
// ErrUnavailable). With neither, fitbot never calls a language model.
func (c Config) Enabled() bool {
	return c.APIKey != "" || c.BaseURL != ""
}

// Azure reports whether BaseURL names an Azure OpenAI resource, which uses
// the api-key header and /openai/deployments/MODEL/chat/completions paths.
// An Azure URL ending in /openai/v1 speaks the plain OpenAI protocol and is
// not Azure mode.
func (c Config) Azure() bool {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	azureHost := strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com")
	return azureHost && !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}

// String describes c without its API key, so that printing or logging a
// Config never leaks it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, Model: %q, APIKey: %s, Timeout: %v, Azure: %v}",
		c.BaseURL, c.model(), key, c.timeout(), c.Azure())
}

// GoString keeps the key out of %#v too.
func (c Config) GoString() string { return c.String() }

// LogValue is what slog records for a Config: the same fields as String.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", c.BaseURL),
		slog.String("model", c.model()),
		slog.Bool("api_key_set", c.APIKey != ""),
		slog.Duration("timeout", c.timeout()),
		slog.Bool("azure", c.Azure()),
	)
}

func (c Config) model() string {
	if c.Model == "" {
		return DefaultModel
	}
	return c.Model
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// clientConfig builds the go-openai configuration sending through doer.
func (c Config) clientConfig(doer openai.HTTPDoer) openai.ClientConfig {
	var cfg openai.ClientConfig
	switch {
	case c.Azure():
		cfg = openai.DefaultAzureConfig(c.APIKey, c.BaseURL)
		cfg.APIVersion = DefaultAzureAPIVersion
		if c.AzureAPIVersion != "" {
			cfg.APIVersion = c.AzureAPIVersion
		}
		// Deployment names are used as given; go-openai's default mapper
		// strips dots and colons, which breaks names like "gpt-4.1-mini".
		cfg.AzureModelMapperFunc = func(model string) string { return model }
	default:
		cfg = openai.DefaultConfig(c.APIKey)
		if c.BaseURL != "" {
			cfg.BaseURL = c.BaseURL
		}
	}
	cfg.HTTPClient = doer
	return cfg
}
