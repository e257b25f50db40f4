package pricing

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// catalogModels maps a published catalog's GPU model word (gpuhunt's
// gpu_name, SkyPilot's AcceleratorName, upper-cased, without memory or
// form factor) to the sizes it is sold in and the catalog id of each, by
// form factor: "" is the model's usual form (SXM for the A100 and H100).
var catalogModels = map[string][]catalogSize{
	"A100":       {{40, "", "a100-40"}, {40, "PCIE", "a100-40-pcie"}, {80, "", "a100-80"}, {80, "PCIE", "a100-80-pcie"}},
	"H100":       {{80, "", "h100"}, {80, "PCIE", "h100-pcie"}, {94, "NVL", "h100-nvl"}},
	"H100NVL":    {{94, "", "h100-nvl"}},
	"H200":       {{141, "", "h200"}, {141, "NVL", "h200-nvl"}},
	"H200NVL":    {{141, "", "h200-nvl"}},
	"B300":       {{288, "", "b300"}},
	"RTXPRO6000": {{96, "", "rtx-pro-6000"}},
	"B200":       {{180, "", "b200"}},
	"L4":         {{24, "", "l4"}},
	"L40S":       {{48, "", "l40s"}},
	"A40":        {{48, "", "a40"}},
	"A10":        {{24, "", "a10"}},
	"A10G":       {{24, "", "a10g"}},
	"T4":         {{16, "", "t4"}},
	"V100":       {{16, "", "v100-16"}, {32, "", "v100-32"}},
	"A6000":      {{48, "", "rtx-a6000"}},
	"RTXA6000":   {{48, "", "rtx-a6000"}},
	"RTX6000ADA": {{48, "", "rtx-6000-ada"}},
	"RTX4090":    {{24, "", "rtx-4090"}},
	"RTX3090":    {{24, "", "rtx-3090"}},
	"RTX5090":    {{32, "", "rtx-5090"}},
	"MI300X":     {{192, "", "mi300x"}},
	// gpuhunt writes 288 GB for the MI325X; AMD's datasheet says 256.
	"MI325X":     {{256, "", "mi325x"}, {288, "", "mi325x"}},
	"MI355X":     {{288, "", "mi355x"}},
	"MI210":      {{64, "", "mi210"}},
	"MI250":      {{128, "", "mi250"}},
	"MI250X":     {{128, "", "mi250x"}},
	"MI300A":     {{128, "", "mi300a"}},
	"GB200":      {{186, "", "gb200"}},
	"GH200":      {{96, "", "gh200"}},
	"L40":        {{48, "", "l40"}},
	"A16":        {{16, "", "a16"}},
	"A4000":      {{16, "", "rtx-a4000"}},
	"RTXA4000":   {{16, "", "rtx-a4000"}},
	"A4500":      {{20, "", "rtx-a4500"}},
	"RTXA4500":   {{20, "", "rtx-a4500"}},
	"A5000":      {{24, "", "rtx-a5000"}},
	"RTXA5000":   {{24, "", "rtx-a5000"}},
	"RTX2000ADA": {{16, "", "rtx-2000-ada"}},
	"RTX4000ADA": {{20, "", "rtx-4000-ada"}},
	"RTXPRO4500": {{32, "", "rtx-pro-4500"}},
	"RTX5080":    {{16, "", "rtx-5080"}},
	"RTX5070":    {{12, "", "rtx-5070"}},
	"RTX4080":    {{16, "", "rtx-4080"}},
	"RTX4070":    {{12, "", "rtx-4070"}},
	"RTX3080":    {{10, "", "rtx-3080"}},
	"RTX3070":    {{8, "", "rtx-3070"}},
	"RTX3060":    {{12, "", "rtx-3060"}, {8, "", "rtx-3060-8"}},
	// The rest of gpuhunt's consumer and newer names (KNOWN_NVIDIA_GPUS,
	// KNOWN_AMD_GPUS), each with the memory gpuhunt gives it. The Turing
	// GeForce cards, the P100, the MI100, the RTX 5060, the 8 GB RTX 5060
	// Ti and the 6 GB RTX 3050 are not in the sizing catalog (its
	// outsideCards, and the stand-ins for a typed 6, 8 or 32 GB), so their
	// rows are reported as unknown.
	"RTX2080TI":      {{11, "", "rtx-2080-ti"}},
	"RTX3050":        {{8, "", "rtx-3050"}},
	"RTX3060TI":      {{8, "", "rtx-3060-ti"}},
	"RTX3070TI":      {{8, "", "rtx-3070-ti"}},
	"RTX3080TI":      {{12, "", "rtx-3080-ti"}},
	"RTX3090TI":      {{24, "", "rtx-3090-ti"}},
	"RTX4060":        {{8, "", "rtx-4060"}},
	"RTX4060TI":      {{8, "", "rtx-4060-ti-8"}, {16, "", "rtx-4060-ti"}},
	"RTX4070SUPER":   {{12, "", "rtx-4070-super"}},
	"RTX4070TI":      {{12, "", "rtx-4070-ti"}},
	"RTX4070TISUPER": {{16, "", "rtx-4070-ti-super"}},
	"RTX4080SUPER":   {{16, "", "rtx-4080-super"}},
	"RTX5060TI":      {{16, "", "rtx-5060-ti"}},
	"RTX5070TI":      {{16, "", "rtx-5070-ti"}},
	// gpuhunt's RTX6000 is the 24 GB Quadro RTX 6000 (Turing, compute
	// capability 7.5); the Ada and Blackwell cards have names of their own.
	"RTX6000": {{24, "", "quadro-rtx-6000"}},
	"MI308X":  {{128, "", "mi308x"}},
	"MI350X":  {{288, "", "mi350x"}},
}

// catalogSize is one size and form factor of a catalog GPU model.
type catalogSize struct {
	gb   float64
	form string // "", "PCIE" or "NVL"
	gpu  string
}

// catalogMemory finds a memory size written into a GPU name: "80G",
// "80GB", "141GB".
var catalogMemory = regexp.MustCompile(`^(\d+)GB?$`)

// catalogGPU maps a catalog's GPU name ("A100", "A100-80G-PCIe",
// "H100-80G-SXM5", "RTX-A6000", "NVIDIA-H100-80GB-HBM3"), its memory in GB
// when the catalog gives it (0 when not) and the instance name (which may
// say "pcie") to a sizing catalog id. A size is matched within 7%; a name
// whose size or model is unknown is not guessed.
func catalogGPU(name string, memGB float64, instance string) (string, bool) {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	var model strings.Builder
	form := ""
	for _, w := range words {
		switch {
		case w == "NVIDIA" || w == "TESLA" || w == "GEFORCE" || w == "HBM3" || w == "HBM3E" || w == "NVLINK" || strings.HasPrefix(w, "SXM"):
		case w == "PCIE" || w == "NVL":
			form = w
		case catalogMemory.MatchString(w):
			if n, err := strconv.ParseFloat(catalogMemory.FindStringSubmatch(w)[1], 64); err == nil {
				memGB = n
			}
		default:
			model.WriteString(w)
		}
	}
	if form == "" && strings.Contains(strings.ToUpper(instance), "PCIE") {
		form = "PCIE"
	}
	sizes, ok := catalogModels[model.String()]
	if !ok {
		return "", false
	}
	if form == "PCIE" && !slices.ContainsFunc(sizes, func(s catalogSize) bool { return s.form == "PCIE" }) {
		form = "" // a card made only as a PCIe board (L40, RTX A6000): its usual form
	}
	if len(sizes) == 1 && form == "" && (memGB == 0 || math.Abs(memGB-sizes[0].gb)/sizes[0].gb <= vastVRAMTolerance) {
		return sizes[0].gpu, true // a size the model is not sold in (an 8 GB RTX 3060) is not guessed
	}
	best, bestDiff := "", math.Inf(1)
	for _, s := range sizes {
		if s.form != form && !(s.form == "NVL" && form == "" && memGB > 0) {
			continue
		}
		d := 0.0
		if memGB > 0 {
			d = math.Abs(memGB-s.gb) / s.gb
		} else if len(sizes) > 1 && sizesDiffer(sizes, form) {
			return "", false // no size given and the model comes in several
		}
		if d <= vastVRAMTolerance && d < bestDiff {
			best, bestDiff = s.gpu, d
		}
	}
	return best, best != ""
}

// sizesDiffer reports whether a model comes in more than one size in a
// form factor.
func sizesDiffer(sizes []catalogSize, form string) bool {
	seen := 0.0
	for _, s := range sizes {
		if s.form != form {
			continue
		}
		if seen != 0 && seen != s.gb {
			return true
		}
		seen = s.gb
	}
	return false
}
