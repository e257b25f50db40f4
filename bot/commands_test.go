package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

// slashScope is the plans the asker of slash reads.
var slashScope = store.Viewer("T1DC2JH3J", "C0FITBOT", "U2CERLKJA")

func slash(text string) slack.SlashCommand {
	return slack.SlashCommand{TeamID: "T1DC2JH3J", ChannelID: "C0FITBOT", UserID: "U2CERLKJA", Command: "/fit", Text: text}
}

// messageJSON is a message as Slack receives it, for assertions on content.
func messageJSON(t *testing.T, m Message) string {
	t.Helper()
	b, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	// slack-go's context elements marshal themselves with HTML escaping;
	// Slack decodes both forms alike.
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

func TestCommandRouting(t *testing.T) {
	h := newTestHandler(t, func(c *Config) { c.Prices = fakePrices{offers: testOffers} })
	tests := []struct {
		text string
		want []string // substrings of the reply's JSON
	}{
		{"", []string{"fitbot: will it fit", "/fit llama-3.1-8b qlora rtx-4090"}},
		{"help", []string{"Fine-tune", "Train at scale", "Serve", "set OPENAI_API_KEY"}},
		{"  HELP  ", []string{"Fine-tune"}},
		{"llama-3.1-8b qlora rtx-4090", []string{"✅ Fits: Llama 3.1 8B QLoRA on 1× RTX 4090 24 GB", `"value":"q:llama-3.1-8b qlora rtx-4090"`}},
		{"llama-3.1-70b full rtx-4090", []string{"❌ Does not fit", "Ways that fit"}},
		{"plans mistral 7b", []string{"Plans are not kept on this fitbot"}},
		{"plan 4", []string{"Plans are not kept on this fitbot"}},
		{"prices", []string{"Cheapest GPU prices", "$0.34*/GPU-h  runpod on-demand (community)"}},
		{"prices h100", []string{"Prices for every H100", "aws on-demand, us-east-1, 8 GPUs for $55.04/h, 26 h old"}},
		{"prices spot h100", []string{"Spot prices for every H100", "aws spot, us-east-2"}},
		{"prices refresh", []string{"Only fitbot admins"}},
		{"llama 3.1 8b on the big box", []string{"I couldn't use that", "could not use", "`/fit llama-3.1-8b qlora rtx-4090`"}},
		{"plns mistral 7b", []string{"There is no subcommand “plns”", "`/fit plans mistral 7b`"}},
		{"pirces h100", []string{"There is no subcommand “pirces”", "`/fit prices h100`"}},
		{"panic", []string{"Sorry, something went wrong"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			msg := h.Command(context.Background(), slash(tt.text))
			if msg.ResponseType != slack.ResponseTypeEphemeral {
				t.Errorf("response_type = %q, want ephemeral", msg.ResponseType)
			}
			checkLimits(t, msg)
			got := messageJSON(t, msg)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("reply lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestCommandSavesPlans(t *testing.T) {
	plans := &fakePlans{}
	h := newTestHandler(t, func(c *Config) { c.Plans = plans })
	msg := h.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090"))
	if got := messageJSON(t, msg); !strings.Contains(got, `"value":"q:llama-3.1-8b qlora rtx-4090"`) ||
		!strings.Contains(got, "Kept in the team's plans as plan 1: `/fit plan 1` re-prices it, `/fit plans llama-3.1-8b` lists them") {
		t.Errorf("answer does not carry its canonical question or say where the plan is kept:\n%s", got)
	}
	h.Wait()
	a := fixtures["llama-3.1-8b qlora rtx-4090"].answer
	reqJSON, err := json.Marshal(a.Request)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Plan{{
		ID: 1, CreatedAt: testNow, Source: "slack", Team: "T1DC2JH3J", Channel: "C0FITBOT", User: "U2CERLKJA", ChannelKind: store.ChannelPrivate,
		Summary: plan.Summary{Kind: plan.KindFit, Question: "llama-3.1-8b qlora rtx-4090", Canonical: "llama-3.1-8b qlora rtx-4090", Request: a.Request, ModelKey: "llama-3.1-8b", Fits: true, Headroom: "comfortable",
			GPU: "rtx-4090", GPUs: 1, PerGPUBytes: a.PerGPU.TotalBytes, USDPerHour: new(0.69), PriceProvider: "runpod", PriceAsOf: new(testNow.Add(-3 * time.Hour))},
		RequestJSON: string(reqJSON),
	}}
	if diff := cmp.Diff(want, plans.plans); diff != "" {
		t.Errorf("saved plans (-want +got):\n%s", diff)
	}

	msg = h.Command(context.Background(), slash("plans llama-3.1-8b qlora rtx-4090"))
	if got := messageJSON(t, msg); !strings.Contains(got, "*#1*") || !strings.Contains(got, "<@U2CERLKJA>") {
		t.Errorf("/fit plans does not list plan 1:\n%s", got)
	}
	msg = h.Command(context.Background(), slash("plan #1"))
	if got := messageJSON(t, msg); !strings.Contains(got, "*Plan #1* from 2026-11-30 by <@U2CERLKJA>, re-answered today.") ||
		!strings.Contains(got, "then $0.69/h, now $0.69/h (+0%)") {
		t.Errorf("/fit plan 1 does not re-answer the plan:\n%s", got)
	}
	for _, arg := range []string{"plan 99", "plan x", "plan -1", "plans", "plans the big one"} {
		if got := messageJSON(t, h.Command(context.Background(), slash(arg))); !strings.Contains(got, "I couldn't use that") {
			t.Errorf("/fit %s: want an error with an example, got\n%s", arg, got)
		}
	}
}

func TestCommandAnswersWhenSavingFails(t *testing.T) {
	h := newTestHandler(t, func(c *Config) { c.Plans = &fakePlans{err: errors.New("database is locked")} })
	got := messageJSON(t, h.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090")))
	if !strings.Contains(got, "✅ Fits") || !strings.Contains(got, `"value":"q:llama-3.1-8b qlora rtx-4090"`) {
		t.Errorf("an unsaved answer must still be given, with a query reference:\n%s", got)
	}
}

func TestCommandPolicy(t *testing.T) {
	h := newTestHandler(t, func(c *Config) {
		c.Policy = Policy{AllowedTeams: []string{"T1DC2JH3J"}, AllowedChannels: []string{"C0FITBOT"}, PerUserPerMinute: 2}
	})
	other := slash("llama-3.1-8b qlora rtx-4090")
	other.TeamID = "TOTHER"
	if got := h.Command(context.Background(), other).Text; !strings.Contains(got, "not enabled here") {
		t.Errorf("other team: %q, want a refusal", got)
	}
	other = slash("llama-3.1-8b qlora rtx-4090")
	other.ChannelID = "COTHER"
	if got := h.Command(context.Background(), other).Text; !strings.Contains(got, "not enabled here") {
		t.Errorf("other channel: %q, want a refusal", got)
	}
	for i, want := range []string{"✅ Fits", "✅ Fits", "asking faster"} {
		if got := h.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090")).Text; !strings.Contains(got, want) {
			t.Errorf("question %d: %q, want %q", i+1, got, want)
		}
	}
	if got := h.Command(context.Background(), slash("help")).Text; !strings.Contains(got, "fitbot help") {
		t.Errorf("help is not rate limited, got %q", got)
	}
}

func TestLimiterRefills(t *testing.T) {
	l := newLimiter(2)
	at := testNow
	for i, want := range []bool{true, true, false} {
		if got := l.allow("U1", at); got != want {
			t.Errorf("call %d: allow = %v, want %v", i+1, got, want)
		}
	}
	if !l.allow("U2", at) {
		t.Error("another user shares the first user's bucket")
	}
	if !l.allow("U1", at.Add(30*time.Second)) {
		t.Error("no token back after half a minute at 2 a minute")
	}
}

func TestInterpreterAnswersThroughResponseURL(t *testing.T) {
	const question = "can we tune the big one on our box"
	tests := []struct {
		name   string
		interp fakeReader
		want   string
	}{
		{"interpreted", fakeReader{parsed: reading.Request{Query: fixtures["llama-3.1-8b qlora rtx-4090"].query}, delay: 50 * time.Millisecond}, "Interpreted by the language model"},
		{"model fails: the parser's message", fakeReader{err: errors.New("llm: timeout")}, "`/fit 13B lora 4090`"},
		{"model outlasts the follow-up budget: the parser's message", fakeReader{delay: time.Hour}, "`/fit 13B lora 4090`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := newResponseURL(t)
			plans := &fakePlans{}
			h := newTestHandler(t, func(c *Config) {
				c.ModelReader, c.Plans, c.FollowUpTimeout = tt.interp, plans, 200*time.Millisecond
			})
			cmd := slash(question)
			cmd.ResponseURL = url.URL + "/commands/T1/1/x"
			start := time.Now()
			ack := h.Command(context.Background(), cmd)
			if d := time.Since(start); d > 20*time.Millisecond {
				t.Errorf("acknowledgement took %v; it must not wait for the model", d)
			}
			if !strings.Contains(ack.Text, "Interpreting") {
				t.Errorf("ack = %q, want Interpreting…", ack.Text)
			}
			h.Wait()
			posted := url.posted(t)
			if len(posted) != 1 {
				t.Fatalf("posted %d messages, want 1", len(posted))
			}
			if !posted[0].ReplaceOriginal || posted[0].ResponseType != slack.ResponseTypeEphemeral {
				t.Errorf("posted %+v, want an ephemeral replacing the ack", posted[0])
			}
			if got := string(mustJSON(t, posted[0])); !strings.Contains(got, tt.want) {
				t.Errorf("posted message lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

// TestInterpreterAskedWhenNoModelIsNamed: the real grammar reads "can we
// tune the big one on our box" without an error (the verb sets the method)
// but finds no model; the language model must still be asked.
func TestInterpreterAskedWhenNoModelIsNamed(t *testing.T) {
	url := newResponseURL(t)
	h := newTestHandler(t, func(c *Config) {
		c.Parse = reading.Parse
		c.ModelReader = fakeReader{parsed: reading.Request{Query: fixtures["llama-3.1-8b qlora rtx-4090"].query}}
	})
	if _, err := reading.Parse("can we tune the big one on our box"); err != nil {
		t.Fatalf("the real parser refused the question (%v); this test needs one it reads without a model", err)
	}
	cmd := slash("can we tune the big one on our box")
	cmd.ResponseURL = url.URL + "/commands/T1/1/x"
	ack := h.Command(context.Background(), cmd)
	if !strings.Contains(ack.Text, "Interpreting") {
		t.Fatalf("ack = %q, want Interpreting…", ack.Text)
	}
	h.Wait()
	if posted := url.posted(t); len(posted) != 1 || !strings.Contains(string(mustJSON(t, posted[0])), "Interpreted by the language model") {
		t.Errorf("posted %d messages, want one interpreted answer", len(posted))
	}
}

func TestInterpreterNotAskedForBadNumbers(t *testing.T) {
	called := false
	h := newTestHandler(t, func(c *Config) {
		c.ModelReader = fakeReader{}
		c.Parse = func(string) (reading.Request, error) {
			return reading.Request{Query: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodLoRA}}, &sizing.InputError{Problem: "seq 0 is not a sequence length", Hint: "llama-3.1-8b lora 4090 seq 4096"}
		}
		c.Respond = responderFunc(func(context.Context, string, Message) error { called = true; return nil })
	})
	cmd := slash("llama 3.1 8b lora 4090 seq 0")
	cmd.ResponseURL = "https://hooks.slack.com/commands/x"
	got := h.Command(context.Background(), cmd)
	h.Wait()
	if called || !strings.Contains(got.Text, "seq 0 is not a sequence length") {
		t.Errorf("reply %q (posted later: %v), want the parser's message at once", got.Text, called)
	}
}

type responderFunc func(ctx context.Context, url string, m Message) error

func (f responderFunc) Respond(ctx context.Context, url string, m Message) error {
	return f(ctx, url, m)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewRequiresTheEssentials(t *testing.T) {
	for _, cfg := range []Config{{}, {Parse: fakeParser}, {Parse: fakeParser, Answer: fakeAnswerer{}}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) = nil error, want one naming the missing piece", cfg)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{{"plans", "plans", 0}, {"plns", "plans", 1}, {"pirces", "prices", 2}, {"", "abc", 3}, {"gpü", "gpu", 1}}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPricesRefresh(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		refresh func(context.Context) (string, error)
		ack     string
		posted  string
	}{
		{"not an admin", "U2CERLKJA", nil, "Only fitbot admins", ""},
		{"admin, not wired", "UADMIN", nil, "not available", ""},
		{"admin", "UADMIN", func(context.Context) (string, error) { return "4 providers, 312 offers", nil }, "Refreshing prices", "Prices refreshed: 4 providers, 312 offers"},
		{"admin, refresh fails", "UADMIN", func(context.Context) (string, error) { return "", errors.New("aws: 503") }, "Refreshing prices", "last good prices stay in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := newResponseURL(t)
			h := newTestHandler(t, func(c *Config) { c.Policy.Admins = []string{"UADMIN"}; c.Refresh = tt.refresh })
			cmd := slash("prices refresh")
			cmd.UserID, cmd.ResponseURL = tt.user, url.URL+"/commands/1"
			if got := h.Command(context.Background(), cmd).Text; !strings.Contains(got, tt.ack) {
				t.Errorf("ack %q, want %q", got, tt.ack)
			}
			h.Wait()
			posted := url.posted(t)
			if tt.posted == "" {
				if len(posted) != 0 {
					t.Errorf("posted %+v, want nothing", posted)
				}
				return
			}
			if len(posted) != 1 || !strings.Contains(posted[0].Text, tt.posted) || !posted[0].ReplaceOriginal {
				t.Errorf("posted %+v, want one replacement with %q", posted, tt.posted)
			}
		})
	}
}

// blockedPlans is a PlanStore whose writer is busy until release is
// closed or the caller gives up.
type blockedPlans struct {
	fakePlans
	release chan struct{}
}

func (b *blockedPlans) SavePlan(ctx context.Context, p *store.Plan) (int64, error) {
	select {
	case <-b.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return b.fakePlans.SavePlan(ctx, p)
}

// TestAnswerWhenTheDatabaseIsBusy: a plan that does not commit within
// saveBudget does not hold the answer past it, and the answer does not
// claim a plan was kept.
func TestAnswerWhenTheDatabaseIsBusy(t *testing.T) {
	plans := &blockedPlans{release: make(chan struct{})}
	defer close(plans.release)
	h := newTestHandler(t, func(c *Config) { c.Plans = plans })
	start := time.Now()
	msg := h.Command(context.Background(), slash("llama-3.1-8b qlora rtx-4090"))
	d := time.Since(start)
	if d < saveBudget || d > saveBudget+time.Second || !strings.Contains(msg.Text, "✅ Fits") {
		t.Errorf("answer %q after %v with the database busy; want it after the %v save budget", msg.Text, d, saveBudget)
	}
	if got := messageJSON(t, msg); strings.Contains(got, "Kept in the team's plans") {
		t.Errorf("answer claims a plan was kept that was not:\n%s", got)
	}
	h.Wait()
	if len(plans.plans) != 0 {
		t.Errorf("plans %+v, want none", plans.plans)
	}
}

// requestKey marks a request's context in TestAnswerGetsRequestContext.
type requestKey struct{}

// ctxAnswerer records the request mark of each context it is given.
type ctxAnswerer struct{ seen *[]any }

func (c ctxAnswerer) Answer(ctx context.Context, q sizing.Query) (sizing.Answer, error) {
	*c.seen = append(*c.seen, ctx.Value(requestKey{}))
	return fakeAnswerer{}.Answer(ctx, q)
}

func (c ctxAnswerer) Ask(ctx context.Context, p reading.Request) (sizing.AskAnswer, error) {
	*c.seen = append(*c.seen, ctx.Value(requestKey{}))
	return Fixed{Estimator: &sizing.Estimator{}}.Ask(ctx, p)
}

// TestAnswerGetsRequestContext: the answerer and the asker are called
// with the request's context, not one made up on the way.
func TestAnswerGetsRequestContext(t *testing.T) {
	var seen []any
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer, c.Ask = reading.Parse, ctxAnswerer{&seen}, ctxAnswerer{&seen}
	})
	ctx := context.WithValue(context.Background(), requestKey{}, "req-1")
	h.Command(ctx, slash("llama-3.1-8b qlora rtx-4090"))
	h.Command(ctx, slash("largest model lora 2x rtx-4090"))
	if len(seen) != 2 || seen[0] != "req-1" || seen[1] != "req-1" {
		t.Errorf("the answerer saw %v, want the request's context twice", seen)
	}
}

// TestFallbackTextNeverBroadcasts: words with Slack's special mentions
// (<!channel>, <!here>, <!everyone>, <!subteam^...>) reach no reply's
// fallback text as mentions, whether the reply is an answer (which Share
// posts in the channel), an error or a list; the blocks escape them too.
func TestFallbackTextNeverBroadcasts(t *testing.T) {
	h, _ := newRealHandler(t)
	for _, text := range []string{
		"can <!channel> lora llama-3.1-8b on a 4090",
		"plans <!here>",
		"plan <!everyone>",
		"<!subteam^S0123|ml-team> 13b lora 4090",
		"which gpu <!channel> 13b lora",
	} {
		msg := h.Command(context.Background(), slash(text))
		if strings.Contains(msg.Text, "<!") {
			t.Errorf("/fit %s: fallback text %q carries a special mention", text, msg.Text)
		}
		if body := messageJSON(t, msg); strings.Contains(body, "<!") {
			t.Errorf("/fit %s: a special mention reaches Slack:\n%s", text, body)
		}
	}
	if got := inert("hi <@U123> <!here> <https://x|y> &lt;", true); got != "hi <@U123> &lt;!here&gt; &lt;https://x|y&gt; &lt;" {
		t.Errorf("inert = %q", got)
	}
}
