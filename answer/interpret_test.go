package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// TestNeedsInterpreter: the language model is asked when the grammar
// found no model, and also when it read one but left words that look
// like they carry meaning; never for chat left over, a bad number or a
// question that runs the other way round.
func TestNeedsInterpreter(t *testing.T) {
	s := service(nil, nil)
	for text, want := range map[string]bool{
		"can we tune the big one on our box":            true,  // no model
		"llama 3.1 8b lora 4090 distributed multi-node": true,  // meaning words left
		"mistral 7b inference 4090 long context":        true,  // "long context" is no length
		"llama 3.1 8b lora 4090":                        false, // every word read
		"llama 3.1 8b lora 4090 lol pls 🙏":              false, // chat only
		"hey quick q, 13b lora 4090 plese":              false, // chat, a mistyped filler
		"13b lora 4090 seq 99999999999":                 false, // a bad number: the parser's message
		"largest model for lora on a 4090 distributed":  false, // runs the other way round
	} {
		q := s.Resolve(context.Background(), "", s.Read(text))
		if got := NeedsInterpreter(q); got != want {
			t.Errorf("NeedsInterpreter(%q) = %v, want %v (unused %q, err %v)", text, got, want, q.Parsed.Unused, q.Err)
		}
	}
}

// TestInterpreted: the language model's reading adds what the grammar
// left unsaid, checked by the parser; the grammar's model, method and
// card stand, and the first note says what was read in which words.
func TestInterpreted(t *testing.T) {
	s := service(nil, nil)
	q := s.Resolve(context.Background(), "", s.Read("llama 3.1 8b lora 4090 distributed multi-node"))
	read := func(words string) reading.Request {
		t.Helper()
		p, err := reading.Parse(words)
		if err != nil {
			t.Fatalf("Parse(%q): %v", words, err)
		}
		return p
	}

	got, ok := Interpreted(q, read("llama 3.1 8b lora 16 x rtx-4090 2 nodes"))
	if !ok {
		t.Fatal("Interpreted added nothing")
	}
	if want := "llama-3.1-8b lora 16xrtx-4090 2 nodes"; sizing.Format(got.Parsed.Query) != want {
		t.Errorf("query %q, want %q", sizing.Format(got.Parsed.Query), want)
	}
	if n := got.Parsed.Notes[0]; n != `interpreted by the language model: "distributed", "multi-node" read as "16 x rtx-4090", "2 nodes"` {
		t.Errorf("first note %q", n)
	}
	for _, n := range got.Parsed.Notes {
		if strings.HasPrefix(n, "not used") {
			t.Errorf("the words the model read are still called not used: %q", got.Parsed.Notes)
		}
	}

	// Another model and card: the grammar's stand, the length is added.
	got, ok = Interpreted(q, read("mistral 7b qlora 8 x a100 seq 8192"))
	if want := "llama-3.1-8b lora rtx-4090 seq 8192"; !ok || sizing.Format(got.Parsed.Query) != want {
		t.Errorf("with another model: %q (ok %v), want %q", sizing.Format(got.Parsed.Query), ok, want)
	}

	// Nothing new: the grammar's answer stands.
	if got, ok := Interpreted(q, read("llama 3.1 8b lora 4090")); ok || sizing.Format(got.Parsed.Query) != sizing.Format(q.Parsed.Query) {
		t.Errorf("Interpreted with nothing new = %q, %v; want the grammar's reading", sizing.Format(got.Parsed.Query), ok)
	}
	// A combination the parser rejects (4 machines for 2 cards): the grammar's answer stands.
	two := s.Resolve(context.Background(), "", s.Read("llama 3.1 8b lora 2x4090 distributed"))
	if got, ok := Interpreted(two, read("llama 3.1 8b lora 4 nodes")); ok || sizing.Format(got.Parsed.Query) != sizing.Format(two.Parsed.Query) {
		t.Errorf("Interpreted with 4 nodes for 2 cards = %q, %v; want the grammar's reading", sizing.Format(got.Parsed.Query), ok)
	}
}
