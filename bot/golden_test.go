package bot

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// TestGoldenMessages pins the Block Kit of every kind of reply. Run
// `go test ./bot -run Golden -update` after an intended change and
// review the diff.
func TestGoldenMessages(t *testing.T) {
	fitting := fixtures["llama-3.1-8b qlora rtx-4090"].answer
	over := fixtures["llama-3.1-70b full rtx-4090"].answer
	plans := []store.Plan{
		{ID: 12, CreatedAt: testNow.Add(-24 * time.Hour), Source: "slack", User: "U2CERLKJA", Summary: plan.Summary{Question: "mistral 7b lora 4090",
			ModelKey: "mistral-7b-v0.1", Fits: true, GPU: "rtx-4090", GPUs: 1, PerGPUBytes: 18_253_611_008, USDPerHour: new(0.69)}},
		{ID: 3, CreatedAt: testNow.Add(-30 * 24 * time.Hour), Source: "cli", Summary: plan.Summary{Question: "mistral-7b full a100", ModelKey: "mistral-7b-v0.1",
			Fits: false, GPU: "a100-80", GPUs: 1, PerGPUBytes: 126_701_535_232}},
	}
	tests := []struct {
		name string
		msg  Message
	}{
		{"answer_fits", ephemeral(answerText(fitting), answerBlocks(fitting, answerView{ref: "q:llama-3.1-8b qlora rtx-4090", kept: "llama-3.1-8b", planID: 42, now: testNow})...)},
		{"answer_does_not_fit", ephemeral(answerText(over), answerBlocks(over, answerView{ref: "q:llama-3.1-70b full rtx-4090", now: testNow})...)},
		{"answer_details", ephemeral(answerText(fitting), answerBlocks(fitting, answerView{ref: "plan:7", details: true, now: testNow})...)},
		{"error", errorMessage(`"a1000" is not a GPU fitbot knows; did you mean a100?`, "llama-3.1-8b qlora a100")},
		{"plans", plansMessage("mistral 7b", plans, testNow)},
		{"plans_none", plansMessage("gemma 2b", nil, testNow)},
		{"prices", pricesMessage("Cheapest GPU prices", testOffers, testNow)},
		{"help", helpMessage(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLimits(t, tt.msg)
			raw, err := tt.msg.encode()
			if err != nil {
				t.Fatal(err)
			}
			var ind bytes.Buffer
			err = json.Indent(&ind, raw, "", "  ")
			got := ind.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, filepath.Join("testdata", "golden", tt.name+".json"), got)
			var back slack.Blocks
			if err := json.Unmarshal(mustField(t, got, "blocks"), &back); err != nil {
				t.Errorf("slack-go cannot read the blocks back: %v", err)
			}
		})
	}
}

func mustField(t *testing.T, doc []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// checkLimits fails the test when a message breaks one of Slack's limits.
func checkLimits(t *testing.T, m Message) {
	t.Helper()
	runes := utf8.RuneCountInString
	if m.Text == "" {
		t.Error("fallback text is empty")
	}
	if len(m.Blocks) > maxBlocks {
		t.Errorf("%d blocks, limit %d", len(m.Blocks), maxBlocks)
	}
	for i, b := range m.Blocks {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			if n := runes(b.Text.Text); n > maxHeaderText || b.Text.Type != slack.PlainTextType {
				t.Errorf("block %d: header of %d characters, type %s", i, n, b.Text.Type)
			}
		case *slack.SectionBlock:
			if b.Text == nil && len(b.Fields) == 0 {
				t.Errorf("block %d: section with neither text nor fields", i)
			}
			if b.Text != nil && (runes(b.Text.Text) > maxText || b.Text.Text == "") {
				t.Errorf("block %d: section text of %d characters", i, runes(b.Text.Text))
			}
			if len(b.Fields) > maxSectionFields {
				t.Errorf("block %d: %d fields", i, len(b.Fields))
			}
			for _, f := range b.Fields {
				if runes(f.Text) > maxFieldText {
					t.Errorf("block %d: field of %d characters", i, runes(f.Text))
				}
			}
		case *slack.ContextBlock:
			if n := len(b.ContextElements.Elements); n > maxContextElements || n == 0 {
				t.Errorf("block %d: %d context elements", i, n)
			}
		case *slack.ActionBlock:
			for _, e := range b.Elements.ElementSet {
				btn := e.(*slack.ButtonBlockElement)
				if runes(btn.Text.Text) > maxButtonText || runes(btn.Value) > maxActionValue {
					t.Errorf("block %d: button %q too long", i, btn.ActionID)
				}
			}
		}
	}
}

func TestVerdict(t *testing.T) {
	base := fixtures["llama-3.1-8b qlora rtx-4090"].answer
	tight := base
	tight.Headroom = sizing.HeadroomTight
	over := fixtures["llama-3.1-70b full rtx-4090"].answer
	dpo := base
	dpo.Request.Alignment = "dpo" // the objective asked is named (#31)
	tests := []struct {
		a    sizing.Answer
		want string
	}{
		{base, "✅ Fits: Llama 3.1 8B QLoRA on 1× RTX 4090 24 GB"},
		{tight, "⚠️ Fits, but tight: Llama 3.1 8B QLoRA on 1× RTX 4090 24 GB"},
		{over, "❌ Does not fit: Llama 3.1 70B full fine-tune on 1× RTX 4090 24 GB"},
		{dpo, "✅ Fits: Llama 3.1 8B DPO QLoRA on 1× RTX 4090 24 GB"},
	}
	for _, tt := range tests {
		if got := verdict(tt.a); got != tt.want {
			t.Errorf("verdict = %q, want %q", got, tt.want)
		}
	}
}

func TestMemoryBar(t *testing.T) {
	const g = int64(1 << 30)
	tests := []struct {
		name string
		m    sizing.Memory
		vram int64
		want string
	}{
		{"half the card, two terms", sizing.Memory{WeightsBytes: 8 * g, ActivationsBytes: 4 * g, TotalBytes: 12 * g}, 24 * g,
			"███████░░░·········· 50%\n█ weights 8.0  ░ activations 4.0  · free"},
		{"twice the card", sizing.Memory{WeightsBytes: 24 * g, OptimizerBytes: 24 * g, TotalBytes: 48 * g}, 24 * g,
			"██████████|▒▒▒▒▒▒▒▒▒▒ 200%\n█ weights 24.0  ▒ optimizer 24.0  · free"},
		{"a small term still counted", sizing.Memory{WeightsBytes: 10 * g, OverheadBytes: 2 * g, TotalBytes: 12 * g}, 30 * g,
			"███████▪············ 40%\n█ weights 10.0  ▪ overhead 2.0  · free"},
		{"every term, wrapped for a phone", sizing.Memory{WeightsBytes: 131 * g, GradientsBytes: 131 * g, OptimizerBytes: 788 * g,
			ActivationsBytes: 5 * g, KVCacheBytes: g, OverheadBytes: g, TotalBytes: 1057 * g}, 24 * g,
			"|███▓▓▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒ 4404%\n█ weights 131.0  ▓ gradients 131.0\n▒ optimizer 788.0  ░ activations 5.0\n▚ KV cache 1.0  ▪ overhead 1.0  · free"},
		{"empty", sizing.Memory{}, 24 * g, "···················· 0%\n· free"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryBar(tt.m, tt.vram)
			if got != tt.want {
				t.Errorf("memoryBar =\n%s\nwant\n%s", got, tt.want)
			}
			for _, line := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(line); n > maxBarLine {
					t.Errorf("line %q is %d columns, more than a phone's %d", line, n, maxBarLine)
				}
			}
		})
	}
}
