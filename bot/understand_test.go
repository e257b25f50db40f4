package bot

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// conversation is fitbot behind its real HTTP endpoints, with a fake
// Slack Web API recording what it posts and a real SQLite store: slash
// commands come back in the response, mentions as posts.
type conversation struct {
	t      *testing.T
	h      *Handler
	srv    *httptest.Server
	rec    *postRecorder
	db     *store.DB
	events int
}

func newConversation(t *testing.T, change func(*Config)) *conversation {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newTestHandler(t, func(c *Config) {
		est := Fixed{&sizing.Estimator{}}
		c.Parse, c.Answer, c.Ask, c.Plans, c.Hardware = sizing.Parse, est, est, db, db
		if change != nil {
			change(c)
		}
	})
	rec := newPostRecorder()
	metrics := NewMetrics()
	api, _ := newTestWebAPI(t, rec, metrics)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	events, err := NewEvents(EventsConfig{Handler: h, Seen: db, Post: api, Threads: db, BotUserID: testBotUser, BotID: "B0FITBOT",
		Metrics: metrics, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Events: events, Logger: quiet, Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	endpoints.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &conversation{t: t, h: h, srv: srv, rec: rec, db: db}
}

// slash sends `/fit text` signed as Slack does and returns the text and
// blocks of the immediate reply.
func (c *conversation) slash(text string) string {
	c.t.Helper()
	form, err := url.ParseQuery(string(readTestdata(c.t, "slash_command.form")))
	if err != nil {
		c.t.Fatal(err)
	}
	form.Set("text", text)
	form.Set("response_url", c.srv.URL+"/late") // never reached by a quick answer
	body := []byte(form.Encode())
	req, err := http.NewRequest(http.MethodPost, c.srv.URL+"/slack/commands", bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	ts := strconv.FormatInt(testNow.Unix(), 10)
	req.Header.Set("Content-Type", formType)
	req.Header.Set(headerTimestamp, ts)
	req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("/fit %s: status %d, %v", text, resp.StatusCode, err)
	}
	c.h.Wait()
	return string(reply)
}

// mention posts "@fitbot text" in a channel and returns fitbot's post,
// text and blocks.
func (c *conversation) mention(text string) string {
	c.t.Helper()
	c.events++
	n := strconv.Itoa(c.events)
	body := strings.NewReplacer("llama 3.1 8b full finetune on a 4090", jsonText(text), "Ev0FITBOT10", "Ev0UND"+n,
		"1764466000.000100", "1764467"+n+"00.000100").Replace(string(readTestdata(c.t, "thread_mention.json")))
	before := len(c.rec.posted())
	deliverBody(c.t, c.srv, []byte(body))
	c.h.Wait()
	posts := c.rec.waitPosts(c.t, before+1)
	p := posts[len(posts)-1]
	return p.Text + "\n" + string(joinBlocks(p))
}

// jsonText is s as it reads inside a JSON string.
func jsonText(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func wantIn(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: reply lacks %q:\n%s", what, w, got)
		}
	}
}

func wantNotIn(t *testing.T, what, got string, notWant ...string) {
	t.Helper()
	for _, w := range notWant {
		if strings.Contains(got, w) {
			t.Errorf("%s: reply has %q:\n%s", what, w, got)
		}
	}
}

// TestMachineNamesOverHTTP: a machine named with digits and hyphens
// resolves in the phrasing fitbot's own reply suggests, by slash command
// and by mention (issue #31).
func TestMachineNamesOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	saved := c.slash("hardware add gpu-box-1: 2x rtx-4090, 128 GB RAM")
	wantIn(t, "hardware add", saved, "Ask `/fit 13b lora on gpu-box-1`")
	c.slash("hardware add box2: 4x a100")
	for _, q := range []string{"13b lora on gpu-box-1", "can we qlora llama 3.1 8b on GPU-Box-1?", "13b lora gpu-box-1"} {
		got := c.slash(q)
		wantIn(t, "/fit "+q, got, "2× RTX 4090", `\"gpu-box-1\" is the team's 2× RTX 4090 24 GB, 128 GB RAM`)
		wantNotIn(t, "/fit "+q, got, "do not understand")
	}
	wantIn(t, "what fits on box2", c.slash("what fits on box2"), "4× A100")
	got := c.mention("13b lora on box2")
	wantIn(t, "@fitbot 13b lora on box2", got, "4× A100", `\"box2\" is the team's`)
}
