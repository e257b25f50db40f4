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

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
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
		est := Fixed{Estimator: &sizing.Estimator{}}
		c.Parse, c.Answer, c.Ask, c.Plans, c.Hardware = reading.Parse, est, est, db, db
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
	return c.slashTo(text, c.srv.URL+"/late") // never reached by a quick answer
}

// slashTo is slash with responseURL for the answers that come later.
func (c *conversation) slashTo(text, responseURL string) string {
	c.t.Helper()
	form, err := url.ParseQuery(string(readTestdata(c.t, "slash_command.form")))
	if err != nil {
		c.t.Fatal(err)
	}
	form.Set("text", text)
	form.Set("response_url", responseURL)
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

// TestMeaningWordsOverHTTP: words that change the answer are honoured or
// refused by name, never dropped, by slash command and by mention.
func TestMeaningWordsOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	for _, tc := range []struct {
		text    string
		want    []string
		notWant []string
	}{
		{"phi 3 mini on a raspberry pi lol", []string{"fitbot does not size a Raspberry Pi"}, []string{"Fits"}},
		{"llama 3.1 8b on my phone", []string{"fitbot does not size a phone"}, []string{"Fits"}},
		{"llama 3.1 8b 4-bit adapters on a 4090", []string{"QLoRA"}, []string{"not used"}},
		{"llama 3.1 8b on a 4090 if i quantize it", []string{"GPTQ", `\"quantize it\" taken as GPTQ-style int4 weights`}, []string{"not used"}},
		{"qwen3-235b q4 inference 4x h100", []string{"Qwen3 235B", "q4 taken as GGUF q4_k_m"}, []string{"qwq-32b"}},
		{"gpt-oss-20b inference 7800 xt 16gb", []string{`\"7800 xt\" is not a GPU I know: sized as a 16 GB card`}, []string{"Try:", "rtx-4090"}},
		{"llama 3.2 vision 11b inference on a 4090", []string{"Llama 3.2 11B Vision inference", "per sequence for the cross-attention layers"}, []string{"llama-3.2-1b", "/fit 11b"}},
		{"llama 3.1 8b on my m3 max 48gb", []string{"M3 Max 48 GB", "the 48 GB model of the M3 Max"}, []string{"does not match"}},
	} {
		got := c.slash(tc.text)
		wantIn(t, "/fit "+tc.text, got, tc.want...)
		wantNotIn(t, "/fit "+tc.text, got, tc.notWant...)
	}
	got := c.mention("phi 3 mini on a raspberry pi lol")
	wantIn(t, "@fitbot raspberry pi", got, "fitbot does not size a Raspberry Pi")
}

// TestPlansQuestionOverHTTP: "what did we decide for llama last month?"
// lists the team's plans for the family; it never searches the Hub nor
// sizes a model.
func TestPlansQuestionOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	first := c.slash("llama 3.1 8b qlora 4090")
	wantIn(t, "first question", first, "Kept in the team's plans")
	for _, q := range []string{"what did we decide for llama last month?", "what did we plan for llama 3.1 8b"} {
		got := c.slash(q)
		wantIn(t, q, got, "Plans for", "`llama 3.1 8b qlora 4090`")
		wantNotIn(t, q, got, "Fits", "not a model I know", "Kept in the team's plans as plan 2")
	}
	got := c.mention("what did we decide for llama last month?")
	wantIn(t, "@fitbot plans", got, "Plans for the llama family", "`llama 3.1 8b qlora 4090`")
	wantNotIn(t, "@fitbot plans", got, "not a model I know")
}

// TestDeadlineOverHTTP: "in a week" is a time target the answer checks,
// or says first that it could not.
func TestDeadlineOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	wantIn(t, "in 2 days", c.slash("llama 3.1 8b lora on 100m tokens in 2 days on a 4090"), "Done in 2 days: about 15.0 h on 1× RTX 4090 24 GB")
	wantIn(t, "within 3 days", c.slash("llama 3.1 70b full on 10b tokens within 3 days on 8x h100"), "Not done within 3 days: about 18.8 days on 8× H100")
	got := c.mention("qwen2.5 7b full on a 4090 in a week")
	wantIn(t, "in a week, no tokens", got, `not checked: no token count said (1B tokens would take about 8.7 days`)
	wantNotIn(t, "in a week, no tokens", got, "not used")
	got = c.mention("cheapest gpu to fine tune llama 3.1 8b with lora in under 2 hrs")
	wantIn(t, "which gpu in under 2 hrs", got, `in under 2 hrs\" not checked: no token count said`)
	got = c.slash("we have $5k/month, whats the most users we can serve mistral 7b to")
	wantIn(t, "a budget a month", got, `"header"`, `{"type":"section","text":{"type":"mrkdwn","text":"*Budget $5,000/month`)
}

// TestPricesPictureOverHTTP: "@fitbot prices h100" posts the listing and
// then the H100's price picture in its thread; the listing's header is
// the card's display name, the picture is found by the header's block id.
func TestPricesPictureOverHTTP(t *testing.T) {
	var hist fakeHistory
	for d := range 20 {
		hist = append(hist, pricing.Offer{Provider: "runpod", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand,
			USDPerGPUHour: 2.39, ObservedAt: testNow.AddDate(0, 0, -d-1)})
	}
	fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
	c := newConversation(t, func(cfg *Config) {
		cfg.Prices, cfg.History, cfg.Upload = fakePrices{offers: testOffers}, hist, fake.uploader(t, nil)
	})
	got := c.mention("prices h100")
	wantIn(t, "@fitbot prices h100", got, "Prices for every H100")
	if g, _, _ := fake.calls(); g != 1 || fake.gets[0].Get("filename") != "h100-prices.png" {
		t.Errorf("uploads %v, want the h100 price picture", fake.gets)
	}
	got = c.mention("how much is an h100 per hour?")
	wantIn(t, "@fitbot how much is an h100", got, "Prices for every H100")
	if g, _, _ := fake.calls(); g != 2 || fake.gets[1].Get("filename") != "h100-prices.png" {
		t.Errorf("uploads %v, want the h100 price picture twice", fake.gets)
	}
}

// TestSlackParityOverHTTP: what the CLI shows where it matters, Slack
// shows without pressing Show details: tight alternatives are marked.
func TestSlackParityOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	got := c.slash("llama 3.1 70b full on 10b tokens on 8x h100")
	wantIn(t, "tight alternative", got, "(tight: under 20% headroom)")
	got = c.slash("llama 3.1 70b full on 8x h100 zero3 cpu offload")
	wantIn(t, "cpu offload", got, "Host RAM: *", "per machine* for the cpu offload")
	wantNotIn(t, "cpu offload", got, "*Host RAM*\\n") // the breakdown stays a detail
}

// press sends a button press on fitbot's message (the payload file, a
// block_actions from Slack) over HTTP, its replies going to rurl.
func (c *conversation) press(file, action, value string, rurl *responseURL) {
	c.t.Helper()
	payload := strings.NewReplacer("ACTION_ID", action, "ACTION_VALUE", value, "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
		Replace(string(readTestdata(c.t, file)))
	form := url.Values{"payload": {payload}}
	if code := postSignedAt(c.t, c.srv.URL, "/slack/interactions", formType, []byte(form.Encode()), testNow, nil); code != http.StatusOK {
		c.t.Fatalf("press %s: status %d", action, code)
	}
	c.h.Wait()
}

// TestPublicAnswerButtonsOverHTTP: a button pressed on an answer in a
// channel thread leaves the public answer as it is: the new answer is
// posted as a new reply in the thread and kept as a plan; Show details
// goes to the presser alone. On an ephemeral answer the button replaces
// it, as before.
func TestPublicAnswerButtonsOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	rurl := newResponseURL(t)
	c.press("block_actions_channel.json", ActionNextQLoRA, "q:llama-3.1-8b qlora rtx-4090", rurl)
	posted := rurl.posted(t)
	if len(posted) != 1 || posted[0].ReplaceOriginal || posted[0].ResponseType != "in_channel" || posted[0].ThreadTS != "1764464400.000200" {
		t.Fatalf("posted %+v, want one new public reply in the thread", posted)
	}
	wantIn(t, "public press", posted[0].Text+string(mustJSON(t, posted[0].Blocks)), "QLoRA", "Kept in the team's plans as plan 1")

	c.press("block_actions_channel.json", ActionDetails, "q:llama-3.1-8b qlora rtx-4090", rurl)
	if p := rurl.posted(t); len(p) != 2 || p[1].ReplaceOriginal || p[1].ResponseType != "ephemeral" {
		t.Errorf("Show details on a public answer posted %+v, want a private reply", p[1:])
	}

	c.press("block_actions.json", ActionNextQLoRA, "q:llama-3.1-8b qlora rtx-4090", rurl)
	if p := rurl.posted(t); len(p) != 3 || !p[2].ReplaceOriginal {
		t.Errorf("a press on an ephemeral answer posted %+v, want it replaced", p[2:])
	}
}

// TestServingCardsWithoutCountOverHTTP: "for 100 users on h100s" finds
// how many H100s serve the load, by slash command and by mention, and so
// does "on an h100" (#31).
func TestServingCardsWithoutCountOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	q := "llama 3.1 70b for 100 concurrent users on h100s"
	for what, got := range map[string]string{"/fit " + q: c.slash(q), "@fitbot " + q: c.mention(q)} {
		wantIn(t, what, got, "Cheapest for 100 users of Llama 3.1 70B", "H100 SXM 80 GB (", "users each")
		wantNotIn(t, what, got, "on 1× H100")
	}
	got := c.slash("llama 3.1 70b for 100 users on an h100")
	wantIn(t, "on an h100", got, "Cheapest for 100 users of Llama 3.1 70B", "H100 SXM 80 GB")
}

// TestSpotPricesOverHTTP: a spot price question lists spot offers, of
// every variant when a family is asked ("a100s": the A100 SXM 80 GB has
// none, the 40 GB and the 80 GB PCIe have), and says first when no spot
// offer is known (#31). The offers are the built-in sheet's.
func TestSpotPricesOverHTTP(t *testing.T) {
	sheet := pricing.DefaultSheet().Offers()
	c := newConversation(t, func(cfg *Config) { cfg.Prices = fakePrices{offers: sheet} })
	for _, q := range []string{"spot price for a100s", "cheapest spot a100"} {
		got := c.slash(q)
		wantIn(t, q, got, "Spot prices for every A100", "A100 SXM 40 GB", "vast spot", "A100 PCIe 80 GB", "runpod spot")
		wantNotIn(t, q, got, "on-demand,", "on-demand (", "can't price spot")
	}
	for what, got := range map[string]string{"/fit spot price for h100s": c.slash("spot price for h100s"), "@fitbot h100 spot prices": c.mention("h100 spot prices")} {
		wantIn(t, what, got, "Spot prices for every H100", "H100 SXM 80 GB", "gcp spot, us-central1")
		wantNotIn(t, what, got, "on-demand,", "on-demand (")
	}
	got := c.slash("spot price for an l40s")
	wantIn(t, "spot l40s", got, "I can't price spot for the L40S 48 GB: no spot offer known; on-demand shown.", "Prices for L40S 48 GB", "on-demand")
	if i, j := strings.Index(got, "can't price spot"), strings.Index(got, "Prices for L40S"); i > j {
		t.Errorf("spot l40s: the missing spot price is not said first:\n%s", got)
	}
	got = c.slash("is the h100 spot cheaper than the h200?")
	wantIn(t, "spot compare", got, "H100 SXM 80 GB vs H200 141 GB", "gcp spot", "spot offer of each")
	got = c.slash("h200 price per hour on lambda vs coreweave")
	wantIn(t, "h200 at two clouds without it", got, "lambda and coreweave have no price known for any H200", "runpod")
	wantNotIn(t, "h200 at two clouds without it", got, "no offers known")
}

// TestOutsideModelsOverHTTP: a model the catalog lacks is refused by name
// with a Try that keeps it (its Hub id), or one known by name only (an
// image encoder) saying that no similar question exists, by slash command and by
// mention; no other model is answered (#31).
func TestOutsideModelsOverHTTP(t *testing.T) {
	c := newConversation(t, nil)
	for q, want := range map[string][]string{
		"command r plus inference 4xa100": {"I don't know Command R+", "/fit hf.co/CohereForAI/c4ai-command-r-plus inference 4xa100-80"},
		"yi 34b lora a100":                {"I don't know Yi 34B", "/fit hf.co/01-ai/Yi-34B lora a100-80"},
		"vit large training on a100":      {"ViT-L/16 is a 304M-parameter image encoder", "no similar question to offer"},
	} {
		got := c.slash(q)
		wantIn(t, "/fit "+q, got, want...)
		wantNotIn(t, "/fit "+q, got, "Fits", "Does not fit", "bare size")
	}
	got := c.mention("yi 34b lora a100")
	wantIn(t, "@fitbot yi 34b", got, "I don't know Yi 34B", "01-ai/Yi-34B lora a100-80")
	wantNotIn(t, "@fitbot yi 34b", got, "Fits", "Does not fit", "bare size")
}

// TestMeasuredRunByMention: a run recorded in words by mention ("plan 1
// measured peak 33 GiB, ...") is recorded as `/fit plan` records it, never
// read as a question to size.
func TestMeasuredRunByMention(t *testing.T) {
	c := newConversation(t, nil)
	c.h.answers.Runs = c.db // the conversation's store keeps the runs too
	wantIn(t, "first question", c.slash("llama 3.1 8b lora a100 80gb"), "Kept in the team's plans")
	got := c.mention("plan 1 measured peak 33 GiB, 2,800 tok/s, took 7.5h")
	wantIn(t, "@fitbot plan 1 measured", got, "Recorded run #1 of plan #1: peak 33 GiB, 2,800 tok/s, 7.5 h")
	wantNotIn(t, "@fitbot plan 1 measured", got, "no model named")
}
