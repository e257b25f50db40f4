package reading

import "testing"

func TestZZLex(t *testing.T) {
	toks, _ := lex("2 nodes w/ 8x h100 each 2-day 8-way 500ms")
	for _, tk := range toks {
		t.Logf("%q %q", tk.raw, tk.key)
	}
}
