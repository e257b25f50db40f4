package bot

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

func TestEnforceLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	runes := utf8.RuneCountInString

	t.Run("blocks", func(t *testing.T) {
		var blocks []slack.Block
		for range 60 {
			blocks = append(blocks, slack.NewDividerBlock())
		}
		got := enforceLimits(blocks)
		if len(got) != maxBlocks {
			t.Fatalf("len = %d, want %d", len(got), maxBlocks)
		}
		last, ok := got[maxBlocks-1].(*slack.ContextBlock)
		if !ok || !strings.Contains(last.ContextElements.Elements[0].(*slack.TextBlockObject).Text, "11 more not shown") {
			t.Errorf("last block = %#v, want a note that 11 were left out", got[maxBlocks-1])
		}
	})
	t.Run("fields per section and field text", func(t *testing.T) {
		var fields []*slack.TextBlockObject
		for range 12 {
			fields = append(fields, mrkdwn(long(2500)))
		}
		s := slack.NewSectionBlock(nil, fields, nil)
		enforceLimits([]slack.Block{s})
		if len(s.Fields) != maxSectionFields {
			t.Errorf("fields = %d, want %d", len(s.Fields), maxSectionFields)
		}
		for _, f := range s.Fields {
			if runes(f.Text) != maxFieldText {
				t.Errorf("field has %d characters, want %d", runes(f.Text), maxFieldText)
			}
		}
	})
	t.Run("section text", func(t *testing.T) {
		s := slack.NewSectionBlock(mrkdwn(long(4000)), nil, nil)
		enforceLimits([]slack.Block{s})
		if runes(s.Text.Text) != maxText {
			t.Errorf("section text has %d characters, want %d", runes(s.Text.Text), maxText)
		}
	})
	t.Run("header", func(t *testing.T) {
		h := slack.NewHeaderBlock(plain(long(200)))
		enforceLimits([]slack.Block{h})
		if runes(h.Text.Text) != maxHeaderText {
			t.Errorf("header has %d characters, want %d", runes(h.Text.Text), maxHeaderText)
		}
	})
	t.Run("context elements and text", func(t *testing.T) {
		var els []slack.MixedElement
		for range 12 {
			els = append(els, mrkdwn(long(3500)))
		}
		c := slack.NewContextBlock("", els...)
		enforceLimits([]slack.Block{c})
		if len(c.ContextElements.Elements) != maxContextElements {
			t.Errorf("context elements = %d, want %d", len(c.ContextElements.Elements), maxContextElements)
		}
		if n := runes(c.ContextElements.Elements[0].(*slack.TextBlockObject).Text); n != maxText {
			t.Errorf("context text has %d characters, want %d", n, maxText)
		}
	})
	t.Run("button text and value", func(t *testing.T) {
		b := slack.NewButtonBlockElement("a", long(2100), plain(long(80)))
		enforceLimits([]slack.Block{slack.NewActionBlock("x", b)})
		if runes(b.Text.Text) != maxButtonText {
			t.Errorf("button text has %d characters, want %d", runes(b.Text.Text), maxButtonText)
		}
		if runes(b.Value) != maxActionValue {
			t.Errorf("button value has %d characters, want %d", runes(b.Value), maxActionValue)
		}
	})
	t.Run("within limits unchanged", func(t *testing.T) {
		s := slack.NewSectionBlock(mrkdwn("fine"), []*slack.TextBlockObject{mrkdwn("a"), mrkdwn("b")}, nil)
		got := enforceLimits([]slack.Block{s})
		if len(got) != 1 || s.Text.Text != "fine" || len(s.Fields) != 2 {
			t.Errorf("enforceLimits changed a message within the limits: %#v", s)
		}
	})
}

func TestFallbackTextCapped(t *testing.T) {
	m := ephemeral(strings.Repeat("x", 5000))
	if n := utf8.RuneCountInString(m.Text); n != maxFallbackText {
		t.Errorf("fallback text has %d characters, want %d", n, maxFallbackText)
	}
}
