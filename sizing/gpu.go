package sizing

// Link kinds: how GPUs in one machine talk to each other.
const (
	LinkNVLink         = "nvlink"
	LinkPCIe           = "pcie"
	LinkInfinityFabric = "infinity-fabric"
	LinkUnified        = "unified" // Apple silicon: one chip, no GPU-to-GPU link
)

// GPU is one accelerator of the catalog, with the figures the estimator
// needs. The catalog lives in data/gpus.json; every figure there carries
// its source.
//
// Conventions:
//   - MemoryBytes is the capacity the card reports to software (the
//     "Total" of nvidia-smi, in MiB times 2^20; rocm-smi's byte count for
//     AMD), not the marketing number: an 80 GB H100 reports 81,559 MiB =
//     85,520,809,984 bytes = 79.65 GiB. For Apple silicon it is the part of
//     unified memory the GPU may use by default, two thirds of RAM up to
//     36 GB and three quarters above (see UsableFraction), since macOS
//     keeps the rest for itself.
//   - BF16TFLOPS is dense tensor throughput without sparsity, in BF16
//     with FP32 accumulate (GeForce cards: the FP32-accumulate figure, half
//     the marketing FP16-accumulate one); for cards without BF16 (T4, V100)
//     it is the FP16 tensor figure and BF16 is false.
//   - LinkBytesPerSec is GPU-to-GPU bandwidth in one direction, per GPU:
//     half of NVIDIA's bidirectional NVLink figure (H100 SXM: 900 GB/s
//     quoted, 450 GB/s stored), the x16 slot rate for PCIe (Gen4 32 GB/s,
//     Gen5 64 GB/s). Collective-time formulas (ring all-reduce moves
//     2(N-1)/N of the data each way) want this per-direction figure.
type GPU struct {
	ID                   string   `json:"id"`     // lower-case slug, e.g. "rtx-4090", "a100-80"
	Name                 string   `json:"name"`   // marketing name with memory, e.g. "RTX 4090 24 GB"
	Vendor               string   `json:"vendor"` // "nvidia", "amd" or "apple"
	MemoryBytes          int64    `json:"memory_bytes"`
	UsableFraction       float64  `json:"usable_fraction,omitempty"` // Apple: share of RAM given to the GPU; 0 means the whole card
	BandwidthBytesPerSec float64  `json:"bandwidth_bytes_per_sec"`
	BF16TFLOPS           float64  `json:"bf16_tflops"` // dense, FP32 accumulate; FP16 where BF16 is false
	FP8TFLOPS            float64  `json:"fp8_tflops"`  // dense; 0 when FP8 is unsupported
	BF16                 bool     `json:"bf16"`
	FP8                  bool     `json:"fp8"`
	Link                 string   `json:"link"` // one of the Link constants
	LinkBytesPerSec      float64  `json:"link_bytes_per_sec"`
	MaxPerNode           int      `json:"max_per_node"`
	BoardPowerWatts      int      `json:"board_power_watts"`
	UnifiedMemory        bool     `json:"unified_memory,omitempty"` // Apple silicon: CPU and GPU share RAM, so no offload; sized for training when asked, never suggested for it
	Aliases              []string `json:"aliases"`
	Source               string   `json:"source"`
}

// appleGPUShare is the share of a Mac's unified memory macOS lets the GPU
// wire by default: about two thirds up to 36 GB of RAM, three quarters
// above (community knowledge, raisable with iogpu.wired_limit_mb; see
// wiredLimitNote).
func AppleGPUShare(ram int64) float64 {
	if ram <= 36<<30 {
		return 2.0 / 3
	}
	return 0.75
}

// MemoryGiB is MemoryBytes in GiB, the unit nvidia-smi and PyTorch print.
func (g GPU) MemoryGiB() float64 { return float64(g.MemoryBytes) / (1 << 30) }

// PeakFLOPS is the dense tensor throughput in FLOP/s for training and
// prefill at 16-bit: BF16 where the card has it, FP16 otherwise.
func (g GPU) PeakFLOPS() float64 { return g.BF16TFLOPS * 1e12 }
