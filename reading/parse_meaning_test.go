package reading

import (
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestUnusedCarryMeaning: of the words a question leaves unread, chat
// (an emoji, "lol", a drawn-out or mistyped filler) is phrasing and never
// named; words about the job are Unused.
func TestUnusedCarryMeaning(t *testing.T) {
	for _, tt := range []struct {
		q      string
		unused []string
	}{
		{"13b lora 4090 lol pls", nil},
		{"hey quick q, 13b lora 4090 🙏", nil},
		{"13b lora 4090 pleaseee thnks", nil},
		{"13b lora 4090 hahaha", nil},
		{"llama 3.1 8b lora 4090 distributed multi-node", []string{"distributed", "multi-node"}},
		{"mistral 7b 4090 long context", []string{"long context"}},
		{"llama 3 8b qlora on paged optimizers", []string{"paged", "optimizers"}},
		{"train 7b from scratch on 8 h100s", nil},
		// A percentage is never a model name (no t5-base offered for
		// "80%"); a busy share prices serving, not training.
		{"per token cost of llama 3.1 70b on 4x h100 at 80% utilization", nil},
		{"llama 3.1 8b lora on an h100 at 80% utilization", nil},
		{"llama 3.1 8b on an h100 at 80% memory", []string{"80%"}},
		{"llama 3.1 8b on an h100 95%", []string{"95%"}},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.q, err)
			continue
		}
		if !slices.Equal(p.Unused, tt.unused) {
			t.Errorf("Parse(%q).Unused = %q, want %q", tt.q, p.Unused, tt.unused)
		}
	}
}

// TestReportedFiguresNotUnused: "kv", "cache", "room", "left",
// "headroom", "expected", "decode" and "first" are never named as not
// used, since the answer reports the KV cache, the memory left, the
// decode speed and the first token's time.
// Words the answer does not report stay named; a training answer reports
// no KV cache or decode speed.
func TestReportedFiguresNotUnused(t *testing.T) {
	for _, tt := range []struct {
		q      string
		unused []string
	}{
		{"how much kv cache does llama 3.1 70b need at 128k context in fp16, per sequence", nil},
		{"deepseek v3 fp8 on a single 8xH200 node, how much room is left for kv cache?", nil},
		{"gpt-oss-120b mxfp4 on one h100 - does it fit and how much kv headroom", nil},
		{"whats the expected tokens/s for llama 3 70b decode at batch 1 on 2x h100 tp2", nil},
		{"time to first token for a 32k prompt on llama 3.1 8b on one a100?", nil},
		{"llama 3.1 8b on an l4 distributed kv cache", []string{"distributed"}},
		{"llama 3.1 8b lora on a 4090 with kv cache", []string{"kv", "cache"}},
		{"7b lora 4090 left over from the last run", []string{"left", "last"}},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.q, err)
			continue
		}
		if !slices.Equal(p.Unused, tt.unused) {
			t.Errorf("Parse(%q).Unused = %q, want %q", tt.q, p.Unused, tt.unused)
		}
		if notes := strings.Join(p.Notes, "\n"); tt.unused == nil && strings.Contains(notes, "not used") {
			t.Errorf("Parse(%q) notes name words not used:\n%s", tt.q, notes)
		}
	}
}

// TestFillerNeverInAName: chat after a family word is not part of the
// model's name, so it never reaches a Hub search.
func TestFillerNeverInAName(t *testing.T) {
	for q, want := range map[string]string{
		"llama lol":           "llama",
		"llama pleaseee":      "llama",
		"qwen3 1.7b lora lol": "qwen3 1.7b",
	} {
		p, _ := Parse(q)
		if p.Missing.Words != want {
			t.Errorf("Parse(%q).Missing.Words = %q, want %q", q, p.Missing.Words, want)
		}
	}
}

// TestCardNumberWithMemory: a card's number before its memory is the
// card the catalog lacks, sized by that memory, never a count of cards.
func TestCardNumberWithMemory(t *testing.T) {
	for _, q := range []string{"8b qlora 7800 xt 16gb", "8b qlora 2080 super 16gb", "llama 3 8b lora on my 7800 xt with 16gb"} {
		p, err := Parse(q)
		if err != nil {
			t.Errorf("Parse(%q): %v", q, err)
			continue
		}
		if p.Query.GPUs > 1 || p.Query.GPU != "t4" {
			t.Errorf("Parse(%q) = %d x %s, want one 16 GB card", q, p.Query.GPUs, p.Query.GPU)
		}
	}
	p, err := Parse("13b lora 2 24gb")
	if err != nil || p.Query.GPUs != 2 {
		t.Errorf("Parse(13b lora 2 24gb) = %d GPUs, %v; want a count of 2", p.Query.GPUs, err)
	}
}

// TestFill: another reading adds what the grammar left unsaid; the
// grammar's model, method and card stand.
func TestFill(t *testing.T) {
	mustParse := func(q string) Request {
		t.Helper()
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		return p
	}
	grammar := mustParse("llama 3.1 8b lora 4090 distributed multi-node")
	got, added := Fill(grammar, mustParse("llama-3.1-8b lora 16 x rtx-4090 2 nodes"))
	if want := mustParse("llama 3.1 8b lora 16x4090 2 nodes").Query; sizing.Format(got.Query) != sizing.Format(want) {
		t.Errorf("Fill = %q, want %q", sizing.Format(got.Query), sizing.Format(want))
	}
	if !slices.Equal(added, []string{"16 x rtx-4090", "2 nodes"}) {
		t.Errorf("added %q", added)
	}
	got, added = Fill(grammar, mustParse("mistral 7b qlora 8 x a100 seq 8192"))
	if want := "llama-3.1-8b lora rtx-4090 seq 8192"; sizing.Format(got.Query) != want || !slices.Equal(added, []string{"seq 8192"}) {
		t.Errorf("Fill with another model and card = %q (added %q), want %q", sizing.Format(got.Query), added, want)
	}
	if got, added := Fill(grammar, mustParse("llama 3.1 8b lora 4090")); len(added) != 0 || sizing.Format(got.Query) != sizing.Format(grammar.Query) {
		t.Errorf("Fill of nothing new = %q, %q", sizing.Format(got.Query), added)
	}
}

// TestExamplesAsTokens: "N examples of M tokens" is a budget of N×M
// tokens, times the epochs, said in a note (#31).
func TestExamplesAsTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		note string
	}{
		{"how long would 3 epochs of lora on llama 3.1 8b take on 50k examples of 1k tokens on an a100", 150e6, `"50k examples of 1k tokens" taken as 50M tokens`},
		{"llama 3 8b full 8xh100 on 10k conversations with 2k tokens each", 20e6, `"10k conversations with 2k tokens each" taken as 20M tokens`},
		{"lora 7b a100 2 million samples of 300 tokens", 600e6, `taken as 600M tokens`},
		// An average length.
		{"time and cost to lora finetune mistral 7b on 10k samples avg 2k tokens on one a100", 20e6, `"10k samples avg 2k tokens" taken as 20M tokens`},
		{"lora 7b a100 10k rows averaging 1.5k tokens", 15e6, `taken as 15M tokens`},
		{"lora 7b a100 10k conversations at an average of 2k tokens", 20e6, `taken as 20M tokens`},
		{"lora 7b a100 10k examples of 2k tokens on average", 20e6, `taken as 20M tokens`},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if p.Query.Tokens != c.want || !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, c.note) }) {
			t.Errorf("Parse(%q) = %d tokens, notes %q; want %d and %q", c.in, p.Query.Tokens, p.Notes, c.want, c.note)
		}
	}
}
