package bot

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/slack-go/slack"
)

// TestClarifyMessage: a question read two ways gets a button per reading,
// each carrying that reading's words; a reading whose words do not fit a
// button is left out, and one reading left is no question to ask.
func TestClarifyMessage(t *testing.T) {
	msg, ok := clarifyMessage("what is an h100 selling for", []readingChoice{
		{Label: "GPU prices of the H100", Words: "prices h100"},
		{Label: "the largest model one H100 serves", Words: "largest model inference h100"},
		{Label: "too long", Words: strings.Repeat("x", maxActionValue)},
	})
	if !ok {
		t.Fatal("two readings: no question back")
	}
	if msg.Outcome != OutcomeNotUnderstood || msg.ResponseType != slack.ResponseTypeEphemeral {
		t.Errorf("outcome %q, type %q: want a private question back", msg.Outcome, msg.ResponseType)
	}
	var buttons []*slack.ButtonBlockElement
	for _, b := range msg.Blocks {
		if a, ok := b.(*slack.ActionBlock); ok && a.BlockID == readingsBlockID {
			for _, el := range a.Elements.ElementSet {
				buttons = append(buttons, el.(*slack.ButtonBlockElement))
			}
		}
	}
	if len(buttons) != 2 || buttons[0].ActionID != ActionReading || buttons[0].Value != "q:prices h100" ||
		buttons[1].Value != "q:largest model inference h100" {
		b, _ := json.Marshal(msg.Blocks)
		t.Fatalf("buttons %s, want one per reading that fits, asking its words", b)
	}
	if !strings.Contains(msg.Text, "`/fit prices h100`") || !strings.Contains(msg.Text, "what is an h100 selling for") {
		t.Errorf("fallback text %q does not name the question and the commands", msg.Text)
	}
	if _, ok := clarifyMessage("x", []readingChoice{{Label: "one", Words: "prices h100"}}); ok {
		t.Error("one reading made a question back")
	}
}

// TestReadingButtonOverHTTP presses a reading's button: on a private
// question back its answer replaces it, on a message in a channel thread
// it is posted in the thread for everyone; the reading is routed as
// typed words are (a price question answers with prices).
func TestReadingButtonOverHTTP(t *testing.T) {
	c := newConversation(t, func(cfg *Config) { cfg.Prices = fakePrices{offers: testOffers} })
	rurl := newResponseURL(t)
	c.press("block_actions_reading.json", ActionReading, "q:prices h100", rurl)
	posted := rurl.posted(t)
	if len(posted) != 1 || !posted[0].ReplaceOriginal {
		t.Fatalf("posted %+v, want the question back replaced", posted)
	}
	wantIn(t, "reading pressed", posted[0].Text+string(mustJSON(t, posted[0].Blocks)), "Prices for every H100")

	c.press("block_actions_channel.json", ActionReading, "q:llama-3.1-8b qlora rtx-4090", rurl)
	posted = rurl.posted(t)
	if len(posted) != 2 || posted[1].ReplaceOriginal || posted[1].ResponseType != "in_channel" || posted[1].ThreadTS != "1764464400.000200" {
		t.Fatalf("posted %+v, want a public reply in the thread", posted[1:])
	}
	wantIn(t, "reading pressed in a thread", posted[1].Text, "QLoRA", "RTX 4090")

	c.press("block_actions_reading.json", ActionReading, "plan:12", rurl)
	if p := rurl.posted(t); len(p) != 3 || !strings.Contains(p[2].Text, "no longer points at a question") {
		t.Errorf("a value that is no question posted %+v", p[2:])
	}
}

// TestUnsureAsksBack: a slash command whose words ask one of two things
// alike gets the question back with a button per reading (the answer
// service's alternatives), not one of the answers; a clear price
// question near it still gets prices.
func TestUnsureAsksBack(t *testing.T) {
	c := newConversation(t, func(cfg *Config) { cfg.Prices = fakePrices{offers: testOffers} })
	reply := c.slash("what is an h100 selling for")
	wantIn(t, "unsure question", reply, "more than one way", `"value":"q:prices h100"`, `"value":"q:h100 purchase price"`, "what buying the h100 costs")
	if strings.Contains(reply, "Prices for every H100") {
		t.Errorf("an unsure question was answered: %s", reply)
	}
	wantIn(t, "clear price question", c.slash("what's an h100 going for"), "Prices for every H100")
}
