package bot

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// fakeModels resolves Hub models from hub/testdata after a delay, or fails.
type fakeModels struct {
	delay   time.Duration
	release chan struct{} // when set, the Hub answers only once it is closed
	err     error
	calls   chan string
	// moreCached adds that many older cached models behind Qwen3-1.7B.
	moreCached int
}

func (f *fakeModels) ResolveParsed(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error) {
	if f.calls != nil {
		f.calls <- question
	}
	answered := time.After(f.delay)
	if f.release != nil {
		answered = nil
	}
	select {
	case <-answered:
	case <-f.release:
	case <-ctx.Done():
		return p, ctx.Err()
	}
	if f.err != nil {
		return p, f.err
	}
	config, err := os.ReadFile("../hub/testdata/config_qwen3-1.7b.json")
	if err != nil {
		return p, err // runs in the handler's goroutine: the test sees the failure in the reply
	}
	m, err := sizing.ModelFromHub("Qwen/Qwen3-1.7B", config, sizing.HubWeights{Total: 2_031_739_904})
	if err != nil {
		return p, err
	}
	if p.Hub == "" { // a name the catalog lacks: read again with the repo in its place
		p, _ = reading.Parse(question[:p.Missing.Start] + "Qwen/Qwen3-1.7B" + question[p.Missing.End:])
	}
	m.Assume("Qwen/Qwen3-1.7B from the Hugging Face Hub (revision 8268fe3, fetched just now)")
	p.Query.Arch = &m
	return p, nil
}

func (f *fakeModels) CachedRepo(_ context.Context, words string) (string, bool) {
	return "Qwen/Qwen3-1.7B", hub.SameName("Qwen/Qwen3-1.7B", words)
}

func hubHandler(t *testing.T, models *fakeModels, change func(*Config)) *Handler {
	return newTestHandler(t, func(c *Config) {
		c.Parse = reading.Parse
		c.Answer = Fixed{Estimator: &sizing.Estimator{}}
		c.Models = models
		if change != nil {
			change(c)
		}
	})
}

func TestHubQuestionAnsweredInTheAck(t *testing.T) {
	h := hubHandler(t, &fakeModels{delay: 10 * time.Millisecond}, nil)
	for _, q := range []string{"Qwen/Qwen3-1.7B lora h100", "<https://huggingface.co/Qwen/Qwen3-1.7B|Qwen3-14B> lora h100", "qwen3 1.7b lora h100"} {
		msg := h.Command(context.Background(), slash(q))
		got := messageJSON(t, msg)
		if !strings.Contains(got, "Qwen/Qwen3-1.7B") || !strings.Contains(got, "from the Hugging Face Hub") || outcomeOf(msg) != OutcomeAnswered {
			t.Errorf("/fit %s: not answered with the Hub model:\n%s", q, got)
		}
		checkLimits(t, msg)
	}
}

// TestSlowHubNeverHoldsTheAck: a Hub that has not answered by the budget
// gets an acknowledgement (the Hub here answers only after the ack is
// back, so the ack cannot have waited for it), and the answer replaces it
// through response_url.
func TestSlowHubNeverHoldsTheAck(t *testing.T) {
	rurl := newResponseURL(t)
	hubAnswers := make(chan struct{})
	h := hubHandler(t, &fakeModels{release: hubAnswers}, nil)
	cmd := slash("Qwen/Qwen3-1.7B lora h100")
	cmd.ResponseURL = rurl.URL
	start := time.Now()
	ack := h.Command(context.Background(), cmd)
	took := time.Since(start)
	close(hubAnswers)
	if took < hubAckBudget || took > 3*time.Second {
		t.Errorf("acknowledged after %v, want the %v budget and well inside Slack's 3 s", took, hubAckBudget)
	}
	if !strings.Contains(ack.Text, "Looking up Qwen/Qwen3-1.7B on the Hugging Face Hub") {
		t.Errorf("ack = %q", ack.Text)
	}
	h.Wait()
	posted := rurl.posted(t)
	if len(posted) != 1 || !posted[0].ReplaceOriginal || !strings.Contains(posted[0].Text, "Qwen/Qwen3-1.7B") {
		t.Fatalf("posted %+v, want the answer replacing the ack", posted)
	}
}

func TestHubRefusalShowsTheHint(t *testing.T) {
	gated := &hub.Error{Kind: hub.KindGated, Problem: "google/gemma-3n-E4B-it is a gated repo on the Hugging Face Hub: its config.json needs a token",
		Hint: "accept the model's terms at https://huggingface.co/google/gemma-3n-E4B-it and set HF_TOKEN to a read token of that account"}
	h := hubHandler(t, &fakeModels{err: gated}, nil)
	msg := h.Command(context.Background(), slash("google/gemma-3n-E4B-it inference h100"))
	got := messageJSON(t, msg)
	for _, w := range []string{"is a gated repo", "*Try:* accept the model", "set HF_TOKEN"} {
		if !strings.Contains(got, w) {
			t.Errorf("message lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "/fit accept") {
		t.Errorf("a hint in words was shown as a command:\n%s", got)
	}
}

func TestHubQuestionInAMentionWaits(t *testing.T) {
	h := hubHandler(t, &fakeModels{delay: 1500 * time.Millisecond}, nil)
	msg := h.Command(context.Background(), slack.SlashCommand{TeamID: "T1", ChannelID: "C1", UserID: "U1", Text: "Qwen/Qwen3-1.7B lora h100"})
	if outcomeOf(msg) != OutcomeAnswered {
		t.Errorf("a mention (no response_url) was not answered in full: %s", msg.Text)
	}
}

func TestWithoutResolverHubIDsKeepTheParsersMessage(t *testing.T) {
	h := newTestHandler(t, func(c *Config) { c.Parse = reading.Parse; c.Answer = Fixed{Estimator: &sizing.Estimator{}} })
	msg := h.Command(context.Background(), slash("Qwen/Qwen3-1.7B lora h100"))
	if !strings.Contains(msg.Text, "Qwen/Qwen3-1.7B") || outcomeOf(msg) == OutcomeAnswered {
		t.Errorf("without a resolver: %s", msg.Text)
	}
}

func TestNameNeitherCatalogNorHubKnowsGoesToTheLanguageModel(t *testing.T) {
	parsed, err := reading.Parse("llama-3.1-8b qlora rtx-4090")
	if err != nil {
		t.Fatal(err)
	}
	notFound := &sizing.InputError{Problem: `"qwen9 14b" is not a model I know`, Hint: "qwen3-8b lora h100"}
	h := hubHandler(t, &fakeModels{err: notFound}, func(c *Config) { c.ModelReader = fakeReader{parsed: parsed} })
	msg := h.Command(context.Background(), slash("qwen9 14b lora h100"))
	if outcomeOf(msg) != OutcomeAnswered || !strings.Contains(messageJSON(t, msg), "Interpreted by the language model") {
		t.Errorf("not interpreted: %s", msg.Text)
	}
	h = hubHandler(t, &fakeModels{err: notFound}, nil)
	if msg := h.Command(context.Background(), slash("qwen9 14b lora h100")); !strings.Contains(msg.Text, `"qwen9 14b" is not a model I know`) {
		t.Errorf("without a language model: %s", msg.Text)
	}
}

func (f *fakeModels) Cached(_ context.Context, limit int) ([]hub.Entry, error) {
	config, err := os.ReadFile("../hub/testdata/config_qwen3-1.7b.json")
	if err != nil {
		return nil, err
	}
	entries := []hub.Entry{{Repo: "Qwen/Qwen3-1.7B", Revision: "8268fe3", FetchedAt: testNow.Add(-5 * time.Hour), Config: config,
		Weights: sizing.HubWeights{Total: 2_031_739_904}}}
	for i := range f.moreCached {
		entries = append(entries, hub.Entry{Repo: fmt.Sprintf("someone/Qwen3-1.7B-copy-%d", i), Revision: "1",
			FetchedAt: testNow.Add(-time.Duration(6+i) * time.Hour), Config: config, Weights: sizing.HubWeights{Total: 2_031_739_904}})
	}
	return entries[:min(limit, len(entries))], nil
}

// TestModelsListsTheRecentHubModelsOnly: however many models the cache
// holds, /fit models lists the most recently fetched and says there are
// more.
func TestModelsListsTheRecentHubModelsOnly(t *testing.T) {
	h := hubHandler(t, &fakeModels{moreCached: 500}, nil)
	msg := h.Command(context.Background(), slash("models"))
	got := messageJSON(t, msg)
	if n := strings.Count(got, "Qwen3-1.7B-copy-"); n != 2*(maxListedHubModels-1) { // each id is shown as ID and name
		t.Errorf("%d listings of cached copies, want %d", n, 2*(maxListedHubModels-1))
	}
	if !strings.Contains(got, "older ones are cached too") {
		t.Errorf("/fit models does not say more are cached")
	}
	checkLimits(t, msg)
}

func TestModelsListsCachedHubModels(t *testing.T) {
	h := hubHandler(t, &fakeModels{}, nil)
	msg := h.Command(context.Background(), slash("models"))
	got := messageJSON(t, msg)
	for _, w := range []string{"Qwen/Qwen3-1.7B", "1.72B params, Hugging Face Hub, fetched 5 hours ago", "any Hugging Face Hub model"} {
		if !strings.Contains(got, w) {
			t.Errorf("/fit models lacks %q", w)
		}
	}
	checkLimits(t, msg)
}
