package bot

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestEventParsedOnce: a mention or DM is parsed once on its way to the
// answer, whether the grammar answers it or the language model is asked
// (and fails); before, the event path parsed it again to decide on the
// model and once more to choose between help and the parser's message.
func TestEventParsedOnce(t *testing.T) {
	for _, file := range []string{"app_mention.json", "message_im.json"} {
		var parses atomic.Int32
		f := newEventsFixture(t, func(c *Config) {
			c.Parse = func(q string) (reading.Request, error) { parses.Add(1); return fakeParser(q) }
		})
		f.h.cfg.ModelReader = MeteredReader(fakeReader{err: errModelDown}, f.metrics)
		f.h.answers.Reader = f.h.cfg.ModelReader
		f.deliver(t, file)
		f.h.Wait()
		if n := parses.Load(); n != 1 {
			t.Errorf("%s: parsed %d times, want once", file, n)
		}
		if n := len(f.rec.posted()); n != 1 {
			t.Errorf("%s: %d posts, want 1", file, n)
		}
	}
}

// TestLanguageModelAskedOnce: a DM naming a model neither the catalog
// nor the Hub knows asks the language model once; before, the Hub path
// asked it and then the event path asked it again.
func TestLanguageModelAskedOnce(t *testing.T) {
	models := &fakeModels{delay: time.Millisecond, err: &sizing.InputError{Problem: `no model "qwen9 1.7b" on the Hub`, Hint: "Qwen/Qwen3-1.7B lora h100"}}
	f := newEventsFixture(t, func(c *Config) {
		c.Parse, c.Answer, c.Models = reading.Parse, Fixed{Estimator: &sizing.Estimator{}}, models
	})
	f.h.cfg.ModelReader = MeteredReader(fakeReader{err: errModelDown}, f.metrics)
	f.h.answers.Reader = f.h.cfg.ModelReader
	in := incoming{kind: KindDM, text: "qwen9 1.7b qlora", ts: "1764464500.000100", asker: who{team: "T1DC2JH3J", channel: "D0FITBOTDM", user: "U2CERLKJA"}}
	msg := f.events.reply(context.Background(), in)
	if got := messageJSON(t, msg); !strings.Contains(got, "qwen9 1.7b") {
		t.Errorf("reply does not give the Hub's message:\n%s", got)
	}
	if got := testutil.ToFloat64(f.metrics.llmCalls.WithLabelValues("failed")); got != 1 {
		t.Errorf("language model asked %v times, want once", got)
	}
}
