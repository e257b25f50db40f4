package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/retry"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
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
func DigestMessage(d pricing.Digest) Message {
	text := d.Headline + " (" + weekRange(d) + ")"
	return Message{Text: display.Truncate(text, maxFallbackText), Blocks: enforceLimits(digestBlocks(d))}
}

// digestBlocks lays the digest out: the headline, the team's plans
// first, the biggest moves, new and removed offers, the cheapest price
// per GPU, the sources' health, and the method. A quiet week is its
// headline and the method only.
func digestBlocks(d pricing.Digest) []slack.Block {
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
	section("Cheapest per GPU now (vs a week ago)", []string{"```" + cheapestTable(d) + "```"})
	section("Sources", sourceLines(d, true))
	return append(blocks, footer)
}

// DigestText renders a digest as plain text, for the terminal.
func DigestText(d pricing.Digest) string {
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

// weekRange is the digest's week in words, with its time zone.
func weekRange(d pricing.Digest) string {
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
func planLines(d pricing.Digest, slackText bool) []string {
	if len(d.Plans) == 0 {
		return []string{"No plans saved in the last 90 days."}
	}
	var lines []string
	changed, unchanged := 0, 0
	for _, p := range d.Plans {
		if !p.Changed() {
			unchanged++
			continue
		}
		changed++
		if changed > digestMaxPlans {
			continue
		}
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
			l += fmt.Sprintf("\n    %s: %s %s", label, display.Hardware(alt.GPUs, display.GPUName(alt.GPU)), methodName(alt.Method))
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
func moveLines(d pricing.Digest, slackText bool) []string {
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
func changeLines(d pricing.Digest, slackText bool) []string {
	var lines []string
	for _, set := range []struct {
		verb   string
		offers []pricing.OfferChange
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

// cheapestTable is the cheapest on-demand and spot price per GPU, now and
// against a week ago, as a fixed-width table: the GPUs the plans use
// first, then the common set, then the rest, up to digestMaxGPUs.
func cheapestTable(d pricing.Digest) string {
	type row struct{ od, spot *pricing.Cheapest }
	rows := map[string]*row{}
	for i := range d.Cheapest {
		c := &d.Cheapest[i]
		r := rows[c.GPU]
		if r == nil {
			r = &row{}
			rows[c.GPU] = r
		}
		if c.Market == pricing.MarketSpot {
			r.spot = c
		} else {
			r.od = c
		}
	}
	var order []string
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
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\ton-demand\tspot")
	for i, g := range order {
		if i == digestMaxGPUs {
			fmt.Fprintf(tw, "and %d more GPUs\t\t\n", len(order)-digestMaxGPUs)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", display.GPUName(g), cheapestCell(rows[g].od), cheapestCell(rows[g].spot))
	}
	tw.Flush()
	return b.String()
}

// cheapestCell is "$2.69 runpod community ▲14.3%", "gone (was $7.91)"
// or "–".
func cheapestCell(c *pricing.Cheapest) string {
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
func sourceLines(d pricing.Digest, slackText bool) []string {
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
	}
	return lines
}

// DigestStore is what the digest poster needs of the store; *store.DB
// is one.
type DigestStore interface {
	// DigestInput reads the prices, runs and plans the digest of the
	// week ending at weekEnd is computed from.
	DigestInput(ctx context.Context, weekEnd time.Time, planWindow time.Duration) (pricing.DigestInput, error)
	// ClaimDigest writes the (channel, week) record before posting and
	// reports whether this poster may post.
	ClaimDigest(ctx context.Context, channel string, weekStart, weekEnd time.Time, holder string, ttl time.Duration) (store.SentDigest, bool, error)
	// MarkDigestPosted completes the record with the message timestamp.
	MarkDigestPosted(ctx context.Context, channel string, weekStart time.Time, holder, ts string, payload []byte) error
	// ReleaseDigest frees the claim after a failed post.
	ReleaseDigest(ctx context.Context, channel string, weekStart time.Time, holder, reason string) error
}

// Schedule says when digests are due; a robfig/cron Schedule is one.
type Schedule interface {
	// Next returns the first due time after t.
	Next(t time.Time) time.Time
}

// DefaultDigestClaimTTL is how long a poster's claim on a week's digest
// keeps others away. It outlasts a post with all its retries (the post is
// cut at half of it), so an expired claim means its poster died.
const DefaultDigestClaimTTL = 5 * time.Minute

// digestPoll is how often a poster waiting on another's claim looks
// again.
const digestPoll = 15 * time.Second

// DigestPosterConfig configures a DigestPoster. Store, Slack and Channel
// are required.
type DigestPosterConfig struct {
	Store    DigestStore
	Slack    ThreadPoster         // *WebAPI, which retries 429s after Retry-After and 5xx with backoff
	Channel  string               // FITBOT_DIGEST_CHANNEL, a channel id
	Schedule Schedule             // when digests are due (FITBOT_DIGEST_CRON); nil: Mondays 09:00 UTC
	Digest   pricing.DigestConfig // zero: pricing.DefaultDigestConfig()
	Holder   string               // names this poster in the record; "": host name and a random suffix
	ClaimTTL time.Duration        // 0: DefaultDigestClaimTTL
	Logger   *slog.Logger         // nil: slog.Default()
	Models   ModelResolver        // re-reads plans for Hugging Face Hub models; nil: they show their problem
}

// DigestPoster posts the weekly price-change digest to one channel,
// exactly once per week however often it is asked and however many
// instances ask: it writes the (channel, week) record before posting and
// posts only when its write won, then records the message's timestamp. A
// failed post releases the record for the next attempt; a poster that
// dies between the record and the post leaves a claim that runs out
// after the claim TTL, and the next attempt posts then.
type DigestPoster struct {
	store    DigestStore
	slack    ThreadPoster
	channel  string
	schedule Schedule
	cfg      pricing.DigestConfig
	holder   string
	ttl      time.Duration
	log      *slog.Logger
	clock    func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	models   ModelResolver
}

// NewDigestPoster returns a poster, or an error naming what is missing.
func NewDigestPoster(cfg DigestPosterConfig) (*DigestPoster, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("bot: DigestPosterConfig.Store is required")
	case cfg.Slack == nil:
		return nil, errors.New("bot: DigestPosterConfig.Slack is required")
	case cfg.Channel == "":
		return nil, errors.New("bot: no digest channel (FITBOT_DIGEST_CHANNEL)")
	}
	p := &DigestPoster{store: cfg.Store, slack: cfg.Slack, channel: cfg.Channel, schedule: cfg.Schedule, cfg: cfg.Digest,
		holder: cfg.Holder, ttl: cfg.ClaimTTL, log: cfg.Logger, clock: time.Now, sleep: retry.Sleep, models: cfg.Models}
	if p.schedule == nil {
		p.schedule = mondays0900UTC{}
	}
	if p.cfg.MinSamples == 0 && p.cfg.MinChangePct == 0 && p.cfg.MinChangeUSD == 0 {
		p.cfg = pricing.DefaultDigestConfig()
	}
	if p.ttl <= 0 {
		p.ttl = DefaultDigestClaimTTL
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.holder == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "fitbot"
		}
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("bot: digest poster name: %w", err)
		}
		p.holder = host + "/" + hex.EncodeToString(b[:])
	}
	p.log = p.log.With("component", "digest", "channel", p.channel)
	return p, nil
}

// mondays0900UTC is the default schedule, CRON_TZ=UTC 0 9 * * MON.
type mondays0900UTC struct{}

// Next implements Schedule.
func (mondays0900UTC) Next(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 9, 0, 0, 0, time.UTC)
	day = day.AddDate(0, 0, (int(time.Monday)-int(day.Weekday())+7)%7)
	if !day.After(t) {
		day = day.AddDate(0, 0, 7)
	}
	return day
}

// Week returns the week of the digest due at or before now: it ends at
// the schedule's latest due time not after now and starts a week
// earlier. False when the schedule had no due time in the eight days
// before now (a schedule less often than weekly, between its runs).
func (p *DigestPoster) Week(now time.Time) (start, end time.Time, ok bool) {
	due := p.schedule.Next(now.Add(-8 * 24 * time.Hour))
	if due.After(now) || due.IsZero() {
		return time.Time{}, time.Time{}, false
	}
	for next := p.schedule.Next(due); !next.After(now) && next.After(due); next = p.schedule.Next(due) {
		due = next
	}
	end = due.UTC()
	return end.Add(-pricing.Week), end, true
}

// Build computes the digest of the week ending at end from the store.
func (p *DigestPoster) Build(ctx context.Context, end time.Time) (pricing.Digest, error) {
	in, err := p.store.DigestInput(ctx, end, p.cfg.PlanWindow)
	if err != nil {
		return pricing.Digest{}, fmt.Errorf("digest for the week ending %s: %w", end.Format(time.RFC3339), err)
	}
	if p.models != nil {
		in.Parse = func(q string) (sizing.Parsed, error) {
			parsed, err := sizing.Parse(q)
			if needsHub(parsed) {
				return p.models.ResolveParsed(ctx, q, parsed, err)
			}
			return parsed, err
		}
	}
	return pricing.BuildDigest(in, p.cfg), nil
}

// DigestDelivery is what one call of Deliver did.
type DigestDelivery struct {
	Record store.SentDigest // the week's record after the call
	Digest *pricing.Digest  // the digest this call posted; nil when it posted none
	Posted bool             // this call posted the digest
}

// PostWeekly posts the digest due at or before now unless it was posted
// already. It is the scheduler's job (FITBOT_DIGEST_CRON) and is safe to
// call at every start and takeover as well: a digest missed while fitbot
// was down is posted when it comes back within the week, a failed post is
// tried again, and a posted one is never posted twice.
func (p *DigestPoster) PostWeekly(ctx context.Context, now time.Time) error {
	_, err := p.Deliver(ctx, now)
	return err
}

// Deliver is PostWeekly, reporting what it did.
func (p *DigestPoster) Deliver(ctx context.Context, now time.Time) (DigestDelivery, error) {
	_, end, ok := p.Week(now)
	if !ok {
		p.log.Info("digest: none due in the last eight days", "now", now)
		return DigestDelivery{}, nil
	}
	return p.DeliverWeek(ctx, end)
}

// DeliverWeek posts the digest of the week ending at end unless it was
// posted to the channel already, with the same exactly-once record as
// PostWeekly (a week is known by its start, end less a week). When
// another poster holds a fresh claim on the week, it waits until that
// poster has posted or its claim has run out.
func (p *DigestPoster) DeliverWeek(ctx context.Context, end time.Time) (DigestDelivery, error) {
	end = end.UTC()
	start := end.Add(-pricing.Week)
	log := p.log.With("week_start", start, "holder", p.holder)
	for {
		rec, won, err := p.store.ClaimDigest(ctx, p.channel, start, end, p.holder, p.ttl)
		if err != nil {
			return DigestDelivery{}, fmt.Errorf("digest for %s: %w", p.channel, err)
		}
		if rec.Posted() {
			log.Debug("digest: already posted", "ts", rec.TS)
			return DigestDelivery{Record: rec}, nil
		}
		if won {
			if rec.Attempts > 1 {
				log.Info("digest: taking over an unfinished post", "attempt", rec.Attempts, "last_error", rec.LastError)
			}
			return p.post(ctx, log, rec)
		}
		wait := min(max(rec.ClaimedAt.Add(p.ttl).Sub(p.clock()), time.Second), digestPoll)
		log.Info("digest: another poster holds this week's digest; waiting", "claimed_by", rec.ClaimedBy, "wait", wait)
		if err := p.sleep(ctx, wait); err != nil {
			return DigestDelivery{Record: rec}, fmt.Errorf("digest for %s: waiting for %s: %w", p.channel, rec.ClaimedBy, err)
		}
	}
}

// post builds, posts and records the digest of rec's week, which this
// poster has claimed; a failure releases the claim with its reason.
func (p *DigestPoster) post(ctx context.Context, log *slog.Logger, rec store.SentDigest) (DigestDelivery, error) {
	fail := func(err error) (DigestDelivery, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if rerr := p.store.ReleaseDigest(rctx, p.channel, rec.WeekStart, p.holder, err.Error()); rerr != nil {
			err = errors.Join(err, rerr)
		}
		log.Error("digest: post failed; the next run tries again", "err", err)
		return DigestDelivery{Record: rec}, err
	}
	d, err := p.Build(ctx, rec.WeekEnd)
	if err != nil {
		return fail(err)
	}
	if !d.HasPrices() {
		// A new install, or a store nobody refreshes: a digest would say
		// nothing. The record is released, so that a later run this week
		// posts once prices are in.
		if err := p.store.ReleaseDigest(context.WithoutCancel(ctx), p.channel, rec.WeekStart, p.holder, "no prices observed in the week"); err != nil {
			return DigestDelivery{Record: rec}, err
		}
		log.Warn("digest: no prices observed in the week; nothing posted (run fitbot prices refresh, or check FITBOT_REFRESH_CRON)")
		return DigestDelivery{Record: rec}, nil
	}
	payload, err := json.Marshal(d)
	if err != nil {
		return fail(fmt.Errorf("digest: encode: %w", err))
	}
	pctx, cancel := context.WithTimeout(ctx, p.ttl/2)
	ts, err := p.slack.Post(pctx, p.channel, "", DigestMessage(d))
	cancel()
	if err != nil {
		return fail(fmt.Errorf("post digest: %w", err))
	}
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.store.MarkDigestPosted(mctx, p.channel, rec.WeekStart, p.holder, ts, payload); err != nil {
		log.Error("digest: posted, but the record of it failed", "ts", ts, "err", err)
		return DigestDelivery{Record: rec, Digest: &d, Posted: true}, fmt.Errorf("digest posted as %s but not recorded: %w", ts, err)
	}
	rec.TS, rec.PostedAt, rec.LastError = ts, p.clock().UTC(), ""
	log.Info("digest: posted", "ts", ts, "moves", len(d.Moves), "quiet", d.Quiet)
	return DigestDelivery{Record: rec, Digest: &d, Posted: true}, nil
}
