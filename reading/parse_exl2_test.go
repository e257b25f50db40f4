package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseEXL2: an EXL2 width is sized as the nearest format fitbot has
// that is not smaller, and the note says so ("exllama at 4bpw" is read,
// not refused); "exl2" is never a model's name.
func TestParseEXL2(t *testing.T) {
	for _, c := range []struct{ in, want, note string }{
		{"can we run llama 3 70b on 2x rtx 3090 with exllama at 4bpw", "llama-3-70b inference gptq 2xrtx-3090",
			"exl2 at 4.0 bpw sized as 4-bit GPTQ-style int4 (4.25 bits with scales)"},
		{"llama 3 70b exl2 4.0bpw on 2x 3090", "llama-3-70b inference gptq 2xrtx-3090", "exl2 at 4.0 bpw sized as 4-bit GPTQ-style int4"},
		{"llama 3 70b exl2 4.4 bpw on 2x 3090", "llama-3-70b inference gptq 2xrtx-3090", "exl2 at 4.4 bpw sized as 4-bit GPTQ-style int4 (4.25 bits with scales), a little under the 4.4 bpw asked"},
		{"llama 3 70b 4.65bpw on 2 3090s", "llama-3-70b inference int8 2xrtx-3090", "exl2 at 4.65 bpw sized as 8-bit int8"},
		{"mistral 7b exl2 6.0 bits per weight on a 3060", "mistral-7b-v0.1 inference int8 rtx-3060", "exl2 at 6.0 bpw sized as 8-bit int8"},
		{"llama 3 70b exllamav2 on 2 3090", "llama-3-70b inference gptq 2xrtx-3090", `"exllamav2" with no width taken as 4.0 bpw`},
		{"qwen2.5 32b exl2 on a 4090", "qwen2.5-32b inference gptq rtx-4090", `"exl2" with no width taken as 4.0 bpw`},
	} {
		p, err := Parse(c.in)
		if got := sizing.Format(p.Query); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if !anyHasPrefix(p.Notes, c.note) {
			t.Errorf("Parse(%q) notes %q, want one starting %q", c.in, p.Notes, c.note)
		}
	}
	for _, c := range []struct{ in, problem, hint string }{
		{"llama 3 70b exl2 at 9bpw on 2 3090", `"9bpw" is not an EXL2 width`, "fit llama-3-70b inference gptq 2xrtx-3090"},
		{"lora llama 3 8b exl2 on a 4090", "EXL2 weights are for inference", "fit llama-3-8b lora rtx-4090"},
	} {
		p, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint || p.Missing.Words != "" {
			t.Errorf("%q: %v (hint %q, missing %q); want %q, Try %q", c.in, err, hintOf(ie), p.Missing.Words, c.problem, c.hint)
		}
	}
	// "exl2" alone names no model, nor one to search for (it was offered
	// as e5-base-v2).
	if p, err := Parse("exl2"); err != nil || p.Query.Model != "" || p.Missing.Words != "" {
		t.Errorf("Parse(exl2) = %+v, missing %+v, %v; want no model", p.Query, p.Missing, err)
	}
}
