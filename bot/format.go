package bot

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// gib is one gibibyte: memory is shown in GiB, as nvidia-smi and PyTorch report it.
const gib = 1 << 30

// formatGiB shows bytes as GiB with one decimal ("22.5 GiB").
func formatGiB(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/gib) }

// formatUSD shows dollars with cents below $100 and whole dollars above.
func formatUSD(v float64) string {
	if v >= 100 {
		return "$" + commas(int64(math.Round(v)))
	}
	return fmt.Sprintf("$%.2f", v)
}

// commas groups the digits of n in thousands ("12,345").
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// formatHours shows a duration in hours, or in days past two days.
func formatHours(h float64) string {
	switch {
	case h < 1:
		return fmt.Sprintf("%.0f min", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f h", h)
	default:
		return fmt.Sprintf("%.1f days", h/24)
	}
}

// formatAge says how old a price is in words ("3 h old", "2 days old").
func formatAge(asOf, now time.Time) string {
	d := now.Sub(asOf)
	switch {
	case asOf.IsZero():
		return "age unknown"
	case d < time.Hour:
		return "under an hour old"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h old", int(d.Hours()))
	default:
		return fmt.Sprintf("%d days old", int(d.Hours()/24))
	}
}

// formatTokens shows a token count in words ("300M", "2B").
func formatTokens(n int64) string {
	switch {
	case n >= 1e9:
		return trimZero(float64(n)/1e9) + "B"
	case n >= 1e6:
		return trimZero(float64(n)/1e6) + "M"
	case n >= 1e3:
		return trimZero(float64(n)/1e3) + "K"
	}
	return fmt.Sprint(n)
}

func trimZero(v float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0")
}

// methodName is a method as people write it.
func methodName(m sizing.Method) string {
	switch m {
	case sizing.MethodFull:
		return "full fine-tune"
	case sizing.MethodLoRA:
		return "LoRA"
	case sizing.MethodQLoRA:
		return "QLoRA"
	case sizing.MethodInference:
		return "inference"
	}
	return string(m)
}

// hardware describes a GPU count and card ("2× RTX 4090 24 GB").
func hardware(gpus int, name string) string {
	if gpus <= 0 {
		gpus = 1
	}
	return fmt.Sprintf("%d× %s", gpus, name)
}
