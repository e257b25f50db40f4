package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestParseClosedModels: a closed model is refused by name, saying its
// weights are not released, never searched on the Hub (no Missing name)
// nor tried as GPT-2; the Try sizes the open
// model of its class only on hardware said that holds it.
func TestParseClosedModels(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"does gpt-4 fit on an a100 (manager asked, sorry)", "GPT-4's weights are not released: it runs only behind OpenAI's API", "fit does gpt-oss-120b fit on an a100 (manager asked, sorry)"},
		{"can gpt-4 run on our servers?", "GPT-4's weights are not released: it runs only behind OpenAI's API, so no GPU can be sized for it", ""},
		{"gpt-4o mini on a 4090", "GPT-4o mini's weights are not released", "fit gpt-oss-20b on a 4090"},
		{"claude 3.5 sonnet on a 4090", "Claude 3.5 sonnet's weights are not released: it runs only behind Anthropic's API", ""},
		{"run gemini 1.5 pro on h100", "behind Google's API", "fit run gpt-oss-120b on h100"},
		{"grok 3 on 8 h100", "behind xAI's API", "fit gpt-oss-120b on 8 h100"},
		{"o3-mini on l4", "o3-mini's weights are not released", "fit gpt-oss-20b on l4"},
		{"ChatGPT on 2x a6000", "ChatGPT's weights", "fit gpt-oss-120b on 2x a6000"},
		// Its open model as asked fits, or there is no Try.
		{"lora gpt-4 on 8 h100", "GPT-4's weights are not released", "fit lora gpt-oss-120b on 8 h100"},
		{"full finetune gpt-4 on one h100", "does not fit the GPUs asked about, so there is no similar question to offer", ""},
	} {
		p, err := Parse(c.in)
		var ie *sizing.InputError
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

// TestParseClosedAsProduct: a closed name said as what is built ("an
// internal chatgpt", "chatgpt-like", "our own chatgpt") is phrasing,
// noted, when an open model is named too ("an internal chatgpt with
// mistral 7b" is not refused); with none it is still refused.
func TestParseClosedAsProduct(t *testing.T) {
	for _, c := range []struct{ in, model, words string }{
		{"we have around 300 employees, want an internal chatgpt with mistral 7b, how many l40s do we need", "mistral-7b-v0.1", `"an internal chatgpt"`},
		{"chatgpt-like assistant with llama 3 8b on an a10g", "llama-3-8b", `"chatgpt-like assistant"`},
		{"our own chatgpt on llama 3.1 70b, 4 h100s", "llama-3.1-70b", `"our own chatgpt"`},
		{"a claude-like assistant using qwen2.5 14b on an l40s", "qwen2.5-14b", `"a claude-like assistant"`},
		{"chatgpt like bot with mistral 7b on a 4090", "mistral-7b-v0.1", `"chatgpt like bot"`},
		{"mistral 7b as an internal chatgpt on l40s", "mistral-7b-v0.1", `"an internal chatgpt"`},
		{"a gpt-4o style assistant with 7b on an l4", "", `"a gpt-4o style assistant"`},
	} {
		p, err := Parse(c.in)
		if err != nil || p.Query.Model != c.model {
			t.Errorf("%q: model %q, %v; want %q", c.in, p.Query.Model, err, c.model)
			continue
		}
		if want := c.words + " read as what you are building, not the model to run"; !anyHasPrefix(p.Notes, want) {
			t.Errorf("%q: notes %q, want one starting %q", c.in, p.Notes, want)
		}
	}
	for in, hint := range map[string]string{
		"an internal chatgpt on 2 l40s": "fit an internal gpt-oss-120b on 2 l40s",
		"a chatgpt clone on 2 l40s":     "fit a gpt-oss-120b clone on 2 l40s",
		"chatgpt on 2 l40s with llama":  "",
	} {
		_, err := Parse(in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "ChatGPT's weights are not released") || hint != "" && ie.Hint != hint {
			t.Errorf("%q: %v (hint %q); want ChatGPT refused, Try %q", in, err, hintOf(ie), hint)
		}
	}
}
