package bot

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// phoneColumns is the widest code line a phone shows in Slack without
// scrolling sideways.
const phoneColumns = 40

// TestGoldenCodeLinesFitAPhone holds every golden Slack message's code
// blocks (``` in any text field) to phoneColumns: a wider line scrolls
// sideways on a phone, which the fit answers avoid and every other answer
// must too.
func TestGoldenCodeLinesFitAPhone(t *testing.T) {
	var files []string
	for _, dir := range []string{"golden", "digest"} {
		f, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d golden messages found", len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var msg any
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, line := range codeLines(msg) {
			if n := utf8.RuneCountInString(line); n > phoneColumns {
				t.Errorf("%s: a code line of %d columns (at most %d): %q", f, n, phoneColumns, line)
			}
		}
	}
}

// TestSlackAnswersFitAPhone: the answers of every kind, as /fit gives
// them and as Show details shows them, keep their code lines to
// phoneColumns, with the real parser, estimator and price sheet.
func TestSlackAnswersFitAPhone(t *testing.T) {
	h, _ := newRealHandler(t)
	ctx := context.Background()
	for _, q := range []string{
		"13B lora 4090",
		"llama 3.1 70b full on 2 nodes of 8 h100",
		"how many users can 2xh100 serve llama-3.1-70b",
		"cheapest gpus for 200 users of llama-3.1-70b with ttft under 1s and 20 tok/s each",
		"fastest gpu to serve mixtral 8x22b",
		"on prem box for 100 users, qwen3 30b-a3b, what do we buy",
		"h100 or h200 for serving llama 3.1 70b",
		"what 2x4090 lora",
		"llama-3.1-8b inference l4 max context",
		"which gpu 13b lora on 1B tokens",
		"13B lora 4090 buy-vs-rent 3 jobs/week 5h",
		"prices h100",
		"help",
	} {
		msgs := []Message{h.Command(ctx, slash(q))}
		if ref := buttonValue(msgs[0], ActionDetails); ref != "" {
			msgs = append(msgs, h.press(ctx, slashScope, ActionDetails, ref, "U1")...)
		}
		if strings.HasPrefix(q, "cheapest gpus for 200") && (len(msgs) != 2 || !strings.Contains(messageJSON(t, msgs[1]), "$/1M out")) {
			t.Errorf("/fit %s: Show details gives no configuration's figures: %d messages", q, len(msgs))
		}
		for i, m := range msgs {
			var v any
			if err := json.Unmarshal([]byte(messageJSON(t, m)), &v); err != nil {
				t.Fatal(err)
			}
			for _, line := range codeLines(v) {
				if n := utf8.RuneCountInString(line); n > phoneColumns {
					t.Errorf("/fit %s (message %d): a code line of %d columns: %q", q, i, n, line)
				}
			}
		}
	}
}

// buttonValue is the value of the message's button for action, or "".
func buttonValue(msg Message, action string) string {
	for _, b := range msg.Blocks {
		if a, ok := b.(*slack.ActionBlock); ok {
			for _, el := range a.Elements.ElementSet {
				if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == action {
					return btn.Value
				}
			}
		}
	}
	return ""
}

// TestCodeLines: the walk finds code in nested text fields, and only
// between ``` fences.
func TestCodeLines(t *testing.T) {
	var msg any
	if err := json.Unmarshal([]byte(`{"blocks":[{"text":{"text":"prose that is long\n`+"```a\\nbb```"+` more `+"```ccc```"+`"}},
		{"elements":[{"text":"`+"```dddd```"+`"}]}]}`), &msg); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(codeLines(msg), "|"), "a|bb|ccc|dddd"; got != want {
		t.Errorf("codeLines = %q, want %q", got, want)
	}
}

// codeLines are the lines inside ``` fences of every "text" string in a
// decoded JSON message.
func codeLines(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "text" {
				parts := strings.Split(s, "```")
				for i := 1; i < len(parts); i += 2 {
					out = append(out, strings.Split(parts[i], "\n")...)
				}
				continue
			}
			out = append(out, codeLines(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, codeLines(e)...)
		}
	}
	return out
}
