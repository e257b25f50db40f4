package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// writeAskAnswer prints the answer to a question that runs the other way
// round (largest model, longest context, which GPU, buy or rent,
// serving), in text or JSON.
func (a *app) writeAskAnswer(ans sizing.AskAnswer, asJSON bool) error {
	if asJSON {
		return a.writeJSON(ans)
	}
	writeAsk(a.stdout, ans)
	return nil
}

// writeAsk prints an ask answer for a person: the outcome first, then the
// figures, then the assumptions.
func writeAsk(w io.Writer, a sizing.AskAnswer) {
	for _, line := range a.Targets {
		fmt.Fprintln(w, line)
	}
	switch {
	case a.Largest != nil:
		writeLargest(w, a)
	case a.MaxContext != nil:
		writeContext(w, a)
	case a.WhichGPU != nil:
		writeWhichGPU(w, a)
	case a.BuyRent != nil:
		writeBuyRent(w, a)
	case a.Serve != nil:
		writeServe(w, a)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Assumed:")
	for _, s := range a.Assumptions {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

func writeLargest(w io.Writer, a sizing.AskAnswer) {
	l := a.Largest
	where := fmt.Sprintf("%d× %s", l.GPUs, l.GPUName)
	if l.FitsNothing {
		fmt.Fprintf(w, "❌ Nothing fits %s as asked.\n", where)
	} else {
		fmt.Fprintf(w, "Largest models that fit %s (%.1f GiB per card):\n", where, display.InGiB(l.VRAMBytes))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-22s %8s  %s\n", "method", "largest", "catalog models that fit")
	for _, r := range l.Rows {
		mark := " "
		if r.Asked {
			mark = "▶"
		}
		label := rowLabel(r)
		switch {
		case r.Note != "":
			fmt.Fprintf(w, "%s %-22s %8s  %s\n", mark, label, "—", r.Note)
		case r.MaxParams == 0:
			line := "not even 1M parameters fit"
			if n := r.Nearest; n != nil && n.MaxParams > sizing.MinBareParams {
				line += fmt.Sprintf("; %s: up to %s", n.Why, display.Count(float64(n.MaxParams)))
			} else if n != nil {
				line += fmt.Sprintf("; %s: only the smallest size, %s, fits", n.Why, display.Count(float64(n.MaxParams)))
			}
			fmt.Fprintf(w, "%s %-22s %8s  %s\n", mark, label, "none", line)
		default:
			names := make([]string, len(r.CatalogModels))
			for i, m := range r.CatalogModels {
				names[i] = m.Name
			}
			fmt.Fprintf(w, "%s %-22s %8s  %s\n", mark, label, display.Count(float64(r.MaxParams)), strings.Join(names, ", "))
		}
	}
}

// rowLabel names a row with its format and, for sharded training, its stage.
func rowLabel(r sizing.LargestRow) string {
	switch {
	case r.Method == sizing.MethodInference && r.Quant != sizing.QuantNone:
		return "inference " + string(r.Quant)
	case r.Method == sizing.MethodInference:
		return "inference " + string(r.Precision)
	case r.ZeROStage > 0:
		return fmt.Sprintf("%s, ZeRO-%d", r.Label, r.ZeROStage)
	}
	return r.Label
}

func writeContext(w io.Writer, a sizing.AskAnswer) {
	c := a.MaxContext
	r := a.Request
	word := "context"
	if r.Method != sizing.MethodInference {
		word = "sequence"
	}
	what := fmt.Sprintf("%s %s on %d× %s", a.ModelName, r.Method, r.GPUs, a.GPUName)
	if c.MaxTokens == 0 {
		fmt.Fprintf(w, "❌ No %s fits: %s — the model alone does not fit the card.\n", word, what)
		if n := c.Nearest; n != nil {
			fmt.Fprintf(w, "Nearest: %s, up to %s tokens.\n", n.Why, display.Count(float64(n.MaxTokens)))
		}
		return
	}
	fmt.Fprintf(w, "✅ Longest %s: %s tokens — %s\n", word, display.Count(float64(c.MaxTokens)), what)
	switch {
	case c.Bound == sizing.BoundSearch:
		fmt.Fprintf(w, "Bound by the search: the model has no position limit, and memory allows at least %s tokens.\n", display.Count(float64(c.MemoryMaxTokens)))
	case c.Bound == sizing.BoundModel:
		fmt.Fprintf(w, "Bound by the model: it was trained for %s tokens; memory would allow %s.\n", display.Count(float64(c.ModelMaxTokens)), display.Count(float64(c.MemoryMaxTokens)))
	case c.ModelMaxTokens > 0:
		fmt.Fprintf(w, "Bound by memory: the model itself allows %s tokens.\n", display.Count(float64(c.ModelMaxTokens)))
	default:
		fmt.Fprintln(w, "Bound by memory.")
	}
	if c.KVBytesPerToken > 0 {
		fmt.Fprintf(w, "KV cache: %s KiB per token of context (%s, %d concurrent).\n", display.Decimal(c.KVBytesPerToken/1024), r.KVPrecision, r.MicroBatch)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Per GPU at %s tokens (GiB, of %.1f GiB on the card):\n", display.Count(float64(c.MaxTokens)), display.InGiB(c.VRAMBytes))
	m := c.PerGPU
	for _, t := range []struct {
		name  string
		bytes int64
	}{
		{"weights", m.WeightsBytes}, {"gradients", m.GradientsBytes}, {"optimizer", m.OptimizerBytes},
		{"activations", m.ActivationsBytes}, {"qlora work", m.QLoRAWorkBytes}, {"gathered", m.GatheredBytes}, {"kv cache", m.KVCacheBytes}, {"overhead", m.OverheadBytes},
		{"total", m.TotalBytes},
	} {
		if t.bytes > 0 {
			fmt.Fprintf(w, "  %-12s %7.1f  %s\n", t.name, display.InGiB(t.bytes), bar(t.bytes, c.VRAMBytes))
		}
	}
}

func writeWhichGPU(w io.Writer, a sizing.AskAnswer) {
	g := a.WhichGPU
	what := fmt.Sprintf("%s %s", a.ModelName, a.Request.Method)
	if line := display.WhichGPUJob(g); line != "" {
		fmt.Fprintln(w, line) // the job's answer first: its cheapest card, time and cost
	}
	// "How much vram" is answered first, also when no machine holds it
	// (never gave DeepSeek-R1's total).
	if g.OneGPUBytes > 0 {
		fmt.Fprintf(w, "Memory in all: %s on one card, unsharded: %s.%s\n", display.GiBTotal(g.OneGPUBytes), display.Terms(g.OneGPU), display.KVPerToken(g.OneGPU, a.Request))
	}
	if g.FitsNothing {
		fmt.Fprintf(w, "❌ No card fits %s within one machine.\n", what)
		if n := g.Nearest; n != nil {
			fmt.Fprintf(w, "Nearest: %s\n", optionLine(*n, g.Tokens))
		}
		return
	}
	order := "cheapest per hour first"
	switch {
	case g.Fastest:
		order = fmt.Sprintf("fastest for %s tokens first, each card on a whole machine", display.Count(float64(g.Tokens)))
	case g.Tokens > 0:
		order = fmt.Sprintf("cheapest for %s tokens first", display.Count(float64(g.Tokens)))
	}
	fmt.Fprintf(w, "%d cards fit %s (%s):\n", len(g.Options), what, order)
	for i, o := range g.Options {
		fmt.Fprintf(w, "  %2d. %s\n", i+1, optionLine(o, g.Tokens))
	}
}

// optionLine is one card of a which-GPU answer.
func optionLine(o sizing.GPUOption, tokens int64) string {
	return display.Hardware(o.GPUs, o.GPUName) + display.GPUOption(o, tokens)
}

func writeBuyRent(w io.Writer, a sizing.AskAnswer) {
	r := a.BuyRent
	what := fmt.Sprintf("%d× %s", r.GPUs, r.GPUName)
	if a.ModelName != "" {
		what = fmt.Sprintf("%s %s on %s", a.ModelName, a.Request.Method, what)
	}
	verdict := "☁️  Rent"
	if r.Verdict == "buy" {
		verdict = "🖥️  Buy"
	}
	fmt.Fprintf(w, "%s: %s\n", verdict, what)
	if r.FitsNote != "" {
		fmt.Fprintf(w, "⚠ %s\n", r.FitsNote)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Use: %g jobs a week × %g h = %.1f h a month (%.0f%% of the time)\n",
		r.Workload.JobsPerWeek, r.Workload.HoursPerJob, r.HoursPerMonth, 100*r.Utilisation)
	p := r.Purchase
	fmt.Fprintf(w, "Own:  %s a month — %s to buy (%d× %s a card + %s for %d machine(s)) over %g years, %s a month of power at $%.2f/kWh\n",
		display.USD(r.OwnUSDPerMonth), display.USD(p.TotalUSD), p.Cards, display.USD(p.CardUSD), display.USD(p.HostUSD*float64(p.Machines)), p.Machines,
		r.Workload.Years, display.USD(p.PowerUSDPerMonth), r.Workload.USDPerKWh)
	for _, m := range []struct {
		name string
		c    *sizing.RentCost
	}{{"on demand", r.OnDemand}, {"spot", r.Spot}} {
		if m.c == nil {
			fmt.Fprintf(w, "Rent %s: no price known\n", m.name)
			continue
		}
		line := fmt.Sprintf("Rent %s: %s a month at %s/h (%s, %s)", m.name, display.USD(m.c.USDPerMonth), display.USD(m.c.Price.USDPerGPUHour), m.c.Price.Provider, m.c.Price.AsOf.Format(time.DateOnly))
		switch b := m.c.BreakEvenMonth; {
		case b == nil:
			line += "; owning never catches up"
		case float64(*b) > r.Workload.Years*12:
			line += fmt.Sprintf("; owning catches up in month %d, after the %g-year life", *b, r.Workload.Years)
		default:
			line += fmt.Sprintf("; owning catches up in month %d", *b)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Purchase price: %s-%s a card, seen %s: %s\n", display.USD(p.CardUSDLow), display.USD(p.CardUSDHigh), p.AsOf.Format(time.DateOnly), p.Source)
	if len(r.Caveats) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Beyond the sums:")
		for _, c := range r.Caveats {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
}

// writeServe prints a serving answer: the verdict, what the cards cost
// to buy when owning them was asked, then the table.
func writeServe(w io.Writer, a sizing.AskAnswer) {
	fmt.Fprintln(w, display.ServeVerdict(a))
	if line := display.ServePurchase(a); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range display.ServeTable(a) {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}
