package pricing

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestInstanceTablesUseCatalogIDs keeps the AWS and Azure tables to GPU
// ids the sizing catalog defines, with sane counts.
func TestInstanceTablesUseCatalogIDs(t *testing.T) {
	for name, table := range map[string]map[string]gpuSpec{"aws": awsInstances, "azure": azureSKUs} {
		for sku, spec := range table {
			if _, _, err := sizing.LookupGPU(spec.GPU); err != nil || !isCatalogID(spec.GPU) {
				t.Errorf("%s %s maps to %q, not a catalog GPU id", name, sku, spec.GPU)
			}
			if !(spec.Count > 0 && spec.Count <= 8) {
				t.Errorf("%s %s has %v GPUs", name, sku, spec.Count)
			}
		}
	}
}

func TestAWSGPUFamily(t *testing.T) {
	for typ, want := range map[string]bool{
		"p5.48xlarge": true, "p6-b200.48xlarge": true, "g4ad.xlarge": true, "gr6.4xlarge": true, "g7e.2xlarge": true,
		"m5.large": false, "c7gn.xlarge": false, "inf2.xlarge": false, "trn1.32xlarge": false, "": false, "g": false, "p.x": false,
	} {
		if got := awsGPUFamily(typ); got != want {
			t.Errorf("awsGPUFamily(%q) = %v, want %v", typ, got, want)
		}
	}
}

func TestCanonicalGPU(t *testing.T) {
	for name, want := range map[string]string{
		"h100": "h100", "H100 SXM": "h100", "rtx4090": "rtx-4090", " A100-80 ": "a100-80", "a100 pcie": "a100-80-pcie",
		"a100": "", "v100": "", "h1000": "", "": "",
	} {
		got, ok := CanonicalGPU(name)
		if got != want || ok != (want != "") {
			t.Errorf("CanonicalGPU(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}
