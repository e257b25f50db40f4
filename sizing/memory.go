package sizing

import (
	"cmp"
	"math"
	"slices"
)

// Bytes per parameter: the convention.
//
// The estimator counts model states the way the ZeRO paper (Rajbhandari et
// al. 2020, §3.1) and both seed documents do: mixed-precision AdamW keeps
// 16-bit weights (2 B), 16-bit gradients (2 B) and K = 12 B of optimizer
// state (fp32 master copy, first and second moment), 16 B per trainable
// parameter. Other tools print other numbers for the same training run:
//   - DeepSpeed's own estimate_zero2/zero3 functions say 18 B (ZeRO-2 since
//     PR #5099, April 2024) because they also count an fp32 gradient buffer;
//     Hugging Face's "Model training anatomy" says 18 B for the same reason
//     plus an fp32 copy of the weights.
//   - accelerate's estimate-memory says 8 B for mixed precision because it
//     reports the largest single component (the optimizer step), not the sum.
//
// The seeds' optimizer table (K = 12, ~6, 4, 0 for AdamW, 8-bit Adam, SGD
// with momentum, plain SGD: totals 16/10/8/4) is reproduced as printed. For
// the SGD rows that means no fp32 master copy (pure 16-bit SGD, momentum in
// fp32); Transformer Math 101 counts one and gets 8 B of state for SGD with
// momentum.

const (
	// cudaOverheadBytes is the CUDA context, kernels and framework
	// allocations present before the first tensor: 1.3 GB, as Hugging Face's
	// "Model training anatomy" measured on a V100 (reference §0.6).
	cudaOverheadBytes = 1_300_000_000
	// commBufferBytes is what NCCL communicators and gradient buckets hold
	// per GPU when more than one GPU takes part (an assumption: NCCL's
	// per-channel buffers plus a DDP/ZeRO bucket of a few hundred MiB).
	commBufferBytes = 512 << 20
	// maxLiveParams, prefetchBucketElems and reduceBucketElems are
	// DeepSpeed's defaults for stage3_max_live_parameters (1e9),
	// stage3_prefetch_bucket_size (5e7) and reduce_bucket_size (5e8
	// elements) (deepspeed/runtime/zero/config.py): what ZeRO-3 with
	// parameter offload keeps gathered on the GPU, fetches ahead, and the
	// gradients waiting to leave it.
	maxLiveParams       = 1e9
	prefetchBucketElems = 5e7
	reduceBucketElems   = 5e8
)

// shape is what the memory model needs to know of a model, in plain
// numbers. It is derived once per model (shapeOf) so that evaluating a
// configuration is arithmetic only.
type shape struct {
	total, active int64 // parameters
	layers        int64
	hidden        int64
	ffn           int64 // FFN width of a dense layer
	heads         int64
	kvHeads       int64
	qDim          int64 // width of the queries (heads × head_dim)
	attnWidth     int64 // width QKᵀ and ·V multiply over (attentionWidth)
	kvDim         int64 // width of the keys and of the values
	vocab         int64
	gated         bool // SwiGLU/GeGLU MLP: three matrices instead of two
	dropout       bool // dropout in training (GPT-2, BERT); modern LLMs have none

	// Mixture of experts: moeLayers of the layers route each token to
	// expertsActive of experts experts of width expertFFN, plus
	// sharedExperts always-on experts of width sharedFFN.
	moeLayers     int64
	experts       int64
	expertsActive int64
	expertFFN     int64
	sharedExperts int64
	sharedFFN     int64

	// KV cache: kvElems elements per token per decoder layer (K and V of
	// every KV head, or MLA's latent plus rope key, shared by all heads);
	// slidingLayers of the kvLayers keep at most window tokens.
	kvElems       int64
	kvLayers      int64
	slidingLayers int64
	window        int64
	mla           bool

	maxContext int64 // 0 when unknown

	// stateElems is the fixed state one sequence keeps over all the
	// layers without a KV cache (Mamba, linear attention), in elements:
	// constant in context. ssmLayers of them are Mamba mixers of inner
	// width ssmInner whose x_proj (or Mamba-2 in_proj) adds ssmProj more.
	stateElems int64
	// encoderSeq is the fixed length of an encoder that reads audio
	// (Whisper: 1,500 frames), over encLayers layers; 0 otherwise.
	encoderSeq int64
	encLayers  int64
	// imageProfileElems is what one image holds, in elements, while a
	// serving engine's profiling pass runs the vision tower of a
	// cross-attention model (mllama) for each of max_num_seqs sequences;
	// 0 for other families.
	imageProfileElems int64
	// crossElems is the part of stateElems that is an image's keys and
	// values in cross-attention layers (mllama): per sequence, never per
	// token of the engine's KV pool.
	crossElems int64
	// encoderOnly: an encoder (embeddings, rerankers) reads each batch
	// whole in one forward pass and has no LM head.
	encoderOnly bool
	// diffusion is a diffusion pipeline's components and denoiser; nil
	// for every other family, whose memory follows the fields above.
	diffusion *diffusionShape
	ssmLayers int64
	ssmInner  int64
	ssmProj   int64

	// linear is the weights of the transformer blocks' linear layers (all
	// experts): what bitsandbytes, GPTQ/AWQ and FP8 quantise. The rest
	// (embeddings, untied LM head, norms, biases) stays 16-bit.
	linear int64
	// expertLinear is the part of linear inside routed experts: what
	// MXFP4 quantises in gpt-oss.
	expertLinear int64
	// keptLinear is the part of linear (outside routed experts) that the
	// maker's checkpoint in keptFormat keeps in 16-bit (Model.Kept16).
	keptLinear int64
	keptFormat Quant
	// loraPerRank is Σ(in+out) over the LoRA-targeted linears of every
	// layer (every expert): the adapter parameters per unit of rank.
	loraPerRank int64
	// loraModules is how many linears carry an adapter (for Adafactor's
	// factored state of the adapters).
	loraModules int64
	// loraActivePerLayer is how many adapted linears one token passes
	// through per layer (experts: only the routed ones).
	loraActivePerLayer int64
	// embedMatrices is how many vocab × hidden matrices the model holds
	// (1 tied, 2 untied).
	embedMatrices int64
	// factored is Adafactor's factored second moment for full training:
	// Σ(rows+cols) over weight matrices plus the size of every vector.
	factored int64
}

// trainingStateBytes returns the bytes per trainable parameter of the
// weights, gradients and optimizer states (K) for an optimizer and
// precision, in the seeds' convention. Adafactor's K depends on the matrix
// shapes and is handled by the caller: here it is the fp32 master copy only.
//
// Pure bf16 (torchtune's and LitGPT's default) keeps no fp32 master copy
// and holds the optimizer's moments in bf16: AdamW 2+2+4 = 8 B, 8-bit
// AdamW 2+2+2, SGD with momentum 2+2+2.
func trainingStateBytes(o Optimizer, p Precision) (weights, grads, opt float64) {
	if p == PrecisionPureBF16 {
		switch o {
		case OptimizerAdamW:
			return 2, 2, 4
		case OptimizerAdamW8bit, OptimizerSGDMomentum:
			return 2, 2, 2
		}
		return 2, 2, 0 // SGD; Adafactor's factored moments are added by the caller
	}
	if p == PrecisionFP32 {
		switch o {
		case OptimizerAdamW:
			return 4, 4, 8
		case OptimizerAdamW8bit:
			return 4, 4, 2
		case OptimizerSGDMomentum:
			return 4, 4, 4
		}
		return 4, 4, 0 // SGD; Adafactor's factored moments are added by the caller
	}
	switch o {
	case OptimizerAdamW:
		return 2, 2, 12
	case OptimizerAdamW8bit:
		return 2, 2, 6
	case OptimizerSGDMomentum:
		return 2, 2, 4
	case OptimizerAdafactor:
		return 2, 2, 4 // fp32 master; factored moments added by the caller
	}
	return 2, 2, 0
}

// quantScope is which tensors a quantisation scheme stores in its format;
// the rest stay 16-bit.
type quantScope uint8

const (
	// scopeFile: every tensor (GGUF files; their k-quant mixes already
	// average the 16-bit and higher-precision tensors into the bits).
	scopeFile quantScope = iota
	// scopeLinear: the linear layers of the blocks (bitsandbytes, GPTQ/AWQ,
	// FP8, NVFP4): embeddings, LM head, norms and biases stay 16-bit.
	scopeLinear
	// scopeExperts: the routed experts' linears of a mixture of experts
	// (MXFP4 as gpt-oss ships it: attention, router and embeddings in
	// bf16); on a dense model, every linear layer.
	scopeExperts
)

// GGUF effective bits per weight: the average over the whole file, from
// llama.cpp's own table for meta-llama/Llama-3.1-8B (tools/quantize
// README, "bits/weight" column): a k-quant "mix" keeps some tensors (the
// output head, attention V, part of the FFN down projections) at a higher
// type, so Q2_K averages 3.16 bits, not 2.6. Q3_K_M is absent from that
// table: 3.99 is interpolated between its Q3_K_S (3.64) and Q3_K_L
// (4.30) in proportion to the same three rows of the README's older
// Llama 2 7B table (3.50, 3.91, 4.27). Q4_0 is absent too: 4.5 bits for
// its blocks with the output head in Q6_K (6.56 bits, 6.5 % of Llama 3.1
// 8B) is 4.63.
const (
	ggufQ8_0BPW  = 8.5008
	ggufQ6_KBPW  = 6.5633
	ggufQ5_KMBPW = 5.7036
	ggufQ4_KMBPW = 4.8944
	ggufQ4_0BPW  = 4.63
	ggufQ3_KMBPW = 3.99
	ggufQ2_KBPW  = 3.1593
)

// quantBytesPerParam returns the bytes per parameter of a quantised
// weight, scales included, and which tensors the scheme quantises.
//
// Sources: bitsandbytes NF4 uses blocks of 64 with an fp32 absmax (4/64 B);
// double quantisation stores the absmax in 8 bits with one fp32 constant
// per 256 blocks (QLoRA paper §3: 0.127 bits per parameter). GPTQ/AWQ int4
// with group size 128 keep an fp16 scale and zero per group (4.25 bpw).
// FP8 as DeepSeek-V3 ships it: e4m3 with one fp32 scale per 128×128 block
// (the model card's "fine-grained FP8"; config quantization_config
// weight_block_size [128, 128]). MXFP4 (OCP Microscaling spec v1.0): fp4
// e2m1 with one e8m0 scale byte per 32 values, 4.25 bits. NVFP4 (NVIDIA
// Blackwell): fp4 e2m1 with one fp8 e4m3 scale per 16 values, 4.5 bits
// (the per-tensor fp32 scale is negligible). GGUF: the effective bits
// above.
func quantBytesPerParam(q Quant, hidden int64) (bytes float64, scope quantScope) {
	switch q {
	case QuantINT8:
		// LLM.int8: one int8 per weight plus an fp32 scale per row.
		return 1 + 4/float64(max(hidden, 1)), scopeLinear
	case QuantNF4:
		return 0.5 + 4.0/64, scopeLinear
	case QuantNF4DQ:
		return 0.5 + 1.0/64 + 4.0/(64*256), scopeLinear
	case QuantGPTQ, QuantAWQ:
		return 0.5 + 4.0/128, scopeLinear
	case QuantFP8:
		return 1 + 4.0/(128*128), scopeLinear
	case QuantNVFP4:
		return 0.5 + 1.0/16, scopeLinear
	case QuantMXFP4:
		return 0.5 + 1.0/32, scopeExperts
	case QuantQ8_0:
		return ggufQ8_0BPW / 8, scopeFile
	case QuantQ6_K:
		return ggufQ6_KBPW / 8, scopeFile
	case QuantQ5_KM:
		return ggufQ5_KMBPW / 8, scopeFile
	case QuantQ4_KM:
		return ggufQ4_KMBPW / 8, scopeFile
	case QuantQ4_0:
		return ggufQ4_0BPW / 8, scopeFile
	case QuantQ3_KM:
		return ggufQ3_KMBPW / 8, scopeFile
	case QuantQ2_K:
		return ggufQ2_KBPW / 8, scopeFile
	}
	return 2, scopeFile
}

// isGGUF reports whether q is one of llama.cpp's formats (inference only).
func isGGUF(q Quant) bool {
	_, scope := quantBytesPerParam(q, 1)
	return q != QuantNone && scope == scopeFile
}

// weightElemBytes is the bytes per parameter of one class of tensor
// stored with quantisation q (or at precision p when q is empty): a
// linear layer of the blocks, a routed expert's linear (expert), or
// anything else (embeddings, LM head, norms, biases). moe says the model
// has routed experts, which is where MXFP4 applies.
func weightElemBytes(q Quant, p Precision, hidden int64, linear, expert, moe bool) float64 {
	if q == QuantNone {
		switch p {
		case PrecisionFP32:
			return 4
		case PrecisionFP8:
			q = QuantFP8
		default:
			return 2
		}
	}
	b, scope := quantBytesPerParam(q, hidden)
	switch {
	case scope == scopeFile,
		scope == scopeLinear && linear,
		scope == scopeExperts && (expert || (linear && !moe)):
		return b
	}
	return 2
}

// modelWeightBytes is the size of all the model's weights stored with
// quantisation q, or at 16-bit (fp32: 4 B, fp8: FP8 on the linears) when q
// is empty.
//
// A model whose maker ships a checkpoint in that format with some modules
// left in 16-bit (shape.keptLinear) is sized as that checkpoint: the
// format on the rest, 2 B on those.
func modelWeightBytes(s *shape, q Quant, p Precision) float64 {
	moe := s.expertLinear > 0
	dense := weightElemBytes(q, p, s.hidden, true, false, moe)
	b := float64(s.expertLinear)*weightElemBytes(q, p, s.hidden, true, true, moe) +
		float64(s.linear-s.expertLinear)*dense +
		float64(s.total-s.linear)*weightElemBytes(q, p, s.hidden, false, false, moe)
	if s.keptLinear > 0 && storedAs(q, p) == s.keptFormat && dense < 2 {
		b += float64(s.keptLinear) * (2 - dense)
	}
	return b
}

// storedAs is the weight format of quantisation q at precision p: q
// itself, FP8 for fp8 weights asked as a precision, none otherwise.
func storedAs(q Quant, p Precision) Quant {
	if q == QuantNone && p == PrecisionFP8 {
		return QuantFP8
	}
	return q
}

// decodeReadBytes is what one decode step reads of the weights: all of
// them but the routed experts a token does not visit (at batch b, up to
// b × k distinct experts of E per layer) and the input embedding table, of
// which it reads one row per token (a tied table is read whole as the LM
// head).
func decodeReadBytes(s *shape, q Quant, p Precision, batch int64) float64 {
	moe := s.expertLinear > 0
	read := modelWeightBytes(s, q, p)
	if moe && s.experts > 0 {
		visited := min(float64(batch*s.expertsActive)/float64(s.experts), 1)
		read -= (1 - visited) * float64(s.expertLinear) * weightElemBytes(q, p, s.hidden, true, true, moe)
	}
	if s.embedMatrices == 2 {
		read -= float64(s.vocab*s.hidden) * weightElemBytes(q, p, s.hidden, false, false, moe)
	}
	return read
}

// loraParams is the exact adapter parameter count at a rank.
func (s *shape) loraParams(rank int) int64 { return int64(rank) * s.loraPerRank }

// trainable is the number of parameters that get gradients and optimizer
// state under the request's method.
func (s *shape) trainable(r *Request) int64 {
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		n := s.loraParams(r.LoRARank)
		if r.ModulesToSave {
			n += s.embedParams()
		}
		return n
	}
	return s.total
}

// embedParams is the embedding table and an untied LM head: what PEFT's
// modules_to_save ["embed_tokens", "lm_head"] trains in full.
func (s *shape) embedParams() int64 { return s.embedMatrices * s.vocab * s.hidden }

// trainingMemory is the per-GPU memory of a training request. Tensor
// and pipeline parallelism split the model's weights, gradients and
// optimizer states over TP × PP ranks (routed experts over EP × PP);
// ZeRO then shards each rank's part over the ranks that hold the same part
// (the data- and context-parallel ranks; for experts, GPUs / (EP × PP)):
// stage 1 the optimizer states, stage 2 the gradients too, stage 3 the
// weights too (the seeds' table: 4Ψ+12Ψ/N, 2Ψ+14Ψ/N, 16Ψ/N; Megatron's
// distributed optimizer is stage 1, FSDP stage 3). With LoRA the stages act
// on the adapters' states; stage 3 also shards the frozen base. Offload
// moves the optimizer states (and, at stage 3, the weights) to host RAM or
// NVMe.
func trainingMemory(r *Request, s *shape) Memory {
	gpus := float64(max(r.GPUs, 1))
	tp, pp := float64(tensorParallel(r)), float64(pipelineParallel(r))
	wB, gB, oB := trainingStateBytes(r.Optimizer, r.Precision)
	psiExpert := 0.0
	if splitsExperts(r, s) {
		psiExpert = float64(s.expertLinear)
	}
	ep := float64(expertParallelDegree(r))
	// Parameters one GPU holds before ZeRO, and the ranks ZeRO shards them
	// over.
	dense := (float64(s.trainable(r)) - psiExpert) / (tp * pp)
	expert := psiExpert / (ep * pp)
	nDense := max(gpus/(tp*pp), 1)
	nExpert := max(gpus/(ep*pp), 1)

	var base float64 // frozen base weights (LoRA, QLoRA)
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		base = modelWeightBytes(s, r.Quant, r.Precision) / (tp * pp)
	}
	ref := 1.0 // copies of the trained weights held: 2 with a frozen reference (DPO)
	if heldReference(r) {
		ref = 2
	}
	stage := shardingStage(r)
	weights := zeroShard(base+ref*wB*dense, nDense, stage, 3) + zeroShard(ref*wB*expert, nExpert, stage, 3)
	grads := zeroShard(gB*dense, nDense, stage, 2) + zeroShard(gB*expert, nExpert, stage, 2)
	optDense, optExpert := oB*dense, oB*expert
	if r.Optimizer == OptimizerAdafactor {
		optDense += 4 * float64(s.factoredState(r)) / (tp * pp)
	}
	opt := zeroShard(optDense, nDense, stage, 1) + zeroShard(optExpert, nExpert, stage, 1)
	var gathered float64
	if stage == 3 && nDense > 1 {
		gathered = gatheredLayerBytes(s, base+ref*wB*(dense+expert), gB*(dense+expert))
	}

	if r.Offload == OffloadCPU || r.Offload == OffloadNVMe {
		// ZeRO-Offload (Ren et al. 2021, §4; DeepSpeed's
		// estimate_zero2_model_states_mem_needs: 2Ψ on the GPU): the
		// optimizer step runs on the host, so the fp32 master copy and
		// moments live there and every gradient partition is streamed to
		// the host as soon as it is reduced; the GPU keeps the 16-bit
		// weights. At stage 3 the weights go too (ZeRO-Infinity) and the
		// GPU holds what offloadResident says.
		sharded := weights + grads + opt + gathered // what stage 3 keeps without offload
		opt = 0
		grads = 0
		if r.ZeROStage == 3 {
			weights, grads = offloadResident(r, s, base+ref*wB*(dense+expert), gB*(dense+expert), gB)
			// Over many GPUs the working set can exceed the shards that
			// offload moves away: offload is held to at most what the
			// same stage keeps without it (the shards and the gathered
			// layers).
			if weights+grads > sharded {
				weights, grads = sharded, 0
			}
		}
		gathered = 0 // the working set is offloadResident's weights and gradients
	}

	m := Memory{
		WeightsBytes:     ceilBytes(weights),
		GradientsBytes:   ceilBytes(grads),
		OptimizerBytes:   ceilBytes(opt),
		ActivationsBytes: trainingActivationBytes(r, s),
		OverheadBytes:    overheadBytes(r.GPUs),
		GatheredBytes:    ceilBytes(gathered),
	}
	if r.Method == MethodQLoRA {
		m.QLoRAWorkBytes = ceilBytes(qloraWorkingBytes(r, s))
	}
	m.TotalBytes = m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes +
		m.ActivationsBytes + m.KVCacheBytes + m.OverheadBytes + m.QLoRAWorkBytes + m.GatheredBytes
	return m
}

// gatheredLayersInFlight is how many transformer blocks' worth of
// unsharded 16-bit tensors ZeRO-3 / FSDP full sharding holds beside the
// shards at its peak, in the backward pass: the block being computed
// (its weights gathered), the next one prefetched, and the block's
// unsharded gradients before their reduce-scatter (PyTorch FSDP's
// per-block wrapping with backward prefetch, as torchtitan and
// llm-foundry run it).
const gatheredLayersInFlight = 3

// gatheredLayerBytes is what ZeRO-3 / FSDP full sharding holds gathered
// beside the shards, for a GPU whose unsharded weights would be weights
// bytes and gradients grads bytes (its tensor-parallel share): two
// blocks' weights (computed and prefetched) and one block's gradients
// (gatheredLayersInFlight), a block being the parameters outside the
// embeddings over the layers. It is a term of its own: the seeds' 16Ψ/N,
// the ZeRO paper's stage-3 row and DeepSpeed's estimator count model
// states only. With parameter offload offloadResident holds DeepSpeed's
// working set in the weights and gradients terms instead (for a 70B, 4.2
// GB gathered and 1 GB of gradients against 5.1 GB for three blocks
// here), so this term is not added there.
func gatheredLayerBytes(s *shape, weights, grads float64) float64 {
	if s.layers <= 0 || s.total <= 0 {
		return 0
	}
	block := max(1-float64(s.embedParams())/float64(s.total), 0) / float64(s.layers)
	return block * ((gatheredLayersInFlight-1)*weights + grads)
}

// qloraWorkingBytes is the memory QLoRA needs beyond LoRA's terms over a
// 4-bit base. Two parts:
//   - the dequantised weight: bitsandbytes' 4-bit matmul turns the
//     weight back into a 16-bit copy for every forward and backward
//     matmul, so the largest linear of a layer exists once more in 16-bit
//     (its double-quantised absmax tables are in the weight bytes,
//     quantBytesPerParam);
//   - what the 4-bit path keeps for backward per token and layer, beyond
//     the tensors a 16-bit frozen layer saves (activations.go): p·(2·I +
//     h) for an MLP of width I, fitted to LitGPT's resource tables
//     (tutorials/resource-tables.md, A100 40GB, LoRA r 8 on q and v,
//     micro-batch 1 at Alpaca's longest 1,304 tokens): nf4-dq measured
//     13.84 GB for Llama 2 7B and 22.55 GB for 13B, 1.9 and 3.5 GB over
//     fitbot's LoRA terms on the same base, and Falcon 40B ran out of
//     memory on the 40 GB card. Under gradient checkpointing only the one
//     layer being recomputed holds it.
//
// A paged optimizer (paged_adamw) moves the adapters' states to host
// memory under pressure; with adapters of a few hundred MB it changes
// nothing here and is not modelled.
func qloraWorkingBytes(r *Request, s *shape) float64 {
	p := activationElemBytes(r.Precision)
	tp, pp, cp := float64(tensorParallel(r)), float64(pipelineParallel(r)), float64(contextParallel(r))
	ffn := max(s.ffn, s.expertFFN*max(s.expertsActive, 1))
	largest := float64(s.hidden*max(s.ffn, s.expertFFN, s.qDim)) * 2 / tp
	tokens := float64(int64(r.SeqLen)*int64(max(r.MicroBatch, 1))*sequencesPerExample(r)) / cp / tp
	if r.OffloadActivations {
		// Unsloth (whose offloaded checkpointing this is) dequantises in
		// its own fused LoRA kernels, whose memory its context table
		// (TestReferenceUnslothContext) already measures.
		return 0
	}
	layers := float64(s.layers) / pp
	if r.GradCheckpointing {
		layers = 1
	}
	return largest + tokens*layers*p*float64(2*ffn+s.hidden)
}

// zeroShard is x bytes split over n ranks when the ZeRO stage reaches
// from, whole otherwise.
func zeroShard(x, n float64, stage, from int) float64 {
	if stage >= from {
		return x / n
	}
	return x
}

// offloadResident is what ZeRO-3 with parameter offload keeps on the
// GPU of all 16-bit weights (weights bytes) and gradients (grads bytes),
// as DeepSpeed holds them: gathered parameters are whole tensors on every
// GPU, released only past stage3_max_live_parameters, with the prefetch
// bucket in flight beside them; a tensor larger than those (a 250k-token
// embedding) is gathered whole. A layer's gradients (at most the reduce
// bucket, and this GPU's shard) wait before they leave.
func offloadResident(r *Request, s *shape, weights, grads, gB float64) (w, g float64) {
	perParam := weights / float64(max(s.total, 1))
	largest := float64(s.vocab * s.hidden)
	w = min(weights, perParam*(maxLiveParams+prefetchBucketElems+largest))
	g = min(grads/float64(max(r.GPUs, 1)), grads/float64(max(s.layers, 1)), gB*reduceBucketElems)
	// Never more than ZeRO-Offload at stage 2, which keeps all 16-bit
	// weights: a model under the live-parameter cap is held whole.
	g = min(g, weights-w)
	return w, g
}

// factoredState is Adafactor's factored second moment, in elements, for
// what the request trains: rows+cols per matrix instead of rows×cols.
func (s *shape) factoredState(r *Request) int64 {
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		// A (r×in) and B (out×r): (r+in) + (out+r) per adapted linear.
		return s.loraPerRank + 2*int64(r.LoRARank)*s.loraModules
	}
	return s.factored
}

// overheadBytes is the fixed per-GPU term: CUDA context and framework,
// plus communication buffers when GPUs talk to each other.
func overheadBytes(gpus int) int64 {
	if gpus > 1 {
		return cudaOverheadBytes + commBufferBytes
	}
	return cudaOverheadBytes
}

// ceil rounds a byte count up to a whole byte.
func ceilBytes(x float64) int64 { return int64(math.Ceil(x)) }

// shapeOf derives the memory model's numbers from an architecture. LoRA
// targets every linear layer of the blocks (q, k, v, o, gate, up, down,
// the experts' too; the router and the LM head are left out, as PEFT's
// "all-linear" does for the head and as MoE recipes do for the router).
func shapeOf(m Model) shape {
	total, active := m.ParamCount()
	if m.Kind == KindDiffusion {
		d := diffusionShapeOf(m)
		layers := int64(m.Layers)
		if m.UNet != nil {
			layers = m.UNet.blocks()
		}
		return shape{total: total, active: active, layers: layers, hidden: int64(m.Hidden),
			kvHeads: 1, embedMatrices: 1, diffusion: d, loraPerRank: d.loraRank, loraModules: 1}
	}
	s := shape{
		total: total, active: active,
		layers: int64(m.Layers + m.EncoderLayers), hidden: int64(m.Hidden), ffn: int64(m.Intermediate),
		heads: int64(m.Heads), kvHeads: int64(max(m.KVHeads, 1)),
		qDim: int64(m.Heads * m.HeadDim), kvDim: int64(m.KVHeads * m.HeadDim),
		vocab: int64(m.Vocab), gated: m.MLP == MLPGated,
		// Dropout is a heuristic: the older families that train with it
		// (GPT-2, BERT, T5) are the ones with learned or bucketed positions.
		dropout:       m.PositionEmbeddings > 0 || m.RelativeBuckets > 0,
		kvElems:       m.KVElemsPerTokenPerLayer(),
		kvLayers:      int64(m.Layers - m.LinearAttnLayers - m.CrossAttnLayers), // linear-attention layers keep a fixed state, cross-attention layers the image's KV: no KV per token
		slidingLayers: int64(m.SlidingLayers),
		window:        int64(m.SlidingWindow),
		mla:           m.MLA(),
		maxContext:    int64(m.MaxContext),
		embedMatrices: 2,
	}
	if m.TiedEmbeddings || m.Kind == KindEncoder {
		s.embedMatrices = 1
	}
	s.crossElems = m.crossAttnElems()
	s.stateElems = int64(m.LinearAttnLayers)*m.MixerState + s.crossElems
	if m.CrossAttnLayers > 0 {
		s.imageProfileElems = int64(m.CrossAttnTokens) * int64(2*m.VisionOutputDim+m.Hidden)
	}
	s.encoderSeq, s.encLayers = int64(m.EncoderSeq), int64(m.EncoderLayers)
	s.encoderOnly = m.Kind == KindEncoder
	if m.SSMVersion > 0 {
		s.ssmLayers, s.ssmInner = int64(m.LinearAttnLayers), int64(m.SSMInner)
		s.ssmProj = int64(m.SSMDTRank + 2*m.SSMStateDim)
		if m.SSMVersion == 2 {
			s.ssmProj = int64(2*m.SSMGroups*m.SSMStateDim + m.SSMHeads)
		}
	}
	if m.MLA() {
		qk := int64(m.QKNopeHeadDim + m.QKRopeHeadDim)
		s.qDim = int64(m.Heads) * qk
		s.kvDim = int64(m.Heads) * (qk + int64(m.VHeadDim)) / 2
		s.kvHeads = 1 // the latent is not split by tensor parallelism
	}
	s.attnWidth = s.qDim
	if m.MLA() {
		s.attnWidth = int64(m.Heads) * int64(m.QKNopeHeadDim+m.QKRopeHeadDim+m.VHeadDim) / 2
	}
	if m.MoE() {
		s.moeLayers = int64(m.Layers - m.DenseLayers)
		s.experts = int64(m.Experts)
		s.expertsActive = int64(m.ExpertsActive)
		s.expertFFN = int64(m.ExpertIntermediate)
		s.sharedExperts = int64(m.SharedExperts)
		s.sharedFFN = int64(cmp.Or(m.SharedExpertIntermediate, m.ExpertIntermediate))
	}
	vectors := total - s.embedMatrices*s.vocab*s.hidden
	for _, l := range m.LinearShapes() {
		s.linear += l.Params()
		if l.Expert {
			s.expertLinear += l.Params()
		}
		vectors -= l.Params()
		s.factored += int64(l.Count) * int64(l.In+l.Out)
		if l.Role == "router" {
			continue
		}
		s.loraPerRank += int64(l.Count) * int64(l.In+l.Out)
		s.loraModules += int64(l.Count)
		// Each entry is one kind of linear, present once per layer (an
		// expert's once per routed expert a token visits).
		if l.Expert {
			s.loraActivePerLayer += int64(m.ExpertsActive)
		} else {
			s.loraActivePerLayer++
		}
	}
	s.factored += s.embedMatrices*(s.vocab+s.hidden) + max(vectors, 0)
	if k := m.Kept16; k != nil {
		s.keptFormat, s.keptLinear = k.Format, keptLinearParams(m, k)
	}
	return s
}

// keptLinearParams is how many parameters of the block linears a release
// keeps in 16-bit: every linear of the kept roles, plus one layer's worth
// of the other dense linears (attention, dense MLP, shared experts,
// mixers) for each whole layer kept. Routed experts are never counted.
func keptLinearParams(m Model, k *Kept16) int64 {
	var kept, perLayer int64
	for _, l := range m.LinearShapes() {
		if l.Expert {
			continue
		}
		if slices.Contains(k.Roles, l.Role) {
			kept += l.Params()
			continue
		}
		if l.Role != "router" {
			perLayer += int64(l.In) * int64(l.Out)
		}
	}
	return kept + int64(min(k.WholeLayers, m.Layers))*perLayer
}
