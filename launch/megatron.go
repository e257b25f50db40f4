package launch

import (
	"fmt"
	"strconv"

	"github.com/fitbot/fitbot/sizing"
)

// megatronLayersPerVirtualStage is the interleaving fitbot's estimate
// assumes (sizing's virtual stages of about four layers).
const megatronLayersPerVirtualStage = 4

// hasModelParallel reports whether a training plan splits the model
// (tensor, pipeline or context parallelism), which DeepSpeed and
// Accelerate/FSDP configs cannot express.
func hasModelParallel(r sizing.Request) bool {
	return r.TensorParallel > 1 || r.PipelineParallel > 1 || r.ContextParallel > 1
}

// dataParallel is the data-parallel degree of a layout.
func dataParallel(r sizing.Request) int {
	return max(r.GPUs/(max(r.TensorParallel, 1)*max(r.PipelineParallel, 1)*max(r.ContextParallel, 1)), 1)
}

// megatronArch is the architecture Megatron's flags describe: the catalog
// model, or the shape fitbot derives for a bare size.
func megatronArch(r sizing.Request) (sizing.Model, bool) {
	if r.Model != "" {
		if m, _, err := sizing.LookupModel(r.Model); err == nil {
			return m, true
		}
	}
	if r.Params > 0 && r.Model == "" {
		return sizing.BareModel(r.Params, 0), true
	}
	return sizing.Model{}, false
}

func emitMegatron(p Plan) (Config, error) {
	r := p.Request
	switch {
	case !training(r):
		return Config{}, &Unsupported{Kind: KindMegatron, Reason: "Megatron-LM trains models and this answer serves one", Try: DefaultKind(r)}
	case r.Method != sizing.MethodFull:
		return Config{}, &Unsupported{Kind: KindMegatron, Reason: fmt.Sprintf("Megatron-LM's pretrain_gpt.py trains every weight; %s adapters need PEFT", r.Method), Try: KindDeepSpeed}
	case r.Offload != sizing.OffloadNone:
		return Config{}, &Unsupported{Kind: KindMegatron, Reason: "the answer offloads to the host, which Megatron-LM's distributed optimizer does not", Try: KindDeepSpeed}
	}
	m, ok := megatronArch(r)
	switch {
	case !ok:
		return Config{}, &Unsupported{Kind: KindMegatron, Reason: "fitbot has no architecture for this model to write Megatron's network flags (name a catalog model or a bare size)", Try: KindDeepSpeed}
	case m.MLA() || m.Kind != sizing.KindDecoder || m.LinearAttnLayers > 0:
		return Config{}, &Unsupported{Kind: KindMegatron, Reason: fmt.Sprintf("%s needs Megatron flags fitbot does not write (multi-latent or linear attention, or not a decoder); start from Megatron-LM's example for it", m.Name), Try: KindDeepSpeed}
	}
	tp, pp, cp, ep := max(r.TensorParallel, 1), max(r.PipelineParallel, 1), max(r.ContextParallel, 1), max(r.ExpertParallel, 1)
	nodes := max(r.Nodes, 1)
	var args []string
	if tp > 1 || cp > 1 {
		// megatron/training/arguments.py validate_args asserts it before
		// Blackwell (and it orders TP's and CP's communication kernels
		// first on any card).
		args = append(args, "CUDA_DEVICE_MAX_CONNECTIONS=1")
	}
	args = append(args, "torchrun", "--nproc-per-node", strconv.Itoa(max(r.GPUs/nodes, 1)), "--nnodes", strconv.Itoa(nodes),
		"pretrain_gpt.py",
		"--tensor-model-parallel-size", strconv.Itoa(tp),
		"--pipeline-model-parallel-size", strconv.Itoa(pp),
		"--context-parallel-size", strconv.Itoa(cp))
	var uneven string
	if pp > 1 && m.Layers%pp == 0 {
		if per := m.Layers / pp; per > megatronLayersPerVirtualStage && per%megatronLayersPerVirtualStage == 0 {
			args = append(args, "--num-layers-per-virtual-pipeline-stage", strconv.Itoa(megatronLayersPerVirtualStage))
		}
	} else if pp > 1 {
		first, last, middle := unevenStages(m.Layers, pp)
		args = append(args, "--decoder-first-pipeline-num-layers", strconv.Itoa(first), "--decoder-last-pipeline-num-layers", strconv.Itoa(last))
		uneven = fmt.Sprintf("%d layers do not divide into %d pipeline stages: --decoder-first-pipeline-num-layers %d and --decoder-last-pipeline-num-layers %d put %d and %d layers on the first and last stage (which also hold the embedding and the loss)", m.Layers, pp, first, last, first, last)
		if pp > 2 {
			uneven += fmt.Sprintf(" and %d on each of the %d middle stages, the most any stage holds, as the estimate sized it; no interleaving (Megatron needs even stages for --num-layers-per-virtual-pipeline-stage)", middle, pp-2)
		}
	}
	if tp > 1 {
		args = append(args, "--sequence-parallel")
	}
	if r.ZeROStage >= 1 || r.Optimizer == sizing.OptimizerAdamW8bit {
		args = append(args, "--use-distributed-optimizer", "--overlap-param-gather")
	}
	if r.Optimizer == sizing.OptimizerAdamW8bit {
		// Megatron-LM has no bitsandbytes 8-bit AdamW. Transformer Engine's
		// precision-aware Adam keeps the moments in FP8 beside the fp32
		// master weights: the same 6 bytes per parameter the estimate
		// sized. megatron/training/arguments.py: --exp-avg-dtype and
		// --exp-avg-sq-dtype take fp32, fp16, bf16 or fp8; the optimizer
		// runs only with the distributed optimizer
		// (megatron/core/optimizer/__init__.py).
		args = append(args, "--use-precision-aware-optimizer", "--exp-avg-dtype", "fp8", "--exp-avg-sq-dtype", "fp8")
	}
	if dataParallel(r) > 1 {
		args = append(args, "--overlap-grad-reduce")
	}
	args = append(args,
		"--num-layers", strconv.Itoa(m.Layers),
		"--hidden-size", strconv.Itoa(m.Hidden),
		"--ffn-hidden-size", strconv.Itoa(m.Intermediate),
		"--num-attention-heads", strconv.Itoa(m.Heads),
		"--kv-channels", strconv.Itoa(m.HeadDim))
	if m.KVHeads > 0 && m.KVHeads != m.Heads {
		args = append(args, "--group-query-attention", "--num-query-groups", strconv.Itoa(m.KVHeads))
	}
	if m.MoE() {
		args = append(args, "--num-experts", strconv.Itoa(m.Experts), "--moe-router-topk", strconv.Itoa(m.ExpertsActive),
			"--expert-model-parallel-size", strconv.Itoa(ep))
		if tp > 1 {
			// The estimate splits experts by EP only. Megatron's expert
			// tensor parallelism defaults to TP, and then needs the GPUs
			// divisible by ETP × EP × PP (megatron/core/parallel_state.py),
			// which TP 4 × EP 4 × PP 2 on 8 GPUs is not.
			args = append(args, "--expert-tensor-parallel-size", "1")
		}
	}
	if m.MLP == sizing.MLPGated {
		args = append(args, "--swiglu")
	}
	if m.Norm == sizing.NormRMS {
		args = append(args, "--normalization", "RMSNorm")
	}
	if m.PositionEmbeddings == 0 {
		args = append(args, "--position-embedding-type", "rope")
	}
	if !m.TiedEmbeddings {
		args = append(args, "--untie-embeddings-and-output-weights")
	}
	args = append(args, "--disable-bias-linear",
		"--seq-length", strconv.Itoa(r.SeqLen),
		"--max-position-embeddings", strconv.Itoa(max(r.SeqLen, m.MaxContext)),
		"--micro-batch-size", strconv.Itoa(max(r.MicroBatch, 1)),
		"--global-batch-size", strconv.Itoa(max(r.MicroBatch, 1)*gradAccum(r)*dataParallel(r)))
	switch r.Precision {
	case sizing.PrecisionFP16:
		args = append(args, "--fp16")
	case sizing.PrecisionFP8:
		args = append(args, "--bf16", "--fp8-format", "hybrid")
	case sizing.PrecisionFP32:
	default:
		args = append(args, "--bf16")
	}
	if r.GradCheckpointing {
		args = append(args, "--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1")
	}
	if r.FusedLoss {
		args = append(args, "--cross-entropy-loss-fusion")
	}
	if r.Tokens > 0 {
		perStep := int64(r.SeqLen) * int64(max(r.MicroBatch, 1)*gradAccum(r)*dataParallel(r))
		args = append(args, "--train-iters", strconv.FormatInt((r.Tokens+perStep-1)/perStep, 10))
	}
	notes := []string{
		fmt.Sprintf("layout TP %d × PP %d × CP %d × DP %d (EP %d) over %d GPUs, as the estimate sized it", tp, pp, cp, dataParallel(r), ep, r.GPUs),
		"add the data and tokenizer flags (--data-path, --tokenizer-type, --tokenizer-model), the optimizer's learning rate and schedule, and --save/--load; run from a Megatron-LM checkout",
		megatronOptimizerNote(r.Optimizer),
	}
	if uneven != "" {
		notes = append(notes, uneven)
	}
	if tp > 1 || cp > 1 {
		notes = append(notes, "CUDA_DEVICE_MAX_CONNECTIONS=1: Megatron-LM refuses tensor or context parallelism without it before Blackwell; keep it in each machine's environment")
	}
	if nodes > 1 {
		notes = append(notes, fmt.Sprintf("%d machines: run the command on each with --node-rank and --master-addr/--master-port (torchrun's rendezvous)", nodes))
	}
	if r.Precision == sizing.PrecisionPureBF16 {
		notes = append(notes, "the estimate sized pure bf16 (no fp32 master copy); Megatron's --bf16 keeps fp32 main weights in the optimizer, about 4 bytes more per parameter shard")
	}
	if r.ZeROStage >= 2 {
		notes = append(notes, fmt.Sprintf("the estimate sized ZeRO-%d; Megatron's distributed optimizer shards the optimizer states only (ZeRO-1), so expect more memory for gradients and weights than the answer shows", r.ZeROStage))
	}
	return Config{Kind: KindMegatron, Filename: "megatron_pretrain.sh", Text: shellCommand(args), Notes: notes}, nil
}

// unevenStages splits layers over pp > 1 pipeline stages that do not
// divide them: each middle stage holds ceil(layers/pp), the most the
// estimate puts on a stage, and the first and last share the rest, the
// last no more than the first (it also holds the loss); both hold at
// least one layer (megatron/core/transformer/transformer_config.py).
func unevenStages(layers, pp int) (first, last, middle int) {
	if pp == 2 {
		return (layers + 1) / 2, layers / 2, 0
	}
	for middle = (layers + pp - 1) / pp; middle > 0; middle-- {
		if rest := layers - middle*(pp-2); rest >= 2 {
			return (rest + 1) / 2, rest / 2, middle
		}
	}
	return 1, 1, 0 // unreachable for layers >= pp
}

// megatronOptimizerNote says how Megatron-LM runs the optimizer the
// estimate sized.
func megatronOptimizerNote(o sizing.Optimizer) string {
	switch o {
	case sizing.OptimizerAdamW:
		return "optimizer adamw: Megatron-LM runs Adam (AdamW with --weight-decay)"
	case sizing.OptimizerAdamW8bit:
		return "optimizer 8-bit AdamW: Megatron-LM has no bitsandbytes optimizer; Transformer Engine's precision-aware Adam with FP8 moments (--use-precision-aware-optimizer --exp-avg-dtype fp8 --exp-avg-sq-dtype fp8, with the distributed optimizer) holds the same 6 bytes per parameter; bf16 moments are the safer choice at 8"
	case sizing.OptimizerSGD, sizing.OptimizerSGDMomentum:
		return fmt.Sprintf("optimizer %s: add --optimizer sgd (with --sgd-momentum as wanted); Megatron-LM runs Adam otherwise", o)
	}
	return fmt.Sprintf("optimizer %s: Megatron-LM has no %s; its Adam holds 12 bytes per parameter, more than the estimate sized", o, o)
}
