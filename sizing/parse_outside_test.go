package sizing

import (
	"errors"
	"strings"
	"testing"
)

// TestParseOutsideModels: a model the catalog lacks and no catalog family
// word starts is refused by name, never dropped for a bare size or
// another model, and the Try line keeps the question with its Hub id
// (#31).
func TestParseOutsideModels(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"yi 34b lora a100", `I don't know Yi 34B ("yi 34b")`, "fit hf.co/01-ai/Yi-34B lora a100-80"},
		// The Hub id keeps the asked version and size.
		{"yi 1.5 9b lora on a 4090", `I don't know Yi 1.5 9B ("yi 1.5 9b")`, "fit hf.co/01-ai/Yi-1.5-9B lora rtx-4090"},
		{"Yi-1.5-34B-Chat inference 2xa100", `I don't know Yi 1.5 34B ("Yi-1.5-34B-Chat")`, "fit hf.co/01-ai/Yi-1.5-34B inference 2xa100-80"},
		{"yi v1.5 6b qlora l4", "I don't know Yi 1.5 6B", "fit hf.co/01-ai/Yi-1.5-6B qlora l4"},
		{"yi-9b full 8xh100", `I don't know Yi 9B ("yi-9b")`, "fit hf.co/01-ai/Yi-9B full 8xh100"},
		{"yi 6b lora 4090", "I don't know Yi 6B", "fit hf.co/01-ai/Yi-6B lora rtx-4090"},
		{"yi 1.5 lora 4090", `I don't know Yi 1.5 ("yi 1.5")`, "fit hf.co/01-ai/Yi-1.5-34B lora rtx-4090"},
		{"yi 6b", "I don't know Yi 6B", "fit hf.co/01-ai/Yi-6B lora rtx-4090"},
		{"command r plus inference 4xa100", `I don't know Command R+ ("command r plus")`, "fit hf.co/CohereForAI/c4ai-command-r-plus inference 4xa100-80"},
		{"command r+ on 2 h100s", "I don't know Command R+", "fit hf.co/CohereForAI/c4ai-command-r-plus 2xh100"},
		{"command r qlora a100", "I don't know Command R (", "fit hf.co/CohereForAI/c4ai-command-r-v01 qlora a100-80"},
		{"vit large training on a100", `I don't know ViT-L ("vit large")`, "fit hf.co/google/vit-large-patch16-224 full a100-80"},
		{"vit-b inference t4", "I don't know ViT-B", "fit hf.co/google/vit-base-patch16-224 inference t4"},
	} {
		_, err := Parse(c.in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
	// "command" in a sentence is not a model.
	if p, err := Parse("command line tool for llama 3 8b lora 4090"); err != nil || p.Query.Model != "llama-3-8b" {
		t.Errorf("command line: %+v, %v", p.Query, err)
	}
}

func hintOf(ie *InputError) string {
	if ie == nil {
		return ""
	}
	return ie.Hint
}
