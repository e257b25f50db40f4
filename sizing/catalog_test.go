package sizing

import (
	"errors"
	"strings"
	"testing"
)

// TestCatalogData validates the embedded files row by row: the catalog
// must load without error (no alias of one row normalising to another's),
// and every row must be complete, so that nothing fails at runtime.
func TestCatalogData(t *testing.T) {
	c, err := parseCatalog(gpusJSON, modelsJSON)
	if err != nil {
		t.Fatalf("parseCatalog: %v", err)
	}
	if loadCatalog().loadError != nil {
		t.Fatalf("loadCatalog: %v", loadCatalog().loadError)
	}
	ids := map[string]bool{}
	links := map[string]bool{LinkNVLink: true, LinkPCIe: true, LinkInfinityFabric: true, LinkUnified: true}
	for _, g := range c.gpus {
		if ids[g.ID] {
			t.Errorf("GPU id %q appears twice", g.ID)
		}
		ids[g.ID] = true
		if g.ID != strings.ToLower(g.ID) || strings.ContainsAny(g.ID, " _.") {
			t.Errorf("GPU id %q is not a lower-case slug", g.ID)
		}
		if g.Name == "" || g.Source == "" || g.Vendor == "" {
			t.Errorf("%s: name, vendor and source must be set", g.ID)
		}
		if g.MemoryBytes <= 0 || g.BandwidthBytesPerSec <= 0 || g.BF16TFLOPS <= 0 || g.BoardPowerWatts <= 0 || g.MaxPerNode <= 0 {
			t.Errorf("%s: memory, bandwidth, TFLOPS, power and max per node must be positive: %+v", g.ID, g)
		}
		if g.FP8 != (g.FP8TFLOPS > 0) {
			t.Errorf("%s: FP8 = %v but FP8TFLOPS = %v", g.ID, g.FP8, g.FP8TFLOPS)
		}
		if !links[g.Link] {
			t.Errorf("%s: link %q is not a known kind", g.ID, g.Link)
		}
		if (g.Link == LinkUnified) != (g.LinkBytesPerSec == 0) {
			t.Errorf("%s: link %s with %v bytes/s: only unified memory has no link", g.ID, g.Link, g.LinkBytesPerSec)
		}
		if g.UnifiedMemory != (g.Vendor == "apple") || (g.UsableFraction != 0) != (g.Vendor == "apple") {
			t.Errorf("%s: Apple rows, and only they, are inference-only with a usable fraction", g.ID)
		}
		if g.Vendor == "apple" && g.MaxPerNode != 1 {
			t.Errorf("%s: an Apple machine has one GPU", g.ID)
		}
		// Usable memory is what the card reports, a little under the marketing GB.
		if gib := g.MemoryGiB(); gib < 5 || gib > 400 {
			t.Errorf("%s: %.1f GiB is implausible", g.ID, gib)
		}
	}
	for _, m := range c.models {
		if ids[m.ID] {
			t.Errorf("id %q appears twice", m.ID)
		}
		ids[m.ID] = true
		if m.Name == "" || m.Source == "" || m.Family == "" {
			t.Errorf("%s: name, family and source must be set", m.ID)
		}
		if m.Kind == KindDiffusion {
			// A pipeline: components with a denoiser and a VAE, a DiT with its geometry.
			roles := map[string]int{}
			for _, c := range m.Components {
				roles[c.Role]++
			}
			total, _ := m.ParamCount()
			dit := m.Denoiser == DenoiserDiT && m.Hidden > 0 && m.Layers > 0 && m.TextTokens > 0 && m.LoRAPerRank > 0
			if roles[RoleDenoiser] != 1 || roles[RoleVAE] != 1 || roles[RoleTextEncoder] == 0 || total != m.PublishedParams ||
				!dit && m.Denoiser != DenoiserUNet || m.NativeResolution <= 0 {
				t.Errorf("%s: inconsistent pipeline %+v", m.ID, m)
			}
			continue
		}
		if m.Layers <= 0 || m.Hidden <= 0 || m.Vocab <= 0 || m.MaxContext <= 0 || m.PublishedParams <= 0 || m.NormsPerLayer <= 0 {
			t.Errorf("%s: shape fields must be positive: %+v", m.ID, m)
		}
		if m.Kind == KindSSM {
			// No attention at all: every layer a Mamba mixer with its state.
			if m.Heads != 0 || m.LinearAttnLayers != m.Layers || m.SSMInner <= 0 || m.MixerState <= 0 {
				t.Errorf("%s: an SSM has Mamba mixers on every layer and no heads: %+v", m.ID, m)
			}
			continue
		}
		if m.Heads <= 0 || m.KVHeads <= 0 || m.HeadDim <= 0 {
			t.Errorf("%s: attention fields must be positive: %+v", m.ID, m)
		}
		if (m.LinearAttnLayers > 0) != (m.MixerState > 0) {
			t.Errorf("%s: layers without a KV cache need their fixed state (mixer_state)", m.ID)
		}
		if m.Heads%m.KVHeads != 0 {
			t.Errorf("%s: %d heads do not group into %d KV heads", m.ID, m.Heads, m.KVHeads)
		}
		if m.MLP != MLPGated && m.MLP != MLPPlain || m.Norm != NormRMS && m.Norm != NormLayerNorm {
			t.Errorf("%s: mlp %q or norm %q unknown", m.ID, m.MLP, m.Norm)
		}
		switch m.Kind {
		case KindDecoder, KindEncoder, KindHybrid:
			if m.EncoderLayers != 0 {
				t.Errorf("%s: %s with encoder layers", m.ID, m.Kind)
			}
		case KindEncoderDecoder:
			if m.EncoderLayers <= 0 {
				t.Errorf("%s: encoder-decoder without encoder layers", m.ID)
			}
		default:
			t.Errorf("%s: kind %q unknown", m.ID, m.Kind)
		}
		if m.MoE() && (m.ExpertsActive <= 0 || m.ExpertsActive > m.Experts || m.ExpertIntermediate <= 0 || m.DenseLayers >= m.Layers) {
			t.Errorf("%s: inconsistent MoE fields", m.ID)
		}
		if !m.MoE() && (m.ExpertsActive != 0 || m.SharedExperts != 0 || m.DenseLayers != 0) {
			t.Errorf("%s: expert fields on a dense model", m.ID)
		}
		if (m.SlidingLayers > 0) != (m.SlidingWindow > 0) || m.SlidingLayers > m.Layers {
			t.Errorf("%s: sliding window %d on %d of %d layers", m.ID, m.SlidingWindow, m.SlidingLayers, m.Layers)
		}
		if m.MLA() && (m.QKRopeHeadDim <= 0 || m.QKNopeHeadDim <= 0 || m.VHeadDim <= 0) {
			t.Errorf("%s: incomplete MLA dims", m.ID)
		}
		if (m.ExtraParams > 0) != (m.ExtraParamsNote != "") {
			t.Errorf("%s: extra params need a note saying what they are", m.ID)
		}
	}
	if len(c.models) < 30 {
		t.Errorf("%d models, want at least 30", len(c.models))
	}
}

// TestLookupGPU covers ids, names, vendor words, spacing and the
// assumption an ambiguous name carries. Expected ids are the catalog's.
func TestLookupGPU(t *testing.T) {
	tests := []struct {
		in, want string
		note     bool
	}{
		{"rtx-4090", "rtx-4090", false},
		{"4090", "rtx-4090", false},
		{"rtx4090", "rtx-4090", false},
		{"RTX 4090 24GB", "rtx-4090", false},
		{"RTX 4090 24 GB", "rtx-4090", false},
		{"geforce rtx 4090", "rtx-4090", false},
		{"NVIDIA GeForce RTX 4090", "rtx-4090", false},
		{"3090", "rtx-3090", false},
		// The GPUs added for issue #14, as providers and people name them.
		{"NVIDIA B300 SXM6 AC", "b300", false},
		{"GB200 NVL72", "gb200", false},
		{"gb300", "gb300", false},
		{"NVIDIA H200 NVL", "h200-nvl", false},
		{"h20", "h20", false},
		{"NVIDIA L20", "l20", false},
		{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000", false},
		{"RTX 5080", "rtx-5080", false},
		{"geforce rtx 5070", "rtx-5070", false},
		{"AMD Instinct MI325X", "mi325x", false},
		{"mi355x", "mi355x", false},
		{"a100", "a100-80", true},
		{"A100", "a100-80", true},
		{"a100 80gb", "a100-80", false},
		{"a100 40gb", "a100-40", false},
		{"A100-SXM4-40GB", "a100-40", false},
		{"a100 pcie", "a100-80-pcie", false},
		{"h100", "h100", true},
		{"H100 SXM", "h100", false},
		{"h100 pcie", "h100-pcie", false},
		{"H100 NVL", "h100-nvl", false},
		{"h200", "h200", false},
		{"b200", "b200", false},
		{"mi300", "mi300x", false},
		{"AMD Instinct MI300X", "mi300x", false},
		{"l4", "l4", false},
		{"Tesla T4", "t4", false},
		{"l40s", "l40s", false},
		{"a10g", "a10g", false},
		{"v100 32gb", "v100-32", false},
		{"v100", "v100-16", true},
		{"m2 ultra", "m2-ultra-192", true},
		{"M3 Max 128GB", "m3-max-128", false},
		{"rtx a6000", "rtx-a6000", false},
		{"rtx 6000 ada", "rtx-6000-ada", false},
		{"5090", "rtx-5090", false},
	}
	for _, tt := range tests {
		g, note, err := LookupGPU(tt.in)
		if err != nil {
			t.Errorf("LookupGPU(%q): %v", tt.in, err)
			continue
		}
		if g.ID != tt.want || (note != "") != tt.note {
			t.Errorf("LookupGPU(%q) = %s, note %q; want %s, note %v", tt.in, g.ID, note, tt.want, tt.note)
		}
		if m, ok := MatchGPU(tt.in); !ok || m.ID != tt.want {
			t.Errorf("MatchGPU(%q) = %s, %v; want %s", tt.in, m.ID, ok, tt.want)
		}
	}
	if _, note, _ := LookupGPU("a100"); note != `"a100" taken as A100 SXM 80 GB` {
		t.Errorf("a100 note = %q", note)
	}
}

// TestLookupModel covers Hugging Face repo names, suffixes and loose
// spelling.
func TestLookupModel(t *testing.T) {
	tests := []struct {
		in, want string
		note     bool
	}{
		{"llama-3.1-70b", "llama-3.1-70b", false},
		{"Llama-3.1-70B-Instruct", "llama-3.1-70b", false},
		{"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", false},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", false},
		{"llama 3 70b", "llama-3-70b", false},
		{"Meta-Llama-3-8B", "llama-3-8b", false},
		{"llama 70b", "llama-3.1-70b", true},
		{"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b", false},
		{"llama2 13b", "llama-2-13b", false},
		{"mistral 7b", "mistral-7b-v0.1", true},
		{"Mistral-7B-v0.1", "mistral-7b-v0.1", false},
		{"mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3", false},
		{"mixtral 8x7b", "mixtral-8x7b", false},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b", false},
		{"qwen2.5 7b", "qwen2.5-7b", false},
		{"Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b", false},
		{"qwen 1.5b", "qwen2.5-1.5b", true},
		{"Qwen3-30B-A3B", "qwen3-30b-a3b", false},
		{"google/gemma-2-9b-it", "gemma-2-9b", false},
		{"gemma 7b", "gemma-7b", false},
		{"google/gemma-7b-it", "gemma-7b", false},
		{"gemma-2b-it", "gemma-2b", false},
		{"gemma 2 2b", "gemma-2-2b", false},
		{"gemma 3 27b", "gemma-3-27b", false},
		{"openai/gpt-oss-20b", "gpt-oss-20b", false},
		{"deepseek-ai/DeepSeek-V3", "deepseek-v3", false},
		{"gpt-2", "gpt2", false},
		{"bert-base-uncased", "bert-base-uncased", false},
		{"google-t5/t5-base", "t5-base", false},
		{"facebook/nllb-200-distilled-600M", "nllb-200-distilled-600m", false},
		// The models added for issue #14, as people paste or type them.
		{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout", false},
		{"llama 4 maverick", "llama-4-maverick", false},
		{"meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick", false},
		{"Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b", false},
		{"qwen3 14b", "qwen3-14b", false},
		{"Qwen/Qwen3-4B", "qwen3-4b", false},
		{"Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder-480b-a35b", false},
		{"qwen3 coder", "qwen3-coder-480b-a35b", true},
		{"Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3-next-80b-a3b", false},
		{"qwen3 next", "qwen3-next-80b-a3b", true},
		{"moonshotai/Kimi-K2-Instruct", "kimi-k2", false},
		{"kimi k2", "kimi-k2", false},
		{"zai-org/GLM-4.5", "glm-4.5", false},
		{"glm 4.5 air", "glm-4.5-air", false},
		{"deepseek-ai/DeepSeek-V3.1", "deepseek-v3.1", false},
		{"mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-3-24b", false},
		{"mistral small 24b", "mistral-small-3-24b", false},
		{"google/gemma-3-270m", "gemma-3-270m", false},
		{"google/gemma-3-1b-it", "gemma-3-1b", false},
		{"microsoft/Phi-4-mini-instruct", "phi-4-mini", false},
		{"Qwen/QwQ-32B", "qwq-32b", false},
		{"deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1-distill-qwen-32b", false},
		{"r1 distill llama 70b", "deepseek-r1-distill-llama-70b", false},
		{"Qwen/Qwen2-VL-2B-Instruct", "qwen2-vl-2b", false},
		{"llava-hf/llava-1.5-7b-hf", "llava-1.5-7b", false},
		{"microsoft/Phi-3-mini-4k-instruct", "phi-3-mini-4k", false},
		{"phi-4", "phi-4", false},
	}
	for _, tt := range tests {
		m, note, err := LookupModel(tt.in)
		if err != nil {
			t.Errorf("LookupModel(%q): %v", tt.in, err)
			continue
		}
		if m.ID != tt.want || (note != "") != tt.note {
			t.Errorf("LookupModel(%q) = %s, note %q; want %s, note %v", tt.in, m.ID, note, tt.want, tt.note)
		}
		if mm, ok := MatchModel(tt.in); !ok || mm.ID != tt.want {
			t.Errorf("MatchModel(%q) = %s, %v; want %s", tt.in, mm.ID, ok, tt.want)
		}
	}
}

// TestLookupSuggestions checks the error type, its wording and that the
// suggestions are the nearest ids, deterministically.
func TestLookupSuggestions(t *testing.T) {
	tests := []struct {
		kind, in string
		want     []string
	}{
		{"GPU", "4900", []string{"rtx-4090", "rtx-4080", "rtx-4070"}},
		{"GPU", "h1000", []string{"h100", "h100-nvl", "h200"}},
		{"GPU", "zzzzzzzz", nil},
		{"model", "lama 3.1 8b", []string{"llama-3.1-8b", "llama-3-8b"}},
		{"model", "mixtrall 8x7b", []string{"mixtral-8x7b"}},
		{"model", "", nil},
	}
	for _, tt := range tests {
		var err error
		if tt.kind == "GPU" {
			_, _, err = LookupGPU(tt.in)
		} else {
			_, _, err = LookupModel(tt.in)
		}
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Lookup %s %q: error %v, want *NotFoundError", tt.kind, tt.in, err)
		}
		if nf.Kind != tt.kind || nf.Input != tt.in {
			t.Errorf("NotFoundError = %+v", nf)
		}
		if strings.Join(nf.Suggestions, ",") != strings.Join(tt.want, ",") {
			t.Errorf("suggestions for %q = %v, want %v", tt.in, nf.Suggestions, tt.want)
		}
	}
	_, _, err := LookupGPU("4900")
	if got, want := err.Error(), `unknown GPU "4900" (did you mean rtx-4090, rtx-4080, rtx-4070?)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, _, err = LookupGPU("zzzzzzzz")
	if got, want := err.Error(), `unknown GPU "zzzzzzzz"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestMatchDoesNotAllocate guards the parser's hot path: exact lookups
// of n-grams, hits and misses, allocate nothing.
func TestMatchDoesNotAllocate(t *testing.T) {
	for _, words := range []string{"rtx 4090", "NVIDIA GeForce RTX 4090 24GB", "on two", "meta-llama/Llama-3.1-70B-Instruct", "lora"} {
		if n := testing.AllocsPerRun(100, func() {
			MatchGPU(words)
			MatchModel(words)
		}); n != 0 {
			t.Errorf("MatchGPU/MatchModel(%q) allocate %v times", words, n)
		}
	}
}

// TestCatalogCopies checks GPUs and Models hand out copies, so callers
// cannot change the catalog.
func TestCatalogCopies(t *testing.T) {
	GPUs()[0].ID = "changed"
	Models()[0].ID = "changed"
	if GPUs()[0].ID == "changed" || Models()[0].ID == "changed" {
		t.Error("catalog changed through a returned slice")
	}
}

func checkLookup[T any](t *testing.T, kind, input string, found T, note string, err error, id func(T) string, again func(string) (T, string, error), match func(string) (T, bool)) {
	m, ok := match(input)
	if err != nil {
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Kind != kind || nf.Input != input || len(nf.Suggestions) > 3 {
			t.Fatalf("Lookup %s %q: bad error %#v", kind, input, err)
		}
		if ok || note != "" {
			t.Fatalf("Match %q found %s (note %q) where Lookup did not", input, id(m), note)
		}
		for _, s := range nf.Suggestions {
			if _, _, err := again(s); err != nil {
				t.Fatalf("suggestion %q for %q does not look up: %v", s, input, err)
			}
		}
		return
	}
	if !ok || id(m) != id(found) {
		t.Fatalf("Match %q = %v, Lookup found %s", input, ok, id(found))
	}
	back, _, err := again(id(found))
	if err != nil || id(back) != id(found) {
		t.Fatalf("id %s of %q does not round-trip: %v", id(found), input, err)
	}
}

// FuzzLookupGPU: no panic; a hit round-trips through its id and agrees
// with MatchGPU; a miss is a *NotFoundError whose suggestions resolve.
func FuzzLookupGPU(f *testing.F) {
	for _, s := range []string{"4090", "a100", "RTX 4090 24GB", "h100 pcie", "m2 ultra", "4900", "", "nvidia", "gb", "24gb", "a100/80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, note, err := LookupGPU(s)
		checkLookup(t, "GPU", s, g, note, err, func(g GPU) string { return g.ID }, LookupGPU, MatchGPU)
	})
}

// FuzzLookupModel is FuzzLookupGPU for models.
func FuzzLookupModel(f *testing.F) {
	for _, s := range []string{"llama 3 70b", "meta-llama/Llama-3.1-70B-Instruct", "mistral 7b", "mixtrall", "", "/", "instruct", "gpt-2", "Qwen/Qwen2.5-7B-Instruct"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, note, err := LookupModel(s)
		checkLookup(t, "model", s, m, note, err, func(m Model) string { return m.ID }, LookupModel, MatchModel)
	})
}

func BenchmarkLookupModel(b *testing.B) {
	loadCatalog() // parse the embedded data outside the timings
	for _, in := range []string{"meta-llama/Llama-3.1-70B-Instruct", "mixtral 8x7b"} {
		b.Run(in, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := LookupModel(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("miss with suggestions", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := LookupModel("lama 3.1 8b"); err == nil {
				b.Fatal("found")
			}
		}
	})
}

func BenchmarkMatchGPU(b *testing.B) {
	for b.Loop() {
		MatchGPU("NVIDIA GeForce RTX 4090")
	}
}
