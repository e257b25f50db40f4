package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestTryKeepsConstraints: a refusal's Try is the asker's own words with
// only the unusable name replaced, so every constraint stated stays
// (issue 38, item 6): the deadline and budget, the users, the epochs and
// the token budget, the context; the mention of the bot is left out.
func TestTryKeepsConstraints(t *testing.T) {
	for _, c := range []struct{ in, problem, try string }{
		{"fit qwen 2.5 72b on h1000 with 32k context by friday under $500", `"h1000" is not a GPU I know; did you mean h100`,
			"fit qwen 2.5 72b on h100 with 32k context by friday under $500"},
		{"serve llama 3 8b on a 4900 for 200 users", `"4900" is not a GPU I know; did you mean rtx-4090`,
			"fit serve llama 3 8b on a rtx-4090 for 200 users"},
		{"@fitbot lora llama 5 70b on 2 a100s for 3 epochs on 1B tokens", `"llama 5 70b" is not a model I know; did you mean llama-2-70b`,
			"fit lora llama-2-70b on 2 a100s for 3 epochs on 1B tokens"},
		{"fit gemma 3 9b on a 4090 seq 8k", `did you mean gemma-2-9b?`, "fit gemma-2-9b on a 4090 seq 8k"},
		// A word or number without a meaning is left out; all else stays.
		{"serve llama 3 8b on 2 h100 for 200 users 7777 with p95 ttft under 500ms", `"7777" is a number without a meaning here`,
			"fit serve llama 3 8b on 2 h100 for 200 users with p95 ttft under 500ms"},
		{"lora qwen 7b on a4000 x9z3 for 3 epochs of 1B tokens", `I do not understand "x9z3"`,
			"fit lora qwen 7b on a4000 for 3 epochs of 1B tokens"},
		// The card the asker named stays: a near card in place of a stray
		// number would be a second card, so the number is left out.
		{"fit llama 3 8b on h100 with 4900 by friday under $500", `"4900" is not a GPU I know`,
			"fit llama 3 8b on h100 with by friday under $500"},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.try {
			t.Errorf("%q: %v (Try %q); want %q with the Try %q", c.in, err, hintOf(ie), c.problem, c.try)
		}
	}
}

// TestSuggestionSharesName: a suggested model or card shares more than
// digits with what was asked (issue 38, item 6): no card for "40ms", no
// t5-base for "8x", no Llama for a bare "32b"; a bare model number
// ("4900") has only digits, and its near cards stay.
func TestSuggestionSharesName(t *testing.T) {
	for _, c := range []struct {
		words, id string
		want      bool
	}{
		{"40ms", "rtx-4090", false},
		{"8x", "t5-base", false},
		{"32b", "llama-3-8b", false},
		{"r1 distill 32b", "llama-3-8b", false},
		{"r1 distill 32b", "deepseek-r1-distill-qwen-32b", true},
		{"gtx", "t4", false},
		{"h1000", "h100", true},
		{"rtx 4070 super ti", "rtx-4070-ti", true},
		{"4900", "rtx-4090", true},
		{"3090ti", "rtx-3090-ti", true},
	} {
		if got := sharesName(c.words, c.id); got != c.want {
			t.Errorf("sharesName(%q, %q) = %v, want %v", c.words, c.id, got, c.want)
		}
	}
	_, err := Parse("how many tokens per day can 8x h101 serve with llama 70b")
	if err == nil || strings.Contains(err.Error(), "t5") {
		t.Errorf(`"8x h101": %v; want a refusal that suggests no model sharing only a digit`, err)
	}
}
