package sizing

import (
	"errors"
	"strings"
	"testing"
)

// TestParseClosedModels: a closed model is refused by name, saying its
// weights are not released, never searched on the Hub (no Missing name)
// nor tried as GPT-2 (trials H14 Q32, H15 Q32); the Try sizes the open
// model of its class only on hardware said that holds it.
func TestParseClosedModels(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"does gpt-4 fit on an a100 (manager asked, sorry)", "GPT-4's weights are not released: it runs only behind OpenAI's API", "fit gpt-oss-120b a100-80"},
		{"can gpt-4 run on our servers?", "GPT-4's weights are not released: it runs only behind OpenAI's API, so no GPU can be sized for it", ""},
		{"gpt-4o mini on a 4090", "GPT-4o mini's weights are not released", "fit gpt-oss-20b rtx-4090"},
		{"claude 3.5 sonnet on a 4090", "Claude 3.5 sonnet's weights are not released: it runs only behind Anthropic's API", ""},
		{"run gemini 1.5 pro on h100", "behind Google's API", "fit gpt-oss-120b inference h100"},
		{"grok 3 on 8 h100", "behind xAI's API", "fit gpt-oss-120b 8xh100"},
		{"o3-mini on l4", "o3-mini's weights are not released", "fit gpt-oss-20b l4"},
		{"ChatGPT on 2x a6000", "ChatGPT's weights", "fit gpt-oss-120b 2xrtx-a6000"},
		// Its open model as asked fits, or there is no Try.
		{"lora gpt-4 on 8 h100", "GPT-4's weights are not released", "fit gpt-oss-120b lora 8xh100"},
		{"full finetune gpt-4 on one h100", "does not fit the GPUs asked about, so there is no similar question to offer", ""},
	} {
		p, err := Parse(c.in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint || p.Missing.Words != "" {
			t.Errorf("%q: %v (hint %q, missing %q); want %q, Try %q", c.in, err, hintOf(ie), p.Missing.Words, c.problem, c.hint)
		}
	}
	// Open models whose names start alike are sized.
	for in, model := range map[string]string{"gpt2 on a t4": "gpt2", "gpt-oss-20b on a 4090": "gpt-oss-20b", "gpt2-xl lora a10": "gpt2-xl",
		"gemma 2 9b on a 4090": "gemma-2-9b", "gpt-oss 120b on an h100": "gpt-oss-120b"} {
		if p, err := Parse(in); err != nil || p.Query.Model != model {
			t.Errorf("%q: %+v, %v; want %s", in, p.Query, err, model)
		}
	}
}
