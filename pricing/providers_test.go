package pricing

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(fs []Fetcher) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name())
	}
	return out
}

// keyless is every fetcher that needs no key, in refresh order: the
// direct APIs, then one per published catalog file.
var keyless = []string{"aws", "azure", "runpod", "vast",
	"gpuhunt:aws", "gpuhunt:azure", "gpuhunt:gcp", "gpuhunt:lambdalabs", "gpuhunt:nebius", "gpuhunt:verda", "gpuhunt:oci", "gpuhunt:runpod", "gpuhunt:cloudrift",
	"skypilot:hyperbolic", "skypilot:hyperstack", "skypilot:primeintellect", "skypilot:shadeform", "skypilot:jarvislabs"}

func TestFetchers(t *testing.T) {
	tests := []struct {
		name string
		set  map[string]ProviderSettings
		only string
		want []string
		err  string
	}{
		{"no keys", nil, "", keyless, ""},
		{"keys set", map[string]ProviderSettings{"lambda": {Key: "secret_abc"}, "gcp": {Key: "AIza"}}, "", append(slices.Clone(keyless), "lambda", "gcp"), ""},
		{"only one", nil, "azure", []string{"azure"}, ""},
		{"one catalog file", nil, "gpuhunt:nebius", []string{"gpuhunt:nebius"}, ""},
		{"no such catalog file", nil, "gpuhunt:tensordock", nil, `gpuhunt has no catalog "tensordock"`},
		{"a direct provider has no files", nil, "aws:us-east-1", nil, "provider aws has no catalogs; use --provider aws"},
		{"only a catalog", nil, "skypilot", []string{"skypilot:hyperbolic", "skypilot:hyperstack", "skypilot:primeintellect", "skypilot:shadeform", "skypilot:jarvislabs"}, ""},
		{"only keyed without key", nil, "gcp", nil, "provider gcp needs an API key"},
		{"unknown", nil, "oracle", nil, `unknown provider "oracle" (known: aws, azure, runpod, vast, gpuhunt, skypilot, lambda, gcp)`},
		{"bad AWS region", map[string]ProviderSettings{"aws": {Regions: []string{"us-east-1", "mars-1"}}}, "", nil, `provider aws: "mars-1" is not an AWS region fitbot prices (known: ap-northeast-1, eu-central-1, eu-west-1, us-east-1, us-east-2, us-west-2)`},
		{"bad Azure region", map[string]ProviderSettings{"azure": {Regions: []string{"East US"}}}, "", nil, `provider azure: "East US" is not an Azure region name such as eastus`},
		{"bad URL", map[string]ProviderSettings{"azure": {URL: "prices.example"}}, "", nil, `provider azure: "prices.example" is not an absolute http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Fetchers(tt.set, tt.only, nil, nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, names(fs)); diff != "" {
				t.Errorf("fetchers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchersNoKey(t *testing.T) {
	if _, err := Fetchers(nil, "gcp", nil, nil); !errors.Is(err, ErrNoKey) {
		t.Errorf("gcp without a key: %v, want ErrNoKey", err)
	}
}

func TestFetchersURLOverride(t *testing.T) {
	fs, err := Fetchers(map[string]ProviderSettings{"aws": {URL: "http://127.0.0.1:9/mirror"}, "azure": {URL: "https://mirror.example"}}, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	aws, azure := fs[0].(*AWS), fs[1].(*Azure)
	if aws.onDemandURL != "http://127.0.0.1:9/mirror" || aws.spotURL != aws.onDemandURL {
		t.Errorf("aws URLs %q, %q; want both from the URL given", aws.onDemandURL, aws.spotURL)
	}
	if azure.baseURL != "https://mirror.example" {
		t.Errorf("azure URL %q", azure.baseURL)
	}
	if rp := fs[2].(*RunPod); !strings.HasPrefix(rp.baseURL, "https://api.runpod.io") {
		t.Errorf("runpod URL %q, want the default", rp.baseURL)
	}
}

func TestFetchersRegions(t *testing.T) {
	fs, err := Fetchers(map[string]ProviderSettings{"aws": {Regions: []string{"us-west-2", "eu-west-1"}}, "azure": {Regions: []string{"swedencentral"}}}, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fs[0].(*AWS).Regions; !slices.Equal(got, []string{"us-west-2", "eu-west-1"}) {
		t.Errorf("aws regions %q", got)
	}
	if got := fs[1].(*Azure).Regions; !slices.Equal(got, []string{"swedencentral"}) {
		t.Errorf("azure regions %q", got)
	}
	fs, _ = Fetchers(nil, "", nil, nil)
	if got := fs[0].(*AWS).Regions; !slices.Equal(got, DefaultAWSRegions) {
		t.Errorf("aws default regions %q", got)
	}
}

func TestFetchersRunPodKeyIsOptional(t *testing.T) {
	for _, key := range []string{"", "rpa_abc"} {
		fs, err := Fetchers(map[string]ProviderSettings{"runpod": {Key: key}}, "runpod", nil, nil)
		if err != nil {
			t.Fatalf("runpod key %q: %v", key, err)
		}
		if got := fs[0].(*RunPod).apiKey; got != key {
			t.Errorf("runpod key %q: the fetcher has key %q", key, got)
		}
	}
}
