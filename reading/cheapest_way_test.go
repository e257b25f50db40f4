package reading

import (
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestCheapestWay: "cheapest way to fine tune" with no method said is
// answered on its cheapest way, LoRA on one RTX 3090 (by the run, with a
// budget: the faster 4090), and says what a full fine-tune would need (led with a full fine-tune on an
// A100 and listed LoRA only among the other ways). A method, card or
// format said keeps the question as asked.
func TestCheapestWay(t *testing.T) {
	e := &sizing.Estimator{Prices: stubPrices{"rtx-3090": 0.25, "rtx-4090": 0.34, "l40s": 0.79, "a100-80": 1.79}}
	for _, c := range []struct {
		text   string
		method sizing.Method
		note   string // the note added; "" for none
	}{
		{"whats the cheapest way to fine tune phi-3 mini", sizing.MethodLoRA,
			"cheapest way: LoRA on 1× RTX 3090 24 GB ($0.25/h); a full fine-tune needs 2× L40S 48 GB at $1.58/h (say full to size it)"},
		{"cheapest way to fine tune phi-3 mini on 1B tokens", sizing.MethodLoRA,
			"cheapest way: LoRA on 1× RTX 4090 24 GB ($0.34/h, $16.62 for the run); a full fine-tune needs 2× L40S 48 GB at $1.58/h, $38.27 for the run (say full to size it)"},
		{"cheapest way to full fine tune phi-3 mini", sizing.MethodFull, ""},
		{"fine tune phi-3 mini", sizing.MethodFull, ""},
		{"cheapest way to fine tune phi-3 mini on an a100", sizing.MethodFull, ""},
		{"cheapest way to qlora phi-3 mini", sizing.MethodQLoRA, ""},
	} {
		p, err := Parse(c.text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.text, err)
		}
		got := CheapestWay(p, e.Answer)
		if got.Query.Method != c.method {
			t.Errorf("%q: method %s, want %s", c.text, got.Query.Method, c.method)
		}
		added := slices.DeleteFunc(slices.Clone(got.Notes), func(n string) bool { return slices.Contains(p.Notes, n) })
		switch {
		case c.note == "" && len(added) > 0:
			t.Errorf("%q: notes added %q, want none", c.text, added)
		case c.note != "" && (len(added) != 1 || added[0] != c.note):
			t.Errorf("%q: notes added %q, want %q", c.text, added, c.note)
		}
		if c.note != "" && slices.ContainsFunc(got.Notes, func(n string) bool { return strings.HasSuffix(n, fullImpliedNote) }) {
			t.Errorf("%q: still says the verb was taken as full fine-tuning: %q", c.text, got.Notes)
		}
	}
}
