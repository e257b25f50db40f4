package sizing

import (
	"math"
	"strings"
	"testing"
)

// The published figures the estimator is held to, by the classes of
// issue #13: released weight formats, GGUF files, MoE active parameters,
// ZeRO and offload, multi-node training time, decode speed across GPUs and
// on Apple silicon, long-context training memory. Each row names its
// source and the tolerance, with why that tolerance is fair. GB is 10^9
// bytes, GiB 2^30, as each source prints them.

const (
	gb  = 1e9
	gib = 1 << 30
)

// withinRel reports whether got is within tol (relative) of want.
func withinRel(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// TestReferenceWeights: checkpoint and file sizes as their publishers
// print them, against modelWeightBytes. Tolerances are tight (1-3 %): a
// file is weights plus a few MB of metadata, and the counts are exact.
func TestReferenceWeights(t *testing.T) {
	for _, tc := range []struct {
		source string
		model  string
		quant  Quant
		prec   Precision
		want   float64 // bytes
		tol    float64
	}{
		// OpenAI gpt-oss model card / issue #13: "gpt-oss-120b ships MXFP4:
		// 60.8 GiB of weights" (experts MXFP4, the rest bf16); 2 %.
		{"gpt-oss-120b MXFP4 checkpoint", "gpt-oss-120b", QuantMXFP4, PrecisionBF16, 60.8 * gib, 0.02},
		// sizing reference §6: gpt-oss-20b experts in MXFP4, ~12.8 GiB; 3 %.
		{"gpt-oss-20b MXFP4 checkpoint", "gpt-oss-20b", QuantMXFP4, PrecisionBF16, 12.8 * gib, 0.03},
		// deepseek-ai/DeepSeek-V3 on the Hub: 688 GB of FP8 safetensors for
		// 685B parameters including the 14B MTP module; fitbot counts the
		// 671B main model, so the file scaled by 671/685; 2 %.
		{"DeepSeek-V3 FP8 checkpoint", "deepseek-v3", QuantFP8, PrecisionFP8, 688 * gb * 671 / 685, 0.02},
		// DeepSeek-V3 README: converting to BF16 for inference doubles the
		// linears: ~1.34 TB for 671B; 1 %.
		{"DeepSeek-V3 in BF16", "deepseek-v3", QuantNone, PrecisionBF16, 2 * 671.03 * gb, 0.01},
		// llama.cpp tools/quantize README, meta-llama/Llama-3.1-8B table,
		// "size (GiB)" column; 1 % (the bits/weight come from the same table).
		{"Llama 3.1 8B Q2_K", "llama-3.1-8b", QuantQ2_K, PrecisionBF16, 2.95 * gib, 0.01},
		{"Llama 3.1 8B Q4_K_M", "llama-3.1-8b", QuantQ4_KM, PrecisionBF16, 4.58 * gib, 0.01},
		{"Llama 3.1 8B Q5_K_M", "llama-3.1-8b", QuantQ5_KM, PrecisionBF16, 5.33 * gib, 0.01},
		{"Llama 3.1 8B Q6_K", "llama-3.1-8b", QuantQ6_K, PrecisionBF16, 6.14 * gib, 0.01},
		{"Llama 3.1 8B Q8_0", "llama-3.1-8b", QuantQ8_0, PrecisionBF16, 7.95 * gib, 0.01},
		{"Llama 3.1 8B F16", "llama-3.1-8b", QuantNone, PrecisionBF16, 14.96 * gib, 0.01},
		// The same README's "Memory/Disk Requirements" table (Llama 3.1):
		// original fp32 size and Q4_K_M size in GB; 1 % (the 70B and 405B
		// files keep a different tensor mix than the 8B the bits come from).
		{"Llama 3.1 8B fp32", "llama-3.1-8b", QuantNone, PrecisionFP32, 32.1 * gb, 0.01},
		{"Llama 3.1 70B fp32", "llama-3.1-70b", QuantNone, PrecisionFP32, 280.9 * gb, 0.01},
		{"Llama 3.1 405B fp32", "llama-3.1-405b", QuantNone, PrecisionFP32, 1625.1 * gb, 0.01},
		{"Llama 3.1 8B Q4_K_M (GB)", "llama-3.1-8b", QuantQ4_KM, PrecisionBF16, 4.9 * gb, 0.01},
		{"Llama 3.1 70B Q4_K_M", "llama-3.1-70b", QuantQ4_KM, PrecisionBF16, 43.1 * gb, 0.01},
		{"Llama 3.1 405B Q4_K_M", "llama-3.1-405b", QuantQ4_KM, PrecisionBF16, 249.1 * gb, 0.01},
	} {
		s := shapeOf(modelOf(t, tc.model))
		if got := modelWeightBytes(&s, tc.quant, tc.prec); !withinRel(got, tc.want, tc.tol) {
			t.Errorf("%s: %.2f GiB, published %.2f GiB (±%.0f%%)", tc.source, got/gib, tc.want/gib, tc.tol*100)
		}
	}
}

// TestReferenceActiveParams: OpenAI's gpt-oss model card, 3.6B and 5.1B
// active of 21B and 117B; 2 % (the card rounds to 0.1B).
func TestReferenceActiveParams(t *testing.T) {
	for _, tc := range []struct {
		model         string
		total, active float64
	}{{"gpt-oss-20b", 21e9, 3.6e9}, {"gpt-oss-120b", 117e9, 5.1e9}} {
		total, active := modelOf(t, tc.model).ParamCount()
		if !withinRel(float64(total), tc.total, 0.02) || !withinRel(float64(active), tc.active, 0.02) {
			t.Errorf("%s: %d total, %d active; card says %.3g and %.2g", tc.model, total, active, tc.total, tc.active)
		}
	}
}

// TestReferenceVerdicts: what the makers and papers say runs on what. A
// verdict has no tolerance: it must agree.
func TestReferenceVerdicts(t *testing.T) {
	ckpt := true
	for _, tc := range []struct {
		source string
		q      Query
	}{
		// OpenAI: "gpt-oss-120b ... runs on a single 80 GB GPU".
		{"gpt-oss-120b on one H100", Query{Model: "gpt-oss-120b", GPU: "h100"}},
		// OpenAI: "gpt-oss-20b ... can run within 16 GB of memory".
		{"gpt-oss-20b on a 16 GB card", Query{Model: "gpt-oss-20b", GPU: "rtx-4080"}},
		// DeepSeek-V3 README / SGLang docs: FP8 inference on one node of 8 H200.
		{"DeepSeek-V3 on 8 H200", Query{Model: "deepseek-v3", Method: MethodInference, GPU: "h200", GPUs: 8}},
		// ZeRO-Offload paper (Ren et al. 2021, abstract): "train models with
		// over 13 billion parameters on a single GPU" (V100 32 GB, with
		// activation checkpointing).
		{"13B ZeRO-Offload on one V100", Query{Params: 13e9, Method: MethodFull, GPU: "v100-32", ZeROStage: stagePtr(2), Offload: OffloadCPU, GradCheckpointing: &ckpt}},
		// DeepSpeed ZeRO-Offload tutorial: a 10B-parameter GPT-2 on a single V100.
		{"10B ZeRO-Offload on one V100", Query{Params: 10e9, Method: MethodFull, GPU: "v100-32", Offload: OffloadCPU, GradCheckpointing: &ckpt, SeqLen: 1024}},
		// QLoRA paper: a 65B model fine-tunes on a single 48 GB GPU.
		{"65B QLoRA on 48 GB", Query{Params: 65e9, Method: MethodQLoRA, GPU: "rtx-a6000", SeqLen: 512}},
		// torchtune README: Llama 2 7B full fine-tune in pure bf16 with FSDP
		// and activation checkpointing on 4 × 24 GB cards.
		{"7B pure bf16 FSDP on 4 × 24 GB", Query{Model: "llama-2-7b", Method: MethodFull, Precision: PrecisionPureBF16, GPU: "rtx-4090", GPUs: 4, ZeROStage: stagePtr(3), GradCheckpointing: &ckpt}},
	} {
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		if !a.Fits {
			t.Errorf("%s: does not fit (%s of %s)", tc.source, gibString(a.PerGPU.TotalBytes), gibString(a.VRAMBytes))
		}
	}
}

// TestReferenceZeROPaper: ZeRO paper (Rajbhandari et al. 2020) Figure 1,
// Ψ = 7.5B on 64 GPUs: model states per GPU 120 GB (DDP), 31.4 GB (P_os),
// 16.6 GB (P_os+g), 1.9 GB (P_os+g+p); 1 % (the figure rounds to 0.1 GB).
func TestReferenceZeROPaper(t *testing.T) {
	s := bareShape(7.5e9)
	for stage, want := range []float64{120, 31.4, 16.6, 1.9} {
		r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 64, stage)
		m := trainingMemory(&r, &s)
		got := float64(m.WeightsBytes+m.GradientsBytes+m.OptimizerBytes) / gb
		if !withinRel(got, want, 0.015) {
			t.Errorf("ZeRO stage %d: %.2f GB of model states, paper %.1f GB", stage, got, want)
		}
	}
}

// TestReferenceTrainingTime: training throughput against published
// runs, with the run's own card, model, sequence, micro-batch, global
// batch, checkpointing, precision and layout. Sources and the rows' raw
// figures are in testdata/training/SOURCES.md.
//
// Benchmarks (a few hundred steps; tokens per second per GPU as printed)
// are compared with the answer's tokens per second. Whole runs (GPU-hours
// for a token budget) are compared with the answer's hours, which include
// the run's goodput. Tolerances:
//   - 5 % for the rows one coefficient is fitted to (llm-foundry's 13B
//     FULL_SHARD rows at 2k × 2, zero3SharedBytes);
//   - 25 % for benchmark rows of the tables the utilisation was fitted to
//     (llm-foundry, torchtitan): one fit across 1B-70B, two cards, 2k-64k;
//   - 35 % for the 32k-64k rows (the bound: attention kernels
//     have changed most between versions), and for NeMo's FP8 rows, whose
//     TransformerEngine/cuDNN kernels run faster than the fit;
//   - 30 % for whole runs, whose published GPU-hours fold in everything the
//     model does not know (Llama 2's 2023 stack runs 0.7× torchtitan's
//     later benchmark of the same model); 25 % for Llama 3.1 405B, the
//     issue's bound.
func TestReferenceTrainingTime(t *testing.T) {
	yes := true
	fp8 := PrecisionFP8
	for _, tc := range []struct {
		source string
		q      Query
		want   float64 // tokens per second per GPU
		tol    float64
	}{
		// llm-foundry benchmark README, "H100 80GB BF16" (8 GPUs, FSDP, the MPT
		// models; Llama 2 7B/13B have MPT-7B/13B's width and depth).
		{"llm-foundry 7B 64k ckpt H100", Query{Arch: longContext(t, "llama-2-7b"), GPU: "h100", GPUs: 8, SeqLen: 65536, MicroBatch: 1, GradAccumSteps: 2, GradCheckpointing: &yes}, 1956, 0.35},
		{"llm-foundry 7B 32k ckpt H100", Query{Arch: longContext(t, "llama-2-7b"), GPU: "h100", GPUs: 8, SeqLen: 32768, MicroBatch: 2, GradAccumSteps: 2, GradCheckpointing: &yes}, 3318, 0.35},
		{"llm-foundry 7B 8k ckpt H100", Query{Arch: longContext(t, "llama-2-7b"), GPU: "h100", GPUs: 8, SeqLen: 8192, MicroBatch: 8, GradAccumSteps: 2, GradCheckpointing: &yes}, 6935, 0.25},
		{"llm-foundry 7B 2k H100", Query{Model: "llama-2-7b", GPU: "h100", GPUs: 8, SeqLen: 2048, MicroBatch: 6, GradAccumSteps: 1}, 10643, 0.25},
		{"llm-foundry 13B 4k ckpt H100", Query{Model: "llama-2-13b", GPU: "h100", GPUs: 8, SeqLen: 4096, MicroBatch: 10, GradAccumSteps: 3, GradCheckpointing: &yes}, 4717, 0.25},
		{"llm-foundry 13B 32k ckpt H100", Query{Arch: longContext(t, "llama-2-13b"), GPU: "h100", GPUs: 8, SeqLen: 32768, MicroBatch: 1, GradAccumSteps: 3, GradCheckpointing: &yes}, 1976, 0.35},
		{"llm-foundry 70B 2k ckpt 128 H100", Query{Model: "llama-2-70b", GPU: "h100", GPUs: 128, SeqLen: 2048, MicroBatch: 8, GradAccumSteps: 1, GradCheckpointing: &yes}, 1058, 0.25},
		// The same table, FULL_SHARD at few tokens per micro-batch, where
		// ZeRO-3's collectives cost the compute most (zero3SharedBytes is
		// fitted to the 13B rows, held to 5 %: the compute alone put them at
		// 1.23): 13B at 2k × 2 on 8-64 GPUs, flat; 70B at 2k × 2 with
		// checkpointing on 32 (882, against 1,039 at 2k × 8 on 64).
		{"llm-foundry 13B 2k mb2 8 H100", Query{Model: "llama-2-13b", GPU: "h100", GPUs: 8, SeqLen: 2048, MicroBatch: 2, ZeROStage: stagePtr(3)}, 4792, 0.05},
		{"llm-foundry 13B 2k mb2 16 H100", Query{Model: "llama-2-13b", GPU: "h100", GPUs: 16, SeqLen: 2048, MicroBatch: 2, ZeROStage: stagePtr(3)}, 4767, 0.05},
		{"llm-foundry 13B 2k mb2 32 H100", Query{Model: "llama-2-13b", GPU: "h100", GPUs: 32, SeqLen: 2048, MicroBatch: 2, ZeROStage: stagePtr(3)}, 4811, 0.05},
		{"llm-foundry 13B 2k mb2 64 H100", Query{Model: "llama-2-13b", GPU: "h100", GPUs: 64, SeqLen: 2048, MicroBatch: 2, ZeROStage: stagePtr(3)}, 4800, 0.05},
		{"llm-foundry 70B 2k mb2 ckpt 32 H100", Query{Model: "llama-2-70b", GPU: "h100", GPUs: 32, SeqLen: 2048, MicroBatch: 2, GradAccumSteps: 16, GradCheckpointing: &yes, ZeROStage: stagePtr(3)}, 882, 0.25},
		// The same README, "A100 80GB with 1600 Gbps node-node interconnect".
		{"llm-foundry 7B 64k ckpt A100", Query{Arch: longContext(t, "llama-2-7b"), GPU: "a100-80", GPUs: 8, SeqLen: 65536, MicroBatch: 1, GradAccumSteps: 2, GradCheckpointing: &yes}, 1013, 0.35},
		{"llm-foundry 7B 2k A100", Query{Model: "llama-2-7b", GPU: "a100-80", GPUs: 8, SeqLen: 2048, MicroBatch: 6, GradAccumSteps: 2}, 4641, 0.25},
		{"llm-foundry 13B 4k ckpt A100", Query{Model: "llama-2-13b", GPU: "a100-80", GPUs: 8, SeqLen: 4096, MicroBatch: 10, GradAccumSteps: 3, GradCheckpointing: &yes}, 2060, 0.25},
		{"llm-foundry 70B 2k ckpt 64 A100", Query{Model: "llama-2-70b", GPU: "a100-80", GPUs: 64, SeqLen: 2048, MicroBatch: 8, GradAccumSteps: 4, GradCheckpointing: &yes}, 410, 0.25},
		{"llm-foundry 70B 2k mb2 ckpt 32 A100", Query{Model: "llama-2-70b", GPU: "a100-80", GPUs: 32, SeqLen: 2048, MicroBatch: 2, GradAccumSteps: 16, GradCheckpointing: &yes, ZeROStage: stagePtr(3)}, 373, 0.25},
		// torchtitan docs/performance.md (2024): FSDP2 on 64 A100 80GB.
		{"torchtitan Llama 3 8B 64 A100", Query{Model: "llama-3.1-8b", GPU: "a100-80", GPUs: 64, SeqLen: 8192, MicroBatch: 1}, 2904, 0.25},
		{"torchtitan Llama 3 70B 64 A100 full AC", Query{Model: "llama-3.1-70b", GPU: "a100-80", GPUs: 64, SeqLen: 8192, MicroBatch: 1, GradCheckpointing: &yes}, 331, 0.25},
		{"torchtitan Llama 2 13B 64 A100", Query{Model: "llama-2-13b", GPU: "a100-80", GPUs: 64, SeqLen: 4096, MicroBatch: 2}, 2162, 0.25},
		{"torchtitan Llama 2 70B 64 A100 full AC", Query{Model: "llama-2-70b", GPU: "a100-80", GPUs: 64, SeqLen: 4096, MicroBatch: 2, GradCheckpointing: &yes}, 353, 0.25},
		// torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Table 1 (500 W H100s).
		{"torchtitan Llama 3.1 8B 8 H100", Query{Model: "llama-3.1-8b", GPU: "h100", GPUs: 8, SeqLen: 8192, MicroBatch: 2}, 5762, 0.25},
		// The same page, Table 4: Llama 3.1 70B on 256 H100, FSDP 32 × TP 8,
		// Float8, full AC, local batch 16, global batch 512.
		{"torchtitan Llama 3.1 70B FP8 256 H100 TP8", Query{Model: "llama-3.1-70b", GPU: "h100", GPUs: 256, SeqLen: 8192, MicroBatch: 16, GlobalBatchTokens: 512 * 8192, Precision: fp8, TensorParallel: 8, ZeROStage: stagePtr(3), GradCheckpointing: &yes}, 829, 0.25},
		// NeMo performance_summary.md (24.07, FP8, DGX-H100), its layouts.
		{"NeMo Llama 2 7B FP8 8 H100", Query{Model: "llama-2-7b", GPU: "h100", GPUs: 8, SeqLen: 4096, MicroBatch: 1, GlobalBatchTokens: 128 * 4096, Precision: fp8}, 16847, 0.35},
		{"NeMo Llama 2 70B FP8 64 H100 TP4 PP4", Query{Model: "llama-2-70b", GPU: "h100", GPUs: 64, SeqLen: 4096, MicroBatch: 1, GlobalBatchTokens: 128 * 4096, Precision: fp8, TensorParallel: 4, PipelineParallel: 4}, 1707, 0.35},
		{"NeMo Llama 3 8B FP8 8 H100 CP2", Query{Model: "llama-3.1-8b", GPU: "h100", GPUs: 8, SeqLen: 8192, MicroBatch: 1, GlobalBatchTokens: 128 * 8192, Precision: fp8, ContextParallel: 2}, 12036, 0.35},
		{"NeMo Llama 3 70B FP8 64 H100 TP4 PP4 CP2", Query{Model: "llama-3.1-70b", GPU: "h100", GPUs: 64, SeqLen: 8192, MicroBatch: 1, GlobalBatchTokens: 128 * 8192, Precision: fp8, TensorParallel: 4, PipelineParallel: 4, ContextParallel: 2}, 1533, 0.35},
		// The same table: GPT3-175B on 512 H100, TP 4 / PP 8, micro-batch 2,
		// global batch 2048 × 2k (a bare 175B stands in for GPT-3's shape).
		{"NeMo GPT-3 175B FP8 512 H100 TP4 PP8", Query{Params: 175e9, GPU: "h100", GPUs: 512, SeqLen: 2048, MicroBatch: 2, GlobalBatchTokens: 2048 * 2048, Precision: fp8, TensorParallel: 4, PipelineParallel: 8}, 782, 0.35},
	} {
		tc.q.Method = MethodFull
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		got := *a.Throughput.TokensPerSecond / float64(a.Request.GPUs)
		t.Logf("%s: %.0f vs %.0f (%.2f)", tc.source, got, tc.want, got/tc.want)
		if !withinRel(got, tc.want, tc.tol) {
			t.Errorf("%s: %.0f tokens/s per GPU (MFU %.1f%%), published %.0f (±%.0f%%)", tc.source, got, *a.Throughput.MFU*100, tc.want, tc.tol*100)
		}
	}
}

// TestReferenceRunHours: whole published runs, GPU-hours for a token
// budget, against the answer's hours × GPUs, each within 25 % (issue #40:
// a run's days for a named model land within 25 % of its report). A
// production run (full training of ProductionTokens or more) is timed at
// ProductionGoodput of the benchmark-fitted speed; DeepSeek-V3's figure is
// a projection (180K H800 GPU-hours per trillion tokens × 14.8T) and is
// asked as one. testdata/training/SOURCES.md has the rows before and after.
func TestReferenceRunHours(t *testing.T) {
	fp8 := PrecisionFP8
	for _, tc := range []struct {
		source   string
		q        Query
		gpuHours float64
	}{
		// Llama 2 paper, Table 2: 184,320 / 368,640 / 1,720,320 A100-80GB
		// GPU-hours for 2T tokens; 4k context, 4M-token batches (§2.2).
		{"Llama 2 7B", Query{Model: "llama-2-7b", GPU: "a100-80", GPUs: 2048, SeqLen: 4096, GlobalBatchTokens: 4 << 20, Tokens: 2e12}, 184320},
		{"Llama 2 13B", Query{Model: "llama-2-13b", GPU: "a100-80", GPUs: 2048, SeqLen: 4096, GlobalBatchTokens: 4 << 20, Tokens: 2e12}, 368640},
		{"Llama 2 70B", Query{Model: "llama-2-70b", GPU: "a100-80", GPUs: 2048, SeqLen: 4096, GlobalBatchTokens: 4 << 20, Tokens: 2e12}, 1720320},
		// MosaicML, "Introducing MPT-7B": 1T tokens in 9.5 days on 440
		// A100-40GB, sequence 2048, global batch 1760 sequences (the post
		// rounds to half days and counts four hardware failures and their
		// restarts).
		{"MPT-7B", Query{Params: 6.7e9, GPU: "a100-40", GPUs: 440, SeqLen: 2048, MicroBatch: 4, ZeROStage: stagePtr(3), Tokens: 1e12}, 9.5 * 24 * 440},
		// tiiuae/falcon-7b model card: 1,500B tokens on 384 A100 40GB, PP 2
		// × DP 192 with ZeRO, "took about two weeks".
		{"Falcon-7B", Query{Model: "falcon-7b", GPU: "a100-40", GPUs: 384, SeqLen: 2048, PipelineParallel: 2, Tokens: 1.5e12}, 14 * 24 * 384},
		// tiiuae/falcon-40b model card: 1,000B tokens on 384 A100 40GB, TP 8
		// × PP 4 × DP 12 with ZeRO, "took two months".
		{"Falcon-40B", Query{Model: "falcon-40b", GPU: "a100-40", GPUs: 384, SeqLen: 2048, TensorParallel: 8, PipelineParallel: 4, Tokens: 1e12}, 60 * 24 * 384},
		// Hugging Face, "Spread Your Wings: Falcon 180B is here": 3.5T
		// tokens on up to 4,096 GPUs, "~7,000,000 GPU hours"; the model
		// card: A100 40GB, TP 8 × PP 8 × DP 64.
		{"Falcon-180B", Query{Model: "falcon-180b", GPU: "a100-40", GPUs: 4096, SeqLen: 2048, TensorParallel: 8, PipelineParallel: 8, Tokens: 3.5e12}, 7e6},
		// Llama 3.1 model card: 405B trained with 30.84M H100-80GB GPU-hours
		// on ~15T tokens; 16,384 GPUs, 8k sequences, 16M-token batches,
		// TP 8 / PP 16 (Llama 3 paper §3.3.2, Table 4); layout searched.
		{"Llama 3.1 405B", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 16384, SeqLen: 8192, GlobalBatchTokens: 16 << 20, Tokens: 15e12}, 30.84e6},
		{"Llama 3.1 405B, Meta's TP 8 × PP 16", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 16384, SeqLen: 8192, GlobalBatchTokens: 16 << 20, Tokens: 15e12, TensorParallel: 8, PipelineParallel: 16, ContextParallel: 2}, 30.84e6},
		// DeepSeek-V3 technical report, Table 1: pre-training 2,664K H800
		// GPU-hours for 14.8T tokens on 2,048 GPUs in FP8, 4k sequences,
		// batch 15,360 sequences, PP 16, EP 64 (§3.2, §4.2); "each trillion
		// tokens requires only 180K H800 GPU hours": a projection.
		{"DeepSeek-V3", Query{Model: "deepseek-v3", GPU: "h800", GPUs: 2048, SeqLen: 4096, GlobalBatchTokens: 15360 * 4096, Precision: fp8, PipelineParallel: 16, ExpertParallel: 64, Tokens: 14.8e12, Projection: true}, 2.664e6},
	} {
		tc.q.Method = MethodFull
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		got := *a.Throughput.Hours * float64(a.Request.GPUs)
		t.Logf("%s: %.3g vs %.3g (%.2f) %s, goodput %.2f (%s), %.1f days", tc.source, got, tc.gpuHours, got/tc.gpuHours, layoutName(&a.Request), *a.Throughput.Goodput, a.Throughput.GoodputBasis, *a.Throughput.Hours/24)
		if !withinRel(got, tc.gpuHours, 0.25) {
			t.Errorf("%s: %.3g GPU-hours (%s, MFU %.1f%%), published %.3g (±25%%)", tc.source, got, layoutName(&a.Request), *a.Throughput.MFU*100, tc.gpuHours)
		}
	}
}

// TestReferenceLayoutMemory: torchtitan's measured peak memory
// (benchmarks/llama3_h100_202412_torchtitan.md, Table 4): Llama 3.1 70B on
// 256 H100 as FSDP 32 × TP 8, Float8, full AC, local batch 16 at 8k: 71.9
// GiB (fitbot 66.7, of which FSDP's gathered layers 0.6: 0.93). 15 %: the
// peak includes allocator caching, which fitbot does not count.
func TestReferenceLayoutMemory(t *testing.T) {
	yes := true
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-70b", Method: MethodFull, GPU: "h100", GPUs: 256, SeqLen: 8192, MicroBatch: 16,
		Precision: PrecisionFP8, TensorParallel: 8, ZeROStage: stagePtr(3), GradCheckpointing: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(a.PerGPU.TotalBytes); !withinRel(got, 71.9*gib, 0.15) {
		t.Errorf("70B FSDP 32 × TP 8: %.1f GiB per GPU, torchtitan measured 71.9 GiB (±15%%)", got/gib)
	}
}

// TestReferenceMegatronMFU: the Megatron-LM README's strong scaling of
// GPT-3 175B (a bare 175B here) at 1,152 sequences of 2k per step from 96
// to 4,608 H100: MFU 47 % falling to 42 % as communication is exposed.
// The layouts are in a figure fitbot does not read, so the search picks
// its own; 15 %.
func TestReferenceMegatronMFU(t *testing.T) {
	for _, tc := range []struct {
		gpus int
		want float64
	}{{96, 0.47}, {4608, 0.42}} {
		a, err := (&Estimator{}).Answer(Query{Params: 175e9, Method: MethodFull, GPU: "h100", GPUs: tc.gpus, SeqLen: 2048, GlobalBatchTokens: 1152 * 2048})
		if err != nil {
			t.Fatal(err)
		}
		if got := *a.Throughput.MFU; !withinRel(got, tc.want, 0.15) {
			t.Errorf("175B on %d H100 (%s): MFU %.1f%%, Megatron-LM reports %.0f%% (±15%%)", tc.gpus, layoutName(&a.Request), got*100, tc.want*100)
		}
	}
}

// TestReferenceLayoutVerdicts: what fits under which layout, as the
// sources ran it.
func TestReferenceLayoutVerdicts(t *testing.T) {
	for _, tc := range []struct {
		source string
		q      Query
		fits   bool
	}{
		// Llama 3 paper §3.3.2: 405B on 16,384 H100 80GB with TP 8, PP 16
		// (CP for long context); torchtitan's 405B preset
		// (train_configs/llama3_405b.toml, "a preset for 128 H100 GPUs"): FSDP
		// + TP 8, Float8, full AC, local batch 2, 8k, which trains (64.7 GiB).
		// FSDP alone is not run for 405B anywhere published (torchtitan's
		// 512-GPU rows are 3D): practice says it runs out of memory, on 128
		// GPUs (model states and checkpointed activations alone are over) and
		// on 512 with Float8 and local batch 1, where the three gathered
		// blocks (gatheredLayerBytes, 17.8 GiB for 405B) take 67.4 GiB to 85.2.
		{"405B TP 8 × PP 16 × CP 2 on 16,384 H100", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 16384, SeqLen: 8192, TensorParallel: 8, PipelineParallel: 16, ContextParallel: 2}, true},
		{"405B FSDP + TP 8 on 128 H100, full AC", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 128, SeqLen: 8192, MicroBatch: 2, ZeROStage: stagePtr(3), GradCheckpointing: boolPtr(true), TensorParallel: 8}, true},
		{"405B FSDP alone on 128 H100, full AC", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 128, SeqLen: 8192, MicroBatch: 2, ZeROStage: stagePtr(3), GradCheckpointing: boolPtr(true)}, false},
		{"405B FSDP alone on 512 H100, Float8, full AC, local batch 1", Query{Model: "llama-3.1-405b", GPU: "h100", GPUs: 512, SeqLen: 8192, MicroBatch: 1, Precision: PrecisionFP8, ZeROStage: stagePtr(3), GradCheckpointing: boolPtr(true)}, false},
	} {
		tc.q.Method = MethodFull
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		if a.Fits != tc.fits {
			t.Errorf("%s: fits = %v (%s of %s), the source says %v", tc.source, a.Fits, gibString(a.PerGPU.TotalBytes), gibString(a.VRAMBytes), tc.fits)
		}
	}
}

func boolPtr(b bool) *bool { return &b }

// longContext is a catalog model allowed llm-foundry's 64k sequences (MPT
// uses ALiBi and trains at any length).
func longContext(t *testing.T, id string) *Model {
	m := modelOf(t, id)
	m.MaxContext = 1 << 17
	return &m
}

// TestReferenceDecode: batch-1 token generation.
//   - Apple silicon: llama.cpp discussion #4167 ("Performance of llama.cpp
//     on Apple Silicon M-series"), LLaMA 7B, tg128, F16 / Q8_0 / Q4_0 on
//     the 40-core M3 Max, 40-core M4 Max and 76-core M2 Ultra; 25 %, for
//     one bandwidth share and one per-layer floor across three chips and
//     three formats.
//   - DeepSeek-R1-0528 FP8 on 16 H100 (two machines, SGLang + InfiniBand,
//     --tp 16): 43.2 tokens/s at concurrency 1 (tenstorrent/
//     tt-inference-server#356, ISL 128 / OSL 128). The cross-machine
//     collective latency is fitted to this row, so it only guards the
//     model's shape; 25 %.
//   - DeepSeek-R1-0528 FP8 on 8 H200 (SGLang v0.5.7, TP 8, ISL 1024 / OSL
//     1024), concurrency 8: mean TPOT 12.8 ms, 78 tokens/s per request
//     (SemiAnalysisAI/InferenceX#870); an independent row for the
//     within-machine floor and the experts a batch visits; 30 %.
func TestReferenceDecode(t *testing.T) {
	for _, tc := range []struct {
		source string
		q      Query
		want   float64
		tol    float64
	}{
		{"M2 Ultra F16", Query{Model: "llama-2-7b", GPU: "m2-ultra-192", Precision: PrecisionFP16, SeqLen: 128}, 41.02, 0.25},
		{"M2 Ultra Q8_0", Query{Model: "llama-2-7b", GPU: "m2-ultra-192", Quant: QuantQ8_0, SeqLen: 128}, 66.64, 0.25},
		{"M2 Ultra Q4_0", Query{Model: "llama-2-7b", GPU: "m2-ultra-192", Quant: QuantQ4_0, SeqLen: 128}, 94.27, 0.25},
		{"M3 Max F16", Query{Model: "llama-2-7b", GPU: "m3-max-128", Precision: PrecisionFP16, SeqLen: 128}, 25.09, 0.25},
		{"M3 Max Q8_0", Query{Model: "llama-2-7b", GPU: "m3-max-128", Quant: QuantQ8_0, SeqLen: 128}, 42.75, 0.25},
		{"M3 Max Q4_0", Query{Model: "llama-2-7b", GPU: "m3-max-128", Quant: QuantQ4_0, SeqLen: 128}, 66.31, 0.25},
		{"M4 Max F16", Query{Model: "llama-2-7b", GPU: "m4-max-128", Precision: PrecisionFP16, SeqLen: 128}, 31.64, 0.25},
		{"M4 Max Q8_0", Query{Model: "llama-2-7b", GPU: "m4-max-128", Quant: QuantQ8_0, SeqLen: 128}, 54.05, 0.25},
		{"M4 Max Q4_0", Query{Model: "llama-2-7b", GPU: "m4-max-128", Quant: QuantQ4_0, SeqLen: 128}, 83.06, 0.25},
		{"DeepSeek-R1 FP8 on 16 H100", Query{Model: "deepseek-v3", GPU: "h100", GPUs: 16, SeqLen: 256}, 43.2, 0.25},
		{"DeepSeek-R1 FP8 on 8 H200, 8 requests (per request)", Query{Model: "deepseek-v3", GPU: "h200", GPUs: 8, SeqLen: 1536, MicroBatch: 8}, 1000 / 12.8, 0.30},
	} {
		tc.q.Method = MethodInference
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		// Throughput is over all concurrent requests; the sources give one
		// request's rate.
		if got := *a.Throughput.TokensPerSecond / float64(a.Request.MicroBatch); !withinRel(got, tc.want, tc.tol) {
			t.Errorf("%s: %.1f tokens/s, measured %.1f (±%.0f%%)", tc.source, got, tc.want, tc.tol*100)
		}
	}
}

// TestReferenceLongContext: Unsloth's "Llama 3.1 context lengths" table
// (July 2024): the longest QLoRA sequence (rank 32 on all linear layers,
// batch 1, gradient checkpointing) for Llama 3.1 8B under Hugging Face +
// FlashAttention-2, by card memory. 15 %: the cards behind each memory
// size are not named, and GB vs GiB is not said; the 16 GB row gets 30 %,
// where the fixed terms (CUDA context, workspace) are a third of the card.
func TestReferenceLongContext(t *testing.T) {
	e := &Estimator{}
	for _, tc := range []struct {
		gpu  string
		want float64
		tol  float64
	}{
		{"rtx-4080", 2551, 0.30}, {"rtx-4090", 5789, 0.15}, {"a100-40", 12264, 0.15},
		{"rtx-a6000", 15502, 0.15}, {"a100-80", 28454, 0.15},
	} {
		ans, err := e.MaxContext(Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: tc.gpu, LoRARank: 32})
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(ans.MaxContext.MaxTokens); !withinRel(got, tc.want, tc.tol) {
			t.Errorf("%s: longest QLoRA sequence %.0f tokens, Unsloth measured %.0f for HF + FA2 (±%.0f%%)", tc.gpu, got, tc.want, tc.tol*100)
		}
	}
}

// TestReferenceUnslothContext: Unsloth's "Llama 3.3 (70B) max. context
// length" table (unsloth.ai/blog/llama3-3, December 2024): QLoRA rank 32
// on all linear layers, batch 1, with Unsloth's offloaded gradient
// checkpointing and Apple's Cut Cross-Entropy: 89,389 tokens on 80 GB,
// 12,106 on 48 GB (Llama 3.3 70B has Llama 3.1 70B's architecture). 15 %
// on 80 GB; 30 % on 48 GB, where the 40 GB base leaves a small margin that
// the fixed terms decide.
func TestReferenceUnslothContext(t *testing.T) {
	on := true
	for _, tc := range []struct {
		gpu  string
		want float64
		tol  float64
	}{{"a100-80", 89389, 0.15}, {"rtx-a6000", 12106, 0.30}} {
		ans, err := (&Estimator{}).MaxContext(Query{Model: "llama-3.1-70b", Method: MethodQLoRA, GPU: tc.gpu, LoRARank: 32,
			OffloadActivations: &on, FusedLoss: &on})
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(ans.MaxContext.MaxTokens); !withinRel(got, tc.want, tc.tol) {
			t.Errorf("%s: longest Unsloth QLoRA sequence %.0f tokens, Unsloth measured %.0f (±%.0f%%)", tc.gpu, got, tc.want, tc.tol*100)
		}
	}
}

// TestReferenceZeRO3OffloadResidency: PEFT's README table, "PEFT-LoRA
// DeepSpeed with CPU Offloading", bigscience/bloomz-7b1 on one A100 80GB:
// 18.1GB of GPU memory (peft examples/causal_language_modeling/
// peft_lora_clm_accelerate_ds_zero3_offload.py: LoRA r 8, batch 8, 64
// tokens; its accelerate config runs ZeRO-3 with mixed_precision 'no', so
// fp32). What DeepSpeed keeps resident (live parameters, the prefetch
// bucket, the 250k × 4k embedding gathered whole) decides it; before issue
// #24 fitbot said 6.6 GB. 20 %: the README does not say GB or GiB, and
// bloomz's config is written out here (BLOOM: ALiBi, tied embeddings,
// biases, 4h GELU MLP).
func TestReferenceZeRO3OffloadResidency(t *testing.T) {
	m := Model{ID: "bloomz-7b1", Name: "BLOOMZ 7B1", Family: "bloom", Kind: KindDecoder, Layers: 30, Hidden: 4096, Heads: 32,
		KVHeads: 32, HeadDim: 128, Intermediate: 16384, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2, Vocab: 250880,
		TiedEmbeddings: true, MaxContext: 2048, QKVBias: true, OutBias: true, MLPBias: true}
	if total, _ := m.ParamCount(); !withinRel(float64(total), 7.069e9, 0.001) {
		t.Fatalf("bloomz-7b1 written out as %d parameters, the model has 7.069B", total)
	}
	a, err := (&Estimator{}).Answer(Query{Arch: &m, Method: MethodLoRA, LoRARank: 8, GPU: "a100-80", GPUs: 1,
		ZeROStage: stagePtr(3), Offload: OffloadCPU, MicroBatch: 8, SeqLen: 64, Precision: PrecisionFP32})
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(a.PerGPU.TotalBytes); !withinRel(got, 18.1e9, 0.20) {
		t.Errorf("bloomz-7b1 LoRA under ZeRO-3 CPU offload: %.1f GB per GPU, PEFT measured 18.1GB (±20%%)", got/1e9)
	}
}

// TestReferenceQLoRAMemory: LitGPT's resource tables
// (Lightning-AI/litgpt tutorials/resource-tables.md, commit 8641822,
// A100-SXM4-40GB, bf16-true, finetune/lora.py: LoRA r 8, micro-batch 1,
// no checkpointing, Alpaca's longest example 1,304 tokens for Llama 2,
// 1,079 for Falcon). Its "Max GPU RAM" is torch.cuda.max_memory_allocated,
// which does not see the CUDA context, so fitbot's figure is compared
// without its overhead term. LoRA in bf16 is the control: QLoRA's rows
// held fitbot 18 % low until its working memory was a term (#40). 8 %:
// fitbot adapts every linear where LitGPT adapted q and v, and sizes the
// plain loss where LitGPT chunks it.
func TestReferenceQLoRAMemory(t *testing.T) {
	no := false
	for _, tc := range []struct {
		source string
		q      Query
		want   float64 // GB
	}{
		{"Llama 2 7B LoRA bf16", Query{Model: "llama-2-7b", Method: MethodLoRA, Precision: PrecisionPureBF16}, 21.30},
		{"Llama 2 7B QLoRA nf4-dq", Query{Model: "llama-2-7b", Method: MethodQLoRA}, 13.84},
		{"Llama 2 13B QLoRA nf4-dq", Query{Model: "llama-2-13b", Method: MethodQLoRA}, 22.55},
		{"Llama 2 7B QLoRA nf4", Query{Model: "llama-2-7b", Method: MethodQLoRA, Quant: QuantNF4}, 14.14},
		{"Llama 2 13B QLoRA nf4", Query{Model: "llama-2-13b", Method: MethodQLoRA, Quant: QuantNF4}, 23.14},
	} {
		tc.q.GPU, tc.q.LoRARank, tc.q.SeqLen, tc.q.MicroBatch, tc.q.GradCheckpointing = "a100-40", 8, 1304, 1, &no
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		got := float64(a.PerGPU.TotalBytes-a.PerGPU.OverheadBytes) / gb
		t.Logf("%s: %.2f GB vs %.2f (%.2f), QLoRA working %.2f GB", tc.source, got, tc.want, got/tc.want, float64(a.PerGPU.QLoRAWorkBytes)/gb)
		if !withinRel(got, tc.want, 0.08) {
			t.Errorf("%s: %.2f GB allocated, LitGPT measured %.2f GB (±8%%)", tc.source, got, tc.want)
		}
	}
	// The same table: Falcon 40B QLoRA (nf4 and nf4-dq) ran out of memory
	// on the 40 GB card.
	a, err := (&Estimator{}).Answer(Query{Model: "falcon-40b", Method: MethodQLoRA, GPU: "a100-40", LoRARank: 8, SeqLen: 1079, MicroBatch: 1, GradCheckpointing: &no})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits {
		t.Errorf("Falcon 40B QLoRA on A100 40GB fits (%s of %s); LitGPT ran out of memory", gibString(a.PerGPU.TotalBytes), gibString(a.VRAMBytes))
	}
}

// TestReferenceSDXLMemory: diffusers' "Exploring simple optimizations for
// SDXL" (huggingface/blog simple_sdxl_optimizations.md): stable-diffusion-
// xl-base-1.0 in fp16 with SDPA on an A100 40GB, 4 images of 1024px per
// prompt, peak GB as torch reports it (allocated tensors: compared without
// fitbot's CUDA-context overhead). SDXL's VAE decodes in fp32
// (force_upcast), and model CPU offload leaves that peak: 20.21 GB, where
// fitbot said 7.1 before issue #40. With VAE slicing one image is
// decoded at a time and the UNet's step over 8 latents (CFG) is the
// peak: 15.40 GB, where fitbot said 11.4 (one image's decode) before its UNet step was held to
// the measured one (scoreCopies). 15 %.
func TestReferenceSDXLMemory(t *testing.T) {
	for _, tc := range []struct {
		source string
		q      Query
		want   float64 // GB
	}{
		{"fp16 + SDPA, 4 images", Query{}, 21.72},
		{"model CPU offload, 4 images", Query{Offload: OffloadCPU}, 20.21},
		{"VAE slicing, 4 images", Query{VAESlicing: true}, 15.40},
	} {
		tc.q.Model, tc.q.Method, tc.q.GPU, tc.q.MicroBatch, tc.q.Resolution = "sdxl", MethodInference, "a100-40", 4, 1024
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		got := float64(a.PerGPU.TotalBytes-a.PerGPU.OverheadBytes) / gb
		t.Logf("%s: %.2f GB vs %.2f (%.2f)", tc.source, got, tc.want, got/tc.want)
		if !withinRel(got, tc.want, 0.15) {
			t.Errorf("SDXL %s: %.2f GB, diffusers measured %.2f GB (±15%%)", tc.source, got, tc.want)
		}
	}
	// The same measurement on a 12 GB card: 20 GB with offload does not fit.
	a, err := (&Estimator{}).Answer(Query{Model: "sdxl", Method: MethodInference, GPU: "rtx-3060", MicroBatch: 4, Resolution: 1024, Offload: OffloadCPU})
	if err != nil {
		t.Fatal(err)
	}
	if a.Fits {
		t.Errorf("SDXL 4 × 1024px with model offload fits a 12 GB card (%s); diffusers measured 20.21 GB", gibString(a.PerGPU.TotalBytes))
	}
}

// TestReferenceEngineContext: the longest context keeps the serving
// engine's share of the card and its reserve (#40). vllm-project/vllm#10517
// (comment of 2024-12-02): meta-llama/Llama-3.1-8B-Instruct on an RTX
// 3090 at gpu_memory_utilization 0.90, --max-model-len 35k (chunked
// prefill on, so the profile runs one chunk, as today's engine always
// does): "total_gpu_memory=23.58GiB ... peak_torch_memory=15.05GiB ...
// non_torch_memory=0.35GiB", so vLLM's KV cache is 23.58 × 0.9 − 15.05 −
// 0.35 = 5.82 GiB, 47,680 tokens in 16-token pages. fitbot said 62,233
// (the whole card) before; 5 %. The same thread's 20k row (3.81 GiB) is
// the older engine profiling a whole 20k prompt without chunking, which
// fitbot does not model.
func TestReferenceEngineContext(t *testing.T) {
	ans, err := (&Estimator{}).MaxContext(Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "rtx-3090"})
	if err != nil {
		t.Fatal(err)
	}
	const want = 47680
	got := float64(ans.MaxContext.MaxTokens)
	t.Logf("Llama 3.1 8B on a 3090: %.0f tokens vs %d (%.2f)", got, want, got/want)
	if !withinRel(got, want, 0.05) {
		t.Errorf("longest context %.0f tokens; vLLM's KV cache holds %d (±5%%)", got, want)
	}
}

// TestReferenceConsumerCap: the data-centre fit is capped on GeForce
// cards and the answer says so (#40: a 13B LoRA on a 4090 came out at 67 %
// MFU). The cap is held to torchtune's README table (pytorch/torchtune
// README.md at commit 0031bfb0, "Memory and training speed": Llama 3.1
// 8B, batch 2, a dataset packed to 2,048, torch.compile): LoRA 3,083
// tokens/s on a 4090 and 4,699 on an RTX A6000, full fine-tuning 1,650
// and 2,579. Its absolute figures are not held (at fitbot's FLOPs count
// the A6000's LoRA row is over 100 % of its BF16 peak), but one recipe on
// two cards gives the 4090's speed relative to a card the fit covers:
// 0.66 and 0.64, where the uncapped fit said 1.06; 15 %.
func TestReferenceConsumerCap(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Params: 13e9, Method: MethodQLoRA, GPU: "rtx-4090", Tokens: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if mfu := *a.Throughput.MFU; mfu > consumerGEMMCap+1e-9 {
		t.Errorf("13B QLoRA on a 4090 at %.0f%% MFU, over the %.0f%% cap", mfu*100, consumerGEMMCap*100)
	}
	said := false
	for _, s := range a.Assumptions {
		said = said || strings.Contains(s, "capped at 42% on a GeForce card")
	}
	if !said {
		t.Errorf("the cap is not said: %q", a.Assumptions)
	}
	for id, want := range map[string]bool{"rtx-3090": true, "rtx-4090": true, "rtx-5090": true, "rtx-a6000": false, "rtx-6000-ada": false, "rtx-pro-6000": false, "h100": false} {
		if got := consumerCard(&GPU{ID: id, Vendor: "nvidia"}); got != want {
			t.Errorf("consumerCard(%s) = %v, want %v", id, got, want)
		}
	}
	yes := true
	for _, tc := range []struct {
		method     Method
		optimizer  Optimizer
		rtx, a6000 float64 // torchtune's tokens/s
	}{{MethodLoRA, OptimizerAdamW, 3083, 4699}, {MethodFull, OptimizerAdamW8bit, 1650, 2579}} {
		speed := func(gpu string) float64 {
			q := Query{Model: "llama-3.1-8b", Method: tc.method, Optimizer: tc.optimizer, GPU: gpu,
				Precision: PrecisionPureBF16, SeqLen: 2048, MicroBatch: 2, GradCheckpointing: &yes, FusedLoss: &yes}
			if tc.method == MethodLoRA {
				q.LoRARank = 8
			}
			a, err := (&Estimator{}).Answer(q)
			if err != nil {
				t.Fatal(err)
			}
			return *a.Throughput.TokensPerSecond
		}
		got, want := speed("rtx-4090")/speed("rtx-a6000"), tc.rtx/tc.a6000
		t.Logf("%s: 4090 / A6000 %.3f, torchtune %.3f (%.2f)", tc.method, got, want, got/want)
		if !withinRel(got, want, 0.15) {
			t.Errorf("%s: a 4090 makes %.2f of an RTX A6000's tokens/s, torchtune measured %.2f (±15%%)", tc.method, got, want)
		}
	}
}
