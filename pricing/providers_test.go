package pricing

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

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
		env  map[string]string
		only string
		want []string
		err  string
	}{
		{"no keys", nil, "", keyless, ""},
		{"keys set", map[string]string{"LAMBDA_API_KEY": "secret_abc", "GCP_API_KEY": "AIza"}, "", append(slices.Clone(keyless), "lambda", "gcp"), ""},
		{"blank key", map[string]string{"LAMBDA_API_KEY": "  "}, "", keyless, ""},
		{"only one", nil, "azure", []string{"azure"}, ""},
		{"one catalog file", nil, "gpuhunt:nebius", []string{"gpuhunt:nebius"}, ""},
		{"no such catalog file", nil, "gpuhunt:tensordock", nil, `gpuhunt has no catalog "tensordock"`},
		{"a direct provider has no files", nil, "aws:us-east-1", nil, "provider aws has no catalogs; use --provider aws"},
		{"only a catalog", nil, "skypilot", []string{"skypilot:hyperbolic", "skypilot:hyperstack", "skypilot:primeintellect", "skypilot:shadeform", "skypilot:jarvislabs"}, ""},
		{"only keyed without key", nil, "gcp", nil, "provider gcp needs an API key in GCP_API_KEY"},
		{"unknown", nil, "oracle", nil, `unknown provider "oracle" (known: aws, azure, runpod, vast, gpuhunt, skypilot, lambda, gcp)`},
		{"bad AWS region", map[string]string{"FITBOT_AWS_REGIONS": "us-east-1,mars-1"}, "", nil, `FITBOT_AWS_REGIONS: "mars-1" is not an AWS region fitbot prices (known: ap-northeast-1, eu-central-1, eu-west-1, us-east-1, us-east-2, us-west-2)`},
		{"bad Azure region", map[string]string{"FITBOT_AZURE_REGIONS": "East US"}, "", nil, `FITBOT_AZURE_REGIONS: "East US" is not an Azure region name such as eastus`},
		{"bad URL", map[string]string{"FITBOT_AZURE_URL": "prices.example"}, "", nil, `FITBOT_AZURE_URL="prices.example" is not an absolute http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Fetchers(envOf(tt.env), tt.only, nil, nil)
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

func TestFetchersURLOverride(t *testing.T) {
	fs, err := Fetchers(envOf(map[string]string{"FITBOT_AWS_URL": "http://127.0.0.1:9/mirror", "FITBOT_AZURE_URL": "https://mirror.example"}), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	aws, azure := fs[0].(*AWS), fs[1].(*Azure)
	if aws.onDemandURL != "http://127.0.0.1:9/mirror" || aws.spotURL != aws.onDemandURL {
		t.Errorf("aws URLs %q, %q; want both from FITBOT_AWS_URL", aws.onDemandURL, aws.spotURL)
	}
	if azure.baseURL != "https://mirror.example" {
		t.Errorf("azure URL %q", azure.baseURL)
	}
	if rp := fs[2].(*RunPod); !strings.HasPrefix(rp.baseURL, "https://api.runpod.io") {
		t.Errorf("runpod URL %q, want the default", rp.baseURL)
	}
}

func TestFetchersRegions(t *testing.T) {
	fs, err := Fetchers(envOf(map[string]string{"FITBOT_AWS_REGIONS": " us-west-2, eu-west-1 ", "FITBOT_AZURE_REGIONS": "swedencentral"}), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fs[0].(*AWS).Regions; !slices.Equal(got, []string{"us-west-2", "eu-west-1"}) {
		t.Errorf("aws regions %q", got)
	}
	if got := fs[1].(*Azure).Regions; !slices.Equal(got, []string{"swedencentral"}) {
		t.Errorf("azure regions %q", got)
	}
	fs, _ = Fetchers(envOf(nil), "", nil, nil)
	if got := fs[0].(*AWS).Regions; !slices.Equal(got, DefaultAWSRegions) {
		t.Errorf("aws default regions %q", got)
	}
}

func TestFetchersRunPodKeyIsOptional(t *testing.T) {
	for _, key := range []string{"", "rpa_abc"} {
		fs, err := Fetchers(envOf(map[string]string{"RUNPOD_API_KEY": key}), "runpod", nil, nil)
		if err != nil {
			t.Fatalf("RUNPOD_API_KEY=%q: %v", key, err)
		}
		if got := fs[0].(*RunPod).apiKey; got != key {
			t.Errorf("RUNPOD_API_KEY=%q: the fetcher has key %q", key, got)
		}
	}
}
