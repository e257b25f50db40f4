package sizing

import "fmt"

const (
	// interNodeBytesPerSec is the link between machines, per machine, for
	// cards without a reference training system: 100 Gb/s-class
	// InfiniBand or Ethernet, 12.5 GB/s (the seeds' "production
	// multi-node" row).
	interNodeBytesPerSec = 12.5e9
	// qloraDequantFactor is the extra time QLoRA spends dequantising NF4
	// weights before every forward and backward matmul (an assumption:
	// bitsandbytes QLoRA runs about 30 % slower than 16-bit LoRA).
	qloraDequantFactor = 1.3
)

// peakFLOPS is the card's dense throughput at the request's precision:
// FP8 where both ask and card have it, TF32 (half of BF16) for fp32, BF16
// (or FP16) otherwise.
func peakFLOPS(g *GPU, p Precision) float64 {
	switch {
	case p == PrecisionFP8 && g.FP8 && g.FP8TFLOPS > 0:
		return g.FP8TFLOPS * 1e12
	case p == PrecisionFP32:
		return g.BF16TFLOPS * 1e12 / 2
	}
	return g.BF16TFLOPS * 1e12
}

// nodeFabricBytesPerSec is the network between machines per machine, one
// direction, for the cards training clusters are built from: the
// reference systems' NICs. DGX H100/H200 and DGX B200: eight ConnectX-7
// at 400 Gb/s (NVIDIA DGX H100/B200 user guides: 8 × 400 Gb/s InfiniBand
// compute fabric), 400 GB/s; DeepSeek-V3's H800 nodes the same (report
// §3.2.2: 8 × 400 Gb/s InfiniBand). DGX A100: eight ConnectX-6 at 200 Gb/s
// (DGX A100 user guide), 200 GB/s. MI300X platforms: eight 400 Gb/s NICs
// (Azure ND MI300X v5: 8 × 400 Gb/s InfiniBand), 400 GB/s, and the same
// for MI325X and MI355X platforms (eight 400 Gb/s Pensando Pollara NICs)
// and HGX H20 boards (built as HGX H100). DGX B300: eight ConnectX-8 at
// 800 Gb/s, 800 GB/s. GB200 / GB300 NVL72, whose "machine" is the
// 72-GPU NVLink rack: one ConnectX-7 400 Gb/s (GB300: ConnectX-8 800
// Gb/s) per GPU, 3.6 TB/s (7.2 TB/s) per rack. DGX-1 with V100: four EDR
// 100 Gb/s ports, 50 GB/s. Any other card: the seeds' 100 Gb/s-class
// production link per machine (interNodeBytesPerSec).
var nodeFabricBytesPerSec = map[string]float64{
	"h100": 400e9, "h200": 400e9, "b200": 400e9, "h20": 400e9, "h800": 400e9,
	"mi300x": 400e9, "mi325x": 400e9, "mi355x": 400e9,
	"b300": 800e9, "gb200": 72 * 50e9, "gb300": 72 * 100e9,
	"a100-80": 200e9, "a100-40": 200e9,
	"v100-32": 50e9, "v100-16": 50e9,
}

// fabricBytesPerSec is the network bandwidth one machine of g has to the
// others.
func fabricBytesPerSec(g *GPU) float64 {
	if bw, ok := nodeFabricBytesPerSec[g.ID]; ok {
		return bw
	}
	return interNodeBytesPerSec
}

// linkBytesPerSec is the slowest link a collective over the request's
// GPUs crosses: the machine's network across machines, the card's own
// link within one.
func linkBytesPerSec(r *Request, g *GPU) float64 {
	if r.Nodes > 1 {
		return fabricBytesPerSec(g)
	}
	return g.LinkBytesPerSec
}

// commBytesPerStep is what each GPU sends per optimizer step under ZeRO
// (ZeRO paper §7) for its tensor- and pipeline-parallel share of the
// trainable parameters, in 16-bit bytes (fp32 training: 4 B), times the
// ring's (N-1)/N over the N data- (and context-) parallel ranks. Stages
// 0-2 reduce the gradients once per optimizer step (reduce-scatter +
// all-gather, 2Ψ; with gradient accumulation the micro-batches before the
// last accumulate locally). Stage 3 gathers the weights for the forward
// and the backward of every micro-batch and reduce-scatters its gradients
// (3Ψ per micro-batch); LoRA gathers the frozen base too. Routed experts
// split by expert parallelism are left out: their few expert-data-parallel
// ranks reduce them over the same links, a small share.
func commBytesPerStep(r *Request, s *shape) float64 {
	n := float64(dataParallel(r) * contextParallel(r))
	if n <= 1 {
		return 0
	}
	eb := 2.0
	if r.Precision == PrecisionFP32 {
		eb = 4
	}
	mp := float64(tensorParallel(r) * pipelineParallel(r))
	psi := float64(s.trainable(r))
	if splitsExperts(r, s) {
		psi -= float64(s.expertLinear)
	}
	psi /= mp
	vol := 2 * psi * eb
	if shardingStage(r) == 3 {
		vol = 3 * psi * eb
		if r.Method == MethodLoRA || r.Method == MethodQLoRA {
			vol += 2 * modelWeightBytes(s, r.Quant, r.Precision) / mp
		}
		vol *= float64(max(r.GradAccumSteps, 1))
	}
	return vol * (n - 1) / n
}

// commSeconds is the time a GPU spends sending vol bytes in a collective
// over the request's GPUs: hierarchically, the share that stays in the
// machine over the card's link and the share that crosses machines over
// the fabric the machine's GPUs share.
func commSeconds(r *Request, g *GPU, vol float64) float64 {
	if vol <= 0 {
		return 0
	}
	nodes := float64(max(r.Nodes, 1))
	perNode := float64(r.GPUs) / nodes
	var sec float64
	if perNode > 1 && g.LinkBytesPerSec > 0 {
		sec += vol / g.LinkBytesPerSec
	}
	if nodes > 1 {
		// Reduced within the machine first, each GPU sends only its 1/perNode
		// shard across: the machine's NICs carry vol × (nodes-1)/nodes in
		// all (NCCL's hierarchical rings and trees).
		sec += vol * (nodes - 1) / nodes / fabricBytesPerSec(g)
	}
	return sec
}

// backwardShare is the part of a step's compute that gradient
// communication can overlap: the backward pass, 4 of the 6 FLOPs per
// parameter and token (DDP and ZeRO-1/2 reduce buckets while backward
// runs).
const backwardShare = 2.0 / 3

// stepTime is one optimizer step on one GPU, in seconds, part by part.
type stepTime struct {
	compute float64 // executed FLOPs at the fitted rates
	bubble  float64 // pipeline idle time
	dp      float64 // gradient synchronisation (all of it, hidden or not)
	layout  layoutComm
	exposed float64 // the share of dp not hidden under compute
	offload float64 // the optimizer step off the GPU: host transfers not hidden, and the CPU's Adam
	shared  float64 // ZeRO-3's collectives' kernels beside the GEMMs: what they take of the compute, hidden or not
	model   float64 // model FLOPs per token (what MFU counts)
}

func (t stepTime) total() float64 {
	// Expert all-to-all overlaps the other micro-batch's compute
	// (DeepSeek-V3's DualPipe, Megatron's --overlap-moe-expert-parallel-comm):
	// only what exceeds the compute adds.
	return t.compute + t.bubble + t.exposed + t.offload + t.shared + t.layout.tp + t.layout.cp + max(0, t.layout.ep-t.compute)
}

// Offloaded optimizer steps (ZeRO-Offload): each GPU sends its shard's
// 16-bit gradients to the host and takes back the updated 16-bit
// weights over PCIe, overlapped with the backward pass where it can be
// (DeepSpeed's overlap_comm), and the host steps Adam on the CPU, which
// nothing hides unless DeepSpeed's one-step delayed update is on.
const (
	// hostLinkBytesPerSec is what a card moves to and from host memory:
	// PCIe Gen4 x16 in practice (about 25 GB/s of its 32).
	hostLinkBytesPerSec = 25e9
	// cpuAdamParamsPerSec is DeepSpeed's CPU-Adam on a two-socket server:
	// about 4 billion parameters a second (ZeRO-Offload, Ren et al. 2021,
	// reports CPU-Adam updating 1B parameters in about 0.25 s).
	cpuAdamParamsPerSec = 4e9
	// nvmeSlowdown is how much slower an NVMe offload's step is than a
	// CPU one: the states stream from the drives each step.
	nvmeSlowdown = 3
)

// offloadSeconds is what an offloaded optimizer step adds to a step
// whose compute takes compute seconds.
func offloadSeconds(r *Request, s *shape, compute float64) float64 {
	trainable := float64(s.trainable(r))
	gpus := float64(max(r.GPUs, 1))
	transfer := 4 * trainable / gpus / hostLinkBytesPerSec // 2 B of gradient out, 2 B of weight back
	adam := trainable / float64(max(r.Nodes, 1)) / cpuAdamParamsPerSec
	sec := max(0, transfer-backwardShare*compute) + adam
	if r.Offload == OffloadNVMe {
		sec *= nvmeSlowdown
	}
	return sec
}

// trainingStep times one optimizer step of r on g. fixedMFU > 0 replaces
// the fitted utilisation with one share of peak.
func trainingStep(r *Request, s *shape, g *GPU, fixedMFU float64) stepTime {
	var st stepTime
	model, executed := trainingFLOPs(r, s)
	st.model = model.sum()
	perToken := secondsPerToken(r, s, g, executed, fixedMFU)
	if perToken <= 0 {
		return st
	}
	gpus := float64(max(r.GPUs, 1))
	accum := float64(max(r.GradAccumSteps, 1))
	microTokens := float64(r.SeqLen) * float64(r.MicroBatch)
	// Each GPU's share of one step's tokens: a micro-batch is split over
	// the TP × CP × PP ranks of one model replica.
	stepTokens := microTokens * accum * float64(dataParallel(r))
	st.compute = stepTokens * perToken / gpus
	st.bubble = st.compute * bubbleFraction(r, s)
	attnShare := 0.0
	if sum := executed.sum(); sum > 0 {
		attnShare = executed.attn / sum
	}
	st.layout = layoutCommSeconds(r, s, g, st.compute*attnShare)
	st.dp = dpCommSeconds(r, s, g)
	if r.Offload != OffloadNone {
		st.offload = offloadSeconds(r, s, st.compute)
	}
	micro := st.compute / accum
	if shardingStage(r) == 3 {
		// The collectives' kernels slow the GEMMs beside them; a transfer
		// longer than the slowed compute (a PCIe box) is the step.
		st.shared = zero3SharedSeconds(r, s, g)
		st.exposed = max(0, st.dp-st.compute-st.shared)
	} else {
		st.exposed = max(0, st.dp-backwardShare*micro)
	}
	return st
}

// trainingSpeed is the training throughput in tokens per second over all
// GPUs, with the seconds per optimizer step spent computing and
// communicating. One step is GradAccumSteps micro-batches per
// data-parallel rank; gradient communication overlaps compute (the
// reduction the last backward, ZeRO-3's gathers every micro-batch's
// compute) and only what does not fit under it adds to the step; tensor-
// and expert-parallel collectives sit between layers and add; the
// pipeline's bubble adds.
func trainingSpeed(r *Request, s *shape, g *GPU, fixedMFU float64) (tokensPerSec, computeSec, commSec float64) {
	st := trainingStep(r, s, g, fixedMFU)
	return st.tokensPerSec(r), st.compute, st.dp + st.layout.sum()
}

// tokensPerSec is the throughput over all GPUs of a step timed as st.
func (t stepTime) tokensPerSec(r *Request) float64 {
	step := t.total()
	if step <= 0 {
		return 0
	}
	return float64(r.SeqLen) * float64(r.MicroBatch) * float64(max(r.GradAccumSteps, 1)) * float64(dataParallel(r)) / step
}

// trainingMFU is the model-FLOPs utilisation a training speed implies,
// for modelFLOPs per token.
func trainingMFU(r *Request, g *GPU, modelFLOPs, tokensPerSec float64) float64 {
	peak := peakFLOPS(g, r.Precision) * float64(max(r.GPUs, 1))
	if peak <= 0 {
		return 0
	}
	return tokensPerSec * modelFLOPs / peak
}

// Decode latency: a decode step at small batch is bound by reading the
// weights, plus a floor the bandwidth term does not see. Each layer
// launches its kernels and, split over GPUs by tensor parallelism, waits
// on two all-reduces (after attention and after the MLP or experts) whose
// cost at a few KB is latency, not bandwidth.
const (
	// layerFloorSec is the per-layer launch and synchronisation cost of
	// one decode step on a CUDA or ROCm GPU with CUDA graphs (an
	// assumption: about ten kernels of ~2 µs).
	layerFloorSec = 20e-6
	// moeLayerFloorSec is what a mixture-of-experts layer adds: the router
	// GEMM, top-k, token permutation and the combine (an assumption of the
	// same kind, a handful more kernels).
	moeLayerFloorSec = 20e-6
	// appleLayerFloorSec is the same on Apple silicon under llama.cpp's
	// Metal backend, fitted to llama.cpp's M-series table (discussion
	// #4167: LLaMA 7B F16, Q8_0 and Q4_0 token generation on M2 Ultra,
	// M3 Max, M4 Max leave ~3.2 ms per token over 32 layers beyond the
	// bandwidth term).
	appleLayerFloorSec = 100e-6
	// appleBandwidthUtilisation is the share of Apple's stated bandwidth
	// a decode step reaches (the same fit: F16 on M4 Max reads 78 %).
	appleBandwidthUtilisation = 0.75
	// Small-message all-reduce latency: NVLink/NVSwitch or Infinity
	// Fabric within a machine ~12 µs, PCIe ~30 µs (NCCL's latency-bound
	// regime at a few KB; assumptions of the right order), across machines
	// over InfiniBand 150 µs: what leaves DeepSeek-R1 on 16 H100 at 23 ms
	// per token under SGLang with --tp 16 over two nodes
	// (tenstorrent/tt-inference-server#356: 43 tokens/s at concurrency 1).
	nvlinkCollectiveSec    = 12e-6
	pcieCollectiveSec      = 30e-6
	interNodeCollectiveSec = 150e-6
)

// decodeBandwidth is the memory bandwidth a decode step reaches on g.
func decodeBandwidth(g *GPU) float64 {
	if g.Link == LinkUnified {
		return g.BandwidthBytesPerSec * appleBandwidthUtilisation
	}
	return g.BandwidthBytesPerSec * bandwidthUtilisation
}

// decodeOverheadSec is the per-token floor of a decode step: per-layer
// launches, and with more than one GPU two all-reduces per layer, over
// the slowest link they cross (serving engines run tensor parallelism
// across machines too, as SGLang's DeepSeek-R1 recipe does with --tp 16
// over two nodes).
func decodeOverheadSec(r *Request, s *shape, g *GPU) float64 {
	floor := layerFloorSec
	if g.Link == LinkUnified {
		floor = appleLayerFloorSec
	}
	var coll float64
	switch {
	case r.GPUs <= 1:
	case r.Nodes > 1:
		coll = interNodeCollectiveSec
	case g.Link == LinkPCIe:
		coll = pcieCollectiveSec
	default:
		coll = nvlinkCollectiveSec
	}
	return float64(s.layers)*(floor+2*coll) + float64(s.moeLayers)*moeLayerFloorSec
}

// inferenceSpeed is decode tokens per second over all concurrent requests
// (each step reads the weights a token needs, split over the GPUs, and
// the KV cache at full context, at the card's decode bandwidth, plus the
// per-token floor of decodeOverheadSec) and prefill tokens per second
// (compute-bound: PrefillFLOPsPerToken at the fitted GEMM efficiency, or
// at fixedMFU when set).
func inferenceSpeed(r *Request, s *shape, g *GPU, fixedMFU float64) (decode, prefill float64) {
	gpus := float64(max(r.GPUs, 1))
	batch := int64(max(r.MicroBatch, 1))
	weights := decodeReadBytes(s, r.Quant, r.Precision, batch)
	kv := kvCacheBytes(s, int64(r.SeqLen), batch, kvElemBytes(r.KVPrecision)) * kvShare(s, r.GPUs, r.Nodes)
	perGPU := weights/gpus + kv
	if bw := decodeBandwidth(g); bw > 0 && perGPU > 0 {
		decode = float64(batch) / (perGPU/bw + decodeOverheadSec(r, s, g))
	}
	if peak := peakFLOPS(g, r.Precision) * prefillShare(r, s, g, fixedMFU); peak > 0 && s.active > 0 {
		prefill = gpus * peak / prefillFLOPsPerToken(r, s)
	}
	return decode, prefill
}

// runSpeed is the tokens per second a run of r on g goes at: training
// throughput, or decode throughput for inference (what a token budget
// counts); an encoder decodes nothing, so its tokens go at the forward
// pass's (prefill) rate, as a batch job of documents does.
func runSpeed(r *Request, s *shape, g *GPU, mfu float64) float64 {
	if r.Method == MethodInference {
		decode, prefill := inferenceSpeed(r, s, g, mfu)
		if s.encoderOnly {
			return prefill
		}
		return decode
	}
	if r.MFU > 0 {
		model, _ := trainingFLOPs(r, s)
		return askedMFUSpeed(r, g, model.sum())
	}
	tps, _, _ := trainingSpeed(r, s, g, mfu)
	return tps
}

// askedMFUSpeed is the training speed over all of r's GPUs at the MFU the
// question said (Request.MFU): modelFLOPs per token at that share of the
// cards' dense peak. A measured MFU is the whole step's, communication
// and pipeline bubbles included, so nothing is added to it.
func askedMFUSpeed(r *Request, g *GPU, modelFLOPs float64) float64 {
	if modelFLOPs <= 0 {
		return 0
	}
	return r.MFU * peakFLOPS(g, r.Precision) * float64(max(r.GPUs, 1)) / modelFLOPs
}

// RunGoodput is the share of a run's wall-clock time spent training:
// checkpoint saves, evaluations and restarts after failures take the rest
// (Llama 3 paper §3.3.4: "higher than 90% effective training time" on
// 16,384 H100s). Whole-run hours divide by it; tokens per second do not.
const RunGoodput = 0.9

// RoundRunTokens is the run an answer times when the question gives no
// budget: the round 1B tokens of the speed line, a fastest ask and a
// comparison's cost per run.
const RoundRunTokens = 1e9

// RunHours is how long a run of tokens takes at tps tokens per second,
// with RunGoodput's share of the wall clock spent training: every run
// time an answer gives, with a budget said or the round 1B without one.
func RunHours(tokens, tps float64) float64 {
	return tokens / tps / 3600 / RunGoodput
}

// runHoursAt is how long r's token budget takes at tps: a training run at
// its goodput (runGoodput), an inference run's tokens in jobHours (no
// training goodput).
func runHoursAt(r *Request, tps float64) float64 {
	if r.Method == MethodInference {
		return jobHours(r.Tokens, tps)
	}
	return runHoursFor(r, float64(r.Tokens), tps)
}

// runHours is how long r's token budget takes on g; false without a
// budget or a speed.
func runHours(r *Request, s *shape, g *GPU, mfu float64) (float64, bool) {
	if r.Tokens <= 0 {
		return 0, false
	}
	tps := runSpeed(r, s, g, mfu)
	if tps <= 0 {
		return 0, false
	}
	return runHoursAt(r, tps), true
}

// throughput fills the speed, time and cost of a request on a card, the
// FLOPs per token counted and the MFU they imply. fixedMFU > 0 replaces
// the fitted utilisation.
func throughput(r *Request, s *shape, g *GPU, fixedMFU float64, price *Price) (Throughput, []string) {
	var t Throughput
	var warnings []string
	var tps float64
	if r.Method == MethodInference {
		decode, prefill := inferenceSpeed(r, s, g, fixedMFU)
		tps = decode
		if prefill > 0 {
			t.PrefillTokensPerSecond = &prefill
			f := prefillFLOPsPerToken(r, s)
			t.FLOPsPerToken = &f
			if peak := peakFLOPS(g, r.Precision) * float64(max(r.GPUs, 1)); peak > 0 {
				u := prefill * f / peak
				t.MFU = &u
			}
		}
		if s.encoderOnly {
			// An encoder decodes nothing: its speed is the forward pass.
			tps = 0
			if prefill > 0 && r.SeqLen > 0 {
				seqs := prefill / float64(r.SeqLen)
				t.SequencesPerSecond = &seqs
			}
			if prefill > 0 && r.Tokens > 0 {
				// Its tokens (a batch job's documents) go at that rate.
				h := runHoursAt(r, prefill)
				t.Hours = &h
			}
		}
	} else {
		st := trainingStep(r, s, g, fixedMFU)
		tps = st.tokensPerSec(r)
		if r.MFU > 0 {
			tps = askedMFUSpeed(r, g, st.model)
		}
		if tps > 0 {
			f := st.model
			u := trainingMFU(r, g, st.model, tps)
			t.FLOPsPerToken, t.MFU = &f, &u
		}
		if comm := st.dp + st.layout.sum(); comm > st.compute && st.compute > 0 && r.MFU == 0 {
			warnings = append(warnings, commWarning(r, s, g, st))
		}
		if r.Offload != OffloadNone && st.offload > 0 {
			warnings = append(warnings, fmt.Sprintf("%s offload steps the optimizer off the GPU: %.1f s a step on top of %.1f s of compute (PCIe transfers at %.0f GB/s and CPU-Adam at %.0fB parameters/s); more gradient accumulation spreads it over more tokens",
				r.Offload, st.offload, st.compute, hostLinkBytesPerSec/1e9, cpuAdamParamsPerSec/1e9))
		}
	}
	if tps > 0 {
		t.TokensPerSecond = &tps
		if r.Tokens > 0 {
			h := runHoursAt(r, tps)
			t.Hours = &h
		}
		if r.Method != MethodInference {
			g, basis := runGoodput(r)
			if basis != GoodputStep {
				t.Goodput = &g
			}
			t.GoodputBasis = basis
		}
	}
	if price != nil {
		perHour := price.USDPerGPUHour * float64(r.GPUs)
		t.USDPerHour = &perHour
		if t.Hours != nil {
			total := perHour * *t.Hours
			t.USDTotal = &total
		}
	}
	return t, warnings
}

// commWarning says what makes a step communication-bound.
func commWarning(r *Request, s *shape, g *GPU, st stepTime) string {
	if st.layout.sum() > st.dp {
		return fmt.Sprintf("communication-bound: the %s layout spends %.2f s per step in tensor-, context- and expert-parallel collectives against %.2f s of compute; keep tensor parallelism inside one machine",
			layoutName(r), st.layout.sum(), st.compute)
	}
	return fmt.Sprintf("communication-bound: ZeRO-%d moves %.1f GB per GPU per optimizer step over %s (%.0f GB/s), %.1f s against %.1f s of compute; larger micro-batches or gradient accumulation amortise it",
		r.ZeROStage, commBytesPerStep(r, s)/1e9, linkName(r, g), linkBytesPerSec(r, g)/1e9, st.dp, st.compute)
}

// linkName says which link a collective crosses, for warnings.
func linkName(r *Request, g *GPU) string {
	if r.Nodes > 1 {
		return "the network between machines"
	}
	switch g.Link {
	case LinkNVLink:
		return "NVLink"
	case LinkPCIe:
		return "PCIe"
	}
	return g.Link
}

// zero3SharedBytes is what ZeRO-3's per-micro-batch collectives cost the
// compute beside them, in bytes of the card's memory traffic per byte
// sent: NCCL's all-gather and reduce-scatter kernels run on the same SMs
// and read and write the same HBM as the GEMMs they overlap, so even a
// transfer hidden under compute slows it. The traffic is 3 × 2Ψ bytes
// per micro-batch against 6Ψ·T FLOPs, so the cost falls as 1/T (tokens
// per micro-batch per GPU) whatever the model's size and the machines'
// count. Fitted (one coefficient) to llm-foundry's 13B rows at 2,048 ×
// micro-batch 2 with FULL_SHARD on 8-64 H100, flat at 4,767-4,811
// tokens/s/GPU, which the step's compute alone put at 5,891; the same
// figure holds its 70B rows at micro-batch 2 and 8 alike (H100 and
// A100), whose measured ratio (882 against 1,039) the compute alone did
// not see.
const zero3SharedBytes = 7

// zero3SharedSeconds is the time ZeRO-3's collectives take from a step's
// compute (zero3SharedBytes): its traffic per GPU over the card's memory
// bandwidth.
func zero3SharedSeconds(r *Request, s *shape, g *GPU) float64 {
	if g.BandwidthBytesPerSec <= 0 {
		return 0
	}
	return zero3SharedBytes * commBytesPerStep(r, s) / g.BandwidthBytesPerSec
}
