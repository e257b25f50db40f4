package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestThreadFollowUpsOverHTTP runs a conversation end to end over real
// loopback HTTP: a signed mention to /slack/events, its answer posted
// in a thread to a fake chat.postMessage, replies in that thread without
// a mention (message.channels), each answered in the same thread against
// the thread's question; talk in the thread, a thread fitbot did not
// answer and a channel message in no thread are left alone.
func TestThreadFollowUpsOverHTTP(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer, c.Plans = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}, db })
	rec := newPostRecorder()
	metrics := NewMetrics()
	api, _ := newTestWebAPI(t, rec, metrics)
	events, err := NewEvents(EventsConfig{Handler: h, Seen: db, Post: api, Threads: db, BotUserID: testBotUser, BotID: "B0FITBOT",
		Metrics: metrics, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Events: events,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	endpoints.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	deliver := func(file string) {
		t.Helper()
		deliverBody(t, srv, readTestdata(t, file))
		h.Wait()
	}
	const thread = "1764466000.000100"

	deliver("thread_mention.json")
	posts := rec.waitPosts(t, 1)
	if p := posts[0]; p.ThreadTS != thread || !strings.Contains(p.Text, "Llama 3.1 8B") || !strings.Contains(p.Text, "RTX 4090") {
		t.Fatalf("first answer %+v, want Llama 3.1 8B on the RTX 4090 in thread %s", p, thread)
	}
	if !strings.Contains(string(joinBlocks(posts[0])), `"Use QLoRA"`) {
		t.Errorf("a full fine-tune that does not fit has no Use QLoRA button:\n%s", joinBlocks(posts[0]))
	}

	deliver("thread_reply.json")
	posts = rec.waitPosts(t, 2)
	p := posts[1]
	if p.ThreadTS != thread || !strings.Contains(p.Text, "Llama 3.1 8B") || !strings.Contains(p.Text, "QLoRA") || !strings.Contains(p.Text, "RTX 3090") {
		t.Errorf("follow-up answer %+v, want Llama 3.1 8B QLoRA on the RTX 3090 in the same thread", p)
	}
	if !strings.Contains(string(joinBlocks(p)), "read with the thread's question (llama-3.1-8b full rtx-4090)") {
		t.Errorf("follow-up answer does not say what it changed:\n%s", joinBlocks(p))
	}

	deliver("thread_reply_more_gpus.json") // builds on the latest answer: QLoRA on the 3090
	posts = rec.waitPosts(t, 3)
	if p := posts[2]; p.ThreadTS != thread || !strings.Contains(p.Text, "QLoRA") || !strings.Contains(p.Text, "2× RTX 3090") {
		t.Errorf("second follow-up %+v, want QLoRA on 2× RTX 3090", p)
	}

	for _, file := range []string{"thread_talk.json", "thread_other.json", "message_channel.json"} {
		deliver(file)
	}
	if got := rec.posted(); len(got) != 3 {
		t.Errorf("%d posts after talk in the thread, another thread and a channel message, want 3: %+v", len(got), got[3:])
	}
	canonical, ok, err := db.ThreadQuestion(ctx, "T1DC2JH3J", "C0FITBOT", thread)
	if err != nil || !ok || canonical != "llama-3.1-8b qlora 2xrtx-3090" {
		t.Errorf("thread question = %q, %v, %v; want the latest answer's", canonical, ok, err)
	}

	// The everyday follow-ups of issue #31, each read against the latest
	// answer in the thread; a question fitbot cannot read gets a short
	// reply in the thread instead of silence.
	template := string(readTestdata(t, "thread_reply_more_gpus.json"))
	for i, tc := range []struct{ text, want string }{
		{"what about 4 of them", "4× RTX 3090"},
		{"and spot?", "spot"},
		{"cheapest?", "the cheapest card that fits"},
		{"hmm, and what would finance say about that?", "I didn't catch that"},
	} {
		body := strings.NewReplacer(`"and with 2 GPUs?"`, strconv.Quote(tc.text), "Ev0FITBOT12", "Ev0FITBOT9"+strconv.Itoa(i),
			"1764466200.000300", "17644663"+strconv.Itoa(i)+"0.000300").Replace(template)
		deliverBody(t, srv, []byte(body))
		h.Wait()
		posts := rec.waitPosts(t, 4+i)
		if p := posts[3+i]; p.ThreadTS != thread || !strings.Contains(p.Text+string(joinBlocks(p)), tc.want) {
			t.Errorf("%q: reply %q in thread %s, want %q in thread %s", tc.text, p.Text, p.ThreadTS, tc.want, thread)
		}
	}
}

// deliverBody posts a signed event body to the test server's /slack/events.
func deliverBody(t *testing.T, srv *httptest.Server, body []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/slack/events", strings.NewReader(string(body)))
	ts := strconv.FormatInt(testNow.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerTimestamp, ts)
	req.Header.Set(headerSignature, ComputeSignature(testSecret, ts, body))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func joinBlocks(p postedToChannel) []byte {
	var b []byte
	for _, raw := range p.Blocks {
		b = append(b, raw...)
	}
	return b
}

func TestNextSteps(t *testing.T) {
	answer := func(q string) (sizing.Query, sizing.Answer) {
		p, err := reading.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&sizing.Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		return p.Query, a
	}
	q, a := answer("llama-3.1-8b full rtx-4090 seq 4096")
	b := nextSteps(q, a)
	if b == nil {
		t.Fatal("no next steps for an answer that does not fit")
	}
	got := messageJSON(t, ephemeral("x", b))
	for _, want := range []string{
		`"action_id":"fit_next_qlora","value":"q:llama-3.1-8b qlora rtx-4090 seq 4096"`,
		`"action_id":"fit_next_gpus","value":"q:llama-3.1-8b full 2xrtx-4090 seq 4096"`,
		`"action_id":"fit_next_cheapest","value":"q:llama-3.1-8b full seq 4096"`,
		`"text":"2 GPUs"`, `"text":"Cheapest that fits"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("next steps lack %s:\n%s", want, got)
		}
	}
	if q, a := answer("llama-3.1-8b qlora h100"); nextSteps(q, a) != nil {
		t.Error("an answer that fits comfortably has next-step buttons")
	}
	// A press answers the changed question in place of the old answer.
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer = reading.Parse, Fixed{Estimator: &sizing.Estimator{}} })
	msgs := h.press(context.Background(), slashScope, ActionNextQLoRA, "q:llama-3.1-8b qlora rtx-4090 seq 4096", "U1")
	if len(msgs) != 1 || !msgs[0].ReplaceOriginal || !strings.Contains(msgs[0].Text, "QLoRA") {
		t.Errorf("press Use QLoRA = %+v, want the QLoRA answer replacing the old one", msgs)
	}
	if !knownAction(ActionNextCheapest) || knownAction("fit_next_other") {
		t.Error("knownAction does not know the next-step buttons exactly")
	}
}

// TestAskAnswersHaveButtons: an answer that runs the other way round has
// the answer's buttons, carrying the question with its intent, and its
// Show details lists every assumption in Slack, never a CLI command.
func TestAskAnswersHaveButtons(t *testing.T) {
	est := &sizing.Estimator{}
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer, c.Ask = reading.Parse, Fixed{Estimator: est}, Fixed{Estimator: est}
	})
	got := messageJSON(t, h.Command(context.Background(), slash("llama-3.1-8b inference l4 max context")))
	if !strings.Contains(got, `"action_id":"fit_details","value":"q:llama-3.1-8b inference l4 max context"`) {
		t.Fatalf("max-context answer has no Show details button:\n%s", got)
	}
	msgs := h.press(context.Background(), slashScope, ActionDetails, "q:13B lora 4090 buy-vs-rent 3 jobs/week 5h", "U1")
	if len(msgs) != 1 {
		t.Fatalf("press = %d messages", len(msgs))
	}
	got = messageJSON(t, msgs[0])
	if !msgs[0].ReplaceOriginal || strings.Contains(got, "fitbot fit") || strings.Contains(got, "more: Show details") || !strings.Contains(got, "Rent") {
		t.Errorf("Show details of a buy-or-rent answer:\n%s", got)
	}
}

// threadReply posts text without a mention in the thread of the mention
// c made as its n-th event (its answer's thread) and returns fitbot's
// reply there.
func (c *conversation) threadReply(n int, text string) string {
	c.t.Helper()
	c.events++
	thread := "1764467" + strconv.Itoa(n) + "00.000100"
	body := strings.NewReplacer(`"and with 2 GPUs?"`, strconv.Quote(text), "Ev0FITBOT12", "Ev0THR"+strconv.Itoa(c.events),
		"1764466200.000300", "17644682"+strconv.Itoa(c.events%100)+"0.000300", "1764466000.000100", thread).
		Replace(string(readTestdata(c.t, "thread_reply_more_gpus.json")))
	before := len(c.rec.posted())
	deliverBody(c.t, c.srv, []byte(body))
	c.h.Wait()
	posts := c.rec.waitPosts(c.t, before+1)
	p := posts[len(posts)-1]
	if p.ThreadTS != thread {
		c.t.Errorf("%q: reply in thread %s, want %s", text, p.ThreadTS, thread)
	}
	return p.Text + "\n" + string(joinBlocks(p))
}

// TestThreadFollowUpsReadAgainstTheThreadsRequest: the follow-ups people
// type (issue #38) are read as any question is, merged over the thread's
// request, each building on the latest answer in the thread; an answer
// served from the reply cache is its thread's question too.
func TestThreadFollowUpsReadAgainstTheThreadsRequest(t *testing.T) {
	c := newConversation(t, func(cfg *Config) { cfg.AnswerVersion = func() uint64 { return 1 } })
	const train = "llama 3.1 8b lora on a 4090"
	c.mention(train)
	thread := c.events
	for _, tc := range []struct{ text, want string }{
		{"how long would that take", `read as the thread's question again (llama-3.1-8b lora rtx-4090)`},
		{"bump context to 32k", `changing \"context to 32k\"`},
		{"same but qlora", `read with the thread's question (llama-3.1-8b lora rtx-4090 seq 32768), changing \"qlora\"`},
		{"and with a $5k budget?", `changing \"$5k\"`},
	} {
		wantIn(t, tc.text, c.threadReply(thread, tc.text), tc.want)
	}

	c.mention("llama 3.1 70b inference on 2 h100 for 32 users")
	thread = c.events
	for _, tc := range []struct{ text, want string }{
		{"and with fp8?", `changing \"fp8\"`},
		{"and with 8 of them", `changing \"8 of them\"`},
		{"in gguf q4?", `changing \"gguf\", \"q4\"`},
		{"ok and for 500 users", `changing \"500 users\"`},
	} {
		wantIn(t, tc.text, c.threadReply(thread, tc.text), tc.want)
	}

	// The same words again: served from the reply cache, in a new thread,
	// whose follow-ups are answered against it.
	if c.h.replies.getText(1, train) == nil {
		t.Fatalf("%q is not in the reply cache by its words: the next mention would not be served from it", train)
	}
	c.mention(train)
	wantIn(t, "a follow-up to a cached answer", c.threadReply(c.events, "and with 2 of them?"),
		`read with the thread's question (llama-3.1-8b lora rtx-4090), changing \"2 of them`)
}

// TestThreadFollowUpsKeepTheThreadsIntent: a follow-up in the thread of
// an answer that runs the other way round asks that kind of question
// again, with the change, unless its words ask another: the thread
// keeps the whole question, its intent too, not only its sizing words.
func TestThreadFollowUpsKeepTheThreadsIntent(t *testing.T) {
	c := newConversation(t, func(cfg *Config) { cfg.AnswerVersion = func() uint64 { return 1 } })
	c.mention("which gpu for llama 3.1 70b inference")
	which := c.events
	got := c.threadReply(which, "and for 32k context?")
	wantIn(t, "a context change in a which-GPU thread", got, `"value":"q:which gpu llama-3.1-70b inference seq 32768"`,
		`read with the thread's question (which gpu llama-3.1-70b inference), changing \"32k context\"`)
	if !strings.Contains(got, "card fits") && !strings.Contains(got, "cards fit") {
		t.Errorf("a context change in a which-GPU thread is not a which-GPU answer:\n%s", got)
	}

	c.mention("how many users can llama 3.1 8b serve on an h100")
	got = c.threadReply(c.events, "and on 4 of them")
	wantIn(t, "a count in a serving-capacity thread", got, "Serving Llama 3.1 8B", "4× H100",
		`read with the thread's question (how many users llama-3.1-8b inference h100), changing \"4 of them\"`)

	c.mention("what's the largest model that fits an h100")
	wantIn(t, "a count in a largest-model thread", c.threadReply(c.events, "and with 8 of them?"), "Largest models that fit 8× H100")

	// A message that asks about a card in a which-GPU thread asks whether
	// it fits there.
	wantIn(t, "a card in a which-GPU thread", c.threadReply(which, "on an h100?"), "llama-3.1-70b inference h100")
}
