package sizing

import (
	"strings"
	"testing"
)

func TestHubRepoID(t *testing.T) {
	tests := []struct {
		word string
		want string // "" when not a repo
	}{
		{"Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B"},
		{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"},
		{"https://huggingface.co/Qwen/Qwen3-14B", "Qwen/Qwen3-14B"},
		{"https://huggingface.co/Qwen/Qwen3-14B/", "Qwen/Qwen3-14B"},
		{"http://www.huggingface.co/Qwen/Qwen3-14B", "Qwen/Qwen3-14B"},
		{"HTTPS://HuggingFace.co/Qwen/Qwen3-14B", "Qwen/Qwen3-14B"},
		{"huggingface.co/Qwen/Qwen3-14B/tree/main", "Qwen/Qwen3-14B"},
		{"https://huggingface.co/Qwen/Qwen3-14B/blob/main/config.json", "Qwen/Qwen3-14B"},
		{"https://huggingface.co/Qwen/Qwen3-14B?library=transformers", "Qwen/Qwen3-14B"},
		{"https://hf.co/deepseek-ai/DeepSeek-V3.1#usage", "deepseek-ai/DeepSeek-V3.1"},
		{"hf.co/openai/gpt-oss-120b", "openai/gpt-oss-120b"},
		{"<https://huggingface.co/Qwen/Qwen3-14B|Qwen3-14B>", "Qwen/Qwen3-14B"},
		{"<https://huggingface.co/Qwen/Qwen3-14B>", "Qwen/Qwen3-14B"},
		{"google/gemma_3-1b.it", "google/gemma_3-1b.it"},
		// Not a model repo.
		{"Qwen3-14B", ""},
		{"2/4", ""},
		{"tokens/sec", ""}, {"req/s", ""}, {"https://hf.co/tokens/sec", "tokens/sec"},
		{"a/", ""},
		{"/b", ""},
		{"a/b/c", ""},
		{"-a/b", ""},
		{"a/b-", ""},
		{"a--b/c", ""},
		{"a/b..c", ""},
		{"a/b.git", ""},
		{"a/b c", ""},
		{"a/bé", ""},
		{"org/" + strings.Repeat("x", 97), ""},
		{"https://huggingface.co/datasets/HuggingFaceFW/fineweb", ""},
		{"https://huggingface.co/spaces/hf-accelerate/model-memory-usage", ""},
		{"https://huggingface.co/models?search=qwen", ""},
		{"https://huggingface.co/Qwen", ""},
		{"https://huggingface.co/Qwen/Qwen3-14B/settings", ""},
		{"https://github.com/Qwen/Qwen3", ""},
		{"<https://example.com/a/b|x>", ""},
		{"<@U123>", ""},
	}
	for _, tt := range tests {
		got, ok := HubRepoID(tt.word)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("HubRepoID(%q) = %q, %v, want %q", tt.word, got, ok, tt.want)
		}
	}
}

// FuzzHubRepoID asserts that a recognised repo id is valid on its own,
// is recognised again as itself, bare and as the link Format writes.
func FuzzHubRepoID(f *testing.F) {
	for _, s := range []string{"Qwen/Qwen3-14B", "https://huggingface.co/a/b/tree/main", "<https://hf.co/x/y|z>", "a/b/c", "2/4", "a--b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, word string) {
		repo, ok := HubRepoID(word)
		if !ok {
			if repo != "" {
				t.Fatalf("HubRepoID(%q) = %q with ok false", word, repo)
			}
			return
		}
		org, name, _ := strings.Cut(repo, "/")
		if !repoPart(org) || !repoPart(name) {
			t.Fatalf("HubRepoID(%q) = %q, not a valid id", word, repo)
		}
		for _, again := range []string{repo, HubLinkPrefix + repo, "<https://huggingface.co/" + repo + "|x>"} {
			if again == repo && perUnits[strings.ToLower(name)] {
				continue // bare, "0a/min" is a rate's unit; only a link names that repo
			}
			if r2, ok := HubRepoID(again); !ok || r2 != repo {
				t.Fatalf("HubRepoID(%q) = %q, %v; want %q", again, r2, ok, repo)
			}
		}
	})
}
