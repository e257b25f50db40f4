package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
	"github.com/google/go-cmp/cmp"
)

var (
	digestWeekEnd   = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	digestWeekStart = digestWeekEnd.Add(-digest.Week)
)

const digestTTL = 3 * time.Minute

// TestClaimDigestSteps walks one channel's digest through the outcomes a
// poster meets: the first claim wins; a second poster is refused while
// the claim is fresh; a dead poster's claim is taken over once it has run
// out, and the dead poster can no longer record a post; a failed post
// releases the claim for the next attempt at once; a posted digest is
// never taken again.
func TestClaimDigestSteps(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	now := digestWeekEnd
	db.Now = func() time.Time { return now }
	const ch = "C0DIGEST"

	claim := func(holder string) (SentDigest, bool) {
		t.Helper()
		rec, won, err := db.ClaimDigest(ctx, ch, digestWeekStart, digestWeekEnd, holder, digestTTL)
		if err != nil {
			t.Fatalf("ClaimDigest(%s): %v", holder, err)
		}
		return rec, won
	}
	if rec, won := claim("a"); !won || rec.ClaimedBy != "a" || rec.Attempts != 1 || rec.Posted() {
		t.Fatalf("first claim: won %v, %+v", won, rec)
	}
	now = now.Add(digestTTL - time.Second)
	if rec, won := claim("b"); won || rec.ClaimedBy != "a" {
		t.Fatalf("claim while a's is fresh: won %v, %+v", won, rec)
	}
	now = now.Add(2 * time.Second) // a died: its claim ran out
	if rec, won := claim("b"); !won || rec.ClaimedBy != "b" || rec.Attempts != 2 {
		t.Fatalf("claim after a's ran out: won %v, %+v", won, rec)
	}
	if err := db.MarkDigestPosted(ctx, ch, digestWeekStart, "a", "1764493200.000100", []byte(`{}`)); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("a marks posted after losing its claim: %v, want ErrClaimLost", err)
	}
	if err := db.ReleaseDigest(ctx, ch, digestWeekStart, "b", "chat.postMessage: channel_not_found"); err != nil {
		t.Fatal(err)
	}
	if rec, won := claim("c"); !won || rec.Attempts != 3 || rec.LastError != "chat.postMessage: channel_not_found" {
		t.Fatalf("claim after a release: won %v, %+v", won, rec)
	}
	if err := db.MarkDigestPosted(ctx, ch, digestWeekStart, "c", "1764493200.000200", []byte(`{"week_start":"2026-11-23T09:00:00Z"}`)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(24 * time.Hour)
	if rec, won := claim("d"); won || rec.TS != "1764493200.000200" || rec.ClaimedBy != "c" {
		t.Fatalf("claim of a posted digest: won %v, %+v", won, rec)
	}
	got, err := db.Digest(ctx, ch, digestWeekStart)
	if err != nil {
		t.Fatal(err)
	}
	want := SentDigest{Channel: ch, WeekStart: digestWeekStart, WeekEnd: digestWeekEnd, ClaimedBy: "c",
		ClaimedAt: digestWeekEnd.Add(digestTTL + time.Second), Attempts: 3, PostedAt: digestWeekEnd.Add(digestTTL + time.Second), TS: "1764493200.000200"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if _, err := db.Digest(ctx, "C0OTHER", digestWeekStart); !errors.Is(err, ErrNotFound) {
		t.Errorf("Digest of another channel: %v, want ErrNotFound", err)
	}
}

// TestClaimDigestRacing has sixteen posters, on two handles to one file
// as two processes would be, claim the same week: exactly one wins.
func TestClaimDigestRacing(t *testing.T) {
	db := openTest(t)
	dbs := []*DB{db, reopen(t, db)}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			_, won, err := dbs[i%2].ClaimDigest(context.Background(), "C0RACE", digestWeekStart, digestWeekEnd, string(rune('a'+i)), digestTTL)
			if err != nil {
				t.Error(err)
			}
			if won {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Errorf("%d posters won the claim, want exactly 1", got)
	}
}

func TestClaimDigestRefusesBadArguments(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name            string
		channel, holder string
		start, end      time.Time
		ttl             time.Duration
	}{
		{"no channel", "", "a", digestWeekStart, digestWeekEnd, digestTTL},
		{"no holder", "C1", "", digestWeekStart, digestWeekEnd, digestTTL},
		{"empty week", "C1", "a", digestWeekEnd, digestWeekEnd, digestTTL},
		{"no ttl", "C1", "a", digestWeekStart, digestWeekEnd, 0},
	} {
		if _, won, err := db.ClaimDigest(ctx, tc.channel, tc.start, tc.end, tc.holder, tc.ttl); err == nil || won {
			t.Errorf("%s: won %v, err %v; want an error", tc.name, won, err)
		}
	}
	if err := db.MarkDigestPosted(ctx, "C1", digestWeekStart, "a", "", nil); err == nil {
		t.Error("MarkDigestPosted with no timestamp: no error")
	}
}

// TestDigestInputReadsTwoWeeks checks the digest's reads: observations
// and runs of the two weeks before the week's end, not after it, and
// plans of the plan window only.
func TestDigestInputReadsTwoWeeks(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	day := 24 * time.Hour
	at := []time.Time{digestWeekEnd.Add(-15 * day), digestWeekEnd.Add(-10 * day), digestWeekEnd.Add(-3 * day), digestWeekEnd.Add(day)}
	for i, t0 := range at {
		o := []pricing.Offer{offer("aws", "h100", 8, pricing.MarketOnDemand, "us-east-1", "p5.48xlarge", 98.32-float64(i), t0)}
		saveRun(t, db, okRun("aws", t0, o), o)
	}
	saveRun(t, db, pricing.Run{Provider: "gcp", Started: at[2], Finished: at[2], AsOf: at[2], Status: pricing.RunFailed, Error: "403"}, nil)
	for _, created := range []time.Time{digestWeekEnd.Add(-100 * day), digestWeekEnd.Add(-5 * day), digestWeekEnd.Add(time.Hour)} {
		p := samplePlan("mistral-7b-v0.1", created)
		if _, err := db.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	in, err := db.DigestInput(ctx, AllPlans(), digestWeekEnd, 90*day)
	if err != nil {
		t.Fatal(err)
	}
	var obsAt, runAt, planAt []time.Time
	for _, o := range in.Observations {
		obsAt = append(obsAt, o.ObservedAt)
	}
	for _, r := range in.Runs {
		runAt = append(runAt, r.Started)
	}
	for _, p := range in.Plans {
		planAt = append(planAt, p.CreatedAt)
	}
	if diff := cmp.Diff([]time.Time{at[1], at[2]}, obsAt); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Time{at[1], at[2], at[2]}, runAt); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Time{digestWeekEnd.Add(-5 * day)}, planAt); diff != "" {
		t.Errorf("plans (-want +got):\n%s", diff)
	}
	if in.Fallback == nil || !in.WeekEnd.Equal(digestWeekEnd) {
		t.Errorf("input: fallback %v, week end %v", in.Fallback, in.WeekEnd)
	}
}

// BenchmarkDigestInput reads two weeks of a fleet's prices for the
// digest: 400 offers refreshed every six hours (22,400 observations in
// 56 runs) and 100 plans.
func BenchmarkDigestInput(b *testing.B) {
	db := openAt(b, filepath.Join(b.TempDir(), "fitbot.db"), nil, -1)
	ctx := context.Background()
	for step := range 14 * 4 {
		at := digestWeekEnd.Add(-14*24*time.Hour + time.Duration(step)*6*time.Hour)
		offers := make([]pricing.Offer, 400)
		for i := range offers {
			offers[i] = offer("aws", "h100", 8, pricing.MarketOnDemand, fmt.Sprintf("region-%d", i%40), fmt.Sprintf("sku-%d", i/40), 50+float64(i%13), at)
		}
		if _, err := db.SaveRun(ctx, okRun("aws", at, offers), offers); err != nil {
			b.Fatal(err)
		}
	}
	if err := fillPlans(ctx, db, 100); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		in, err := db.DigestInput(ctx, AllPlans(), digestWeekEnd, 90*24*time.Hour)
		if err != nil || len(in.Observations) != 22400 {
			b.Fatalf("%d observations, %v", len(in.Observations), err)
		}
	}
}

// TestDigestInputReadsEveryQuestionOfTheWindow: the digest reads each
// distinct question of the window once, however many plans the window
// holds (here 1,500 questions, every third asked twice: more than the
// 1,000 plans it used to stop at), newest ask first, with its count.
func TestDigestInputReadsEveryQuestionOfTheWindow(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	weekEnd := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	const questions = 1500
	for i := range questions {
		asks := 1
		if i%3 == 0 {
			asks = 2
		}
		for a := range asks {
			p := samplePlan("mistral-7b-v0.1", weekEnd.Add(-time.Duration(i*2+a+1)*time.Minute))
			p.Canonical = fmt.Sprintf("mistral-7b-v0.1 lora rtx-4090 seq %d", 1000+i)
			if _, err := db.SavePlan(ctx, &p); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := samplePlan("mistral-7b-v0.1", weekEnd.AddDate(0, 0, -100)) // outside the 90-day window
	if _, err := db.SavePlan(ctx, &old); err != nil {
		t.Fatal(err)
	}
	in, err := db.DigestInput(ctx, AllPlans(), weekEnd, 90*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Plans) != questions {
		t.Fatalf("%d plans read, want one per question: %d", len(in.Plans), questions)
	}
	saved := 0
	for i, p := range in.Plans {
		want := 1
		if i%3 == 0 {
			want = 2
		}
		if p.Asked != want || p.Canonical != fmt.Sprintf("mistral-7b-v0.1 lora rtx-4090 seq %d", 1000+i) {
			t.Fatalf("plan %d: %q asked %d, want seq %d asked %d", i, p.Canonical, p.Asked, 1000+i, want)
		}
		if want == 2 && !p.CreatedAt.Equal(weekEnd.Add(-time.Duration(i*2+1)*time.Minute)) {
			t.Errorf("plan %d is the ask of %v, want the newest", i, p.CreatedAt)
		}
		saved += p.Asked
	}
	if saved != questions+questions/3 {
		t.Errorf("the counts add up to %d plans, want %d", saved, questions+questions/3)
	}
}
