package reading

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// Models people name that the catalog lacks and that no catalog family
// word starts ("yi 34b", "command r plus"): the parser
// refuses them by name, with their Hugging Face Hub id in the Try line,
// instead of dropping the name and sizing a bare size or another model.

// outsideModel is a model known by name only: what it is called and its
// Hub repo id.
type outsideModel struct {
	name, repo string
}

// outsideModelAt reads an outside model's name starting at token i and
// reports it with the tokens it covers (0 when none starts there). A
// size after the name ("yi 34b") is part of it.
func (p *parser) outsideModelAt(i int) (outsideModel, int) {
	key := keysOf(p.toks)
	if strings.HasPrefix(key(i), "yi") {
		return yiAt(key, i, len(p.toks)-i)
	}
	if key(i) == "deepseek" {
		if k, n := joinedAt(key, i, len(p.toks)-i, deepseekModels); n > 1 {
			return deepseekModels[k], n
		}
		return outsideModel{}, 0
	}
	if raw := strings.ToLower(p.toks[i].raw); strings.HasPrefix(raw, "deepseek-") {
		if m, ok := deepseekModels[strings.ReplaceAll(raw, "-", "")]; ok {
			return m, 1 // "deepseek-coder-v2-lite" written as one word
		}
	}
	if strings.HasPrefix(key(i), "smollm") {
		return smolLMAt(key, i)
	}
	if strings.HasPrefix(key(i), "olmo") {
		return olmoAt(key, i, len(p.toks)-i)
	}
	if m, n := p.outsideFamilyAt(i); n > 0 {
		return m, n
	}
	if strings.HasPrefix(key(i), "code") {
		// Code Llama 7B, 13B and 70B are Llama 2's architecture, sized as
		// such (architectureTwins); 34B has no Llama 2 twin.
		if _, n := joinedAt(key, i, len(p.toks)-i, codeLlama34B); n > 0 {
			return outsideModel{"Code Llama 34B", "codellama/CodeLlama-34b-hf"}, n
		}
	}
	switch k := key(i); k {
	case "command", "commandr", "commandrplus", "commandr+":
		n, plus := 1, k == "commandrplus" || k == "commandr+" || strings.HasSuffix(p.toks[i].raw, "+")
		if k == "command" {
			if key(i+1) != "r" {
				return outsideModel{}, 0
			}
			n = 2
			plus = plus || p.toks[i+1].end < len(p.in) && p.in[p.toks[i+1].end] == '+'
		}
		if key(i+n) == "plus" {
			n, plus = n+1, true
		}
		if plus {
			return outsideModel{"Command R+", "CohereForAI/c4ai-command-r-plus"}, n
		}
		return outsideModel{"Command R", "CohereForAI/c4ai-command-r-v01"}, n
	}
	return outsideModel{}, 0
}

// yiName is a Yi model's name as keys run together: Yi 1.0 or 1.5
// ("yi-1.5", "yi 1.5", "yi v1.5"), a size, and a Chat or Base tag.
var yiName = regexp.MustCompile(`^yi(v?1\.5|15)?(6b|9b|34b)?(chat|base)?$`)

// yiAt reads a Yi model over up to four tokens from i ("yi 1.5 9b",
// "Yi-1.5-34B-Chat", "yi 34b"), of the left tokens from i on: its name and
// Hub id keep the asked version and size (the Hub id 34B when no size is
// said).
func yiAt(key func(int) string, i, left int) (outsideModel, int) {
	k, n := joinedAt(key, i, left, yiName)
	if n == 0 {
		return outsideModel{}, 0
	}
	m := yiName.FindStringSubmatch(k)
	name, repo, size := "Yi", "01-ai/Yi-", strings.ToUpper(m[2])
	if m[1] != "" {
		name, repo = "Yi 1.5", "01-ai/Yi-1.5-"
	}
	if size == "" {
		return outsideModel{name, repo + "34B"}, n
	}
	return outsideModel{name + " " + size, repo + size}, n
}

// joinedAt runs together the keys from i, up to four of the left tokens,
// the longest first: the first run the names match and how many tokens it
// took (0 when none does).
func joinedAt(key func(int) string, i, left int, names interface{ MatchString(string) bool }) (string, int) {
	for n := min(4, left); n >= 1; n-- {
		var b strings.Builder
		for j := i; j < i+n; j++ {
			b.WriteString(key(j))
		}
		if names.MatchString(b.String()) {
			return b.String(), n
		}
	}
	return "", 0
}

// codeLlama34B is Code Llama 34B's name as keys run together
// ("codellama 34b", "CodeLlama-34b-Instruct-hf", "code llama 34b python").
var codeLlama34B = regexp.MustCompile(`^codellama34b(instruct|python)?(hf)?$`)

// olmoName is an OLMo model's name as keys run together: OLMo 1 or 2
// ("olmo 2", "olmo2", "olmo-2-1124"), a size, and an Instruct tag.
var olmoName = regexp.MustCompile(`^olmo(v?2(?:1124|0325|0425)?)?(1b|7b|13b|32b)?(instruct|sft|dpo|hf)?$`)

// olmo2Repos are the OLMo 2 Hub ids by size (allenai's OLMo 2 collection).
var olmo2Repos = map[string]string{"1B": "allenai/OLMo-2-0425-1B", "7B": "allenai/OLMo-2-1124-7B", "13B": "allenai/OLMo-2-1124-13B", "32B": "allenai/OLMo-2-0325-32B"}

// olmoAt reads an OLMo model over up to four tokens from i ("olmo 2 13b",
// "OLMo-2-1124-7B", "olmo 7b"), of the left tokens from i on: its name and
// Hub id keep the asked version and size (7B when no size is said; OLMo 2 for its 13B and 32B), so
// "olmo 2 13b" is never read as a bare 13B with a stray "2".
func olmoAt(key func(int) string, i, left int) (outsideModel, int) {
	k, n := joinedAt(key, i, left, olmoName)
	if n == 0 {
		return outsideModel{}, 0
	}
	m := olmoName.FindStringSubmatch(k)
	size := strings.ToUpper(m[2])
	if size == "" {
		size = "7B"
	}
	if repo, ok := olmo2Repos[size]; ok && (m[1] != "" || size == "13B" || size == "32B") {
		return outsideModel{"OLMo 2 " + size, repo}, n // OLMo 1 came in 1B and 7B only
	}
	return outsideModel{"OLMo " + size, "allenai/OLMo-" + size + "-hf"}, n
}

// outsideTable are outside models by their keys run together, for
// joinedAt.
type outsideTable map[string]outsideModel

// MatchString reports whether k is one of the names.
func (o outsideTable) MatchString(k string) bool {
	_, ok := o[k]
	return ok
}

// deepseekModels are the DeepSeek models the catalog lacks ("deepseek
// coder v2 lite", "deepseek v2", "deepseek coder 6.7b", "deepseek llm
// 67b"), which "deepseek" alone (DeepSeek-V3) must not swallow, by their
// keys run together. Repo ids as deepseek-ai publishes them on the Hub.
var deepseekModels = outsideTable{
	"deepseekcoderv2lite": {"DeepSeek-Coder-V2-Lite", "deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct"},
	"deepseekcoderv2":     {"DeepSeek-Coder-V2", "deepseek-ai/DeepSeek-Coder-V2-Instruct"},
	"deepseekcoder1.3b":   {"DeepSeek Coder 1.3B", "deepseek-ai/deepseek-coder-1.3b-instruct"},
	"deepseekcoder6.7b":   {"DeepSeek Coder 6.7B", "deepseek-ai/deepseek-coder-6.7b-instruct"},
	"deepseekcoder33b":    {"DeepSeek Coder 33B", "deepseek-ai/deepseek-coder-33b-instruct"},
	"deepseekcoder":       {"DeepSeek Coder", "deepseek-ai/deepseek-coder-6.7b-instruct"},
	"deepseekv2lite":      {"DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V2-Lite"},
	"deepseekv2":          {"DeepSeek-V2", "deepseek-ai/DeepSeek-V2"},
	"deepseekv2.5":        {"DeepSeek-V2.5", "deepseek-ai/DeepSeek-V2.5"},
	"deepseekllm67b":      {"DeepSeek LLM 67B", "deepseek-ai/deepseek-llm-67b-base"},
	"deepseekllm7b":       {"DeepSeek LLM 7B", "deepseek-ai/deepseek-llm-7b-base"},
}

// smolLMAt reads Hugging Face's SmolLM and SmolLM2 ("smollm2 1.7b",
// "smollm2-360m"): the size joined or the next word, 1.7B when unsaid.
func smolLMAt(key func(int) string, i int) (outsideModel, int) {
	k, n := key(i), 1
	version := "SmolLM2"
	if !strings.HasPrefix(k, "smollm2") {
		version = "SmolLM"
	}
	size := strings.TrimPrefix(strings.TrimPrefix(k, "smollm2"), "smollm")
	if size == "" {
		if _, ok := smolLMSizes[key(i+1)]; ok {
			size, n = key(i+1), 2
		}
	}
	label, ok := smolLMSizes[size]
	if !ok {
		if size != "" {
			return outsideModel{}, 0
		}
		label = "1.7B"
	}
	return outsideModel{version + " " + label, "HuggingFaceTB/" + version + "-" + label}, n
}

// outsideFamily is an open model family the catalog lacks, known by its
// name and its maker's Hub organisation only.
type outsideFamily struct {
	name, org string
	// alone is true when the name is distinctive enough to mean the model
	// without a size or version after it ("zephyr"); other names ("opt",
	// "solar") need one ("opt 1.3b").
	alone bool
}

// outsideFamilies are open model families people name that the catalog
// lacks, by key: a name among them with its size or version ("stablelm
// 3b", "starcoder2 15b", "pythia 1.4b") is refused by name with its
// maker's Hub organisation, never sized as the bare size after it.
var outsideFamilies = map[string]outsideFamily{
	"stablelm": {"StableLM", "stabilityai", true}, "stablelm2": {"StableLM 2", "stabilityai", true},
	"pythia": {"Pythia", "EleutherAI", true}, "gptj": {"GPT-J", "EleutherAI", true}, "gptneox": {"GPT-NeoX", "EleutherAI", true},
	"opt": {"OPT", "facebook", false}, "bloom": {"BLOOM", "bigscience", false}, "bloomz": {"BLOOMZ", "bigscience", true},
	"mpt": {"MPT", "mosaicml", false}, "vicuna": {"Vicuna", "lmsys", true}, "zephyr": {"Zephyr", "HuggingFaceH4", true},
	"starcoder": {"StarCoder", "bigcode", true}, "starcoder2": {"StarCoder2", "bigcode", true},
	"granite": {"Granite", "ibm-granite", false}, "internlm": {"InternLM", "internlm", true}, "internlm2": {"InternLM2", "internlm", true},
	"internlm3": {"InternLM3", "internlm", true}, "baichuan": {"Baichuan", "baichuan-inc", true}, "baichuan2": {"Baichuan 2", "baichuan-inc", true},
	"chatglm": {"ChatGLM", "THUDM", true}, "chatglm3": {"ChatGLM3", "THUDM", true}, "exaone": {"EXAONE", "LGAI-EXAONE", true},
	"jais": {"Jais", "inceptionai", false}, "openchat": {"OpenChat", "openchat", true}, "solar": {"SOLAR", "upstage", false},
	"dbrx": {"DBRX", "databricks", true}, "tinyllama": {"TinyLlama", "TinyLlama", true}, "openelm": {"OpenELM", "apple", true},
	"aya": {"Aya", "CohereForAI", false}, "minicpm": {"MiniCPM", "openbmb", true}, "minicpm3": {"MiniCPM3", "openbmb", true},
	"dolly": {"Dolly", "databricks", false}, "xverse": {"XVERSE", "xverse", true}, "skywork": {"Skywork", "Skywork", true},
	"hunyuan": {"Hunyuan", "tencent", true}, "nemotron": {"Nemotron", "nvidia", false},
}

// outsideFamilyAt reads an outside family's name at token i with the
// size or version words after it ("stablelm 3b", "granite 3.1 8b"),
// reporting the tokens covered (0 when none starts there, or when a name
// that needs a size has none).
func (p *parser) outsideFamilyAt(i int) (outsideModel, int) {
	f, ok := outsideFamilies[p.toks[i].key]
	if !ok {
		return outsideModel{}, 0
	}
	j := i + 1
	for j < len(p.toks) && j < i+3 && hasDigit(p.toks[j].key) && p.isNameish(j) {
		j++
	}
	if j == i+1 && !f.alone {
		return outsideModel{}, 0
	}
	name := f.name
	if j > i+1 {
		name += " " + strings.ToUpper(p.text(i+1, j))
	}
	return outsideModel{name, f.org + "/MODEL"}, j - i
}

// smolLMSizes are SmolLM's sizes, by key.
var smolLMSizes = map[string]string{"135m": "135M", "360m": "360M", "1.7b": "1.7B"}

// outside refuses an outside model named at token i, keeping the rest of
// the question in the Try line with the model's Hub id, and reports the
// tokens it covered (0 when no outside model starts there).
func (p *parser) outside(i int) int {
	m, n := p.outsideModelAt(i)
	if n == 0 || p.words[fModel] != "" {
		return 0
	}
	p.missingModel(i, i+n)
	p.fail(fmt.Sprintf("I don't know %s (%s): it is not in fitbot's catalog; give its Hugging Face Hub id and fitbot reads its config.json", m.name, quote(p.text(i, i+n))),
		func(q *sizing.Query) { q.Model, q.Params, q.Experts = m.repo, 0, 0 })
	return n
}

// outsideCard is a GPU people name that the catalog lacks, with the
// memory its maker sells it with (per GPU).
type outsideCard struct {
	name string
	gb   int
	note string // what sizing it by its memory leaves out; "" when nothing
}

// outsideCards are cards the catalog lacks, by key with the vendor and
// line words ("nvidia", "geforce", "rtx", "radeon", "rx", "tesla")
// dropped. Memory from the makers' product specifications; the catalog
// sizes a card by its measured memory, bandwidth and peak FLOPS, which
// these lack, so they are refused with a Try that types their memory. The
// Tesla K80 stays out of the catalog on purpose: no current CUDA runs it,
// and a typed "12gb" must not become one.
var outsideCards = map[string]outsideCard{
	"2080super": {"RTX 2080 Super", 8, "no BF16"}, "2080": {"RTX 2080", 8, "no BF16"},
	"2070super": {"RTX 2070 Super", 8, "no BF16"}, "2070": {"RTX 2070", 8, "no BF16"}, "2060super": {"RTX 2060 Super", 8, "no BF16"},
	"2060":   {"RTX 2060", 6, "a 12 GB model too; no BF16"},
	"1080ti": {"GTX 1080 Ti", 11, "no BF16, no tensor cores"}, "1080": {"GTX 1080", 8, "no BF16, no tensor cores"},
	"1070": {"GTX 1070", 8, "no BF16, no tensor cores"}, "titanrtx": {"Titan RTX", 24, "no BF16"},
	"k80":     {"Tesla K80", 12, "12 GB per GPU, two GPUs on the board; Kepler: no BF16, no tensor cores, dropped by CUDA 12"},
	"p100":    {"Tesla P100", 16, "a 12 GB variant too; no BF16, no tensor cores"},
	"p40":     {"Tesla P40", 24, "no BF16, no tensor cores"},
	"7900xt":  {"Radeon RX 7900 XT", 20, "ROCm"},
	"7900gre": {"Radeon RX 7900 GRE", 16, "ROCm"}, "7800xt": {"Radeon RX 7800 XT", 16, "ROCm"},
	"6900xt": {"Radeon RX 6900 XT", 16, "ROCm, no BF16 matrix cores"}, "6800xt": {"Radeon RX 6800 XT", 16, "ROCm, no BF16 matrix cores"},
	"9070xt": {"Radeon RX 9070 XT", 16, "ROCm"},
	"a770":   {"Intel Arc A770", 16, "an 8 GB model too; runs PyTorch through Intel's XPU backend, not CUDA"},
	"b580":   {"Intel Arc B580", 12, "runs PyTorch through Intel's XPU backend, not CUDA"},
	"gaudi2": {"Intel Gaudi 2", 96, "HBM2e; runs PyTorch through Intel's Gaudi (HPU) software and vLLM's Gaudi fork, not CUDA"},
	"gaudi3": {"Intel Gaudi 3", 128, "HBM2e; runs PyTorch through Intel's Gaudi (HPU) software and vLLM's Gaudi fork, not CUDA"},
	"gaudi":  {"Intel Gaudi 2", 96, "HBM2e; Gaudi 3 has 128 GB; runs PyTorch through Intel's Gaudi (HPU) software and vLLM's Gaudi fork, not CUDA"},
}

// outsideCardName is the maker's name of a card the catalog lacks, from
// the words it was typed with ("1080 ti": "GTX 1080 Ti"); ok is false
// when outsideCards does not hold it.
func outsideCardName(words string) (string, bool) {
	key := strings.NewReplacer(" ", "", "-", "").Replace(strings.ToLower(words))
	for trimmed := true; trimmed; {
		trimmed = false
		for _, w := range cardLinePrefixes {
			if rest, ok := strings.CutPrefix(key, w); ok && rest != "" {
				key, trimmed = rest, true
			}
		}
	}
	c, ok := outsideCards[key]
	return c.name, ok
}

// cardNameWords are card names the catalog lacks that have no digit ("titan").
var cardNameWords = vocab.set("card_name")

// cardLineWords are words a card name may start with before its number.
var cardLineWords = vocab.set("card_line")

// cardLinePrefixes is cardLineWords as a list, for trimming them off run-together keys.
var cardLinePrefixes = slices.Sorted(maps.Keys(cardLineWords.words))

// outsideCardAt reads a card the catalog lacks starting at token i ("2080
// ti", "rx 7900 xtx", "tesla k80") and reports it with the tokens it
// covers (0 when none starts there).
func (p *parser) outsideCardAt(i int) (outsideCard, int) {
	if k := p.toks[i].key; !cardLineWords.has(k) && !hasDigit(k) && !cardNameWords.has(k) {
		return outsideCard{}, 0
	}
	// The keys run together in a stack buffer: this runs for every word
	// with a digit of every question, and a map lookup of string(bytes)
	// does not allocate.
	var buf [64]byte
	for n := min(4, len(p.toks)-i); n >= 1; n-- {
		b := buf[:0]
		for j := i; j < i+n; j++ {
			b = append(b, p.toks[j].key...)
		}
		for trimmed := true; trimmed; {
			trimmed = false
			for _, w := range cardLinePrefixes {
				if len(b) > len(w) && string(b[:len(w)]) == w {
					b, trimmed = b[len(w):], true
				}
			}
		}
		c, ok := outsideCards[string(b)]
		if !ok && len(b) > 1 && b[len(b)-1] == 's' {
			c, ok = outsideCards[string(b[:len(b)-1])] // "2080 tis"
		}
		if ok {
			if w, m := p.lookup(i, false); w.kind == kindGPU && m >= n {
				return outsideCard{}, 0 // a catalog card's name covers these words ("2080 ti")
			}
			return c, n
		}
	}
	return outsideCard{}, 0
}

// countedCardWords after a bare number make it a count of GPUs, never a
// card's model number ("1070 gpus" is 1,070 of them).
var countedCardWords = vocab.set("counted_card_words")

// outsideCardName refuses a card the catalog lacks named at token i,
// with a Try that keeps the question and types the card's memory, and
// reports the tokens it covered (0 when none starts there). A memory
// typed after it ("2080 ti 11gb") sizes it instead (parse_memory.go).
func (p *parser) outsideCardName(i int) int {
	c, n := p.outsideCardAt(i)
	if n == 0 {
		return 0
	}
	if n == 1 && i+1 < len(p.toks) && countedCardWords.has(p.toks[i+1].key) && isNumber(p.toks[i].key) {
		return 0 // "1070 gpus": a count, as Format writes it (FuzzParseServing)
	}
	words := p.text(i, i+n)
	if p.err != nil || p.words[fGPU] != "" {
		p.ignore(i, i+n)
		return n
	}
	typed := fmt.Sprintf("%s %dgb", words, c.gb)
	problem := fmt.Sprintf("%s is not a GPU I know: the %s has %d GB", quote(words), c.name, c.gb)
	if c.note != "" {
		problem += " (" + c.note + ")"
	}
	p.fail(problem+fmt.Sprintf("; add its memory to size it as %s %d GB card, %s", article(c.gb), c.gb, quote(typed)), func(q *sizing.Query) { q.GPU, q.UnknownGPU = "", fmt.Sprintf("%s %d GB", c.name, c.gb) })
	p.unknownGPU(words)
	p.cardGB = c.gb
	return n
}

// article is "a" or "an" before a number read out ("an 11 GB card").
func article(n int) string {
	if s := strconv.Itoa(n); s[0] == '8' || n == 11 || n == 18 {
		return "an"
	}
	return "a"
}
