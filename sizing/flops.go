package sizing

import (
	"fmt"
	"math"
	"strings"
)

// FLOPs per token and the share of a card's peak each part reaches.
//
// Model FLOPs are counted as Megatron-LM's num_floating_point_operations
// does (megatron/training/training.py; copy in testdata/training): 2
// FLOPs per multiply-add, forward 1, backward 2 (so 6 × the active
// parameters for the linear layers), and for attention QKᵀ and ·V with the
// causal mask halving the s² term: 6 × width × seq per layer and token in
// training, 2 × width × seq in a forward pass (prefill). llm-foundry's
// benchmark README counts the full square (12 × hidden × seq); its
// throughput figures are the same runs, so fitbot compares tokens per
// second, never MFU across conventions.
//
// Executed (hardware) FLOPs add what the run recomputes: full gradient
// checkpointing replays the forward (+2 per parameter, +1 attention
// forward), and FlashAttention's backward recomputes the scores (+½
// attention forward: llm-foundry's "attention multiplier 5 instead of 4").

// Calibration of the run-dependent utilisation (testdata/training/SOURCES.md
// lists every row it was fitted to and TestReferenceTrainingTime holds it):
//
//   - A GEMM of inner width d reaches gemmPeakShare × d/(d + d½) of peak,
//     d½ = gemmHalfWidth × peak/989 TFLOPS: a faster card needs larger
//     matrices to fill it (the Megatron-LM README: "larger GEMMs have higher
//     arithmetic intensity"). Fitted to llm-foundry's H100 and A100 tables,
//     whose implied hardware utilisation at 2k context runs from 34 % (1B)
//     to 57 % (70B) on H100 and 56 % to 70 % on A100: 0.74 and 2300 fit
//     both cards' ends within 3 %.
//   - Attention (FlashAttention-2 forward and backward) reaches
//     attnShareA100 of an A100's peak and a share falling with the square
//     root of peak on faster cards (20 % of an H100's), fitted to
//     llm-foundry's 32k and 64k rows, where attention is 40-70 % of the
//     FLOPs.
//   - FP8 runs the linear layers on the FP8 peak (twice BF16 on Hopper)
//     with the larger d½ that peak implies; attention stays in BF16. That
//     gives the 1.15-1.3× over BF16 that llm-foundry and torchtitan measure
//     for 1-8B models and ~1.5× at 70B+ (NeMo's FP8 table), not 2×.
const (
	gemmPeakShare = 0.74
	gemmHalfWidth = 2300.0
	attnShareA100 = 0.35
	a100PeakFLOPS = 312e12
	h100PeakFLOPS = 989e12
	// faBackwardRecompute is the share of the attention forward that
	// FlashAttention's backward computes again (QKᵀ, one of two matmuls).
	faBackwardRecompute = 0.5
)

// attentionWidth is the width QKᵀ and ·V multiply over per token and
// layer: heads × head_dim (MLA: the mean of the query-key and value head
// widths, as Megatron counts it).
func (s *shape) attentionWidth() float64 { return float64(s.attnWidth) }

// attentionFLOPsFwd is the forward FLOPs per token of attention's scores
// and weighted sum over a causal sequence of seq tokens, all layers: 4 ×
// width × the keys a token sees on average (seq/2; a sliding window W
// shorter than the sequence: W − W²/2seq). Linear-attention layers have
// no s² term.
func (s *shape) attentionFLOPsFwd(seq int64) float64 {
	if seq <= 0 {
		return 0
	}
	n := float64(seq)
	full := float64(s.kvLayers - s.slidingLayers)
	keys := full * n / 2
	if s.slidingLayers > 0 {
		w := float64(s.window)
		avg := n / 2
		if w > 0 && w < n {
			avg = w - w*w/(2*n)
		}
		keys += float64(s.slidingLayers) * avg
	}
	return 4 * s.attentionWidth() * keys
}

// PrefillFLOPsPerToken is the forward FLOPs per prompt token at a context
// of seq tokens: 2 × active parameters plus causal attention (Megatron-LM's
// count). Serving's prefill and training's forward share it.
func (f *Footprint) PrefillFLOPsPerToken(seq int) float64 {
	return 2*float64(f.s.active) + f.s.attentionFLOPsFwd(int64(seq))
}

// activeExpertParams is the routed-expert weights one token passes
// through.
func (s *shape) activeExpertParams() float64 {
	if s.experts <= 0 {
		return 0
	}
	return float64(s.expertLinear) * float64(s.expertsActive) / float64(s.experts)
}

// flopParts is FLOPs per token split by the kernel that runs them.
type flopParts struct {
	dense  float64 // linear layers outside routed experts, embeddings and head
	expert float64 // routed experts' linears
	attn   float64 // QKᵀ and ·V
}

func (p flopParts) sum() float64 { return p.dense + p.expert + p.attn }

// trainingFLOPs is the model FLOPs per trained token (what MFU counts) and
// the executed FLOPs (recompute included). Full training: 6 per active
// parameter. LoRA and QLoRA skip the frozen weights' gradient GEMMs: 4
// (forward 2, activation gradients 2); the adapters are negligible.
// QLoRA's dequantisation adds qloraDequantFactor to its linears' time. A
// reference-model objective (DPO) executes the reference's forward pass too.
func trainingFLOPs(r *Request, s *shape) (model, executed flopParts) {
	perParam := 6.0
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		perParam = 4
	}
	exp := s.activeExpertParams()
	fwdAttn := s.attentionFLOPsFwd(int64(r.SeqLen))
	model = flopParts{
		dense:  perParam * (float64(s.active) - exp),
		expert: perParam * exp,
		attn:   3 * fwdAttn,
	}
	executed = model
	executed.attn += faBackwardRecompute * fwdAttn
	if r.GradCheckpointing {
		executed.dense += 2 * (float64(s.active) - exp)
		executed.expert += 2 * exp
		executed.attn += fwdAttn
	}
	if runsReference(r) { // the reference model's forward pass
		executed.dense += 2 * (float64(s.active) - exp)
		executed.expert += 2 * exp
		executed.attn += fwdAttn
	}
	if r.Method == MethodQLoRA {
		executed.dense *= qloraDequantFactor
		executed.expert *= qloraDequantFactor
	}
	return model, executed
}

// consumerGEMMCap is the most of its peak a GeForce card's linear layers
// reach in training. The fit above comes from data-centre cards; on a 3090
// or 4090 it gave a 13B LoRA 67 % MFU (issue #40). torchtune's README runs
// one recipe (Llama 3.1 8B, batch 2, packed 2,048, compiled) on a 4090 and
// an RTX A6000: the 4090 makes 0.66 (LoRA) and 0.64 (full) of the A6000's
// tokens/s with 7 % more BF16 peak; 0.42 of peak on the 4090 against the
// fit on the A6000 gives 0.67 and 0.67 (TestReferenceConsumerCap).
const consumerGEMMCap = 0.42

// consumerCard reports whether g is a GeForce card (RTX 2080 Ti to 5090),
// not a workstation (RTX A6000, RTX 6000 Ada, RTX PRO 6000) or data-centre
// one.
func consumerCard(g *GPU) bool {
	id := strings.TrimPrefix(g.ID, "rtx-")
	return g.Vendor == "nvidia" && id != g.ID && id != "" && id[0] >= '0' && id[0] <= '9' && !strings.HasSuffix(id, "-ada")
}

// cardGEMMEfficiency is gemmEfficiency on g, capped on consumer cards.
func cardGEMMEfficiency(g *GPU, d, peak float64) float64 {
	e := gemmEfficiency(d, peak)
	if consumerCard(g) {
		e = min(e, consumerGEMMCap)
	}
	return e
}

// gemmEfficiency is the share of peak a linear layer of inner width d
// reaches on a card whose peak at the run's precision is peak.
func gemmEfficiency(d, peak float64) float64 {
	if d <= 0 {
		return gemmPeakShare
	}
	half := gemmHalfWidth * peak / h100PeakFLOPS
	return gemmPeakShare * d / (d + half)
}

// attentionEfficiency is the share of a card's BF16 peak FlashAttention
// reaches.
func attentionEfficiency(bf16Peak float64) float64 {
	if bf16Peak <= 0 {
		return attnShareA100
	}
	return min(attnShareA100*math.Sqrt(a100PeakFLOPS/bf16Peak), 0.6)
}

// secondsPerToken is the GPU-seconds one trained token costs on g: each
// part of the executed FLOPs at the rate its kernels reach. fixedMFU > 0
// replaces the fitted rates with one share of peak for every part (the
// Estimator's MFU setting).
func secondsPerToken(r *Request, s *shape, g *GPU, executed flopParts, fixedMFU float64) float64 {
	peak := peakFLOPS(g, r.Precision)
	bf16 := peakFLOPS(g, PrecisionBF16)
	if r.Precision == PrecisionFP32 {
		bf16 = peak
	}
	if peak <= 0 {
		return 0
	}
	if fixedMFU > 0 {
		return executed.dense/(peak*fixedMFU) + executed.expert/(peak*fixedMFU) + executed.attn/(bf16*fixedMFU)
	}
	h := float64(s.hidden)
	fill := fillPeak(r, peak, bf16)
	sec := executed.dense / (peak * cardGEMMEfficiency(g, h, fill))
	if executed.expert > 0 {
		// An expert's GEMM is hidden × expert width over the few tokens
		// routed to it: its size is the geometric mean of the two.
		w := math.Sqrt(h * float64(max(s.expertFFN, 1)))
		sec += executed.expert / (peak * cardGEMMEfficiency(g, w, fill))
	}
	sec += executed.attn / (bf16 * attentionEfficiency(bf16))
	return sec
}

// fillPeak is the peak whose half-width a linear layer must reach to fill
// the card: the run's own peak, except FP8 through Transformer Engine,
// which fills the FP8 peak as BF16 fills its own. torchao's dynamic
// float8 (torchtitan, llm-foundry) casts each input and weight in kernels
// of their own, so a small matrix gains less from the doubled peak
// (1.15-1.3× over BF16 at 1-8B in their tables); Transformer Engine fuses
// the casts and amax into the norms and GEMMs, and NeMo's FP8 rows at 7-13B
// run 1.3-1.4× fitbot's torchao figure (testdata/training/SOURCES.md).
func fillPeak(r *Request, peak, bf16 float64) float64 {
	if r.Stack == StackTransformerEngine && r.Precision == PrecisionFP8 && bf16 > 0 {
		return bf16
	}
	return peak
}

// prefillFLOPsPerToken is a prompt token's forward FLOPs at the
// request's context.
func prefillFLOPsPerToken(r *Request, s *shape) float64 {
	return 2*float64(s.active) + s.attentionFLOPsFwd(int64(r.SeqLen))
}

// prefillShare is the share of peak a prefill of r reaches: the MFU the
// question said, else fixedMFU when set, else the GEMM fit of training
// at the model's width.
func prefillShare(r *Request, s *shape, g *GPU, fixedMFU float64) float64 {
	switch {
	case r.MFU > 0:
		return r.MFU
	case fixedMFU > 0:
		return fixedMFU
	}
	return gemmEfficiency(float64(s.hidden), peakFLOPS(g, r.Precision))
}

// speedAssumption says in words what the speed assumed: the MFU, how it
// was chosen and the FLOPs it counts.
func speedAssumption(r *Request, g *GPU, t Throughput, fixedMFU float64) string {
	peak := peakName(r, g)
	how := "fitted to published runs (llm-foundry, torchtitan, NeMo, Megatron-LM) by model width, card, sequence and precision"
	switch {
	case r != nil && r.MFU > 0:
		how = "the MFU the question said"
	case fixedMFU > 0:
		how = fmt.Sprintf("every kernel at the configured %.0f%% of peak", fixedMFU*100)
	case g != nil && consumerCard(g) && r != nil && r.Method != MethodInference:
		how += fmt.Sprintf(", capped at %.0f%% on a GeForce card (torchtune's 4090 makes two thirds of an RTX A6000's speed on the same recipe)", consumerGEMMCap*100)
	case g != nil && g.UnifiedMemory && r != nil && r.Method != MethodInference:
		how = "on Apple silicon through MLX (mlx-lm lora): an order of magnitude only; mlx-lm's documentation gives about 250 tokens/s for Mistral 7B LoRA on an M1 Max"
	}
	// Decoding is how an inference answer generates; a training answer
	// never decodes, so it says nothing of it.
	decode := ""
	if r == nil || r.Method == MethodInference {
		decode = fmt.Sprintf("; decode at %.0f%% of memory bandwidth plus a per-layer floor", bandwidthUtilisation*100)
	}
	if t.MFU == nil || t.FLOPsPerToken == nil {
		return fmt.Sprintf("compute at a utilisation %s%s", how, decode)
	}
	what, run := "training", goodputAssumption(r, t.Hours)
	if r.Method == MethodInference {
		what, run = "prefill", ""
	}
	return fmt.Sprintf("%s at %.0f%% MFU of the %s dense peak (%s), counting %s GFLOPs per token with causal attention%s%s",
		what, *t.MFU*100, peak, how, threeFigures(*t.FLOPsPerToken/1e9), decode, run)
}

// peakName is the number format of the peak peakFLOPS gives r on g:
// "BF16", "FP8", "TF32" or, on Apple silicon, "FP32".
func peakName(r *Request, g *GPU) string {
	switch {
	case r == nil || g == nil:
	case r.Precision == PrecisionFP8 && g.FP8 && g.FP8TFLOPS > 0:
		return "FP8"
	case r.Precision == PrecisionFP32 && g.UnifiedMemory:
		return "FP32"
	case r.Precision == PrecisionFP32:
		return "TF32"
	}
	return "BF16"
}

// measured is the MFU a speed the asker measured (tokens per second per
// GPU) is for r on g, at the FLOPs per token t counts; nil when no speed
// was said or t counts no FLOPs.
func measured(r *Request, g *GPU, t Throughput, perGPU float64) *MeasuredSpeed {
	peak := peakFLOPS(g, r.Precision)
	if perGPU <= 0 || t.FLOPsPerToken == nil || peak <= 0 {
		return nil
	}
	f := *t.FLOPsPerToken
	return &MeasuredSpeed{TokensPerSecondPerGPU: perGPU, MFU: perGPU * f / peak, FLOPsPerToken: f, PeakFLOPS: peak, Peak: peakName(r, g)}
}

// threeFigures writes v to three significant figures, never in
// scientific notation ("54.5", "2,460" where %.3g writes "2.46e+03").
func threeFigures(v float64) string {
	if v < 1000 {
		return fmt.Sprintf("%.3g", v)
	}
	step := math.Pow(10, math.Floor(math.Log10(v))-2)
	return Commas(int64(math.Round(v/step) * step))
}
