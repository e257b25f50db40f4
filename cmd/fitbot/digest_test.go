package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
)

// digestAt is a Monday 09:00 UTC, when the default schedule posts.
const digestAt = "2026-11-30T09:00:00Z"

// seedDigestPrices stores two weeks of AWS and Vast prices at path: the
// p5.48xlarge cut of pricing.md ($98.32 → $55.04) and a Vast H100 median
// of too few offers ($6.15, n=3 → $2.40, n=4).
func seedDigestPrices(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	end, _ := time.Parse(time.RFC3339, digestAt)
	for _, w := range []struct {
		at        time.Time
		aws, vast float64
		n         int
	}{{end.Add(-10 * 24 * time.Hour), 98.32, 6.15, 3}, {end.Add(-3 * 24 * time.Hour), 55.04, 2.40, 4}} {
		for _, p := range []struct {
			name   string
			offers []pricing.Offer
		}{
			{"aws", []pricing.Offer{{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand,
				Region: "us-east-1", USDPerHour: w.aws, USDPerGPUHour: w.aws / 8, Source: "test", ObservedAt: w.at, Samples: 1}}},
			{"vast", []pricing.Offer{{Provider: "vast", InstanceType: "verified-median", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand,
				Region: "all", USDPerHour: w.vast, USDPerGPUHour: w.vast, Source: "test", ObservedAt: w.at, Samples: w.n}}},
		} {
			run := pricing.Run{Provider: p.name, Started: w.at, Finished: w.at, AsOf: w.at, Status: pricing.RunOK, Rows: 1}
			if _, err := db.SaveRun(ctx, run, p.offers); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// digestSlack records chat.postMessage calls and answers ok.
type digestSlack struct {
	mu    sync.Mutex
	posts []url.Values
}

func (f *digestSlack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	f.mu.Lock()
	f.posts = append(f.posts, form)
	n := len(f.posts)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": form.Get("channel"), "ts": "1764493200.00010" + string(rune('0'+n))})
}

func TestDigestDryRun(t *testing.T) {
	seedDigestPrices(t, useDB(t))
	t.Setenv("FITBOT_DIGEST_CHANNEL", "")
	t.Setenv("SLACK_BOT_TOKEN", "")
	code, out, errOut := runCmd(t, "digest", "--dry-run", "--at", digestAt)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"GPU prices this week: 1 notable move", "p5.48xlarge 8× in us-east-1: $12.29 → $6.88/GPU-h (−$5.41, −44.0%)",
		"1 marketplace comparison left out", "week of Mon Nov 23 09:00 – Mon Nov 30 09:00 UTC"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "$6.15") {
		t.Errorf("the thin Vast sample is reported:\n%s", out)
	}
}

// TestDigestJSONKeys checks the --json contract of DESIGN.md.
func TestDigestJSONKeys(t *testing.T) {
	seedDigestPrices(t, useDB(t))
	code, out, errOut := runCmd(t, "digest", "--json", "--dry-run", "--at", digestAt)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"week_start", "week_end", "moves", "new_offers", "removed_offers", "cheapest", "plans", "stale_sources"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	var moves []map[string]any
	if err := json.Unmarshal(doc["moves"], &moves); err != nil || len(moves) != 1 {
		t.Fatalf("moves = %s, %v; want one", doc["moves"], err)
	}
	want := map[string]any{"gpu": "h100", "provider": "aws", "market": "on_demand", "old_usd_per_gpu_hour": 12.29, "new_usd_per_gpu_hour": 6.88, "change_pct": -44.0}
	for k, v := range want {
		if moves[0][k] != v {
			t.Errorf("move %s = %v, want %v", k, moves[0][k], v)
		}
	}
	if got := string(doc["week_start"]); got != `"2026-11-23T09:00:00Z"` {
		t.Errorf("week_start = %s", got)
	}
}

// TestDigestPostsOnce posts through a fake Slack twice for one week: one
// post, and the second run says it was posted already.
func TestDigestPostsOnce(t *testing.T) {
	seedDigestPrices(t, useDB(t))
	slack := &digestSlack{}
	mux := http.NewServeMux()
	mux.Handle("/api/chat.postMessage", slack)
	mux.HandleFunc("/api/auth.test", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(readServeTestdata(t, "auth_test.json"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	t.Setenv("SLACK_API_URL", srv.URL+"/api/")
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-digest-test-token")
	t.Setenv("FITBOT_DIGEST_CHANNEL", "C0DIGEST")
	t.Setenv("FITBOT_DIGEST_CRON", "")

	code, out, errOut := runCmd(t, "digest", "--at", digestAt)
	if code != exitOK || !strings.Contains(out, "Posted the digest for the week of Nov 23 09:00 – Nov 30 09:00 UTC to C0DIGEST (message 1764493200.000101)") {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "digest", "--json", "--at", digestAt)
	if code != exitOK || !strings.Contains(errOut, "was already posted to C0DIGEST") || !json.Valid([]byte(out)) {
		t.Fatalf("second run: exit %d\n%s%s", code, out, errOut)
	}
	slack.mu.Lock()
	defer slack.mu.Unlock()
	if len(slack.posts) != 1 {
		t.Fatalf("%d posts, want 1", len(slack.posts))
	}
	p := slack.posts[0]
	if p.Get("channel") != "C0DIGEST" || !strings.Contains(p.Get("text"), "1 notable move") || !json.Valid([]byte(p.Get("blocks"))) {
		t.Errorf("post = %v", p)
	}
	if strings.Contains(out+errOut, "xoxb-") {
		t.Error("the token was printed")
	}
}

func TestDigestProblems(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		seed     bool
		wantCode int
		wantErr  []string
	}{
		{"bad --at", []string{"--dry-run", "--at", "monday"}, nil, true, exitUsage, []string{`--at "monday" is not an RFC 3339 time`, "Try: --at 2026-11-30T09:00:00Z"}},
		{"words", []string{"--dry-run", "h100"}, nil, true, exitUsage, []string{"digest takes no words"}},
		{"unknown flag", []string{"--dryrun"}, nil, true, exitUsage, []string{"flag provided but not defined: -dryrun"}},
		{"post without a channel", []string{"--at", digestAt}, map[string]string{"SLACK_BOT_TOKEN": "xoxb-x"}, true, exitFailure,
			[]string{"FITBOT_DIGEST_CHANNEL: is not set: posting the digest needs it", "--dry-run"}},
		{"a user token", []string{"--at", digestAt}, map[string]string{"SLACK_BOT_TOKEN": "xoxp-1-2-3-userfaketoken", "FITBOT_DIGEST_CHANNEL": "C0DIGEST"}, true, exitFailure,
			[]string{"SLACK_BOT_TOKEN: is not a bot token: it should start with xoxb-"}},
		{"a channel name", []string{"--at", digestAt}, map[string]string{"SLACK_BOT_TOKEN": "xoxb-x", "FITBOT_DIGEST_CHANNEL": "#gpu-prices"}, true, exitFailure,
			[]string{`FITBOT_DIGEST_CHANNEL "#gpu-prices": is not a channel id`}},
		{"no database", []string{"--dry-run"}, nil, false, exitFailure, []string{"there is no database at", "fitbot prices refresh"}},
		{"a week without prices", []string{"--at", "2027-01-04T09:00:00Z", "--workspace", "T1DC2JH3J"}, map[string]string{"SLACK_BOT_TOKEN": "xoxb-x", "FITBOT_DIGEST_CHANNEL": "C0DIGEST"}, true, exitFailure,
			[]string{"no prices were observed in the week of Dec 28 09:00 – Jan 4 09:00 UTC; nothing posted"}},
		{"bad workspace", []string{"--dry-run", "--workspace", "acme"}, nil, true, exitUsage, []string{`--workspace "acme" is not a Slack team id`}},
		{"auth.test fails", []string{"--at", digestAt}, map[string]string{"SLACK_BOT_TOKEN": "xoxb-x", "FITBOT_DIGEST_CHANNEL": "C0DIGEST"}, true, exitFailure,
			[]string{"SLACK_BOT_TOKEN: Slack's auth.test failed", "--workspace"}},
		{"bad cron", []string{"--dry-run"}, map[string]string{"FITBOT_DIGEST_CRON": "every monday"}, true, exitFailure, []string{"FITBOT_DIGEST_CRON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := useDB(t)
			if tt.seed {
				seedDigestPrices(t, path)
			}
			for _, k := range []string{"FITBOT_DIGEST_CHANNEL", "SLACK_BOT_TOKEN", "FITBOT_DIGEST_CRON"} {
				t.Setenv(k, tt.env[k])
			}
			t.Setenv("SLACK_API_URL", "http://127.0.0.1:1/api/") // never the real Slack
			code, _, errOut := runCmd(t, append([]string{"digest"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, errOut)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if slices.Contains(tt.args, "--dry-run") && strings.Contains(errOut, "Posted") {
				t.Error("a dry run posted")
			}
		})
	}
}
