package sizing

import (
	"strings"
	"testing"
)

// TestGPUFigures pins the conventions of the GPU catalog on cards whose
// figures are well known: memory as nvidia-smi reports it (MiB × 2^20),
// Apple at 75 % of RAM, dense BF16 with FP32 accumulate, link bandwidth
// per direction. Sources: sizing reference §7 and the rows' sources.
func TestGPUFigures(t *testing.T) {
	tests := []struct {
		id        string
		memory    int64
		bandwidth float64
		bf16, fp8 float64
		link      float64
	}{
		// The brief's example: an 80 GB H100 reports 81,559 MiB.
		{"h100", 85_520_809_984, 3.35e12, 989, 1979, 450e9},
		{"a100-80", 81920 << 20, 2.039e12, 312, 0, 300e9},
		{"rtx-4090", 24564 << 20, 1.008e12, 165.2, 330.3, 32e9},
		{"rtx-3090", 24576 << 20, 936e9, 71, 0, 32e9},
		{"t4", 15360 << 20, 320e9, 65, 0, 16e9},
		{"mi300x", 205_822_885_888, 5.3e12, 1307.4, 2614.9, 448e9},
		{"m2-ultra-192", 144 << 30, 800e9, 27.2, 0, 0},
	}
	for _, tt := range tests {
		g, _, err := LookupGPU(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if g.MemoryBytes != tt.memory || g.BandwidthBytesPerSec != tt.bandwidth || g.BF16TFLOPS != tt.bf16 || g.FP8TFLOPS != tt.fp8 || g.LinkBytesPerSec != tt.link {
			t.Errorf("%s = %d B, %g B/s, %g/%g TFLOPS, link %g B/s; want %d, %g, %g/%g, %g",
				tt.id, g.MemoryBytes, g.BandwidthBytesPerSec, g.BF16TFLOPS, g.FP8TFLOPS, g.LinkBytesPerSec, tt.memory, tt.bandwidth, tt.bf16, tt.fp8, tt.link)
		}
	}
	if g, _, _ := LookupGPU("h100"); g.PeakFLOPS() != 989e12 || g.MemoryGiB() < 79.6 || g.MemoryGiB() > 79.7 {
		t.Errorf("h100: PeakFLOPS %g, %.2f GiB", g.PeakFLOPS(), g.MemoryGiB())
	}
	for _, id := range []string{"t4", "v100-16", "v100-32"} {
		if g, _, _ := LookupGPU(id); g.BF16 {
			t.Errorf("%s has no BF16 tensor cores", id)
		}
	}
}

// TestGPUCatalogCoverage checks that every card the issue names is in
// the catalog.
func TestGPUCatalogCoverage(t *testing.T) {
	for _, id := range []string{"rtx-3060", "rtx-3070", "rtx-3080", "rtx-3090", "rtx-4070", "rtx-4080", "rtx-4090", "rtx-5090",
		"a40", "a100-40", "a100-40-pcie", "a100-80", "a100-80-pcie", "h100", "h100-pcie", "h100-nvl", "h200", "b200",
		"t4", "l4", "a10", "a10g", "l40s", "v100-16", "v100-32", "mi300x", "rtx-a6000", "rtx-6000-ada",
		"m2-ultra-192", "m3-max-128", "m4-max-128", "m4-pro-64", "m3-pro-36"} {
		if g, note, err := LookupGPU(id); err != nil || g.ID != id {
			t.Errorf("LookupGPU(%q) = %s, %q, %v", id, g.ID, note, err)
		}
	}
}

// TestWiredLimitNote: a Mac whose default 75% GPU share is just short is
// told how to raise it; one short even at 90% of its RAM, or a discrete
// card, is not.
func TestWiredLimitNote(t *testing.T) {
	g, _, _ := LookupGPU("m3-ultra-512")
	if w := wiredLimitNote(&g, g.MemoryBytes+1<<30); !strings.Contains(w, "sysctl iogpu.wired_limit_mb=471859") {
		t.Errorf("just short: %q", w)
	}
	if w := wiredLimitNote(&g, 470<<30); w != "" {
		t.Errorf("short of 90%% too: %q", w)
	}
	h, _, _ := LookupGPU("h100")
	if w := wiredLimitNote(&h, h.MemoryBytes+1<<30); w != "" {
		t.Errorf("a discrete card: %q", w)
	}
}
