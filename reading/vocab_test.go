package reading

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
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

// TestSlotRows: slot rows are read and checked, and a pattern matches
// over classed words, capturing the value of its class's set.
func TestSlotRows(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"slot k how many X", "no set makes up the class X"},
		{"set p_a x\nslot k a P\nslot k a P", "also on line 2"},
		{"set p_a x\nset p_b x\nslot k P", `"x" is P both as`},
		{"slot k a||b", "empty or repeated word"},
		{"slot k !a b", "only the last element may be negated"},
		{"slot k a !", "negates nothing"},
		// A second section reusing a kind's name joins the other kind's
		// rows silently ("1 utilization" read as a busy share once).
		{"slot k a\nslot j b\nslot k c", `slot kind "k" are split (the kind ends on line 1)`},
	} {
		_, err := parseVocab(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseVocab(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
	v, err := parseVocab("set period_hour hour hr\nset period_day day\nset tokens tokens tok\nslot asked how many TOKENS per|a PERIOD\nslot asked NUM TOKENS\nslot asked full TOKENS !NUM")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		words       string
		n           int
		period, tok string
	}{
		{"how many tokens per hour can", 5, "hour", "tokens"},
		{"how many tok a day", 5, "day", "tok"},
		{"how many tokens per fortnight", 0, "", ""},
		{"how many tokens per", 0, "", ""},
		{"20 tokens", 2, "", "tokens"},
		{"many tokens per hour", 0, "", ""},
		{"full tokens", 2, "", "tokens"},    // nothing after: not a number
		{"full tokens on", 2, "", "tokens"}, // the word after is not part of the match
		{"full tokens 4096", 0, "", ""},     // a number after: no match
	} {
		f := strings.Fields(tt.words)
		w := func(i int) string {
			if i < 0 || i >= len(f) {
				return ""
			}
			return f[i]
		}
		m, ok := v.slot("asked", w, 0)
		if ok != (tt.n > 0) || m.n != tt.n || m.value("PERIOD") != tt.period || m.value("TOKENS") != tt.tok {
			t.Errorf("slot(%q) = %+v, %v; want %d words, period %q, tokens %q", tt.words, m, ok, tt.n, tt.period, tt.tok)
		}
	}
}

// FuzzVocab: any vocabulary text loads or is refused with an error, and
// a loaded one's slots match any words without a panic.
func FuzzVocab(f *testing.F) {
	f.Add("set period_hour hour\nset tokens tokens\nslot k how many TOKENS per PERIOD", "how many tokens per hour")
	f.Add("slot k NUM a|b", "3 b")
	f.Add("set tokens tokens\nslot k full TOKENS !NUM", "full tokens 4096")
	f.Fuzz(func(t *testing.T, text, words string) {
		v, err := parseVocab(text)
		if err != nil {
			return
		}
		ws := strings.Fields(words)
		w := func(i int) string {
			if i < 0 || i >= len(ws) {
				return ""
			}
			return ws[i]
		}
		for kind := range v.slots {
			for i := range ws {
				if m, ok := v.slot(kind, w, i); ok && (m.n == 0 || i+m.n > len(ws)) {
					t.Fatalf("slot %q at %d of %q matched %d words", kind, i, words, m.n)
				}
			}
		}
	})
}

// TestUnsureRows: unsure and reading rows are checked when loaded, and
// each reading's words, with a card for {gpu}, ask their one thing
// without doubt: they read without an error and are not unsure again.
func TestUnsureRows(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"unsure a x y\nreading a p = one", "1 readings, want at least two"},
		{"reading a p = one\nreading a q = two", "no unsure row cues it"},
		{"unsure a x\nunsure b x", `given to both "a" and "b"`},
		{"unsure a x\nreading a p q", "a reading is WORDS = LABEL"},
	} {
		_, err := parseVocab(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseVocab(%q) = %v, want an error with %q", tt.text, err, tt.want)
		}
	}
	for name, rs := range vocab.readings {
		for _, r := range rs {
			words := strings.ReplaceAll(r.words, gpuPlaceholder, "h100")
			got, err := Read(words)
			if err != nil || len(got.Alternatives) > 0 {
				t.Errorf("reading %s %q: %v, alternatives %v; want a clear reading", name, words, err, got.Alternatives)
			}
		}
	}
	for _, tt := range []struct {
		q    string
		want int
	}{
		{"what is an h100 selling for", 2},
		{"what are these selling for", 0}, // no card said: the readings need one
		{"prices h100", 0},
		{"what's an h100 going for", 0},
	} {
		got, err := Read(tt.q)
		if err != nil || len(got.Alternatives) != tt.want {
			t.Errorf("Read(%q) = %v alternatives (%v), want %d", tt.q, got.Alternatives, err, tt.want)
		}
	}
}

// FuzzUnsure: any text is either clear (no alternatives) or offers two or
// more, each with a label and words that read without doubt; Read
// carries the same ones and never refuses an unsure question.
func FuzzUnsure(f *testing.F) {
	for _, s := range []string{"what is an h100 selling for", "what do  a100s sell for", "selling for", "<@U1> h100 sold for?", "13b lora a100 2-day run 32k kv cache"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		alts := Unsure(text)
		if len(alts) == 1 {
			t.Fatalf("Unsure(%q) = one alternative %+v", text, alts)
		}
		for _, a := range alts {
			if strings.TrimSpace(a.Label) == "" || strings.TrimSpace(a.Words) == "" {
				t.Fatalf("Unsure(%q): an empty alternative %+v", text, a)
			}
		}
		if len(alts) >= 2 {
			r, err := Read(text)
			if err != nil || len(r.Alternatives) != len(alts) {
				t.Fatalf("Read(%q) = %d alternatives, %v; Unsure gave %d", text, len(r.Alternatives), err, len(alts))
			}
		}
	})
}

// TestSlotWordsAreNotCues: the words a slot reads are that slot's, not
// cue words of another kind: "per hour" in "how many tokens per hour"
// asks what the cards serve, never a price.
func TestSlotWordsAreNotCues(t *testing.T) {
	for _, q := range []string{"how many tokens per hour can 8x h100 serve", "how many tokens hourly can 2 l40s serve"} {
		if r := Route(q); r.Kind != RouteSizing {
			t.Errorf("Route(%q) = %q, want sizing", q, r.Kind)
		}
	}
	if r := Route("h100 per hour"); r.Kind != RoutePrice {
		t.Errorf("Route(h100 per hour) = %q, want price", r.Kind)
	}
}

// TestPeriodSets: every period a set of vocab.txt names (period_NAME,
// periodly_NAME, span_NAME, rate_unit_NAME) is one sizing knows the length of.
func TestPeriodSets(t *testing.T) {
	for _, base := range []string{"period", "periodly", "span", "rate_unit"} {
		for w, name := range vocab.values(base) {
			if sizing.Periods[name] == 0 {
				t.Errorf("%s_%s (%q): no such period in sizing.Periods", base, name, w)
			}
		}
	}
}

// TestWordSets: a wordSet answers as its words do for every word of the
// vocabulary, so that turning a word away on its length and end bytes
// never turns away one of its words; words that share a set word's
// length and end bytes, and a word of 63 bytes or more, are looked up.
func TestWordSets(t *testing.T) {
	all := map[string]bool{"": true, "aa": true, strings.Repeat("x", 63): true, strings.Repeat("x", 64): true}
	for _, words := range vocab.sets {
		for w := range words {
			all[w], all[w[:1]+"~"+w[len(w)-1:]] = true, true
		}
	}
	for name, words := range vocab.sets {
		set := vocab.set(name)
		for w := range all {
			if got := set.has(w); got != words[w] {
				t.Errorf("set %s has %q = %v, want %v", name, w, got, words[w])
			}
		}
	}
	long := newWordSet(map[string]bool{strings.Repeat("x", 64): true})
	if !long.has(strings.Repeat("x", 64)) || long.has(strings.Repeat("x", 63)) || long.has(strings.Repeat("x", 65)) {
		t.Errorf("a set of one 64-byte word: has(64 x) = %v, has(63 x) = %v, has(65 x) = %v, want true, false, false",
			long.has(strings.Repeat("x", 64)), long.has(strings.Repeat("x", 63)), long.has(strings.Repeat("x", 65)))
	}
}
