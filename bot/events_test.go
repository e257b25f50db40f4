package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/slack-go/slack/slackevents"
)

// testBotUser is the bot's user id in the recorded payloads (auth.test's user_id).
const testBotUser = "U0FITBOT"

// eventsFixture is the mention and DM handler over the fake handler, a
// real SQLite store for seen ids and a recording chat.postMessage.
type eventsFixture struct {
	events  *Events
	h       *Handler
	db      *store.DB
	rec     *postRecorder
	plans   *fakePlans
	metrics *Metrics
}

func newEventsFixture(t *testing.T, change func(*Config)) *eventsFixture {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &eventsFixture{db: db, rec: newPostRecorder(), plans: &fakePlans{}, metrics: NewMetrics()}
	f.h = newTestHandler(t, func(c *Config) {
		c.Plans = f.plans
		if change != nil {
			change(c)
		}
	})
	api, _ := newTestWebAPI(t, f.rec, f.metrics)
	f.events = f.newEvents(t, api)
	return f
}

func (f *eventsFixture) newEvents(t *testing.T, post ThreadPoster) *Events {
	t.Helper()
	e, err := NewEvents(EventsConfig{Handler: f.h, Seen: f.db, Post: post, BotUserID: testBotUser, BotID: "B0FITBOT",
		Metrics: f.metrics, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deliver parses a recorded payload as both transports do and hands it over.
func (f *eventsFixture) deliver(t *testing.T, file string) {
	t.Helper()
	ev, err := slackevents.ParseEvent(json.RawMessage(readTestdata(t, file)), slackevents.OptionNoVerifyToken())
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	f.events.HandleEvent(context.Background(), ev)
}

// TestEventDedupe delivers one event three times, as Slack's retries do,
// and once more to a second Events on the same database (a restart, or a
// second instance): one answer is posted.
func TestEventDedupe(t *testing.T) {
	f := newEventsFixture(t, nil)
	for range 3 {
		f.deliver(t, "message_im.json")
	}
	f.h.Wait()
	api, _ := newTestWebAPI(t, f.rec, nil)
	f.events = f.newEvents(t, api)
	f.deliver(t, "message_im.json")
	f.h.Wait()
	if got := len(f.rec.posted()); got != 1 {
		t.Errorf("%d answers posted for one event delivered 4 times, want 1", got)
	}
	if got := testutil.ToFloat64(f.metrics.events.WithLabelValues("duplicate")); got != 3 {
		t.Errorf("duplicate events counted = %v, want 3", got)
	}
}

// TestEventFilters checks that fitbot answers only what people wrote to it.
func TestEventFilters(t *testing.T) {
	ignored := []struct{ file, why string }{
		{"message_im_from_bot.json", "fitbot's own reply in the DM"},
		{"message_im_other_bot.json", "another bot writing in the DM"},
		{"message_im_bot_message.json", "a bot_message subtype"},
		{"message_im_changed.json", "an edit (message_changed)"},
		{"message_im_deleted.json", "a deletion (message_deleted)"},
		{"message_channel.json", "a channel message without a mention"},
		{"app_mention_from_bot.json", "a bot mentioning fitbot"},
		{"app_mention_edited.json", "an edited mention"},
		{"url_verification.json", "not an event callback"},
	}
	for _, tt := range ignored {
		t.Run(tt.file, func(t *testing.T) {
			f := newEventsFixture(t, nil)
			f.deliver(t, tt.file)
			f.h.Wait()
			if got := f.rec.posted(); len(got) != 0 {
				t.Errorf("%s was answered: %+v", tt.why, got)
			}
			if got := testutil.ToFloat64(f.metrics.events.WithLabelValues("ignored")); got != 1 {
				t.Errorf("ignored events counted = %v, want 1", got)
			}
		})
	}
}

// TestEventThreading checks where the answer goes: in a thread under the
// message, or in the thread the message is already in, and that the
// answer is saved as a plan with team, channel and user.
func TestEventThreading(t *testing.T) {
	tests := []struct {
		file                 string
		wantChannel, wantTS  string
		wantText, wantAnswer string
	}{
		{"message_im.json", "D0FITBOTDM", "1764464500.000100", "", "Fits"},
		{"message_im_thread.json", "D0FITBOTDM", "1764464500.000100", "", "Fits"},
		{"app_mention_thread.json", "C0FITBOT", "1764464400.000200", "", "Fits"},
		{"app_mention.json", "C0FITBOT", "1764464400.000200", "I couldn't use that", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := newEventsFixture(t, nil)
			f.deliver(t, tt.file)
			f.h.Wait()
			posts := f.rec.posted()
			if len(posts) != 1 {
				t.Fatalf("%d posts, want 1", len(posts))
			}
			p := posts[0]
			if p.Channel != tt.wantChannel || p.ThreadTS != tt.wantTS {
				t.Errorf("posted to %s thread %q, want %s thread %q", p.Channel, p.ThreadTS, tt.wantChannel, tt.wantTS)
			}
			if tt.wantText != "" && !strings.HasPrefix(p.Text, tt.wantText) {
				t.Errorf("text %q, want it to start with %q", p.Text, tt.wantText)
			}
			if tt.wantAnswer != "" && !strings.Contains(p.Text, tt.wantAnswer) {
				t.Errorf("text %q, want an answer (%q)", p.Text, tt.wantAnswer)
			}
			if tt.wantAnswer == "" {
				return
			}
			if len(f.plans.plans) != 1 {
				t.Fatalf("%d plans saved, want 1", len(f.plans.plans))
			}
			got := f.plans.plans[0]
			want := []string{store.SourceSlack, "T1DC2JH3J", tt.wantChannel, "U2CERLKJA", "llama-3.1-8b qlora rtx-4090"}
			if diff := cmp.Diff(want, []string{got.Source, got.Team, got.Channel, got.User, got.Question}); diff != "" {
				t.Errorf("plan source, team, channel, user, question (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEventLanguageModel checks the mention path through the language
// model: a question the grammar cannot read is interpreted and answered
// in the thread; a message that is no sizing question gets the model's
// question back, escaped.
func TestEventLanguageModel(t *testing.T) {
	fits := fixtures["llama-3.1-8b qlora rtx-4090"].query
	tests := []struct {
		name     string
		in       fakeReader
		wantText string
		wantLLM  string // fitbot_llm_calls_total outcome
	}{
		{"interpreted", fakeReader{parsed: reading.Request{Query: fits}}, "✅ Fits", "ok"},
		{"question back", fakeReader{err: &answer.NotUnderstood{QuestionBack: "Which model <b>and</b> GPU?"}}, "I couldn't use that: Which model", "not_understood"},
		{"model down", fakeReader{err: errModelDown}, "I couldn't use that: could not use", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newEventsFixture(t, nil)
			m := f.metrics
			f.h.cfg.ModelReader = MeteredReader(tt.in, m)
			f.h.answers.Reader = f.h.cfg.ModelReader
			f.deliver(t, "app_mention.json")
			f.h.Wait()
			posts := f.rec.posted()
			if len(posts) != 1 {
				t.Fatalf("%d posts, want 1", len(posts))
			}
			if !strings.HasPrefix(posts[0].Text, tt.wantText) {
				t.Errorf("text %q, want it to start with %q", posts[0].Text, tt.wantText)
			}
			if blocks := string(mustJSON(t, posts[0].Blocks)); strings.Contains(blocks, "<b>") {
				t.Errorf("the model's words reached mrkdwn unescaped: %s", blocks)
			}
			if got := testutil.ToFloat64(m.llmCalls.WithLabelValues(tt.wantLLM)); got != 1 {
				t.Errorf("llm calls with outcome %s = %v, want 1", tt.wantLLM, got)
			}
		})
	}
}

// TestEventAnswerLatencyObserved checks the question metric and log line of an event.
func TestEventAnswerLatencyObserved(t *testing.T) {
	f := newEventsFixture(t, nil)
	var logs strings.Builder
	f.events.log = slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs}, nil))
	f.deliver(t, "message_im.json")
	f.h.Wait()
	if got := testutil.ToFloat64(f.metrics.questions.WithLabelValues(KindDM, OutcomeAnswered)); got != 1 {
		t.Errorf("questions{dm, answered} = %v, want 1", got)
	}
	var line struct {
		Kind      string  `json:"kind"`
		Outcome   string  `json:"outcome"`
		RequestID string  `json:"request_id"`
		LatencyMS float64 `json:"latency_ms"`
	}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(l, `"msg":"question"`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line.Kind != KindDM || line.Outcome != OutcomeAnswered || line.LatencyMS < 0 {
		t.Errorf("question log line = %+v, want kind dm, outcome answered, a latency", line)
	}
	if line.RequestID != "Ev0FITBOTDM1" {
		t.Errorf("question log line request_id = %q, want the event id; logs:\n%s", line.RequestID, logs.String())
	}
}

func TestStripMentions(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<@U0FITBOT> 13B lora 4090", "13B lora 4090"},
		{"<@U0FITBOT|fitbot>   13B  lora\n4090", "13B lora 4090"},
		{"13B lora 4090 <@U0FITBOT>", "13B lora 4090"},
		{"<@U0FITBOT> ask <@U2CERLKJA> about 13B", "ask <@U2CERLKJA> about 13B"},
		{"<@U0FITBOT>", ""},
	}
	for _, tt := range tests {
		if got := stripMentions(tt.in, testBotUser); got != tt.want {
			t.Errorf("stripMentions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEventAnswersWhenTheStoreFails: a store that cannot record the id
// must not silence the bot.
func TestEventAnswersWhenTheStoreFails(t *testing.T) {
	f := newEventsFixture(t, nil)
	f.db.Close()
	f.deliver(t, "message_im.json")
	f.h.Wait()
	if got := len(f.rec.posted()); got != 1 {
		t.Errorf("%d posts with the store down, want 1", got)
	}
}

func TestNewEventsRequiresTheEssentials(t *testing.T) {
	h := newTestHandler(t, nil)
	rec := newPostRecorder()
	api, _ := newTestWebAPI(t, rec, nil)
	db := &store.DB{}
	for name, cfg := range map[string]EventsConfig{
		"handler":  {Seen: db, Post: api, BotUserID: testBotUser},
		"seen":     {Handler: h, Post: api, BotUserID: testBotUser},
		"post":     {Handler: h, Seen: db, BotUserID: testBotUser},
		"bot user": {Handler: h, Seen: db, Post: api},
	} {
		if _, err := NewEvents(cfg); err == nil {
			t.Errorf("NewEvents without %s succeeded", name)
		}
	}
}

// blockingSeen is an EventStore whose writes wait until released, like a
// store whose one writer is busy with a long refresh.
type blockingSeen struct {
	release chan struct{}
	inner   EventStore
}

func (b blockingSeen) SeeEvent(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	<-b.release
	return b.inner.SeeEvent(ctx, id, ttl)
}

func (b blockingSeen) ForgetEvents(ctx context.Context, before time.Time) (int64, error) {
	return b.inner.ForgetEvents(ctx, before)
}

// TestEventAckNeverWaitsOnTheStore: HandleEvent returns (and the
// transport acknowledges) while the store is busy; the answer follows.
func TestEventAckNeverWaitsOnTheStore(t *testing.T) {
	f := newEventsFixture(t, nil)
	busy := blockingSeen{release: make(chan struct{}), inner: f.db}
	var once sync.Once
	release := func() { once.Do(func() { close(busy.release) }) }
	t.Cleanup(release) // before the handler's Wait, even when the test fails
	f.events.seen = busy
	returned := make(chan struct{})
	go func() {
		f.deliver(t, "message_im.json")
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(2 * time.Second):
		t.Fatal("HandleEvent waited on the store")
	}
	release()
	f.h.Wait()
	if got := len(f.rec.posted()); got != 1 {
		t.Errorf("%d posts once the store answered, want 1", got)
	}
}

// FuzzStripMentions checks the mention stripper's properties: the bot's
// own mention never survives, other text keeps its words in order, and
// stripping twice changes nothing.
func FuzzStripMentions(f *testing.F) {
	for _, s := range []string{"<@U0FITBOT> 13B lora 4090", "<@U0FITBOT|fitbot> ask <@U2CERLKJA>", "<@U0FITBOT", "<@<@U0FITBOT>>", "", "  \n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := stripMentions(s, testBotUser)
		for _, m := range mentionRE.FindAllStringSubmatch(got, -1) {
			if m[1] == testBotUser {
				t.Errorf("stripMentions(%q) = %q still mentions the bot", s, got)
			}
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Errorf("stripMentions(%q) = %q has stray spaces", s, got)
		}
		if again := stripMentions(got, testBotUser); again != got {
			t.Errorf("stripMentions is not idempotent: %q -> %q -> %q", s, got, again)
		}
	})
}

// BenchmarkEventAddressed measures the synchronous part of an event's
// acknowledgement: parsing the payload and deciding whether it is for
// fitbot.
func BenchmarkEventAddressed(b *testing.B) {
	raw, err := os.ReadFile("testdata/slack/app_mention_thread.json")
	if err != nil {
		b.Fatal(err)
	}
	e := &Events{botUser: testBotUser}
	b.ReportAllocs()
	for b.Loop() {
		ev, err := slackevents.ParseEvent(json.RawMessage(raw), slackevents.OptionNoVerifyToken())
		if err != nil {
			b.Fatal(err)
		}
		if _, why := e.addressed(ev, authorization(ev)); why != "" {
			b.Fatal(why)
		}
	}
}
