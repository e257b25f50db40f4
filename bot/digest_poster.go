package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/retry"
	"github.com/fitbot/fitbot/store"
)

// DigestStore is what the digest poster needs of the store; *store.DB
// is one.
type DigestStore interface {
	// DigestInput reads the prices, runs and plans (those scope reads)
	// the digest of the week ending at weekEnd is computed from.
	DigestInput(ctx context.Context, scope store.Scope, weekEnd time.Time, planWindow time.Duration) (digest.Input, error)
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
	Store   DigestStore
	Slack   ThreadPoster // *WebAPI, which retries 429s after Retry-After and 5xx with backoff
	Channel string       // FITBOT_DIGEST_CHANNEL, a channel id
	// Plans is the plans the digest may name: those its channel reads
	// (store.Viewer of the channel's workspace and the channel, no user).
	// The zero Scope names none.
	Plans    store.Scope
	Schedule Schedule      // when digests are due (FITBOT_DIGEST_CRON); nil: Mondays 09:00 UTC
	Digest   digest.Config // zero: digest.DefaultConfig()
	Holder   string        // names this poster in the record; "": host name and a random suffix
	ClaimTTL time.Duration // 0: DefaultDigestClaimTTL
	Logger   *slog.Logger  // nil: slog.Default()
	Models   ModelResolver // re-reads plans for Hugging Face Hub models; nil: they show their problem
	Upload   FileUploader  // nil: the digest carries no picture
	History  PriceHistory  // nil: the digest carries no picture
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
	plans    store.Scope
	schedule Schedule
	cfg      digest.Config
	holder   string
	ttl      time.Duration
	log      *slog.Logger
	clock    func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	models   ModelResolver
	upload   FileUploader
	history  PriceHistory
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
	p := &DigestPoster{store: cfg.Store, slack: cfg.Slack, channel: cfg.Channel, plans: cfg.Plans, schedule: cfg.Schedule, cfg: cfg.Digest,
		holder: cfg.Holder, ttl: cfg.ClaimTTL, log: cfg.Logger, clock: time.Now, sleep: retry.Sleep, models: cfg.Models,
		upload: cfg.Upload, history: cfg.History}
	if p.schedule == nil {
		p.schedule = mondays0900UTC{}
	}
	if p.cfg.MinSamples == 0 && p.cfg.MinChangePct == 0 && p.cfg.MinChangeUSD == 0 {
		p.cfg = digest.DefaultConfig()
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
	return end.Add(-digest.Week), end, true
}

// Build computes the digest of the week ending at end from the store.
func (p *DigestPoster) Build(ctx context.Context, end time.Time) (digest.Digest, error) {
	in, err := p.store.DigestInput(ctx, p.plans, end, p.cfg.PlanWindow)
	if err != nil {
		return digest.Digest{}, fmt.Errorf("digest for the week ending %s: %w", end.Format(time.RFC3339), err)
	}
	if p.models != nil {
		hub := answer.Service{Models: p.models}
		in.Parse = func(q string) (reading.Request, error) { return hub.Reread(ctx, q) }
	}
	return digest.Build(in, p.cfg), nil
}

// DigestDelivery is what one call of Deliver did.
type DigestDelivery struct {
	Record store.SentDigest // the week's record after the call
	Digest *digest.Digest   // the digest this call posted; nil when it posted none
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
	start := end.Add(-digest.Week)
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
	// An earlier attempt that failed or died may have posted it after
	// all (Slack took the post but answered too late): look first.
	key := digestKey(p.channel, rec.WeekStart)
	if rec.Attempts > 1 {
		if ts, found := p.findPosted(ctx, log, key, rec.WeekEnd); found {
			return p.record(ctx, log, rec, d, ts, payload, false)
		}
	}
	msg := DigestMessage(d)
	msg.once = key
	pctx, cancel := context.WithTimeout(ctx, p.ttl/2)
	ts, err := p.slack.Post(pctx, p.channel, "", msg)
	cancel()
	if err != nil {
		if ts, found := p.findPosted(ctx, log, key, rec.WeekEnd); found {
			return p.record(ctx, log, rec, d, ts, payload, false)
		}
		return fail(fmt.Errorf("post digest: %w", err))
	}
	return p.record(ctx, log, rec, d, ts, payload, true)
}

// digestKey is the idempotency key a week's digest to a channel is posted
// with (Message.once).
func digestKey(channel string, weekStart time.Time) string {
	return "digest:" + channel + ":" + weekStart.UTC().Format(time.RFC3339)
}

// postedFinder finds a message posted with an idempotency key; *WebAPI
// is one.
type postedFinder interface {
	FindPosted(ctx context.Context, channel, key string, oldest time.Time) (ts string, found bool, err error)
}

// findPosted looks for the week's digest in the channel since the week
// ended; false when it is not there or cannot be looked for.
func (p *DigestPoster) findPosted(ctx context.Context, log *slog.Logger, key string, since time.Time) (string, bool) {
	f, ok := p.slack.(postedFinder)
	if !ok {
		return "", false
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	ts, found, err := f.FindPosted(fctx, p.channel, key, since)
	if err != nil {
		log.Warn("digest: could not read the channel for an earlier post of this digest", "err", err)
		return "", false
	}
	if found {
		log.Info("digest: an earlier attempt had posted it; recording that post", "ts", ts)
	}
	return ts, found
}

// record marks the week's digest posted as ts; posted says whether this
// call posted it (else an earlier attempt had).
func (p *DigestPoster) record(ctx context.Context, log *slog.Logger, rec store.SentDigest, d digest.Digest, ts string, payload []byte, posted bool) (DigestDelivery, error) {
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.store.MarkDigestPosted(mctx, p.channel, rec.WeekStart, p.holder, ts, payload); err != nil {
		log.Error("digest: posted, but the record of it failed", "ts", ts, "err", err)
		return DigestDelivery{Record: rec, Digest: &d, Posted: posted}, fmt.Errorf("digest posted as %s but not recorded: %w", ts, err)
	}
	rec.TS, rec.PostedAt, rec.LastError = ts, p.clock().UTC(), ""
	if !posted {
		return DigestDelivery{Record: rec}, nil
	}
	log.Info("digest: posted", "ts", ts, "moves", len(d.Moves), "quiet", d.Quiet)
	p.attachChart(ctx, log, ts, d)
	return DigestDelivery{Record: rec, Digest: &d, Posted: true}, nil
}
