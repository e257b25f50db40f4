package bot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/measure"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// TestMeasuredRunInSlack records a run from Slack against a plan asked
// there, refuses what it must (a peak above the card, words it cannot
// read, a plan the asker cannot read) without storing anything, shows
// the run on the next similar answer to that workspace only (the reply
// cache serves it to no other), and lists it in /fit calibration.
func TestMeasuredRunInSlack(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer, c.Plans, c.Runs = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}, db, db
		c.AnswerVersion = func() uint64 { return 1 }
	})
	asked := h.Command(ctx, slash("llama 3.1 8b lora a100 80gb"))
	h.Wait()
	if asked.Outcome != OutcomeAnswered {
		t.Fatalf("the question: %+v", asked)
	}
	got := h.Command(ctx, slash("plan 1 measured peak 33 GiB, 5,000 tok/s"))
	if !strings.Contains(got.Text, "Recorded run #1 of plan #1: peak 33 GiB, 5,000 tok/s") || !strings.Contains(got.Text, "fitbot said peak 31.5 GiB (measured 5% above)") {
		t.Errorf("recorded: %q", got.Text)
	}
	for text, says := range map[string]string{
		"plan 1 measured peak 800 GiB":    "more than one A100 SXM 80 GB holds",
		"plan 1 measured peak 33 lots":    "33 has no unit",
		"plan 9 measured peak 33 GiB":     "There is no plan #9.",
		"plan 1 measured <!channel> 3 h":  "not understood",
		"plan 1 measured peak 33 GiB 33g": "two memory figures",
	} {
		msg := h.Command(ctx, slash(text))
		if !strings.Contains(msg.Text, says) || strings.Contains(msg.Text, "<!channel>") {
			t.Errorf("%q: %q, want it to say %q", text, msg.Text, says)
		}
	}
	other := slack.SlashCommand{TeamID: "T0OTHER", ChannelID: "C1", UserID: "U1", Command: "/fit", Text: "plan 1 measured peak 20 GiB"}
	if msg := h.Command(ctx, other); !strings.Contains(msg.Text, "There is no plan #1.") {
		t.Errorf("another workspace records a run of plan 1: %q", msg.Text)
	}

	ours := h.Command(ctx, slash("llama 3 8b lora a100 40gb"))
	if !strings.Contains(blocksText(t, ours), "On 1 measured run like this here, peak memory was 5% above fitbot's figure") {
		t.Errorf("the next similar answer does not say the run:\n%s", blocksText(t, ours))
	}
	theirs := h.Command(ctx, slack.SlashCommand{TeamID: "T0OTHER", ChannelID: "C1", UserID: "U1", Command: "/fit", Text: "llama 3 8b lora a100 40gb"})
	if strings.Contains(blocksText(t, theirs), "measured run") {
		t.Errorf("another workspace is told this one's runs:\n%s", blocksText(t, theirs))
	}
	cal := h.Command(ctx, slash("calibration"))
	if !strings.Contains(cal.Text, "1 measured runs") || !strings.Contains(cal.Text, "LoRA on A100, 3-10B") {
		t.Errorf("calibration: %q", cal.Text)
	}
	runs, _ := db.MeasuredRuns(ctx, store.AllPlans(), 0)
	if len(runs) != 1 {
		t.Errorf("%d runs stored, want the one", len(runs))
	}
}

// blocksText is every text of a message's blocks, joined.
func blocksText(t *testing.T, m Message) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(m.Text)
	for _, raw := range m.Blocks {
		if s, ok := raw.(*slack.SectionBlock); ok && s.Text != nil {
			b.WriteString("\n" + s.Text.Text)
		}
		if c, ok := raw.(*slack.ContextBlock); ok {
			for _, e := range c.ContextElements.Elements {
				if tx, ok := e.(*slack.TextBlockObject); ok {
					b.WriteString("\n" + tx.Text)
				}
			}
		}
	}
	return b.String()
}

func TestDigestSaysMeasuredRunsFarOff(t *testing.T) {
	gib := int64(1 << 30)
	d := digest.Digest{Headline: "h", MeasuredOff: []measure.Pair{{PlanID: 12, Method: "lora", GPU: "a100-80",
		Predicted: measure.Run{PeakBytes: 30 * gib}, Measured: measure.Run{PeakBytes: 36 * gib}}}}
	want := "plan #12, lora on A100 SXM 80 GB: peak 36.0 GiB where fitbot said 30.0 GiB (+20.0%)"
	if text := DigestText(d); !strings.Contains(text, want) {
		t.Errorf("digest text lacks %q:\n%s", want, text)
	}
}
