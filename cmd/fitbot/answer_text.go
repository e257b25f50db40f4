package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// barWidth is the width of a bar that stands for the card's whole memory.
const barWidth = 30

// writeAnswer prints an answer the way a person reads it: the verdict
// first, the per-GPU breakdown with bars against the card's memory,
// host needs, speed and cost, warnings, alternatives, assumptions last.
func writeAnswer(w io.Writer, a sizing.Answer) {
	fmt.Fprintln(w, verdictLine(a))
	if line := display.Job(a); line != "" {
		fmt.Fprintln(w, line)
	}
	if line := display.LargestBatch(a); line != "" {
		fmt.Fprintln(w, line)
	}
	if line := display.Fewest(a); line != "" {
		fmt.Fprintln(w, line)
	}
	for _, line := range a.Targets {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Per GPU (GiB, of %.1f GiB on the card):\n", display.InGiB(a.VRAMBytes))
	m := a.PerGPU
	for _, t := range []struct {
		name  string
		bytes int64
	}{
		{"weights", m.WeightsBytes}, {"gradients", m.GradientsBytes}, {"optimizer", m.OptimizerBytes},
		{"activations", m.ActivationsBytes}, {"qlora work", m.QLoRAWorkBytes}, {"gathered", m.GatheredBytes}, {"kv cache", m.KVCacheBytes}, {"overhead", m.OverheadBytes},
	} {
		if t.bytes == 0 {
			continue
		}
		fmt.Fprintf(w, "  %-12s %7.1f  %s\n", t.name, display.InGiB(t.bytes), bar(t.bytes, a.VRAMBytes))
	}
	fmt.Fprintf(w, "  %-12s %7.1f  %s\n", "total", display.InGiB(m.TotalBytes), bar(m.TotalBytes, a.VRAMBytes))
	fmt.Fprintf(w, "Host: %s RAM per machine, %s disk\n", hostGiB(a.HostRAMBytes), hostGiB(a.DiskBytes))
	fmt.Fprintln(w)

	fmt.Fprintln(w, speedLine(a))
	if line := display.ServingLine(a.Serving); line != "" {
		fmt.Fprintln(w, line)
	}
	for _, warn := range a.Warnings {
		fmt.Fprintf(w, "⚠ %s\n", warn)
	}

	if len(a.Alternatives) > 0 {
		fmt.Fprintln(w)
		title := "Alternatives:"
		switch {
		case display.NotServable(a):
			title = "Ways that serve it:"
		case a.Fits && a.GPUChosen && a.Request.Fastest:
			title = "Other cards that fit, fastest first:"
		case a.Fits && a.GPUChosen && otherWays(a):
			title = "Other ways that fit:"
		case a.Fits && a.GPUChosen:
			title = "Other cards that fit:"
		case a.Fits && a.Request.Fastest:
			title = "Faster ways that fit:"
		case a.Fits:
			title = "Cheaper ways that fit:"
		case a.Request.Fastest:
			title = "Alternatives, fastest first:"
		}
		fmt.Fprintln(w, title)
		for i, alt := range a.Alternatives {
			fmt.Fprintf(w, "  %d. %s%s\n", i+1, alt.Why, altCost(alt))
		}
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Assumed:")
	for _, s := range a.Assumptions {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

// altCost is an alternative's price per hour, run time and run cost,
// "— $0.33/h · 35.5 days · $281", as far as they are known.
func altCost(alt sizing.Alternative) string {
	var parts []string
	if alt.USDPerHour != nil {
		parts = append(parts, display.USD(*alt.USDPerHour)+"/h")
	}
	if alt.Hours != nil {
		parts = append(parts, display.Hours(*alt.Hours))
	}
	if alt.USDTotal != nil {
		parts = append(parts, display.USD(*alt.USDTotal))
	}
	if alt.USDPerMonth != nil {
		parts = append(parts, display.PerMonth(*alt.USDPerMonth))
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, " · ")
}

// verdictLine is the first line: the verdict, what, where, how much.
func verdictLine(a sizing.Answer) string {
	r := a.Request
	icon, word := "✅", "Fits"
	switch {
	case !a.Fits && display.SameCardWay(a) != "":
		icon, word = "❌", "Does not fit as asked"
	case !a.Fits:
		icon, word = "❌", "Does not fit"
	case display.NotServable(a):
		icon, word = "⚠️", "Fits, but a serving engine has no room for one request"
	}
	where := fmt.Sprintf("%d× %s", r.GPUs, a.GPUName)
	if l := sizing.Layout(r); l != "" {
		where += " as " + l
	}
	if r.Method != sizing.MethodInference && r.ZeROStage > 0 {
		where += fmt.Sprintf(" with ZeRO-%d", r.ZeROStage)
		if r.Offload != sizing.OffloadNone {
			where += fmt.Sprintf(" and %s offload", r.Offload)
		}
	}
	line := fmt.Sprintf("%s %s: %s, %s on %s — %.1f GiB of %.1f GiB per GPU",
		icon, word, a.ModelName, strings.TrimSpace(sizing.AlignmentLabel(r)+" "+methodName(r)), where, display.InGiB(a.PerGPU.TotalBytes), display.InGiB(a.VRAMBytes))
	switch a.Headroom {
	case sizing.HeadroomTight:
		why := a.TightWhy
		if why == "" {
			why = "under 20% headroom"
		}
		line += " (tight: " + why + ")"
	case sizing.HeadroomOver:
		line += fmt.Sprintf(" (%s is the largest term)", strings.ReplaceAll(a.BindingTerm, "_", " "))
	}
	if s := display.SameCardWay(a); s != "" {
		line += "; " + s
	}
	if s := display.MonthNotPriced(a); s != "" {
		line += " — " + s
	}
	return line
}

// methodName says what is done to the model, with the settings that
// matter for memory.
func methodName(r sizing.Request) string {
	switch r.Method {
	case sizing.MethodInference:
		w := string(r.Precision)
		if r.Quant != "" {
			w = string(r.Quant)
		}
		if r.Resolution > 0 { // a diffusion model: images, not tokens
			return fmt.Sprintf("inference in %s, %dpx, batch %d", w, r.Resolution, r.MicroBatch)
		}
		return fmt.Sprintf("inference in %s, %d-token context, batch %d", w, r.SeqLen, r.MicroBatch)
	case sizing.MethodLoRA:
		return fmt.Sprintf("LoRA r=%d", r.LoRARank)
	case sizing.MethodQLoRA:
		return fmt.Sprintf("QLoRA r=%d", r.LoRARank)
	}
	return display.RequestMethod(r)
}

// speedLine says how fast, how long and how much.
func speedLine(a sizing.Answer) string {
	t := a.Throughput
	var parts []string
	if t.TokensPerSecond != nil {
		kind := "training"
		if a.Request.Method == sizing.MethodInference {
			kind = "decode"
		}
		parts = append(parts, fmt.Sprintf("%s tokens/s %s", display.Count(*t.TokensPerSecond), kind))
		if way, tps := display.SameCardSpeed(a); way != "" {
			parts[len(parts)-1] += " as asked"
			parts = append(parts, fmt.Sprintf("%s tokens/s %s with %s", display.Count(tps), kind, way))
		}
	}
	if t.PrefillTokensPerSecond != nil {
		parts = append(parts, fmt.Sprintf("%s tokens/s prefill", display.Count(*t.PrefillTokensPerSecond)))
	}
	if t.SequencesPerSecond != nil {
		parts = append(parts, fmt.Sprintf("%s sequences/s", display.Count(*t.SequencesPerSecond)))
	}
	if w := display.FirstTokenWords(a); w != "" {
		parts = append(parts, w)
	}
	run, with := display.RunTiming(a)
	switch {
	case run.Hours != nil:
		parts = append(parts, fmt.Sprintf("%s tokens in %s%s", display.Count(float64(a.Request.Tokens)), display.Hours(*run.Hours), with))
	case run.TokensPerSecond != nil && *run.TokensPerSecond > 0 && a.Request.Method != sizing.MethodInference:
		// No budget given: say what a round one would take.
		h := sizing.RunHours(sizing.RoundRunTokens, *run.TokensPerSecond)
		part := fmt.Sprintf("1B tokens in %s", display.Hours(h))
		if run.USDPerHour != nil {
			part += fmt.Sprintf(" (%s)", display.USD(h**run.USDPerHour))
		}
		parts = append(parts, part+with)
	}
	if t.USDPerHour != nil {
		parts = append(parts, display.USD(*t.USDPerHour)+"/h")
	}
	if run.USDTotal != nil {
		parts = append(parts, display.USD(*run.USDTotal)+" in all")
	}
	if t.USDPerMonth != nil {
		parts = append(parts, display.PerMonth(*t.USDPerMonth)+" running 24/7")
	}
	if s := display.MonthOfRuns(a); s != "" {
		parts = append(parts, s)
	}
	line := "Speed: " + strings.Join(parts, " · ")
	switch {
	case a.Price != nil && a.Price.AsOf.IsZero():
		line += " (price: as asked)"
	case a.Price != nil:
		line += fmt.Sprintf(" (price: %s %s, %s)", a.Price.Provider, strings.ReplaceAll(a.Price.Market, "_", "-"), a.Price.AsOf.Format("2006-01-02"))
	default:
		line += " (no price known for this card)"
	}
	return line
}

// bar draws bytes against the card's memory: barWidth cells for the whole
// card, an arrow when the term alone overflows it.
func bar(bytes, vram int64) string {
	if vram <= 0 {
		return ""
	}
	cells := int(float64(bytes)/float64(vram)*barWidth + 0.5)
	if bytes > 0 && cells == 0 {
		cells = 1
	}
	if cells > barWidth {
		return strings.Repeat("█", barWidth) + fmt.Sprintf("▶ %.0f%%", 100*float64(bytes)/float64(vram))
	}
	return strings.Repeat("█", cells) + strings.Repeat("·", barWidth-cells)
}

// otherWays reports whether an alternative changes more than the card: a
// cheapest question's AWQ or LoRA way.
func otherWays(a sizing.Answer) bool {
	for _, alt := range a.Alternatives {
		if alt.Request.Quant != a.Request.Quant || alt.Method != a.Request.Method {
			return true
		}
	}
	return false
}

// hostGiB shows host memory and disk in whole GiB, with a tenth below
// 10 GiB so that a small model never reads "0 GiB".
func hostGiB(b int64) string {
	if g := display.InGiB(b); g < 10 {
		return fmt.Sprintf("%.1f GiB", g)
	}
	return fmt.Sprintf("%.0f GiB", display.InGiB(b))
}
