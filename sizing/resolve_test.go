package sizing

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestResolveRejects: impossible or contradictory questions get an
// *InputError whose problem names what is wrong (the "Bad input").
func TestResolveRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    Query
		want string // in the problem
	}{
		{"negative size", Query{Params: -7e9, Method: MethodFull, GPU: "h100"}, "negative"},
		{"negative gpus", Query{Model: "llama-3.1-8b", GPUs: -2, GPU: "h100"}, "negative"},
		{"no model", Query{Method: MethodLoRA, GPU: "h100"}, "no model"},
		{"unknown model", Query{Model: "llama-9-1b", Method: MethodLoRA, GPU: "h100"}, "did you mean"},
		{"unknown gpu", Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "rtx-4099"}, "did you mean"},
		{"rank with inference", Query{Model: "llama-3.1-8b", Method: MethodInference, LoRARank: 8, GPU: "h100"}, "LoRA rank"},
		{"optimizer with inference", Query{Model: "llama-3.1-8b", Method: MethodInference, Optimizer: OptimizerAdamW, GPU: "h100"}, "no optimizer"},
		{"zero with inference", Query{Model: "llama-3.1-8b", Method: MethodInference, ZeROStage: stagePtr(3), GPU: "h100"}, "ZeRO"},
		{"qlora on gguf", Query{Model: "llama-3.1-8b", Method: MethodQLoRA, Quant: QuantQ4_KM, GPU: "h100"}, "not a QLoRA base"},
		{"full on int4", Query{Model: "llama-3.1-8b", Method: MethodFull, Quant: QuantAWQ, GPU: "h100"}, "cannot be trained"},
		{"too long", Query{Model: "llama-2-7b", Method: MethodInference, SeqLen: 8192, GPU: "h100"}, "longer than"},
		{"zero stage 5", Query{Model: "llama-3.1-8b", Method: MethodFull, ZeROStage: stagePtr(5), GPU: "h100"}, "0 to 3"},
		{"offload at stage 0", Query{Model: "llama-3.1-8b", Method: MethodFull, ZeROStage: stagePtr(0), Offload: OffloadCPU, GPU: "h100"}, "stage of 1 to 3"},
		{"uneven nodes", Query{Model: "llama-3.1-8b", Method: MethodFull, GPUs: 9, Nodes: 2, GPU: "h100"}, "evenly"},
		{"too many per node", Query{Model: "llama-3.1-8b", Method: MethodFull, GPUs: 16, Nodes: 1, GPU: "h100"}, "at most 8"},
		{"fp8 training on A100", Query{Model: "llama-3.1-8b", Method: MethodFull, Precision: PrecisionFP8, GPU: "a100-80"}, "FP8"},
		{"int8 training", Query{Model: "llama-3.1-8b", Method: MethodFull, Precision: PrecisionINT8, GPU: "a100-80"}, "int8"},
		{"layout does not divide", Query{Model: "llama-3.1-70b", Method: MethodFull, GPUs: 12, GPU: "h100", TensorParallel: 8}, "does not divide"},
		{"more stages than layers", Query{Model: "llama-3.1-8b", Method: MethodFull, GPUs: 64, GPU: "h100", PipelineParallel: 64}, "at least one layer"},
		{"tp against heads", Query{Model: "llama-3.1-8b", Method: MethodFull, GPUs: 24, GPU: "h100", TensorParallel: 3}, "attention heads"},
		{"ep on a dense model", Query{Model: "llama-3.1-8b", Method: MethodFull, GPUs: 8, GPU: "h100", ExpertParallel: 8}, "mixture-of-experts"},
	} {
		_, _, err := Resolve(tc.q)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: err = %v, want *InputError", tc.name, err)
			continue
		}
		if !strings.Contains(ie.Problem, tc.want) {
			t.Errorf("%s: problem %q, want it to mention %q", tc.name, ie.Problem, tc.want)
		}
	}
}

// TestResolveDefaults: every default the issue lists is applied and said.
func TestResolveDefaults(t *testing.T) {
	r, as, err := Resolve(Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "4090"})
	if err != nil {
		t.Fatal(err)
	}
	want := Request{Model: "llama-3.1-8b", Params: 8_030_261_248, ActiveParams: 8_030_261_248, Method: MethodQLoRA,
		Optimizer: OptimizerAdamW, Precision: PrecisionBF16, GPU: "rtx-4090", GPUs: 1, Nodes: 1, Offload: OffloadNone,
		SeqLen: 2048, MicroBatch: 1, GradAccumSteps: 1, GlobalBatchTokens: 2048, GradCheckpointing: true, LoRARank: 16, Quant: QuantNF4DQ,
		TensorParallel: 1, PipelineParallel: 1, ContextParallel: 1, ExpertParallel: 1, Architecture: ArchDecoder}
	if r != want {
		t.Errorf("Resolve =\n%+v\nwant\n%+v", r, want)
	}
	for _, word := range []string{"bf16 mixed precision", "AdamW", "FlashAttention", "micro-batch 1", "sequence length 2048",
		"LoRA rank 16 on all linear layers", "NF4 with double quantisation", "gradient checkpointing on"} {
		if !anyContains(as, word) {
			t.Errorf("assumptions %q do not mention %q", as, word)
		}
	}
	// Inference defaults, and the sequence capped at the model's context.
	r, as, _ = Resolve(Query{Model: "gpt2", GPU: "t4"})
	if r.Method != MethodInference || r.SeqLen != 1024 || r.Precision != PrecisionFP16 || r.KVPrecision != PrecisionFP16 {
		t.Errorf("gpt2 on a T4 = %+v, want fp16 inference (no BF16 on a T4) at GPT-2's 1024-token context", r)
	}
	if !anyContains(as, "no method said: inference") {
		t.Errorf("assumptions %q do not say the method was assumed", as)
	}
	// Training words without a method mean a full fine-tune.
	if r, _, _ := Resolve(Query{Model: "gpt2", GPU: "t4", Tokens: 1e9}); r.Method != MethodFull {
		t.Errorf("a token budget without a method = %s, want full", r.Method)
	}
}

// TestResolveZeRO: on several GPUs an unsaid stage is the lowest that
// fits; ZeRO on one GPU is valid and the answer says what it does.
func TestResolveZeRO(t *testing.T) {
	r, as, _ := Resolve(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 8})
	if r.ZeROStage != 1 || !anyContains(as, "lowest stage that fits") {
		t.Errorf("8B full on 8 H100 = stage %d (%q), want stage 1, the lowest that fits 80 GB", r.ZeROStage, as)
	}
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "h100", ZeROStage: stagePtr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !anyContains(a.Warnings, "shards nothing") {
		t.Errorf("ZeRO-2 on one GPU: warnings %q, want a note that it changes nothing", a.Warnings)
	}
	// Plain "offload" is ZeRO-Offload (stage 2) where it fits, ZeRO-3 with
	// parameter offload (ZeRO-Infinity) where only that fits.
	a, _ = (&Estimator{}).Answer(Query{Model: "llama-3.2-3b", Method: MethodFull, GPU: "rtx-4090", Offload: OffloadCPU})
	if a.Request.ZeROStage != 2 || !anyContains(a.Warnings, "ZeRO-Offload") {
		t.Errorf("3B offload on one 4090: stage %d, warnings %q; want stage 2 and ZeRO-Offload named", a.Request.ZeROStage, a.Warnings)
	}
	a, _ = (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "rtx-4090", Offload: OffloadCPU})
	if a.Request.ZeROStage != 3 || !anyContains(a.Warnings, "ZeRO-Infinity") {
		t.Errorf("8B offload on one 4090: stage %d, warnings %q; want stage 3 and ZeRO-Infinity named", a.Request.ZeROStage, a.Warnings)
	}
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestReleasedFormat: inference defaults to the format a model ships in
// and says so; a precision asked for overrides it; training states the
// upcast it assumes.
func TestReleasedFormat(t *testing.T) {
	for _, tc := range []struct {
		q     Query
		quant Quant
		says  string
	}{
		{Query{Model: "gpt-oss-120b", GPU: "h100"}, QuantMXFP4, "gpt-oss 120B ships MXFP4: 60.8 GiB of weights (MoE experts in MXFP4"},
		{Query{Model: "deepseek-v3", GPU: "h200", GPUs: 8}, QuantFP8, "DeepSeek-V3 ships FP8: 626.8 GiB"},
		{Query{Model: "gpt-oss-120b", GPU: "h100", Precision: PrecisionBF16}, QuantNone, "ships MXFP4; sized in bf16 as asked"},
		{Query{Model: "gpt-oss-20b", GPU: "h100", Method: MethodLoRA}, QuantNone, "training assumes the weights upcast to bf16"},
		{Query{Model: "llama-3.1-8b", GPU: "h100", Precision: PrecisionFP8}, QuantFP8, ""},
		// FP8 training casts to FP8 for the matrix multiplies; nothing is
		// "upcast to fp8".
		{Query{Model: "deepseek-v3", GPU: "h100", GPUs: 32, Method: MethodLoRA, Precision: PrecisionFP8}, QuantNone, "the frozen base stays in its released FP8 blocks (not dequantised)"},
		{Query{Model: "deepseek-v3", GPU: "h100", GPUs: 256, Method: MethodFull, Precision: PrecisionFP8}, QuantNone, "keeps bf16 weights with an fp32 master copy and runs only the matrix multiplies in FP8, so the released checkpoint is dequantised to bf16 first"},
		{Query{Model: "gpt-oss-20b", GPU: "h100", Method: MethodLoRA, Precision: PrecisionFP8}, QuantNone, "gpt-oss 20B ships MXFP4; the frozen base is dequantised and stored again as FP8"},
		{Query{Model: "deepseek-v3", GPU: "h100", GPUs: 256, Method: MethodFull, Precision: PrecisionPureBF16}, QuantNone, "upcast to bf16"},
	} {
		r, as, err := Resolve(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if anyContains(as, "upcast to fp8") {
			t.Errorf("%+v: assumptions %q say \"upcast to fp8\"", tc.q, as)
		}
		if r.Quant != tc.quant || (tc.says != "" && !anyContains(as, tc.says)) {
			t.Errorf("%+v: quant %q, assumptions %q; want %q and %q", tc.q, r.Quant, as, tc.quant, tc.says)
		}
	}
	// FP8 weights on a card without FP8: weight-only, compute in bf16.
	r, _, _ := Resolve(Query{Model: "deepseek-v3", GPU: "a100-80", GPUs: 16})
	if r.Quant != QuantFP8 || r.Precision != PrecisionBF16 {
		t.Errorf("DeepSeek-V3 on A100: quant %q precision %q, want fp8 weights computed in bf16", r.Quant, r.Precision)
	}
}

// TestReleasedFormatFromConfig: NVIDIA ModelOpt checkpoints name their
// format in quant_algo (nvidia/Llama-3.1-8B-Instruct-FP4 and -FP8 on the
// Hub: quant_method "modelopt", quant_algo "NVFP4" / "FP8").
func TestReleasedFormatFromConfig(t *testing.T) {
	base := `{"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 4096, `
	for algo, want := range map[string]Quant{"NVFP4": QuantNVFP4, "FP8": QuantFP8} {
		m, err := ModelFromConfig([]byte(base+`"quantization_config": {"quant_method": "modelopt", "quant_algo": "`+algo+`"}}`), "x")
		if err != nil {
			t.Fatal(err)
		}
		if m.ReleasedFormat != want {
			t.Errorf("modelopt %s: released format %q, want %q", algo, m.ReleasedFormat, want)
		}
	}
}

// TestLongerContextTwin: a context longer than the model's is refused
// with the same-size model of its family that takes it, in the Try too;
// with none, the Try keeps the model at its own context. The Try is the
// whole question with only that changed: the cards, precision and load
// stay (lost the 4× A6000, fp16 and 10 users).
func TestLongerContextTwin(t *testing.T) {
	for q, want := range map[string]string{
		"llama-3-8b inference ctx 131072":                        "fit llama-3.1-8b inference seq 131072",
		"llama-2-7b inference ctx 8192":                          "fit llama-2-7b inference seq 4096",
		"llama-3-70b fp16 4xrtx-a6000 seq 32768 batch 10":        "fit llama-3.1-70b fp16 4xrtx-a6000 seq 32768 batch 10",
		"qwen3-32b inference bf16 rtx-pro-6000 seq 204800":       "fit qwen3-32b inference bf16 rtx-pro-6000 seq 131072",
		"llama-2-13b inference 2xa100-80 prompt 6000 output 500": "fit llama-2-13b inference 2xa100-80 seq 4096",
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		_, err = (&Estimator{}).Answer(p.Query)
		var in *InputError
		if !errors.As(err, &in) || in.Hint != want {
			t.Errorf("%q: error %v, want the Try %q", q, err, want)
		}
	}
}

// TestContextExtensionFineTune: fine-tuning past a model's context is
// how its context is extended, so it is sized at the length asked, said
// in the assumptions (refused Llama 3 8B QLoRA at 64k).
func TestContextExtensionFineTune(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3-8b", Method: MethodQLoRA, SeqLen: 65536, GPU: "a100-80", GPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.SeqLen != 65536 || !strings.Contains(strings.Join(a.Assumptions, "\n"), "context-extension fine-tune") {
		t.Errorf("seq %d, assumptions %q: want 65536 sized as a context extension", a.Request.SeqLen, a.Assumptions)
	}
}

// TestYaRNContext: the Qwen models whose model cards document YaRN rope
// scaling (factor 4, to 131,072 tokens) take a context past their
// config's 40,960 or 32,768, saying so; the others are still refused.
func TestYaRNContext(t *testing.T) {
	for q, yarn := range map[string]bool{
		"qwen3-32b inference rtx-pro-6000 seq 65536": true,
		"qwen2.5-72b awq 2xa100-80 seq 131072":       true,
		"qwen3-0.6b inference t4 seq 65536":          false,
		"qwen2.5-3b inference t4 seq 65536":          false,
		"qwen3-8b inference h100 seq 131073":         false,
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", q, err)
		}
		_, as, err := Resolve(p.Query)
		if !yarn {
			if err == nil {
				t.Errorf("%q: sized, want a context refusal", q)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v, want it sized with YaRN", q, err)
			continue
		}
		if !slices.ContainsFunc(as, func(a string) bool { return strings.Contains(a, "YaRN rope scaling, factor 4") }) {
			t.Errorf("%q: assumptions %q do not say YaRN", q, as)
		}
	}
}

// TestKVPerTokenSaid: an inference answer says its KV cache per token,
// the figure people ask for by name (Llama 3 8B: 32 layers × 8 KV heads
// × 128 × K and V × 2 bytes = 128 KiB; DeepSeek-V3's MLA latent: 61 ×
// (512 + 64) × 2 bytes = 69 KiB).
func TestKVPerTokenSaid(t *testing.T) {
	for q, want := range map[string]string{
		"llama-3-8b inference rtx-4090": "KV cache in bf16: 128 KiB per token",
		"deepseek-v3 inference 8xh200":  "KV cache in bf16: 69 KiB per token",
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil || !strings.Contains(strings.Join(a.Assumptions, "\n"), want) {
			t.Errorf("%q: %v, assumptions %q lack %q", q, err, a.Assumptions, want)
		}
	}
}
