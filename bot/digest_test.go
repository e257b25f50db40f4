package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/internal/fakeclock"
	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

var _ DigestStore = (*store.DB)(nil)

// loadDigest reads a digest model golden of package pricing, so that the
// rendering is pinned on exactly the model its tests pin.
func loadDigest(t *testing.T, name string) digest.Digest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "digest", "testdata", "digest", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d digest.Digest
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDigestGolden pins the digest's Block Kit and plain text for a busy
// week (pricing.md's moves; the thin Vast sample is absent) and a quiet
// one. Run `go test ./bot -run DigestGolden -update` after an intended
// change and review the diff.
func TestDigestGolden(t *testing.T) {
	for _, name := range []string{"week", "quiet"} {
		t.Run(name, func(t *testing.T) {
			d := loadDigest(t, name)
			msg := DigestMessage(d)
			checkLimits(t, msg)
			raw, err := msg.encode()
			if err != nil {
				t.Fatal(err)
			}
			var blocks bytes.Buffer
			if err := json.Indent(&blocks, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			blocks.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "digest", name+".json"), blocks.Bytes())
			golden.Check(t, filepath.Join("testdata", "digest", name+".txt"), []byte(DigestText(d)))

			var back slack.Blocks
			if err := json.Unmarshal(mustField(t, blocks.Bytes(), "blocks"), &back); err != nil {
				t.Errorf("slack-go cannot read the blocks back: %v", err)
			}
			text := DigestText(d)
			if strings.Contains(text, "verified-median · median of 4") || strings.Contains(text, "$6.15") {
				t.Errorf("the thin Vast H100 sample is reported:\n%s", text)
			}
		})
	}
}

// TestDigestWithinSlackLimits renders a digest far past every limit and
// checks that the message stays within Slack's and says what it left out.
func TestDigestWithinSlackLimits(t *testing.T) {
	d := loadDigest(t, "week")
	long := strings.Repeat("can we fine-tune a very large model on whatever is cheapest this week ", 40)
	for i := range 300 {
		m := d.Moves[i%len(d.Moves)]
		m.InstanceType = fmt.Sprintf("%s-%d", m.InstanceType, i)
		d.Moves = append(d.Moves, m)
		c := d.NewOffers[0]
		c.Regions = []string{fmt.Sprintf("region-%d", i)}
		c.InstanceType = strings.Repeat("x", 200)
		d.NewOffers = append(d.NewOffers, c)
		p := d.Plans[0]
		p.Question = long
		d.Plans = append(d.Plans, p)
		d.Cheapest = append(d.Cheapest, digest.Cheapest{GPU: fmt.Sprintf("gpu-%03d", i), Market: pricing.MarketOnDemand,
			Now: &digest.PricePoint{USDPerGPUHour: 1, Provider: "p"}})
		d.StaleSources = append(d.StaleSources, digest.SourceHealth{Provider: fmt.Sprintf("p%d", i), Reason: "failed", LastError: long})
	}
	d.Sources = len(d.StaleSources) + 1
	msg := DigestMessage(d)
	checkLimits(t, msg)
	raw, err := msg.encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"and 300 more", "and 296 more", "more GPUs"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("message does not say %q", want)
		}
	}
}

// digestFixture is a real store with two weeks of prices, the plans of
// the pricing goldens' week, and a fake Slack.
type digestFixture struct {
	db  *store.DB
	rec *postRecorder
	web *WebAPI
	now *fakeclock.Clock
}

func newDigestFixture(t *testing.T, script ...scriptedReply) *digestFixture {
	t.Helper()
	f := &digestFixture{now: fakeclock.New(digestDue)}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = f.now.Now
	f.db = db
	f.rec = newPostRecorder(script...)
	f.web, _ = newTestWebAPI(t, f.rec, nil)
	day := 24 * time.Hour
	for _, at := range []time.Time{digestDue.Add(-10 * day), digestDue.Add(-3 * day)} {
		price := 98.32
		if at.After(digestDue.Add(-digest.Week)) {
			price = 55.04
		}
		o := []pricing.Offer{{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand,
			Region: "us-east-1", USDPerHour: price, USDPerGPUHour: price / 8, Source: "fixture", ObservedAt: at, Samples: 1}}
		if _, err := db.SaveRun(context.Background(), pricing.Run{Provider: "aws", Started: at, Finished: at, AsOf: at, Status: pricing.RunOK, Rows: 1}, o); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// digestDue is a Monday 09:00 UTC, when the default schedule posts.
var digestDue = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// poster is one fitbot instance's digest poster; its waits advance the
// fixture's clock instead of sleeping.
func (f *digestFixture) poster(t *testing.T, db DigestStore, holder string) *DigestPoster {
	t.Helper()
	p, err := NewDigestPoster(DigestPosterConfig{Store: db, Slack: f.web, Channel: "C0DIGEST", Holder: holder,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	p.clock = f.now.Now
	p.sleep = func(ctx context.Context, d time.Duration) error {
		f.now.Advance(d)
		return ctx.Err()
	}
	return p
}

// TestPostWeeklyOnce runs the scheduler's job twice for one week, then at
// a restart later that week, and sees one post; the next week gets its
// own.
func TestPostWeeklyOnce(t *testing.T) {
	f := newDigestFixture(t)
	ctx := context.Background()
	p := f.poster(t, f.db, "one")
	for _, at := range []time.Time{digestDue, digestDue.Add(time.Second), digestDue.Add(50 * time.Hour)} {
		if err := p.PostWeekly(ctx, at); err != nil {
			t.Fatalf("PostWeekly(%v): %v", at, err)
		}
	}
	posts := f.rec.posted()
	if len(posts) != 1 {
		t.Fatalf("%d posts for one week, want 1", len(posts))
	}
	if posts[0].Channel != "C0DIGEST" || !strings.Contains(posts[0].Text, "1 notable move") || len(posts[0].Blocks) == 0 {
		t.Errorf("post = %+v", posts[0])
	}
	rec, err := f.db.Digest(ctx, "C0DIGEST", digestDue.Add(-digest.Week))
	if err != nil || rec.TS != "1764464401.000300" || rec.Attempts != 1 {
		t.Errorf("record = %+v, %v; want the post's ts after one attempt", rec, err)
	}
	at := digestDue.Add(2 * 24 * time.Hour)
	o := []pricing.Offer{{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand,
		Region: "us-east-1", USDPerHour: 55.04, USDPerGPUHour: 6.88, Source: "fixture", ObservedAt: at, Samples: 1}}
	if _, err := f.db.SaveRun(ctx, pricing.Run{Provider: "aws", Started: at, Finished: at, AsOf: at, Status: pricing.RunOK, Rows: 1}, o); err != nil {
		t.Fatal(err)
	}
	if err := p.PostWeekly(ctx, digestDue.Add(digest.Week)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.rec.posted()); n != 2 {
		t.Errorf("%d posts after the next week's run, want 2", n)
	}
}

// TestPostWeeklyTwoInstances has two instances on one database file run
// the job at the same moment: one post.
func TestPostWeeklyTwoInstances(t *testing.T) {
	f := newDigestFixture(t)
	other, err := store.Open(context.Background(), f.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	other.Now = f.now.Now
	posters := []*DigestPoster{f.poster(t, f.db, "a"), f.poster(t, other, "b")}
	for _, p := range posters {
		// The loser polls until the winner's post lands; the clock stands
		// still, as it would in the milliseconds a real post takes.
		p.sleep = func(ctx context.Context, _ time.Duration) error {
			time.Sleep(time.Millisecond)
			return ctx.Err()
		}
	}
	var wg sync.WaitGroup
	for _, p := range posters {
		wg.Go(func() {
			if err := p.PostWeekly(context.Background(), digestDue); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(f.rec.posted()); n != 1 {
		t.Errorf("%d posts from two instances, want 1", n)
	}
}

// TestPostWeeklyAfterCrash simulates an instance that recorded the week's
// digest and died before posting: after the restart the digest is posted
// exactly once, when the dead instance's claim has run out.
func TestPostWeeklyAfterCrash(t *testing.T) {
	f := newDigestFixture(t)
	ctx := context.Background()
	if _, won, err := f.db.ClaimDigest(ctx, "C0DIGEST", digestDue.Add(-digest.Week), digestDue, "crashed/0000", DefaultDigestClaimTTL); err != nil || !won {
		t.Fatalf("the crashed instance's claim: won %v, %v", won, err)
	}
	f.now.Advance(30 * time.Second) // the restart
	p := f.poster(t, f.db, "restarted")
	for range 2 {
		if err := p.PostWeekly(ctx, f.now.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.rec.posted()); n != 1 {
		t.Fatalf("%d posts after the restart, want 1", n)
	}
	rec, err := f.db.Digest(ctx, "C0DIGEST", digestDue.Add(-digest.Week))
	if err != nil || rec.ClaimedBy != "restarted" || rec.Attempts != 2 || rec.TS == "" {
		t.Errorf("record = %+v, %v", rec, err)
	}
	if waited := f.now.Now().Sub(digestDue); waited < DefaultDigestClaimTTL {
		t.Errorf("posted %v after the crashed claim, before it ran out (%v)", waited, DefaultDigestClaimTTL)
	}
}

// TestPostWeeklyRetriesAfterFailure: Slack refuses the post; the record
// keeps why and the next run (the next start) posts once.
func TestPostWeeklyRetriesAfterFailure(t *testing.T) {
	notFound := scriptedReply{status: http.StatusOK, file: "chat_postMessage_channel_not_found.json"}
	f := newDigestFixture(t, notFound, replyOK)
	ctx := context.Background()
	err := f.poster(t, f.db, "first").PostWeekly(ctx, digestDue)
	if err == nil || !strings.Contains(err.Error(), "channel_not_found") || strings.Contains(err.Error(), "xoxb-") {
		t.Fatalf("failed post: %v; want channel_not_found, without the token", err)
	}
	rec, err := f.db.Digest(ctx, "C0DIGEST", digestDue.Add(-digest.Week))
	if err != nil || rec.Posted() || rec.ClaimedBy != "" || !strings.Contains(rec.LastError, "channel_not_found") {
		t.Fatalf("record after the failure = %+v, %v", rec, err)
	}
	if err := f.poster(t, f.db, "second").PostWeekly(ctx, digestDue.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if calls := f.rec.calls(); calls != 2 {
		t.Errorf("%d calls to chat.postMessage, want 2 (the refused one and the retry)", calls)
	}
	if rec, err := f.db.Digest(ctx, "C0DIGEST", digestDue.Add(-digest.Week)); err != nil || rec.TS == "" || rec.Attempts != 2 {
		t.Errorf("record after the retry = %+v, %v", rec, err)
	}
	if err := f.poster(t, f.db, "third").PostWeekly(ctx, digestDue.Add(2*time.Hour)); err != nil || f.rec.calls() != 2 {
		t.Errorf("a third run: %v, %d calls; want no new call", err, f.rec.calls())
	}
}

// TestPostWeeklyRateLimited: a 429 with Retry-After is waited out and the
// digest posted once.
func TestPostWeeklyRateLimited(t *testing.T) {
	rateLimited := scriptedReply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "3"}, file: "chat_postMessage_ratelimited.json"}
	f := newDigestFixture(t, rateLimited, replyOK)
	var waits []time.Duration
	f.web.sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	if err := f.poster(t, f.db, "one").PostWeekly(context.Background(), digestDue); err != nil {
		t.Fatal(err)
	}
	if calls, posts := f.rec.calls(), len(f.rec.posted()); calls != 2 || posts != 1 {
		t.Errorf("%d calls, %d posts; want 2 and 1", calls, posts)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// everyDay9 is a daily schedule at 09:00 UTC.
type everyDay9 struct{}

func (everyDay9) Next(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 9, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// monthly is a schedule on the first of the month at 09:00 UTC.
type monthly struct{}

func (monthly) Next(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), 1, 9, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(0, 1, 0)
	}
	return d
}

func TestDigestWeek(t *testing.T) {
	tests := []struct {
		name     string
		schedule Schedule
		now      time.Time
		wantEnd  time.Time
		wantOK   bool
	}{
		{"default, at the due time", nil, digestDue, digestDue, true},
		{"default, a second early: last week's", nil, digestDue.Add(-time.Second), digestDue.Add(-digest.Week), true},
		{"default, catch-up on Wednesday", nil, digestDue.Add(50 * time.Hour), digestDue, true},
		{"default, Sunday night", nil, digestDue.Add(6*24*time.Hour + 14*time.Hour), digestDue, true},
		{"daily", everyDay9{}, digestDue.Add(26 * time.Hour), digestDue.Add(24 * time.Hour), true},
		{"monthly, on the day", monthly{}, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), true},
		{"monthly, mid-month", monthly{}, time.Date(2026, 12, 15, 10, 0, 0, 0, time.UTC), time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewDigestPoster(DigestPosterConfig{Store: (*store.DB)(nil), Slack: &WebAPI{}, Channel: "C1", Holder: "h", Schedule: tt.schedule})
			if err != nil {
				t.Fatal(err)
			}
			start, end, ok := p.Week(tt.now)
			if ok != tt.wantOK || !end.Equal(tt.wantEnd) || (ok && !start.Equal(end.Add(-digest.Week))) {
				t.Errorf("Week(%v) = %v, %v, %v; want end %v, %v", tt.now, start, end, ok, tt.wantEnd, tt.wantOK)
			}
		})
	}
}

func TestNewDigestPosterRequires(t *testing.T) {
	for _, cfg := range []DigestPosterConfig{
		{Slack: &WebAPI{}, Channel: "C1"},
		{Store: (*store.DB)(nil), Channel: "C1"},
		{Store: (*store.DB)(nil), Slack: &WebAPI{}},
	} {
		if _, err := NewDigestPoster(cfg); err == nil {
			t.Errorf("NewDigestPoster(%+v): no error", cfg)
		}
	}
}

// TestPostWeeklyWithoutPrices: a store with no prices in the week posts
// nothing and is no error; the week is posted once prices arrive.
func TestPostWeeklyWithoutPrices(t *testing.T) {
	f := newDigestFixture(t)
	ctx := context.Background()
	p := f.poster(t, f.db, "one")
	later := digestDue.Add(2 * digest.Week)
	if err := p.PostWeekly(ctx, later); err != nil {
		t.Fatal(err)
	}
	if n := f.rec.calls(); n != 0 {
		t.Fatalf("%d posts without prices, want 0", n)
	}
	at := later.Add(-time.Hour)
	o := []pricing.Offer{{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand,
		Tier: "community", Region: "all", USDPerHour: 2.69, USDPerGPUHour: 2.69, Source: "fixture", ObservedAt: at, Samples: 1}}
	if _, err := f.db.SaveRun(ctx, pricing.Run{Provider: "runpod", Started: at, Finished: at, AsOf: at, Status: pricing.RunOK, Rows: 1}, o); err != nil {
		t.Fatal(err)
	}
	if err := p.PostWeekly(ctx, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.rec.posted()); n != 1 {
		t.Errorf("%d posts once prices arrived, want 1", n)
	}
}

// TestDigestEscapesQuestions: a plan's question is the team's text; in
// the channel digest a mention or <!channel> in it must not ping anyone.
func TestDigestEscapesQuestions(t *testing.T) {
	d := loadDigest(t, "week")
	d.Plans[0].Question = "<!channel> can <@U123> fit 70b & more?"
	raw, err := DigestMessage(d).encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "<!channel>") || strings.Contains(string(raw), "<@U123>") {
		t.Errorf("a mention reached the digest unescaped:\n%s", raw)
	}
	if !strings.Contains(string(raw), "&lt;!channel&gt; can &lt;@U123&gt; fit 70b &amp; more?") {
		t.Errorf("the question is not shown escaped:\n%s", raw)
	}
}
