// Package display writes the estimator's figures the way people read
// them: memory in GiB, money, durations, counts, parameter counts and GPU
// names. The command line and Slack both use it, so that one figure reads
// the same on both faces; each face keeps only its layout.
package display

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fitbot/fitbot/sizing"
)

// gib is one gibibyte: memory is shown in GiB, as nvidia-smi and PyTorch report it.
const gib = 1 << 30

// InGiB is bytes in GiB, for tables that lay numbers out themselves.
func InGiB(b int64) float64 { return float64(b) / gib }

// GiB shows bytes as GiB with one decimal ("22.5 GiB").
func GiB(b int64) string { return fmt.Sprintf("%.1f GiB", InGiB(b)) }

// GiBTotal is GiB for a total that may run past a TiB, with its TiB
// beside it there ("2,537.8 GiB (2.48 TiB)"), so that a large model's
// memory in all reads at a glance.
func GiBTotal(b int64) string {
	gib := InGiB(b)
	if gib < 1024 {
		return GiB(b)
	}
	tenths := int64(math.Round(gib * 10))
	return fmt.Sprintf("%s.%d GiB (%.2f TiB)", Commas(tenths/10), tenths%10, gib/1024)
}

// USD shows dollars with cents below $100 and whole dollars, grouped in
// thousands, from $100 ("$0.33", "$12,346"); a loss is "-$1,235".
func USD(v float64) string {
	if v < 0 {
		return "-" + USD(-v)
	}
	if v >= 100 {
		return "$" + Commas(int64(math.Round(v)))
	}
	return fmt.Sprintf("$%.2f", v)
}

// Commas groups the digits of n in thousands ("12,345").
func Commas(n int64) string { return sizing.Commas(n) }

// Hours shows a duration given in hours: minutes under an hour, hours
// under two days, days past that ("30 min", "5.5 h", "35.5 days").
func Hours(h float64) string {
	switch {
	case h < 1:
		return fmt.Sprintf("%.0f min", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f h", h)
	default:
		return fmt.Sprintf("%.1f days", h/24)
	}
}

// Count shows a count of tokens or tokens a second: billions and millions
// with up to two decimals ("2.5B", "300M"), thousands grouped ("1,234"),
// small numbers with up to two decimals ("45.6").
func Count(v float64) string {
	switch {
	case v >= 1e12:
		return TrimZero(fmt.Sprintf("%.2f", v/1e12)) + "T"
	case v >= 1e9:
		return TrimZero(fmt.Sprintf("%.2f", v/1e9)) + "B"
	case v >= 1e6:
		return TrimZero(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case v >= 100:
		return Commas(int64(math.Round(v)))
	}
	return TrimZero(fmt.Sprintf("%.2f", v))
}

// Params shows a parameter count briefly, to three significant digits
// ("8.03B", "70.6B", "350M").
func Params(n int64) string {
	if n < 999_500 {
		return Commas(n)
	}
	return sizing.HumanCount(n)
}

// Counted is n with its noun, singular for one: "1 request", "3
// requests".
func Counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// TrimZero drops trailing zeros after a decimal point ("2.50" is "2.5",
// "3.0" is "3").
func TrimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Decimal shows v with one decimal, a trailing zero dropped ("2.5", "3").
func Decimal(v float64) string { return TrimZero(fmt.Sprintf("%.1f", v)) }

// Truncate cuts s to at most max characters (runes, as Slack counts
// them, so a cut never splits a UTF-8 sequence), ending in an ellipsis
// when anything was cut; max <= 0 gives "". It is fitbot's one truncation
// helper: Slack's limits, errors kept in the store, the digest's quotes.
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// GPUName is a catalog GPU's display name ("H100 80 GB SXM"), or the id
// when the catalog does not know it.
func GPUName(id string) string {
	if g, ok := sizing.MatchGPU(id); ok {
		return g.Name
	}
	return id
}

// Hardware is a GPU count and card ("2× RTX 4090 24 GB"); a count below
// one is shown as one.
func Hardware(gpus int, name string) string {
	if gpus <= 0 {
		gpus = 1
	}
	return fmt.Sprintf("%d× %s", gpus, name)
}

// CardHours is the unit of an hour of one card, by its display name:
// "A100-hours" for "A100 SXM 80 GB", "RTX 4090-hours" for "RTX 4090 24
// GB" (the memory and the form factor left to the name said beside it);
// "GPU-hours" with no name.
func CardHours(name string) string {
	f := strings.Fields(name)
	if n := len(f); n >= 2 && f[n-1] == "GB" {
		f = f[:n-2]
	}
	if n := len(f); n >= 2 && (f[n-1] == "SXM" || f[n-1] == "SXM2" || f[n-1] == "PCIe") {
		f = f[:n-1]
	}
	if len(f) == 0 {
		return "GPU-hours"
	}
	return strings.Join(f, " ") + "-hours"
}

// GPUOption is one card of a which-GPU answer after its hardware: the
// machines, the ZeRO stage, the memory per GPU, the price, and the run's
// time and cost for tokens ("on 2 machines, ZeRO-3: 21.0 GiB per GPU
// (tight), $0.33/h, 5.5 h and $12 for 100M tokens"), and what the cards
// cost to buy when owning them was asked. Each face writes the
// hardware (display.Hardware) in its own emphasis before it.
func GPUOption(o sizing.GPUOption, tokens int64) string {
	var b strings.Builder
	if o.Nodes > 1 {
		fmt.Fprintf(&b, " on %d machines", o.Nodes)
	}
	if o.ZeROStage > 0 {
		fmt.Fprintf(&b, ", ZeRO-%d", o.ZeROStage)
	}
	fmt.Fprintf(&b, ": %s per GPU", GiB(o.TotalBytes))
	if o.Headroom == sizing.HeadroomTight {
		b.WriteString(" (tight)")
	}
	if o.USDPerHour != nil {
		b.WriteString(", " + USD(*o.USDPerHour) + "/h")
	} else {
		b.WriteString(", no price known")
	}
	if o.Hours != nil {
		b.WriteString(", " + Hours(*o.Hours))
		if o.USDTotal != nil {
			b.WriteString(" and " + USD(*o.USDTotal))
		}
		fmt.Fprintf(&b, " for %s tokens", Count(float64(tokens)))
	}
	if p := o.Purchase; p != nil {
		fmt.Fprintf(&b, ", %s-%s to buy (seen %s)", USD(p.USDLow), USD(p.USDHigh), p.AsOf.Format("2006-01"))
	}
	return b.String()
}

// Method is a method as people write it: "full fine-tune", "LoRA",
// "QLoRA", "inference".
func Method(m sizing.Method) string {
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

// RequestMethod is the method of a sized request as people write it:
// Method, or "training from scratch" for a full run from random weights.
func RequestMethod(r sizing.Request) string {
	if r.FromScratch {
		return "training from scratch"
	}
	return Method(r.Method)
}

// Fewest is the line that answers a count ask ("how many a100s"): how
// many of the card, in how many machines, with what; "" for any other
// answer.
func Fewest(a sizing.Answer) string {
	f := a.Fewest
	switch {
	case f == nil:
		return ""
	case !f.Found:
		return fmt.Sprintf("How many: no count of %s up to %d fits as asked; the ways that fit are below.", a.GPUName, f.Tried)
	case f.GPUs == 1:
		return fmt.Sprintf("How many: one %s is enough.", a.GPUName)
	}
	s := fmt.Sprintf("How many: %s", Hardware(f.GPUs, a.GPUName))
	if f.Nodes > 1 {
		s += fmt.Sprintf(" (%d machines of %d)", f.Nodes, f.GPUs/f.Nodes)
	}
	s += " is the fewest that fit"
	r := a.Request
	if l := sizing.Layout(r); l != "" {
		s += ", as " + l
	}
	var with []string
	if r.Method != sizing.MethodInference && r.ZeROStage > 0 {
		with = append(with, fmt.Sprintf("ZeRO-%d", r.ZeROStage))
	}
	if f.GradCheckpointing {
		with = append(with, "gradient checkpointing")
	}
	if len(with) > 0 {
		s += ", with " + strings.Join(with, " and ")
	}
	if f.FewerGPUs > 0 {
		s += fmt.Sprintf("; %d would need %s per GPU", f.FewerGPUs, GiB(f.FewerTotalBytes))
	}
	return s + "."
}

// LargestBatch is the line that answers a largest-batch ask ("what
// batch size can we fit"): the largest micro-batch per GPU that fits as
// asked, then each same-card lever that raises it, with its own largest
// ("Largest micro-batch that fits: 2 per GPU (at seq 4096); with
// gradient checkpointing 16; with a fused loss too 24"); "" for any
// other answer. A lever that raises nothing is named with the next one
// that does.
func LargestBatch(a sizing.Answer) string {
	lb := a.LargestBatch
	if lb == nil {
		return ""
	}
	at := fmt.Sprintf("(at seq %d)", a.Request.SeqLen)
	s := fmt.Sprintf("Largest micro-batch that fits: %s per GPU %s", batchCount(lb.MicroBatch), at)
	if lb.MicroBatch == 0 {
		s = "Largest micro-batch: batch 1 does not fit as asked " + at
	}
	best, shown := lb.MicroBatch, false
	var tried []string
	for _, l := range []struct {
		name string
		n    *int
	}{{"gradient checkpointing", lb.WithCheckpointing}, {"a fused loss", lb.WithFusedLoss}} {
		if l.n == nil {
			continue
		}
		tried = append(tried, l.name)
		if *l.n <= best {
			continue
		}
		with := strings.Join(tried, " and ")
		if shown {
			with += " too"
		}
		s += fmt.Sprintf("; with %s %s", with, batchCount(*l.n))
		best, shown, tried = *l.n, true, nil
	}
	if best == 0 && len(tried) > 0 {
		s += ", nor with " + strings.Join(tried, " and ")
	}
	if best == 0 {
		s += "; the ways that fit are below"
	}
	return s + "."
}

// batchCount is a largest micro-batch, "1024 or more" at the search's cap.
func batchCount(n int) string {
	if n >= sizing.BatchSearchCap {
		return fmt.Sprintf("%d or more", n)
	}
	return fmt.Sprint(n)
}

// PerMonth is a cost per month run around the clock: "$734/month".
func PerMonth(v float64) string { return USD(v) + "/month" }

// MonthOfRuns is a month of a repeated training run ("$214/month for
// 4.3 runs"); "" when no cadence was said or the run is unpriced.
func MonthOfRuns(a sizing.Answer) string {
	if a.Throughput.USDPerMonthOfRuns == nil {
		return ""
	}
	return fmt.Sprintf("%s for %s runs", PerMonth(*a.Throughput.USDPerMonthOfRuns), Decimal(a.Request.RunsPerMonth))
}

// MonthNotPriced is what a first line says when the question asked the
// cost per month and the card has no price: "" otherwise.
func MonthNotPriced(a sizing.Answer) string {
	if !a.Request.PerMonth || a.Throughput.USDPerHour != nil {
		return ""
	}
	return "monthly cost not priced: no price known for " + a.GPUName
}

// Terms lists a memory's terms of 0.1 GiB or more, largest first:
// "KV cache 16.0 GiB, weights 15.0 GiB, overhead 1.2 GiB".
func Terms(m sizing.Memory) string {
	type term struct {
		name  string
		bytes int64
	}
	terms := []term{
		{"weights", m.WeightsBytes}, {"gradients", m.GradientsBytes}, {"optimizer", m.OptimizerBytes},
		{"activations", m.ActivationsBytes}, {"QLoRA working memory", m.QLoRAWorkBytes}, {"gathered layers", m.GatheredBytes}, {"KV cache", m.KVCacheBytes}, {"overhead", m.OverheadBytes},
	}
	slices.SortStableFunc(terms, func(a, b term) int { return cmp.Compare(b.bytes, a.bytes) })
	var parts []string
	for _, t := range terms {
		if t.bytes >= gib/10 {
			parts = append(parts, t.name+" "+GiB(t.bytes))
		}
	}
	return strings.Join(parts, ", ")
}

// SameCardWay is the verdict's tail for an answer that does not fit as
// asked but does on the same cards with one change, its first way:
// "fits with gradient checkpointing on the same card: 22.0 GiB"; "" when
// it fits or its first way is elsewhere.
func SameCardWay(a sizing.Answer) string {
	alt, what, ok := sameCard(a)
	if !ok {
		return ""
	}
	return fmt.Sprintf("fits with %s on the same %s: %.1f GiB", what, cardWord(alt.GPUs), InGiB(alt.TotalBytes))
}

// SameCardSpeed is the speed of the way SameCardWay names, for the speed
// line beside the speed as asked (which does not fit): "fp8 weights on
// the same card" and its tokens per second (decode for inference); ""
// when there is no such way or its speed is unknown.
func SameCardSpeed(a sizing.Answer) (way string, tokensPerSecond float64) {
	alt, what, ok := sameCard(a)
	if !ok || alt.TokensPerSecond == nil || *alt.TokensPerSecond <= 0 {
		return "", 0
	}
	return fmt.Sprintf("%s on the same %s", what, cardWord(alt.GPUs)), *alt.TokensPerSecond
}

// sameCard is the first way of an answer that does not fit as asked
// that fits on the same cards, and what it changes ("fp8 weights"): more
// of the card may come first ("on 4× RTX 5090"), which is not the cards
// the asker has.
func sameCard(a sizing.Answer) (sizing.Alternative, string, bool) {
	if a.Fits {
		return sizing.Alternative{}, "", false
	}
	for _, alt := range a.Alternatives {
		what, _, ok := strings.Cut(alt.Why, " on the same ")
		if ok && alt.Fits && alt.GPU == a.Request.GPU && alt.GPUs == a.Request.GPUs {
			return alt, what, true
		}
	}
	return sizing.Alternative{}, "", false
}

// cardWord is "card" or "cards".
func cardWord(n int) string {
	if n == 1 {
		return "card"
	}
	return "cards"
}

// KVPerToken is the KV cache per token of context of an inference memory
// figure, averaged over the request ("KV cache 320 KiB per token"), for
// the memory-in-all line that a "kv cache per token" question reads
// first; "" for training or no KV cache.
func KVPerToken(m sizing.Memory, r sizing.Request) string {
	tokens := int64(r.SeqLen) * int64(max(r.MicroBatch, 1))
	if r.Method != sizing.MethodInference || m.KVCacheBytes <= 0 || tokens <= 0 {
		return ""
	}
	return fmt.Sprintf(" KV cache %s KiB per token of context.", Decimal(float64(m.KVCacheBytes)/float64(tokens)/1024))
}

// RunTiming is the throughput a run's time and cost are told with: as
// asked when it fits, else the way on the same cards that fits, whose
// words come back to say so (" with gradient checkpointing on the same
// card"): a time for a setup that does not fit is no one's run.
func RunTiming(a sizing.Answer) (sizing.Throughput, string) {
	alt, what, ok := sameCard(a)
	if !ok || alt.TokensPerSecond == nil || *alt.TokensPerSecond <= 0 {
		return a.Throughput, ""
	}
	t := a.Throughput
	t.TokensPerSecond, t.Hours, t.USDTotal = alt.TokensPerSecond, alt.Hours, alt.USDTotal
	return t, fmt.Sprintf(" with %s on the same %s", what, cardWord(alt.GPUs))
}
