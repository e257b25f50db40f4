package reading

import (
	"strings"
	"testing"
)

// TestVocab: the embedded vocabulary loads, and a file with a duplicate,
// a conflict or an unknown row is refused naming the line.
func TestVocab(t *testing.T) {
	if _, err := parseVocab(vocabText); err != nil {
		t.Fatalf("vocab.txt: %v", err)
	}
	for _, tt := range []struct{ text, want string }{
		{"set a x y x", `"x" is twice in set "a"`},
		{"set a x\nset a y", `set "a" is defined twice`},
		{"phrase price going for\nphrase fit going for", `cues both "price" and "fit"`},
		{"rewrite gigs gb\nrewrite gigs gib", `rewritten both as "gb" and as "gib"`},
		{"rewrite a b\nrewrite b c", "itself rewritten"},
		{"set a x y\nset b y\nexclusive a b", `"y" is in both "a" and "b"`},
		{"exclusive a b", "no such set"},
		{"sets a x", `line 1: unknown row "sets"`},
		{"set a", "needs a name and at least one word"},
	} {
		_, err := parseVocab(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseVocab(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}

// TestVocabRows: rows of vocab.txt do what they say, with no Go branch
// of their own: a phrase cues a price, a rewrite reads a word as another.
func TestVocabRows(t *testing.T) {
	for _, q := range []string{"what's an h100 going for", "what is an h100 selling for", "what do a100s go for these days"} {
		if r := Route(q); r.Kind != RoutePrice {
			t.Errorf("Route(%q) = %q, want price", q, r.Kind)
		}
	}
	a, errA := Parse("llama 3.1 8b lora on a card with 16 gigs")
	b, errB := Parse("llama 3.1 8b lora on a card with 16 gb")
	if errA != nil || errB != nil || a.Query != b.Query {
		t.Errorf("16 gigs reads as %+v (%v), 16 gb as %+v (%v); want alike", a.Query, errA, b.Query, errB)
	}
}
