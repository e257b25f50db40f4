package bot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/slack-go/slack"
)

// How much of each section the digest shows before "and N more".
const (
	digestMaxPlans   = 5
	digestMaxMoves   = 5 // pricing.md §5.2: top 5 by |Δ$/GPU-h|
	digestMaxChanges = 5
	digestMaxGPUs    = 12
)

// digestCommonGPUs are listed in the cheapest table after the GPUs the
// team's plans use, in this order (pricing.md §5.2).
var digestCommonGPUs = []string{"h100", "h200", "b200", "a100-80", "a100-40", "l40s", "l4", "a10g", "a10", "rtx-4090", "rtx-3090"}

// DigestMessage renders a digest for Slack: Block Kit within Slack's
// limits, and the headline as the notification text.
func DigestMessage(d digest.Digest) Message {
	text := d.Headline + " (" + weekRange(d) + ")"
	return Message{Text: display.Truncate(inert(text, false), maxFallbackText), Blocks: enforceLimits(digestBlocks(d))}
}

// digestBlocks lays the digest out: the headline, the team's plans
// first, the biggest moves, new and removed offers, the cheapest price
// per GPU, the sources' health, and the method. A quiet week is its
// headline and the method only.
func digestBlocks(d digest.Digest) []slack.Block {
	footer := slack.NewContextBlock("", mrkdwn(fmt.Sprintf("%s. Prices as of %s.", escape(d.Method), d.WeekEnd.Format("Mon Jan 2 15:04 MST"))))
	if d.Quiet {
		return []slack.Block{
			slack.NewSectionBlock(mrkdwn("*"+escape(d.Headline)+"* ("+weekRange(d)+")"), nil, nil),
			footer,
		}
	}
	header := d.Headline
	if n := len([]rune(header)); n > maxHeaderText {
		header, _, _ = strings.Cut(header, " · ")
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain(header)),
		slack.NewContextBlock("", mrkdwn(weekRange(d))),
	}
	// Every line is escaped for mrkdwn: questions, provider names and
	// errors come from outside, and a digest in a channel pings nobody
	// (<!channel>, <@U123>). fitbot's own markup uses none of & < >.
	section := func(title string, lines []string) {
		for i, l := range lines {
			lines[i] = escape(l)
		}
		if len(lines) > 0 {
			blocks = append(blocks, slack.NewSectionBlock(mrkdwn(fitLines("*"+title+"*", lines, maxText)), nil, nil))
		}
	}
	section("Your plans", planLines(d, true))
	section("Biggest moves", moveLines(d, true))
	section("New and removed offers", changeLines(d, true))
	blocks = append(blocks, slack.NewDividerBlock())
	section("Cheapest per GPU now (vs a week ago)", cheapestLines(d))
	section("Sources", sourceLines(d, true))
	section(offTitle, measuredOffLines(d))
	return append(blocks, footer)
}

// DigestText renders a digest as plain text, for the terminal.
func DigestText(d digest.Digest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n", d.Headline, weekRange(d))
	if !d.Quiet {
		for _, s := range []struct {
			title string
			lines []string
		}{
			{"Your plans", planLines(d, false)},
			{"Biggest moves", moveLines(d, false)},
			{"New and removed offers", changeLines(d, false)},
			{"Cheapest per GPU now (vs a week ago)", strings.Split(strings.TrimSuffix(cheapestTable(d), "\n"), "\n")},
			{"Sources", sourceLines(d, false)},
			{offTitle, measuredOffLines(d)},
		} {
			if len(s.lines) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n%s\n", s.title)
			for _, l := range s.lines {
				fmt.Fprintf(&b, "  %s\n", l)
			}
		}
	}
	fmt.Fprintf(&b, "\n%s. Prices as of %s.\n", d.Method, d.WeekEnd.Format("Mon Jan 2 15:04 MST"))
	return b.String()
}

// offTitle heads the runs recorded in the week that fitbot was far from.
var offTitle = fmt.Sprintf("Measured runs more than %.0f%% off fitbot's figures", digest.MeasuredOffBy*100)

// measuredOffLines is one line per measured run far from fitbot's
// figures: "plan #12, LoRA on A100 SXM 80 GB: peak 36.0 GiB where fitbot
// said 31.5 GiB (+14%); speed -20%".
func measuredOffLines(d digest.Digest) []string {
	var lines []string
	for _, p := range d.MeasuredOff {
		var parts []string
		if r, ok := p.MemoryRatio(); ok {
			parts = append(parts, fmt.Sprintf("peak %s where fitbot said %s (%s)", display.GiB(p.Measured.PeakBytes), display.GiB(p.Predicted.PeakBytes), signedPct((r-1)*100)))
		}
		if r, ok := p.SpeedRatio(); ok {
			parts = append(parts, "speed "+signedPct((r-1)*100))
		}
		lines = append(lines, fmt.Sprintf("plan #%d, %s on %s: %s", p.PlanID, p.Method, display.GPUName(p.GPU), strings.Join(parts, "; ")))
	}
	return lines
}

// weekRange is the digest's week in words, with its time zone.
func weekRange(d digest.Digest) string {
	return fmt.Sprintf("week of %s – %s", d.WeekStart.Format("Mon Jan 2 15:04"), d.WeekEnd.Format("Mon Jan 2 15:04 MST"))
}

// fitLines joins a title and lines within max characters, ending with
// "and N more" when lines had to be left out.
func fitLines(title string, lines []string, max int) string {
	var b strings.Builder
	b.WriteString(title)
	for i, l := range lines {
		more := fmt.Sprintf("\n_and %d more_", len(lines)-i)
		if len([]rune(b.String()))+1+len([]rune(l))+len([]rune(more)) > max && i < len(lines)-1 ||
			len([]rune(b.String()))+1+len([]rune(l)) > max {
			b.WriteString(more)
			break
		}
		b.WriteString("\n" + l)
	}
	return b.String()
}

// emph marks s bold in Slack's mrkdwn, and leaves it plain for the
// terminal.
func emph(s string, slackText bool) string {
	if slackText {
		return "*" + s + "*"
	}
	return s
}

// more is the "and N more" line of a list cut at limit.
func more(n, limit int, slackText bool) []string {
	if n <= limit {
		return nil
	}
	if slackText {
		return []string{fmt.Sprintf("_and %d more_", n-limit)}
	}
	return []string{fmt.Sprintf("and %d more", n-limit)}
}

// planLines are the plans whose price moved or that have a cheaper fit
// now, then how many did not change.
func planLines(d digest.Digest, slackText bool) []string {
	if len(d.Plans) == 0 {
		return []string{"No plans saved in the last 90 days."}
	}
	var lines []string
	changed, unchanged := d.PlansChanged, d.PlansRepriced-d.PlansChanged
	shown := 0
	for _, p := range d.Plans {
		if !p.Changed() || shown == digestMaxPlans {
			continue
		}
		shown++
		l := fmt.Sprintf("%s — %s: %s", emph(display.Truncate(p.Question, 120), slackText), display.Hardware(p.GPUs, display.GPUName(p.GPU)), priceChange(p.ThenUSDPerHour, p.NowUSDPerHour, p.ChangePct, "/h"))
		if !p.Fits {
			l += " (does not fit as asked)"
		}
		if p.Hours != nil && p.ThenUSDTotal != nil && p.NowUSDTotal != nil && math.Abs(*p.NowUSDTotal-*p.ThenUSDTotal) >= 0.005 {
			l += fmt.Sprintf(", %s run %s → %s", display.Hours(*p.Hours), display.USD(*p.ThenUSDTotal), display.USD(*p.NowUSDTotal))
		}
		if p.NowProvider != "" {
			l += ", now at " + p.NowProvider
		}
		if p.Asked > 1 {
			l += fmt.Sprintf(" (asked %d times)", p.Asked)
		}
		if alt := p.CheaperFit; alt != nil && alt.USDPerHour != nil {
			label := "cheaper per hour"
			if alt.USDTotal != nil {
				label = "cheaper for the run"
			}
			l += fmt.Sprintf("\n    %s: %s %s", label, display.Hardware(alt.GPUs, display.GPUName(alt.GPU)), display.Method(alt.Method))
			if alt.ZeROStage > 0 {
				l += fmt.Sprintf(" with ZeRO-%d", alt.ZeROStage)
			}
			l += " at " + display.USD(*alt.USDPerHour) + "/h"
			if alt.USDTotal != nil {
				l += ", " + display.USD(*alt.USDTotal) + " in all"
			}
		}
		lines = append(lines, l)
	}
	lines = append(lines, more(changed, digestMaxPlans, slackText)...)
	switch {
	case changed == 0:
		lines = append(lines, fmt.Sprintf("%s re-priced with this week's prices: none changed.", countOf(unchanged, "plan")))
	case unchanged > 0:
		lines = append(lines, fmt.Sprintf("%s unchanged.", countOf(unchanged, "other plan")))
	}
	return lines
}

// priceChange is "$2.42/h → $1.98/h (−18.2%)".
func priceChange(then, now, pct *float64, unit string) string {
	switch {
	case then == nil && now == nil:
		return "no price then or now"
	case then == nil:
		return "no price then, " + display.USD(*now) + unit + " now"
	case now == nil:
		return display.USD(*then) + unit + " then, no price now"
	}
	if math.Abs(*now-*then) < 0.005 {
		return display.USD(*now) + unit + ", unchanged"
	}
	s := display.USD(*then) + unit + " → " + display.USD(*now) + unit
	if pct != nil && *pct != 0 {
		s += " (" + signedPct(*pct) + ")"
	}
	return s
}

// signedPct is a percentage with its sign, a true minus for cuts.
func signedPct(p float64) string {
	if p < 0 {
		return fmt.Sprintf("−%.1f%%", -p)
	}
	return fmt.Sprintf("+%.1f%%", p)
}

// signedUSD is a dollar change with its sign.
func signedUSD(v float64) string {
	if v < 0 {
		return "−" + display.USD(-v)
	}
	return "+" + display.USD(v)
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// market names a market and tier as people say it ("on-demand (secure)").
func market(m pricing.Market, tier string) string {
	s := strings.ReplaceAll(string(m), "_", "-")
	if tier != "" {
		s += " (" + tier + ")"
	}
	return s
}

// regions says where: one region by name, several by count.
func regions(rs []string) string {
	switch len(rs) {
	case 0:
		return ""
	case 1:
		if rs[0] == "all" {
			return ""
		}
		return " in " + rs[0]
	}
	return fmt.Sprintf(" in %d regions", len(rs))
}

// moveLines are the biggest moves, as sorted by the model.
func moveLines(d digest.Digest, slackText bool) []string {
	var lines []string
	for i, m := range d.Moves {
		if i == digestMaxMoves {
			break
		}
		arrow := "▲"
		if m.ChangeUSD < 0 {
			arrow = "▼"
		}
		l := fmt.Sprintf("%s %s · %s %s · %s", arrow, emph(display.GPUName(m.GPU), slackText), m.Provider, market(m.Market, m.Tier), m.InstanceType)
		if m.GPUCount != 1 {
			l += fmt.Sprintf(" %g×", m.GPUCount)
		}
		l += regions(m.Regions)
		l += fmt.Sprintf(": %s → %s/GPU-h (%s, %s)", display.USD(m.OldUSDPerGPUHour), display.USD(m.NewUSDPerGPUHour), signedUSD(m.ChangeUSD), signedPct(m.ChangePct))
		if m.GPUCount != 1 {
			l += fmt.Sprintf(" · %s/h", display.USD(m.NewUSDPerHour))
		}
		if m.NewSamples > 1 {
			l += fmt.Sprintf(" · median of %d offers", m.NewSamples)
		}
		lines = append(lines, l)
	}
	lines = append(lines, more(len(d.Moves), digestMaxMoves, slackText)...)
	if d.ThinSkipped > 0 {
		lines = append(lines, fmt.Sprintf("%s left out: fewer than %d offers behind the median.", countOf(d.ThinSkipped, "marketplace comparison"), d.Thresholds.MinSamples))
	}
	return lines
}

// changeLines are the new and removed offers and the new sources.
func changeLines(d digest.Digest, slackText bool) []string {
	var lines []string
	for _, set := range []struct {
		verb   string
		offers []digest.OfferChange
	}{{"New", d.NewOffers}, {"Gone", d.RemovedOffers}} {
		for i, c := range set.offers {
			if i == digestMaxChanges {
				break
			}
			l := fmt.Sprintf("%s: %s on %s %s, %s", set.verb, emph(display.GPUName(c.GPU), slackText), c.Provider, market(c.Market, c.Tier), c.InstanceType)
			if c.GPUCount != 1 {
				l += fmt.Sprintf(" %g×", c.GPUCount)
			}
			l += regions(c.Regions) + fmt.Sprintf(", %s/GPU-h", display.USD(c.USDPerGPUHour))
			lines = append(lines, l)
		}
		lines = append(lines, more(len(set.offers), digestMaxChanges, slackText)...)
	}
	if len(d.NewSources) > 0 {
		lines = append(lines, fmt.Sprintf("First prices from %s (their offers are not listed as new).", strings.Join(d.NewSources, ", ")))
	}
	return lines
}

// cheapestRow is one GPU's cheapest on-demand and spot price.
type cheapestRow struct {
	gpu      string
	od, spot *digest.Cheapest
}

// cheapestRows are the cheapest on-demand and spot price per GPU, now
// and against a week ago: the GPUs the plans use first, then the common
// set, then the rest.
func cheapestRows(d digest.Digest) []cheapestRow {
	rows := map[string]*cheapestRow{}
	var order []string
	for i := range d.Cheapest {
		c := &d.Cheapest[i]
		r := rows[c.GPU]
		if r == nil {
			r = &cheapestRow{gpu: c.GPU}
			rows[c.GPU] = r
		}
		if c.Market == pricing.MarketSpot {
			r.spot = c
		} else {
			r.od = c
		}
	}
	add := func(gpu string) {
		if rows[gpu] != nil && !slices.Contains(order, gpu) {
			order = append(order, gpu)
		}
	}
	for _, p := range d.Plans {
		add(p.GPU)
	}
	for _, g := range digestCommonGPUs {
		add(g)
	}
	for _, c := range d.Cheapest {
		add(c.GPU)
	}
	out := make([]cheapestRow, len(order))
	for i, g := range order {
		out[i] = *rows[g]
	}
	return out
}

// cheapestTable is cheapestRows as a fixed-width table for the terminal,
// up to digestMaxGPUs.
func cheapestTable(d digest.Digest) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\ton-demand\tspot")
	rows := cheapestRows(d)
	for i, r := range rows {
		if i == digestMaxGPUs {
			fmt.Fprintf(tw, "and %d more GPUs\t\t\n", len(rows)-digestMaxGPUs)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", display.GPUName(r.gpu), cheapestCell(r.od), cheapestCell(r.spot))
	}
	tw.Flush()
	return b.String()
}

// cheapestLines are cheapestRows for Slack, one short line per GPU that
// a phone shows whole ("*H100 SXM 80 GB* $2.69 runpod community · spot
// $3.77 aws ▲0.1%"), where the terminal's table would scroll sideways,
// up to digestMaxGPUs.
func cheapestLines(d digest.Digest) []string {
	rows := cheapestRows(d)
	var lines []string
	for i, r := range rows {
		if i == digestMaxGPUs {
			lines = append(lines, fmt.Sprintf("and %d more GPUs", len(rows)-digestMaxGPUs))
			break
		}
		line := "*" + display.GPUName(r.gpu) + "* " + escape(cheapestCell(r.od))
		if r.spot != nil {
			line += " · spot " + escape(cheapestCell(r.spot))
		}
		lines = append(lines, line)
	}
	return lines
}

// cheapestCell is "$2.69 runpod community ▲14.3%", "gone (was $7.91)"
// or "–".
func cheapestCell(c *digest.Cheapest) string {
	switch {
	case c == nil:
		return "–"
	case c.Now == nil:
		return fmt.Sprintf("gone (was %s)", display.USD(c.WeekAgo.USDPerGPUHour))
	}
	s := display.USD(c.Now.USDPerGPUHour) + " " + c.Now.Provider
	if c.Now.Tier != "" {
		s += " " + c.Now.Tier
	}
	switch {
	case c.ChangePct == nil:
		s += " new"
	case *c.ChangePct > 0:
		s += fmt.Sprintf(" ▲%.1f%%", *c.ChangePct)
	case *c.ChangePct < 0:
		s += fmt.Sprintf(" ▼%.1f%%", -*c.ChangePct)
	}
	return s
}

// sourceLines are the sources that were stale or failing, or one line
// saying all refreshed fine.
func sourceLines(d digest.Digest, slackText bool) []string {
	if len(d.StaleSources) == 0 {
		if d.Sources == 0 {
			return []string{"No price refresh ran in the last two weeks."}
		}
		return []string{fmt.Sprintf("All %d sources refreshed fine.", d.Sources)}
	}
	lines := []string{fmt.Sprintf("%d of %d sources refreshed fine.", d.Sources-len(d.StaleSources), d.Sources)}
	for _, h := range d.StaleSources {
		l := fmt.Sprintf("%s: %s", emph(h.Provider, slackText), h.Reason)
		if h.LastError != "" {
			if slackText {
				l += fmt.Sprintf(" (`%s`)", strings.ReplaceAll(h.LastError, "`", "'"))
			} else {
				l += " (" + h.LastError + ")"
			}
		}
		lines = append(lines, l)
		for _, held := range h.Held {
			if slackText {
				held = "`" + strings.ReplaceAll(held, "`", "'") + "`"
			}
			lines = append(lines, "    held: "+held)
		}
	}
	return lines
}
