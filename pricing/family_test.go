package pricing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGPUFamily(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"a100", []string{"a100-80", "a100-80-pcie", "a100-40", "a100-40-pcie"}},
		{"A100", []string{"a100-80", "a100-80-pcie", "a100-40", "a100-40-pcie"}},
		{"h100", []string{"h100", "h100-nvl", "h100-pcie"}},
		{"H-100", []string{"h100", "h100-nvl", "h100-pcie"}},
		{"v100", []string{"v100-32", "v100-16"}},
		{"l4", nil},       // one variant: the GPU itself
		{"rtx 4090", nil}, // one variant
		{"a100-80", nil},  // a variant, not a family
		{"h100 sxm", nil}, // a variant
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, GPUFamily(tt.name)); diff != "" {
			t.Errorf("GPUFamily(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}
