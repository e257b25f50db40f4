package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowSlack takes every chat.postMessage (the message is posted) but
// answers after delay, as the fault report's Slack did; its
// conversations.history lists what was posted, with its metadata.
type slowSlack struct {
	delay time.Duration
	mu    sync.Mutex
	posts []url.Values
}

func (s *slowSlack) postMessage(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	s.mu.Lock()
	s.posts = append(s.posts, form)
	s.mu.Unlock()
	select {
	case <-time.After(s.delay):
	case <-r.Context().Done():
	}
	w.Header().Set("Content-Type", "application/json")
	data, _ := os.ReadFile("testdata/slack/chat_postMessage_ok.json")
	w.Write(data)
}

func (s *slowSlack) history(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	defer s.mu.Unlock()
	tmpl, _ := os.ReadFile("testdata/slack/conversations_history_posted.json")
	var doc map[string]any
	if len(s.posts) == 0 || r.Form.Get("include_all_metadata") != "1" {
		json.Unmarshal(tmpl, &doc)
		doc["messages"] = []any{}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
		return
	}
	var meta struct {
		EventType    string         `json:"event_type"`
		EventPayload map[string]any `json:"event_payload"`
	}
	json.Unmarshal([]byte(s.posts[0].Get("metadata")), &meta)
	key, _ := meta.EventPayload["key"].(string)
	body := strings.NewReplacer("TEXT", "digest", "TS", "1764493200.000101", "EVENT_TYPE", meta.EventType, "KEY", key).Replace(string(tmpl))
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, body)
}

func (s *slowSlack) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.posts)
}

// TestDigestOnceWhenSlackIsSlow: Slack takes the digest but answers after
// the client gave up (a 5 s answer to a 300 ms client; the report's was
// over 30 s to a 30 s one). The poster does not post it again, in the
// same run or the next ones, nor does a second instance: it finds its own
// post in the channel (by the idempotency key in the message's metadata)
// and records it.
func TestDigestOnceWhenSlackIsSlow(t *testing.T) {
	f := newDigestFixture(t)
	slow := &slowSlack{delay: 5 * time.Second}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/chat.postMessage", slow.postMessage)
	mux.HandleFunc("/api/conversations.history", slow.history)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	api := NewSlackClient("xoxb-test-bot-token", "", srv.URL+"/api", &http.Client{Timeout: 300 * time.Millisecond})
	web, err := NewWebAPI(WebAPIConfig{API: api, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	web.sleep = func(context.Context, time.Duration) error { return nil }
	f.web = web
	for _, holder := range []string{"one", "one", "two"} {
		p := f.poster(t, f.db, holder)
		if err := p.PostWeekly(context.Background(), digestDue); err != nil {
			t.Logf("%s: %v", holder, err)
		}
	}
	if n := slow.calls(); n != 1 {
		t.Errorf("chat.postMessage called %d times, want 1", n)
	}
	rec, _, err := f.db.ClaimDigest(context.Background(), "C0DIGEST", digestDue.Add(-7*24*time.Hour), digestDue, "check", time.Minute)
	if err != nil || rec.TS != "1764493200.000101" {
		t.Errorf("the week's record: ts %q, %v; want the post found in the channel", rec.TS, err)
	}
	slow.mu.Lock()
	defer slow.mu.Unlock()
	if m := slow.posts[0].Get("metadata"); !strings.Contains(m, `"event_type":"fitbot_post"`) || !strings.Contains(m, "digest:C0DIGEST:2026-11-23T09:00:00Z") {
		t.Errorf("the digest was posted without its key: metadata %q", m)
	}
}
