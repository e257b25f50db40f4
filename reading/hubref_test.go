package reading

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestParseHubModels(t *testing.T) {
	tests := []struct {
		question    string
		wantHub     string
		wantModel   string
		wantMissing string
		wantGPU     string
	}{
		{"Qwen/Qwen3-1.7B inference 8 h200", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B", "", "h200"},
		{"https://huggingface.co/Qwen/Qwen3-1.7B inference 8 h200", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B", "", "h200"},
		{"<@U1> can we serve <https://huggingface.co/Qwen/Qwen3-1.7B|Qwen3-235B-A22B> on 8 h200s?", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B", "", "h200"},
		{"hf.co/acme/lora inference h100", "acme/lora", "acme/lora", "", "h100"},
		// A repo the catalog has stays the catalog's model.
		{"meta-llama/Llama-3.1-8B lora 4090", "", "llama-3.1-8b", "", "rtx-4090"},
		{"<https://huggingface.co/meta-llama/Llama-3.1-8B|x> lora 4090", "", "llama-3.1-8b", "", "rtx-4090"},
		// A family name the catalog lacks is left for the Hub's search.
		{"qwen3 1.7b lora h100", "", "", "qwen3 1.7b", "h100"},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			p, err := Parse(tt.question)
			if (err != nil) != (tt.wantMissing != "") {
				t.Fatalf("Parse err = %v", err)
			}
			if p.Hub != tt.wantHub || p.Query.Model != tt.wantModel || p.Missing.Words != tt.wantMissing || p.Query.GPU != tt.wantGPU {
				t.Errorf("hub %q model %q missing %q gpu %q, want %q %q %q %q", p.Hub, p.Query.Model, p.Missing.Words, p.Query.GPU,
					tt.wantHub, tt.wantModel, tt.wantMissing, tt.wantGPU)
			}
			if m := p.Missing; m.Words != "" && tt.question[m.Start:m.End] != m.Words {
				t.Errorf("missing span [%d,%d) is %q, want %q", m.Start, m.End, tt.question[m.Start:m.End], m.Words)
			}
			if err != nil || tt.wantHub == "" {
				return
			}
			canon := sizing.Format(p.Query)
			again, err := Parse(canon)
			if err != nil || again.Hub != p.Hub {
				t.Fatalf("Format = %q, which parses to hub %q, err %v", canon, again.Hub, err)
			}
			if d := cmp.Diff(p.Query, again.Query); d != "" {
				t.Errorf("Format = %q, which parses differently:\n%s", canon, d)
			}
		})
	}
}

func TestHubModelWithoutResolverIsAnInputError(t *testing.T) {
	p, err := Parse("Qwen/Qwen3-1.7B inference h200")
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&sizing.Estimator{}).Answer(p.Query)
	if _, ok := err.(*sizing.InputError); !ok {
		t.Errorf("Answer without the Hub resolved: %v, want an *InputError", err)
	}
}

// FuzzParseHubModel asserts that a Hub repo named in any of its forms,
// within a question, is read as that repo and formats to a question that
// reads back to the same Query.
func FuzzParseHubModel(f *testing.F) {
	f.Add("Qwen", "Qwen3-14B", 0, "lora h100")
	f.Add("acme", "lora", 1, "inference 2xa100")
	f.Add("a", "13b", 2, "qlora 4090 seq 4k")
	f.Add("deepseek-ai", "DeepSeek-V3.1", 3, "can we serve it on 8 h200s?")
	f.Fuzz(func(t *testing.T, org, name string, form int, rest string) {
		repo, ok := sizing.HubRepoID(org + "/" + name)
		if !ok || repo != org+"/"+name {
			return
		}
		forms := []string{repo, "https://huggingface.co/" + repo, "<https://huggingface.co/" + repo + "|x>", sizing.HubLinkPrefix + repo + "/tree/main"}
		k := uint(form) % uint(len(forms))
		in := forms[k] + " " + rest
		p, err := Parse(in)
		if err != nil {
			return // the rest may be anything; FuzzParse covers rejected questions
		}
		// A bare id may be read as something else when its name is one of
		// the parser's words ("acme/lora" is LoRA); a link never is.
		if k > 0 && (p.Query.Model == "" || (p.Hub != "" && p.Hub != repo)) {
			t.Fatalf("Parse(%q): model %q hub %q, want %s", in, p.Query.Model, p.Hub, repo)
		}
		canon := sizing.Format(p.Query)
		again, err := Parse(canon)
		if err != nil || again.Hub != p.Hub || again.Query.Model != p.Query.Model {
			t.Fatalf("Parse(%q) = %q, which reads back as model %q hub %q (err %v)", in, canon, again.Query.Model, again.Hub, err)
		}
	})
}
