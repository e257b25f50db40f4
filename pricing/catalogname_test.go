package pricing

import (
	"strings"
	"testing"
)

// TestCatalogGPU maps the GPU names gpuhunt and SkyPilot publish (their
// catalogs' own spellings) to catalog ids, refusing what it cannot place.
func TestCatalogGPU(t *testing.T) {
	tests := []struct {
		name     string
		mem      float64
		instance string
		want     string
	}{
		{"A100", 40, "p4d.24xlarge", "a100-40"},
		{"A100", 80, "gpu-a100-sxm", "a100-80"},
		{"A100", 80, "Standard_NC24ads_A100_v4_PCIe", "a100-80-pcie"},
		{"A100", 0, "", ""}, // no size: 40 or 80?
		{"A100-80G-PCIe", 0, "n3-A100x1", "a100-80-pcie"},
		{"A100-80G-PCIe-NVLink", 0, "n3-A100x8-NVLink", "a100-80-pcie"},
		{"A100-80GB", 0, "lambdalabs__8xA100_80GB", "a100-80"},
		{"H100", 80, "gpu-h100-sxm", "h100"},
		{"H100", 0, "1x-H100-75-722", "h100"},
		{"H100-80G-PCIe", 0, "n3-H100x1", "h100-pcie"},
		{"H100-80G-SXM5", 0, "n3-H100-SXM5x8", "h100"},
		{"H100NVL", 94, "", "h100-nvl"},
		{"NVIDIA-H100-80GB-HBM3", 0, "", "h100"},
		{"H200", 141, "", "h200"},
		{"H200NVL", 141, "", "h200-nvl"},
		{"H200-NVL", 0, "", "h200-nvl"},
		{"RTXPRO6000", 96, "1x_RTXPRO6000_28V_160G", "rtx-pro-6000"},
		{"B300", 288, "", "b300"},
		{"L40S", 48, "", "l40s"},
		{"L40", 48, "", "l40"},
		{"GH200", 96, "gpu_1x_gh200", "gh200"},
		{"MI325X", 288, "", "mi325x"}, // gpuhunt's figure; AMD's is 256
		{"MI250X", 128, "", "mi250x"},
		{"RTX2000Ada", 16, "", "rtx-2000-ada"},
		{"RTX4000Ada", 20, "", "rtx-4000-ada"},
		{"RTXPRO4500", 32, "", "rtx-pro-4500"},
		{"A16", 16, "", "a16"},
		{"RTX3060", 12, "", "rtx-3060"},
		{"RTX3060", 8, "", "rtx-3060-8"}, // the 8 GB 3060 is its own card, not the 12 GB one
		{"RTX3050", 6, "", ""},           // the 6 GB 3050 is not the catalog's 8 GB card
		{"RTX4060Ti", 16, "", "rtx-4060-ti"},
		{"RTX4060Ti", 8, "", "rtx-4060-ti-8"},
		{"RTX6000", 24, "", "quadro-rtx-6000"},
		{"RTX6000", 48, "", ""}, // not guessed as the RTX 6000 Ada
		{"MI350X", 288, "", "mi350x"},
		{"RTX-A6000", 0, "n3-RTX-A6000x1", "rtx-a6000"},
		{"A6000", 48, "", "rtx-a6000"},
		{"RTX4090", 24, "", "rtx-4090"},
		{"V100", 16, "", "v100-16"},
		{"V100", 32, "", "v100-32"},
		{"V100", 0, "", ""},
		{"A10G", 24, "g5.xlarge", "a10g"},
		{"RTX-A4000", 0, "", "rtx-a4000"},
		{"A100-80GB", 80, "hyperstack__1xA100_80GB__28__120 n3-A100x1 PCIE", "a100-80-pcie"},
		{"", 0, "", ""},
	}
	for _, tt := range tests {
		got, ok := catalogGPU(tt.name, tt.mem, tt.instance)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("catalogGPU(%q, %g, %q) = %q, %v; want %q", tt.name, tt.mem, tt.instance, got, ok, tt.want)
		}
	}
}

func FuzzCatalogGPU(f *testing.F) {
	f.Add("A100-80G-PCIe", 0.0, "n3-A100x1")
	f.Add("H100", 80.0, "")
	f.Fuzz(func(t *testing.T, name string, mem float64, instance string) {
		if id, ok := catalogGPU(name, mem, instance); ok && !isCatalogID(id) {
			t.Errorf("catalogGPU(%q) = %q, not a catalog id", name, id)
		}
	})
}

func TestFormHint(t *testing.T) {
	for _, tt := range []struct{ instance, upstream, want string }{
		{"hyperstack__1xH100_80GB__28__180", "n3-H100x1", "h100-pcie"},
		{"hyperstack__8xH100_80GB__252__1440", "n3-H100x8", "h100-pcie"},
		{"hyperstack__8xA100_80GB__252__1920__NVLINK", "n3-A100x8-NVLink", "a100-80-pcie"},
		{"hyperstack__8xH100_80GB__192__960", "n3-H100-SXM5x8", "h100"},
		{"oblivus__1xA100_80GB__28__120", "A100_PCIE_80GB", "a100-80-pcie"},
		{"lambdalabs__8xH100_80GB__208__1800", "gpu_8x_h100_sxm5", "h100"},
		{"primecompute__8xH100_80GB__104__752", "NVIDIA H100 80GB HBM3_8", "h100"},
		{"hyperstack__1xL40_48GB__28__58", "n3-L40x1", "l40"},
	} {
		name, mem := "H100", 80.0
		switch {
		case strings.Contains(tt.instance, "A100"):
			name = "A100-80GB"
		case strings.Contains(tt.instance, "L40"):
			name, mem = "L40", 48
		}
		if got, _ := catalogGPU(name, mem, formHint(tt.instance, tt.upstream)); got != tt.want {
			t.Errorf("%s (%s): %q, want %q", tt.instance, tt.upstream, got, tt.want)
		}
	}
}

func FuzzFormHint(f *testing.F) {
	f.Add("hyperstack__1xH100_80GB__28__180", "n3-H100x1")
	f.Add("x", "n3-H100-SXM5x8")
	f.Fuzz(func(t *testing.T, instance, upstream string) {
		hint := formHint(instance, upstream)
		if !strings.HasPrefix(hint, instance+" "+upstream) {
			t.Errorf("formHint(%q, %q) = %q drops the fields", instance, upstream, hint)
		}
		if strings.Contains(strings.ToUpper(upstream), "SXM") && strings.HasSuffix(hint, " PCIE") {
			t.Errorf("formHint(%q, %q) = %q: an SXM id read as PCIe", instance, upstream, hint)
		}
	})
}

func TestNotOnDemandCapacity(t *testing.T) {
	for flags, want := range map[string]bool{
		"": false, "oci-spot": false, "gcp-a4": false, "gcp-g4": false, "arm": false,
		"gcp-dws-calendar-mode": true, "runpod-cluster": true, "runpod-cpu": true, "gcp-g4-preview": true, "gcp-a4 gcp-dws-calendar-mode": true,
	} {
		if got := notOnDemandCapacity(flags); got != want {
			t.Errorf("notOnDemandCapacity(%q) = %v, want %v", flags, got, want)
		}
	}
}
