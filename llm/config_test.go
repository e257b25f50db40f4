package llm

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestEnabled(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		enabled bool
		azure   bool
	}{
		{"nothing set: off", Config{}, false, false},
		{"OpenAI key", Config{APIKey: "sk-abc"}, true, false},
		{"Ollama without a key", Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.1:8b"}, true, false},
		{"Azure resource", Config{BaseURL: "https://acme.openai.azure.com", APIKey: "k", Model: "gpt-4o-mini"}, true, true},
		{"Azure v1 endpoint speaks plain OpenAI", Config{BaseURL: "https://acme.openai.azure.com/openai/v1/", APIKey: "k"}, true, false},
		{"a model alone does not turn it on", Config{Model: "gpt-4o-mini"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg
			if got.Enabled() != tt.enabled || got.Azure() != tt.azure {
				t.Errorf("Enabled, Azure = %v, %v, want %v, %v", got.Enabled(), got.Azure(), tt.enabled, tt.azure)
			}
		})
	}
	if got := (Config{}).timeout(); got != 8*time.Second {
		t.Errorf("default timeout = %v, want 8s", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "120"}, 120 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, retryBackoff},
		{"negative", map[string]string{"Retry-After": "-3"}, retryBackoff},
		{"absurd", map[string]string{"Retry-After": "1e300"}, maxRetryAfter},
		{"absent", nil, retryBackoff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

// TestConfigHidesKey prints and logs a Config every usual way: the key
// never appears.
func TestConfigHidesKey(t *testing.T) {
	cfg := Config{BaseURL: "http://localhost:11434/v1", APIKey: testKey}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("llm config", "cfg", cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg), buf.String()} {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key leaked: %s", s)
		}
		if !strings.Contains(s, "localhost:11434") {
			t.Errorf("%q does not describe the config", s)
		}
	}
}
