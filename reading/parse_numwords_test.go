package reading

import (
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestNumberWords checks that counts written in words beyond sixteen are
// read as their digits are, that a vague count of hundreds or thousands
// is read as a number and said, and that one that counts
// nothing is an error that quotes it, never a word silently dropped (#31).
func TestNumberWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"twenty a100s for a 70b full finetune, how long for 1B tokens", "70b full 20xa100-80 1b tokens"},
		{"twenty four h100s for llama 3.1 70b full", "llama-3.1-70b full 24xh100"},
		{"twenty-four h100s for llama 3.1 70b full", "llama-3.1-70b full 24xh100"},
		{"thirty two a100 70b full", "70b full 32xa100-80"},
		{"seventeen h100s llama 3.1 70b full", "llama-3.1-70b full 17xh100"},
		{"ninety-nine h100 llama 3.1 70b full", "llama-3.1-70b full 99xh100"},
		{"eight h100s 70b full", "70b full 8xh100"},
		{"llama 3.1 8b on an l4 for twenty users", "llama-3.1-8b l4 batch 20 gpus needed"},
		{"llama 3.1 8b for a hundred users", "llama-3.1-8b batch 100 gpus needed"},
		{"llama 3.1 8b for two hundred and fifty users", "llama-3.1-8b batch 250 gpus needed"},
		{"llama 3.1 8b for one hundred twenty users", "llama-3.1-8b batch 120 gpus needed"},
		{"llama 3.1 8b lora on an h100, twenty million tokens of data", "llama-3.1-8b lora h100 20m tokens"},
		// Thousands in words are read as their digits.
		{"two thousand users on mistral 7b, cheapest gpu setup?", "mistral-7b-v0.1 batch 2000 gpus needed"},
		{"llama 3.1 8b for a thousand users", "llama-3.1-8b batch 1000 gpus needed"},
		{"llama 3.1 8b for two k users", "llama-3.1-8b batch 2000 gpus needed"},
		{"llama 3.1 8b for two thousand five hundred employees", "llama-3.1-8b gpus needed 2500 daily users"},
		{"llama 3.1 8b for twenty thousand daily users", "llama-3.1-8b gpus needed 20000 daily users"},
		{"llama 3.1 8b, twenty thousand requests a day", "llama-3.1-8b 0.231 qps"},
		{"llama 3.1 8b sixteen k context", "llama-3.1-8b seq 16384"},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := sizing.Format(p.Query); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want, note string }{
		{"what do i need to host llama 3.1 70b for our app with a few hundred users", "llama-3.1-70b inference batch 300 gpus needed", `"a few hundred" taken as 300`},
		{"serve mixtral 8x7b for a few hundred users, what hardware", "mixtral-8x7b inference batch 300 gpus needed", `"a few hundred" taken as 300`},
		{"llama 3.1 8b for a couple of hundred users", "llama-3.1-8b batch 200 gpus needed", `"a couple of hundred" taken as 200`},
		{"llama 3.1 8b for several hundred users", "llama-3.1-8b batch 500 gpus needed", `"several hundred" taken as 500`},
		{"llama 3.1 8b for a few k users", "llama-3.1-8b batch 3000 gpus needed", `"a few k" taken as 3000`},
		{"llama 3.1 8b for several thousand employees", "llama-3.1-8b gpus needed 5000 daily users", `"several thousand" taken as 5000`},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := sizing.Format(p.Query); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
		if !slices.Contains(p.Notes, c.note) {
			t.Errorf("Parse(%q) notes %q, want %q among them", c.in, p.Notes, c.note)
		}
		if slices.Contains(p.Unused, "few") {
			t.Errorf("Parse(%q): \"few\" left unused", c.in)
		}
	}
	_, err := Parse("twenty 70b lora h100")
	if err == nil || !strings.Contains(err.Error(), `"twenty"`) {
		t.Errorf("a number word that counts nothing: err = %v, want one quoting \"twenty\"", err)
	}
	p, err := Parse("eight 70b lora h100")
	if err != nil || !slices.Contains(p.Unused, "eight") {
		t.Errorf("a vocabulary count that counts nothing: unused %q (%v), want \"eight\" among them", p.Unused, err)
	}
}
