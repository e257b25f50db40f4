package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// countingAnswerer is the real estimator over a price book the test
// changes, counting the estimates made; its version grows with each
// change of prices, as serve's does with each reload.
type countingAnswerer struct {
	mu      sync.Mutex
	est     *sizing.Estimator
	version uint64
	calls   atomic.Int64
	parses  atomic.Int64
	asks    atomic.Int64
}

// parse is the real parser, counted.
func (c *countingAnswerer) parse(text string) (reading.Request, error) {
	c.parses.Add(1)
	return reading.Parse(text)
}

func (c *countingAnswerer) Answer(_ context.Context, q sizing.Query) (sizing.Answer, error) {
	c.calls.Add(1)
	c.mu.Lock()
	est := c.est
	c.mu.Unlock()
	return est.Answer(q)
}

func (c *countingAnswerer) Version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

func (c *countingAnswerer) setPrices(p askPrices) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.est = &sizing.Estimator{Prices: p}
	c.version++
}

// pricesAt is the ask goldens' price book with the RTX 4090 at usd.
func pricesAt(usd float64) askPrices {
	return askPrices{onDemand: map[string]float64{"rtx-4090": usd, "a100-80": 1.89, "h100": 2.99, "l4": 0.80}}
}

// newCachingHandlers returns a handler with the reply cache and one
// without, on the same answerer, each with its own plan store.
func newCachingHandlers(t *testing.T, ans *countingAnswerer, now func() time.Time) (cached, fresh *Handler, cachedPlans, freshPlans *fakePlans) {
	t.Helper()
	cachedPlans, freshPlans = &fakePlans{}, &fakePlans{}
	mk := func(plans *fakePlans, version func() uint64) *Handler {
		h, err := New(Config{Parse: ans.parse, Answer: ans, Respond: NewResponseURLPoster(http.DefaultClient),
			Plans: plans, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: now, AnswerVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	return mk(cachedPlans, ans.Version), mk(freshPlans, nil), cachedPlans, freshPlans
}

// TestReplyCacheServesTheSameBytes asks the same questions again and
// again: the cached handler estimates each once, and every reply, plan id
// included, is byte for byte what a handler without the cache sends; each
// answer is still kept as its own plan.
func TestReplyCacheServesTheSameBytes(t *testing.T) {
	ans := &countingAnswerer{}
	ans.setPrices(pricesAt(0.69))
	cached, fresh, cachedPlans, _ := newCachingHandlers(t, ans, func() time.Time { return testNow })
	// The second round asks in other words (the canonical question
	// finds the reply), the third in the first round's (the words do,
	// without a parse).
	rounds := [][]string{
		{"llama-3.1-8b qlora rtx-4090", "13B lora 4090", "llama-3.1-70b qlora 2xa100"},
		{"Llama-3.1-8B  QLoRA rtx-4090", "13b LoRA 4090", "llama-3.1-70b qlora 2x a100"},
		{"llama-3.1-8b qlora rtx-4090", "13B lora 4090", "llama-3.1-70b qlora 2xa100"},
	}
	for round, questions := range rounds {
		for _, q := range questions {
			before, parsesBefore := ans.calls.Load(), ans.parses.Load()
			got := cached.Command(context.Background(), slash(q))
			hit := ans.calls.Load() == before
			if want := round > 0; hit != want {
				t.Errorf("round %d, %q: served from the cache %v, want %v", round, q, hit, want)
			}
			if parsed, want := ans.parses.Load() > parsesBefore, round < 2; parsed != want {
				t.Errorf("round %d, %q: parsed %v, want %v", round, q, parsed, want)
			}
			if round > 0 && got.pre == nil {
				t.Errorf("round %d, %q: a cached reply without its JSON", round, q)
			}
			want := fresh.Command(context.Background(), slash(q))
			gotJSON, wantJSON := messageJSON(t, got), messageJSON(t, want)
			if gotJSON != wantJSON {
				t.Fatalf("round %d, %q: cached reply differs from a fresh one\ncached: %s\nfresh:  %s", round, q, gotJSON, wantJSON)
			}
			// Its thread remembers it as the question follow-ups read against.
			if got.question == "" || got.question != want.question {
				t.Errorf("round %d, %q: remembered as the thread's question %q, want %q", round, q, got.question, want.question)
			}
			plain := got
			plain.pre = nil
			if messageJSON(t, plain) != gotJSON {
				t.Fatalf("round %d, %q: the cached JSON is not the encoding of the cached message's own blocks", round, q)
			}
		}
	}
	if n := len(cachedPlans.plans); n != 9 {
		t.Errorf("%d plans kept, want 9: a cached reply is still kept as a plan", n)
	}
	if got := messageJSON(t, cached.Command(context.Background(), slash("13B lora 4090"))); !strings.Contains(got, "as plan 10:") {
		t.Errorf("the tenth answer does not name plan 10:\n%s", got)
	}
}

// TestReplyCacheNeverOlderThanItsSources changes the prices (the version
// grows, as serve's does on a reload or a refresh) and moves the clock:
// the next reply carries the new price and the price's new age.
func TestReplyCacheNeverOlderThanItsSources(t *testing.T) {
	ans := &countingAnswerer{}
	ans.setPrices(pricesAt(0.69))
	var clock atomic.Pointer[time.Time]
	now := testNow
	clock.Store(&now)
	cached, _, _, _ := newCachingHandlers(t, ans, func() time.Time { return *clock.Load() })
	const q = "llama-3.1-8b qlora rtx-4090"
	ask := func() string { return messageJSON(t, cached.Command(context.Background(), slash(q))) }
	if got := ask(); !strings.Contains(got, "$0.69 per GPU-hour") || !strings.Contains(got, "24 h old") {
		t.Fatalf("first answer lacks the price or its age:\n%s", got)
	}
	ask()
	calls := ans.calls.Load()

	later := testNow.Add(3 * time.Hour)
	clock.Store(&later)
	if got := ask(); !strings.Contains(got, "27 h old") || strings.Contains(got, "24 h old") {
		t.Errorf("three hours later the cached reply must say the price is 27 h old:\n%s", got)
	}
	if ans.calls.Load() != calls {
		t.Error("the clock alone moved, yet the answer was estimated again")
	}

	ans.setPrices(pricesAt(0.49))
	if got := ask(); !strings.Contains(got, "$0.49 per GPU-hour") || strings.Contains(got, "$0.69") {
		t.Errorf("after the prices changed the reply must carry the new price:\n%s", got)
	}
	if ans.calls.Load() != calls+1 {
		t.Errorf("after the prices changed: %d estimates, want %d", ans.calls.Load(), calls+1)
	}
}

// TestReplyCacheComparesTheWholeQuestion: an entry found under a key is
// served only for the very question it answers.
func TestReplyCacheComparesTheWholeQuestion(t *testing.T) {
	c := newReplyCache()
	q := sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodQLoRA, GPU: "rtx-4090"}
	cached := func() *cachedReply {
		return &cachedReply{result: answer.Result{Question: answer.Question{Parsed: reading.Request{Query: q}}}}
	}
	c.put(1, "k", "t", cached())
	if c.get(1, "k", q) == nil || c.getText(1, "t") == nil {
		t.Fatal("miss for the question cached")
	}
	other := q
	other.LoRARank = 64
	if c.get(1, "k", other) != nil {
		t.Error("a different question under the same key was served the cached reply")
	}
	if c.get(2, "k", q) != nil {
		t.Error("served under a newer version")
	}
	c.put(2, "k2", "t2", cached())
	if c.get(1, "k", q) != nil || c.get(2, "k", q) != nil || c.getText(2, "t") != nil {
		t.Error("a newer version did not empty the cache")
	}
	c.put(1, "k3", "t3", cached())
	if c.get(1, "k3", q) != nil || c.get(2, "k3", q) != nil {
		t.Error("a reply made under an older version was kept")
	}
	for i := range maxCachedReplies + 10 {
		c.put(2, fmt.Sprint(i), fmt.Sprint(i), cached())
	}
	if n, m := len(c.entries), len(c.byText); n > maxCachedReplies || m > maxCachedReplies {
		t.Errorf("%d entries and %d by text, more than %d", n, m, maxCachedReplies)
	}
}

// TestCachedReplyChangedIsEncodedAfresh: a cached reply shared in the
// channel (another response type, other blocks) or replacing the
// original is encoded from its fields, not from the cached JSON.
func TestCachedReplyChangedIsEncodedAfresh(t *testing.T) {
	ans := &countingAnswerer{}
	ans.setPrices(pricesAt(0.69))
	cached, _, _, _ := newCachingHandlers(t, ans, func() time.Time { return testNow })
	cached.Command(context.Background(), slash("13B lora 4090"))
	msg := cached.Command(context.Background(), slash("13B lora 4090"))
	if msg.pre == nil {
		t.Fatal("the second answer is not from the cache")
	}
	shared := msg
	shared.ResponseType = slack.ResponseTypeInChannel
	shared.Blocks = sharedBlocks(shared.Blocks)
	if got := messageJSON(t, shared); !strings.Contains(got, `"response_type":"in_channel"`) || strings.Contains(got, `"type":"actions"`) {
		t.Errorf("a shared copy was encoded from the cached JSON:\n%.400s", got)
	}
	replaced := msg
	replaced.ReplaceOriginal = true
	if got := messageJSON(t, replaced); !strings.Contains(got, `"replace_original":true`) {
		t.Errorf("a replacing copy was encoded from the cached JSON:\n%.400s", got)
	}
}

// TestReplyCacheConcurrent asks from many goroutines while the prices
// change; run with -race. Every reply carries a price the answerer had.
func TestReplyCacheConcurrent(t *testing.T) {
	ans := &countingAnswerer{}
	ans.setPrices(pricesAt(0.69))
	cached, _, _, _ := newCachingHandlers(t, ans, func() time.Time { return testNow })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				if i == 0 && j%10 == 0 {
					ans.setPrices(pricesAt(0.69 + float64(j)/100))
				}
				got := messageJSON(t, cached.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090")))
				if !strings.Contains(got, "per GPU-hour") {
					t.Errorf("reply without a price:\n%.300s", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestStaticReplies: help and the GPU list are made once, with their
// JSON, and are byte for byte what their constructors make; a copy
// changed by its caller is encoded afresh.
func TestStaticReplies(t *testing.T) {
	for _, interp := range []bool{false, true} {
		h := newTestHandler(t, func(c *Config) {
			if interp {
				c.ModelReader = fakeReader{}
			}
		})
		for _, tc := range []struct {
			ask  string
			want Message
		}{
			{"help", helpMessage(interp)},
			{"gpus", catalogMessage("GPUs fitbot knows", "Use the id or the name in a question, e.g. `/fit 13b lora rtx-4090`.", gpuEntries())},
		} {
			got := h.Command(context.Background(), slash(tc.ask))
			if got.pre == nil {
				t.Errorf("/fit %s: made afresh, want made once", tc.ask)
			}
			if g, w := messageJSON(t, got), messageJSON(t, tc.want); g != w {
				t.Errorf("/fit %s (language model %v):\n got %.300s\nwant %.300s", tc.ask, interp, g, w)
			}
			changed := got
			changed.ReplaceOriginal = true
			if g := messageJSON(t, changed); !strings.Contains(g, `"replace_original":true`) {
				t.Errorf("/fit %s: a changed copy was encoded from the JSON made before", tc.ask)
			}
		}
	}
}

// TestAppendContextJSON: the context block's hand-written JSON is byte
// for byte what encode writes for it, for the texts a context line
// carries (mentions, ampersands, quotes, code, line separators, invalid
// UTF-8), and other blocks are left to encode.
func TestAppendContextJSON(t *testing.T) {
	texts := []string{
		"*Price:* $0.69 per GPU-hour, runpod on-demand, 24 h old",
		"Shared by <@U123> & <#C42|ml> \"quoted\" `code` \\ back",
		"line\u2028separator\u2029 and \t tab \x01 control é 🚀",
		"invalid \xff byte",
		"",
	}
	for _, text := range texts {
		for _, block := range []*slack.ContextBlock{
			slack.NewContextBlock("", mrkdwn(text)),
			slack.NewContextBlock("", mrkdwn(text), plain(text), mrkdwn("Kept as plan 7")),
		} {
			want, err := Message{Blocks: []slack.Block{block}}.encode()
			if err != nil {
				t.Fatal(err)
			}
			wantBlock, _ := blockJSON(want)
			got, ok := appendContextJSON(nil, block)
			// plain() sets emoji: such blocks go the ordinary way.
			if ok && string(got) != string(wantBlock) {
				t.Errorf("text %q:\n got %s\nwant %s", text, got, wantBlock)
			}
			if ok != (len(block.ContextElements.Elements) == 1) {
				t.Errorf("text %q, %d elements: hand-written %v", text, len(block.ContextElements.Elements), ok)
			}
		}
	}
	if _, ok := appendContextJSON(nil, slack.NewContextBlock("id", mrkdwn("x"))); ok {
		t.Error("a block id was not left to encode")
	}
}

// FuzzAppendJSONString holds the hand-written quoting to json.Marshal's,
// byte for byte, for any string.
func FuzzAppendJSONString(f *testing.F) {
	for _, seed := range []string{"", "plain", "<@U1> & <#C2>", "\"\\/", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "é🚀", "a\xc3"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// TestReplyCacheLeavesHubModelsAlone: an answer for a Hugging Face Hub
// model is made from the Hub cache, which AnswerVersion does not count:
// every such question is resolved and answered afresh, never cached.
func TestReplyCacheLeavesHubModelsAlone(t *testing.T) {
	models := &fakeModels{calls: make(chan string, 10)}
	h := hubHandler(t, models, func(c *Config) { c.AnswerVersion = func() uint64 { return 1 } })
	for i := range 3 {
		msg := h.Command(context.Background(), slash("Qwen/Qwen3-1.7B lora h100"))
		if !strings.Contains(messageJSON(t, msg), "from the Hugging Face Hub") {
			t.Fatalf("ask %d: not answered with the Hub model:\n%s", i+1, messageJSON(t, msg))
		}
		if msg.pre != nil {
			t.Errorf("ask %d: a Hub model's answer came from the cache", i+1)
		}
	}
	if n := len(models.calls); n != 3 {
		t.Errorf("the Hub was asked %d times for 3 questions, want 3", n)
	}
	if n := len(h.replies.entries) + len(h.replies.byText); n != 0 {
		t.Errorf("%d cache entries after Hub questions, want none", n)
	}
}

// TestReplyCacheByWordsWithTeamMachines: where teams have machines, a
// question whose words name its card is still kept by its words (it is
// the same for every team); one that leaves the card to the machines is
// kept by its canonical form only.
func TestReplyCacheByWordsWithTeamMachines(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.SaveMachine(ctx, "T1DC2JH3J", sizing.Machine{Name: "our box", GPU: "rtx-4090", GPUs: 2, Nodes: 1}); err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer, c.Hardware = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}, db
		c.AnswerVersion = func() uint64 { return 1 }
	})
	for _, text := range []string{"13b qlora h100", "13b qlora"} {
		h.Command(ctx, slash(text))
	}
	if h.replies.getText(1, "13b qlora h100") == nil {
		t.Errorf("a question naming its card is not kept by its words")
	}
	if h.replies.getText(1, "13b qlora") != nil {
		t.Errorf("a question placed on the team's machines is kept by its words")
	}
}

// Ask is the real estimator's inverse search, counted.
func (c *countingAnswerer) Ask(_ context.Context, p reading.Request) (sizing.AskAnswer, error) {
	c.asks.Add(1)
	c.mu.Lock()
	est := c.est
	c.mu.Unlock()
	return est.Ask(p.Query, p.Intent, p.Workload)
}

// TestReplyCacheServesSearches asks the largest-model, longest-context
// and which-GPU questions twice: the second time is not searched again
// and replies what a handler without the cache replies; new prices (a
// new AnswerVersion) search again and show the new price.
func TestReplyCacheServesSearches(t *testing.T) {
	ans := &countingAnswerer{}
	ans.setPrices(pricesAt(0.69))
	mk := func(version func() uint64) *Handler {
		h, err := New(Config{Parse: ans.parse, Answer: ans, Ask: ans, Respond: NewResponseURLPoster(http.DefaultClient),
			Plans: &fakePlans{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return testNow }, AnswerVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	cached, fresh := mk(ans.Version), mk(nil)
	questions := []string{"what 2x rtx-4090 lora", "llama-3.1-8b inference l4 max context", "which gpu 12b lora"}
	for round := range 2 {
		for _, q := range questions {
			before := ans.asks.Load()
			got := cached.Command(context.Background(), slash(q))
			if got.Outcome != OutcomeAnswered {
				t.Fatalf("%q: outcome %q: %s", q, got.Outcome, got.Text)
			}
			if searched, want := ans.asks.Load() > before, round == 0; searched != want {
				t.Errorf("round %d, %q: searched %v, want %v", round, q, searched, want)
			}
			if g, w := messageJSON(t, got), messageJSON(t, fresh.Command(context.Background(), slash(q))); g != w {
				t.Fatalf("round %d, %q: cached reply differs from a fresh one\ncached: %s\nfresh:  %s", round, q, g, w)
			}
		}
	}
	ans.setPrices(pricesAt(0.42))
	before := ans.asks.Load()
	got := messageJSON(t, cached.Command(context.Background(), slash("which gpu 12b lora")))
	if ans.asks.Load() == before {
		t.Error("new prices (a new AnswerVersion) served the search from the cache")
	}
	if want := messageJSON(t, fresh.Command(context.Background(), slash("which gpu 12b lora"))); got != want || !strings.Contains(got, "4× RTX 4090 24 GB*, ZeRO-3: 23.6 GiB per GPU (tight), $1.68/h") {
		t.Errorf("after new prices the reply is not today's (want 4 × $0.42 = $1.68/h):\ncached: %s\nfresh:  %s", got, want)
	}
}

// TestReplyCacheLeavesTargetsAlone: a question with a deadline, a budget
// or a price of its own is answered afresh and not kept, so the plain
// question asked after it never gets its lines (nor it the plain one's).
func TestReplyCacheLeavesTargetsAlone(t *testing.T) {
	models := &fakeModels{calls: make(chan string, 10)}
	h := hubHandler(t, models, func(c *Config) { c.AnswerVersion = func() uint64 { return 1 } })
	for _, q := range []string{"13b lora 4090 on 100m tokens by friday", "13b lora 4090 on 100m tokens with $2000", "13b lora 4090 on 100m tokens at $2/hr"} {
		h.Command(context.Background(), slash(q))
		if n := len(h.replies.entries) + len(h.replies.byText); n != 0 {
			t.Errorf("%q: %d cache entries, want none", q, n)
		}
	}
	plain := messageJSON(t, h.Command(context.Background(), slash("13b lora 4090 on 100m tokens")))
	for _, w := range []string{"friday", "budget", "per GPU-hour, as asked"} {
		if strings.Contains(plain, w) {
			t.Errorf("the plain question's reply says %q", w)
		}
	}
}
