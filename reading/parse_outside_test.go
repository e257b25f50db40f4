package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
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
		// A family name with its version: "olmo 2 13b" is not a bare 13B and a stray "2".
		{"olmo 2 13b full finetune on 8 h100", `I don't know OLMo 2 13B ("olmo 2 13b")`, "fit hf.co/allenai/OLMo-2-1124-13B full 8xh100"},
		{"olmo2 7b lora a100", "I don't know OLMo 2 7B", "fit hf.co/allenai/OLMo-2-1124-7B lora a100-80"},
		{"OLMo-2-0325-32B inference 2xh100", "I don't know OLMo 2 32B", "fit hf.co/allenai/OLMo-2-0325-32B inference 2xh100"},
		{"codellama 34b inference a100", `I don't know Code Llama 34B ("codellama 34b")`, "fit hf.co/codellama/CodeLlama-34b-hf inference a100-80"},
		{"code llama 34b lora 2x4090", "I don't know Code Llama 34B", "fit hf.co/codellama/CodeLlama-34b-hf lora 2xrtx-4090"},
		{"CodeLlama-34b-Instruct-hf inference a100", "I don't know Code Llama 34B", "fit hf.co/codellama/CodeLlama-34b-hf inference a100-80"},
		{"olmo 7b inference l4", "I don't know OLMo 7B", "fit hf.co/allenai/OLMo-7B-hf inference l4"},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
	// "command" in a sentence is not a model.
	if p, err := Parse("command line tool for llama 3 8b lora 4090"); err != nil || p.Query.Model != "llama-3-8b" {
		t.Errorf("command line: %+v, %v", p.Query, err)
	}
}

// TestParseNamedOnly: image encoders (ViT, CLIP, DINOv2) and the
// encoders whose config.json fitbot does not read (DeBERTa, DistilBERT,
// ELECTRA) are refused by name, whatever else the question says, with no
// Try and saying that there is no similar question (a Try listing the
// model would only repeat the refusal); it never sizes an LLM in its
// place.
func TestParseNamedOnly(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"vit-large finetune on a v100 16gb batch 64", "ViT-L/16 is a 304M-parameter image encoder", ""},
		{"vit large training on a100", "ViT-L/16 is", ""},
		{"vit-b inference t4", "ViT-B/16 is", ""},
		{"clip vit-l/14 contrastive training from scratch on 8 a100s, batch 32k, is that feasible", "CLIP ViT-L/14 is a 428M-parameter image and text encoder pair", ""},
		{"clip vit-l/14 embedding 10 million images on an a10g how long and cost", "CLIP ViT-L/14 is", ""},
		{"openai clip vit-b/32 inference t4", "CLIP ViT-B/32 is", ""},
		{"dinov2 vit-g finetune on 4x v100 32gb", "DINOv2 ViT-g/14 is a 1.1B-parameter", ""},
		{"dino v2 large inference l4", "DINOv2 ViT-L/14 is", ""},
		{"deberta v3 large finetune a10g", "DeBERTa-v3 large is", ""},
		{"distilbert inference t4", "DistilBERT base is", ""},
		{"sd3.5 large lora 4090", "Stable Diffusion 3.5 Large is", ""},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || !strings.Contains(ie.Problem, "which fitbot does not size yet") ||
			!strings.Contains(ie.Problem, "no similar question to offer") || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
}

func hintOf(ie *sizing.InputError) string {
	if ie == nil {
		return ""
	}
	return ie.Hint
}

// TestParseOutsideCards: a card the catalog lacks, of known memory, is
// refused by name and its Try keeps the question with the card's name
// and memory typed, never swapping in another card ("did you mean a40" for a K80);
// typed after it, that memory sizes it; the RTX 2080 Ti and RX 7900 XTX
// are catalog cards (#31). Intel Gaudi 2 and 3 are refused so too (the
// 3 of "gaudi 3" is no stray number).
func TestParseOutsideCards(t *testing.T) {
	for _, c := range []struct{ in, problem, hint string }{
		{"bert base finetune on a k80", `"k80" is not a GPU I know: the Tesla K80 has 12 GB (12 GB per GPU, two GPUs on the board; Kepler: no BF16, no tensor cores, dropped by CUDA 12); add its memory to size it as a 12 GB card, "k80 12gb"`, "fit bert-base-uncased full tesla k80 12 gb"},
		{"lora 7b on a gtx 1080 ti", `"gtx 1080 ti" is not a GPU I know: the GTX 1080 Ti has 11 GB`, "fit 7b lora gtx 1080 ti 11 gb"},
		{"llama 3 8b lora on an rx 7900 xt", `the Radeon RX 7900 XT has 20 GB (ROCm)`, "fit llama-3-8b lora radeon rx 7900 xt 20 gb"},
		{"llama 3 8b qlora on two 1080 tis", `"1080 tis" is not a GPU I know`, "fit llama-3-8b qlora gtx 1080 ti 11 gb 2 gpus"},
		{"7b qlora on 2x tesla p40 seq 4096", `"tesla p40" is not a GPU I know`, "fit 7b qlora tesla p40 24 gb 2 gpus seq 4096"},
		{"7b lora 2080", `"2080" is not a GPU I know: the RTX 2080 has 8 GB`, "fit 7b lora rtx 2080 8 gb"},
		{"gaudi 3 for llama 70b inference, how many cards", `"gaudi 3" is not a GPU I know: the Intel Gaudi 3 has 128 GB`, "fit llama-3.1-70b inference intel gaudi 3 128 gb"},
		{"intel gaudi2 llama 3 8b lora", `"intel gaudi2" is not a GPU I know: the Intel Gaudi 2 has 96 GB`, "fit llama-3-8b lora intel gaudi 2 96 gb"},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
			continue
		}
		if _, err := Parse(strings.TrimPrefix(ie.Hint, "fit ")); err != nil {
			t.Errorf("%q: the Try %q does not parse: %v", c.in, ie.Hint, err)
		}
	}
	p, err := Parse("7b lora k80 12gb")
	if err != nil || !anyHasPrefix(p.Notes, `"k80" is not a GPU I know: sized as a 12 GB card`) {
		t.Errorf("k80 12gb: %v, notes %q", err, p.Notes)
	}
	for in, want := range map[string]string{"lora 7b on a 2080 ti": "rtx-2080-ti", "llama 3 8b lora on an rx 7900 xtx": "rx-7900-xtx", "rtx 2080ti 7b qlora": "rtx-2080-ti"} {
		if p, err := Parse(in); err != nil || p.Query.GPU != want {
			t.Errorf("%q: GPU %q, %v; want the catalog's %s", in, p.Query.GPU, err, want)
		}
	}
}

// TestOutsideCardTypedMemory: a card the catalog lacks with its memory
// typed is sized with that memory and named, never refused with a Try
// that adds a second memory ("rtx 2060 6gb 16gb") or swaps in another
// card ("can i train bert base on my rtx 2060 6gb").
func TestOutsideCardTypedMemory(t *testing.T) {
	for _, c := range []struct{ in, want, unknown string }{
		{"student here, can i train bert base on my rtx 2060 6gb", "bert-base-uncased full rtx 2060 6 gb", "RTX 2060 6 GB"},
		{"bert base full on my rtx 2060 6 gb", "bert-base-uncased full rtx 2060 6 gb", "RTX 2060 6 GB"},
		{"7b qlora on an rtx 2060 12gb", "7b qlora rtx 2060 12 gb", "RTX 2060 12 GB"},
		{"bert base full rtx 9999 6gb", "bert-base-uncased full rtx-4060 6gb", ""},
	} {
		p, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := sizing.Format(p.Query); got != c.want || p.Query.UnknownGPU != c.unknown {
			t.Errorf("Parse(%q) = %q (card %q), want %q (card %q)", c.in, got, p.Query.UnknownGPU, c.want, c.unknown)
		}
	}
	_, err := Parse("can i train bert base on my rtx 2060")
	var ie *sizing.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "the RTX 2060 has 6 GB") || ie.Hint != "fit bert-base-uncased full rtx 2060 6 gb" {
		t.Errorf("rtx 2060 with no memory: %v (hint %q); want the RTX 2060's 6 GB and a Try that types it", err, hintOf(ie))
	}
}

// TestDeviceRefusalWins: a device fitbot does not size is what the
// refusal says, even when the model is unknown too (not "gemma 2b is not
// a model I know" with the Try "gemma-2-2b lora rtx-4090"); its Try
// never moves the question onto another card, except
// a Jetson with its memory typed, asked on a desktop GPU of that memory,
// and a model to run on a CPU, whose Try is its memory in all (so "how
// much ram ... on cpu" has a next step), and a card the
// device is compared with, whose half of the question is the Try.
func TestDeviceRefusalWins(t *testing.T) {
	for _, c := range []struct{ in, device, try string }{
		{"gemma 2b on a raspberry pi lol", "a Raspberry Pi", ""},
		{"phi-3 mini on a raspberry pi 5 8gb, tokens per sec?", "a Raspberry Pi", ""},
		{"llama 3 8b on a jetson", "a Jetson", ""},
		{"run llama 3 8b int4 on a jetson orin nano 8gb?", "a Jetson", "fit llama-3-8b inference gptq 8gb"},
		{"gemma 2b on a jetson orin 8gb", "a Jetson", "fit gemma-2b 8gb"},
		{"mistral 7b on my iphone", "a phone", ""},
		{"t5 large inference on a cpu", "CPU-only inference", "fit which gpu t5-large inference"},
		{"how much ram do i need on my pc to run mistral nemo 12b on cpu", "CPU-only inference", "fit which gpu mistral-nemo-12b inference"},
		{"llama 3 8b lora on cpu", "CPU-only inference", ""},
		// Weighed against a card: the card's half is the Try, never the
		// h100 answered alone with the TPU unmentioned.
		{"tpu v5e vs h100 for serving gemma 7b, which is cheaper", "a TPU", "fit gemma-7b inference h100 cheapest"},
		{"serve llama 3 8b on a tpu or an h100", "a TPU", "fit llama-3-8b inference h100"},
	} {
		p, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "fitbot does not size "+c.device) || ie.Hint != c.try {
			t.Errorf("%q: %v (Try %q); want %s refused with the Try %q", c.in, err, hintOf(ie), c.device, c.try)
		}
		if p.Missing.Words != "" {
			t.Errorf("%q: the model %q is left to a Hub search, want the device refused alone", c.in, p.Missing.Words)
		}
	}
}

// TestUnknownNameKeepsSize: a model name the catalog lacks never gets a
// Try of another size: a size said in
// it stays, as a bare size or a catalog model of that size, and a size
// word (xl, large) with no catalog model of it gets no Try at all.
func TestUnknownNameKeepsSize(t *testing.T) {
	for _, c := range []struct{ in, problem, try string }{
		{"serve my in-house 45b-moe-custom model on 4 h100s", "I know no similar 45B model", "fit 45b inference 4xh100"},
		{"llava 1.6 34b in 4bit on 2x 3090", `"llava 1.6 34b" is not a model I know; I know no similar 34B model`, "fit 34b gptq 2xrtx-3090"},
		{"llava 1.6 7b on a 4090", "did you mean llava-1.5-7b?", "fit llava-1.5-7b on a 4090"},
		{"gemma 3 9b on a 4090", "did you mean gemma-2-9b?", "fit gemma-2-9b on a 4090"},
		{"t5-xl finetune on a 24gb a5000", "I know no model of its size (xl), so there is no similar question to offer", ""},
		{"how much vram for a 3b-param vision transformer at 896px batch 64 training", "A vision transformer (ViT) is an image encoder", ""},
		{"3b vision transformer full on 8 a100s", "A vision transformer (ViT) is an image encoder", ""},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.try {
			t.Errorf("%q: %v (Try %q); want %q with the Try %q", c.in, err, hintOf(ie), c.problem, c.try)
		}
	}
}
