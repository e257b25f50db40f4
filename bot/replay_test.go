package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// TestReplayedSlashCommandAnsweredOnce: a signed slash command sent again
// within the signature window (the fault report's replay) is answered
// once: the second gets an empty 200 and keeps no second plan; a new
// command (another signature) is answered as usual.
func TestReplayedSlashCommandAnsweredOnce(t *testing.T) {
	h, db := newRealHandler(t)
	now := testNow
	endpoints, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	endpoints.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	send := func(body string, at time.Time) (int, string) {
		ts := strconv.FormatInt(at.Unix(), 10)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/slack/commands", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(headerTimestamp, ts)
		req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, []byte(body)))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	body := "team_id=T1DC2JH3J&channel_id=C0FITBOT&channel_name=ml-infra&user_id=U2CERLKJA&command=%2Ffit&text=13B+lora+4090&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1&trigger_id=1.2.3"
	signedAt := now
	if code, reply := send(body, signedAt); code != http.StatusOK || !strings.Contains(reply, "as plan 1") {
		t.Fatalf("first: %d %s", code, reply)
	}
	now = now.Add(4 * time.Minute) // still inside the 5-minute window
	if code, reply := send(body, signedAt); code != http.StatusOK || reply != "" {
		t.Errorf("the replay: %d %q, want an empty 200", code, reply)
	}
	if code, reply := send(body, now); code != http.StatusOK || !strings.Contains(reply, "as plan 2") {
		t.Errorf("the same words signed anew: %d %s", code, reply)
	}
	plans, err := db.RecentPlans(context.Background(), store.AllPlans(), time.Time{}, 0)
	if err != nil || len(plans) != 2 {
		t.Errorf("%d plans kept, want 2 (%v)", len(plans), err)
	}
}

// TestReplayGuardBounded: the guard forgets what expired and, past its
// bound, the oldest, so its memory stays bounded.
func TestReplayGuardBounded(t *testing.T) {
	var g replayGuard
	now := testNow
	for i := range replayMax + 500 {
		if !g.first("v0="+strconv.Itoa(i), now) {
			t.Fatalf("signature %d seen before", i)
		}
	}
	if len(g.seen) > replayMax {
		t.Errorf("%d signatures kept, bound %d", len(g.seen), replayMax)
	}
	if g.first("v0="+strconv.Itoa(replayMax+499), now) {
		t.Error("the newest signature was forgotten")
	}
	if !g.first("v0=0", now) {
		t.Error("the oldest signature was kept past the bound")
	}
	now = now.Add(2*SignatureWindow + time.Second)
	if !g.first("v0="+strconv.Itoa(replayMax+499), now) {
		t.Error("a signature past the window is still refused")
	}
}
