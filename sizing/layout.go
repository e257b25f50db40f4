package sizing

import (
	"fmt"
	"math"
	"strings"
)

// Parallel layouts as Megatron-LM and torchtitan build them. A training
// run's GPUs = TP × CP × DP × PP, rank order TP innermost, then CP, DP and
// PP outermost (Megatron's default order tp-cp-ep-dp-pp), so tensor- and
// context-parallel groups stay inside a machine when they fit one.
//
//   - Tensor parallelism (Shoeybi et al. 2019) splits every linear layer
//     over TP GPUs; with sequence parallelism (Korthikanti et al. 2022, §4.2)
//     it splits all of a layer's activations too. Each layer does two
//     all-reduce-sized collectives in the forward and two in the backward
//     (two more when checkpointing replays the forward), each of
//     2(TP-1)/TP × tokens × hidden × 2 B.
//   - Pipeline parallelism puts L/PP layers on each stage. Under 1F1B the
//     first stage holds PP micro-batches' activations, the interleaved
//     schedule with V virtual stages ×(1 + (PP-1)/(PP·V)) (Korthikanti
//     §4.2.3); the bubble adds (PP-1)/(V·m) of the compute for m
//     micro-batches per step (Narayanan et al. 2021).
//   - Context parallelism splits each sequence over CP GPUs (ring
//     attention): activations ÷ CP; each layer passes K and V around the
//     ring, (CP-1) chunks forward and twice that backward, hidden under the
//     attention compute where it can be.
//   - Expert parallelism puts E/EP routed experts on each rank; tokens go
//     to them by all-to-all (dispatch and combine, forward and backward).
//   - Data parallelism (DDP, ZeRO, FSDP) over the remaining ranks reduces
//     gradients once per step over the machines' network.

// virtualStagesTarget is how many layers a virtual pipeline stage holds
// when fitbot picks the interleaving: NeMo's recipes run 2-4 (GPT-3 175B:
// 96 layers, PP 8, VP 6; Llama 3 70B: 80 layers, PP 4, VP 5).
const virtualStagesTarget = 4

func tensorParallel(r *Request) int   { return max(r.TensorParallel, 1) }
func pipelineParallel(r *Request) int { return max(r.PipelineParallel, 1) }
func contextParallel(r *Request) int  { return max(r.ContextParallel, 1) }

// expertParallelDegree is the ranks the routed experts are split over.
func expertParallelDegree(r *Request) int { return max(r.ExpertParallel, 1) }

// layoutHow says how Megatron-LM runs each part of a layout that is
// there: sequence parallel with tensor parallel, the 1F1B pipeline and
// its interleaving, ring attention for context parallel.
func layoutHow(r *Request, s *shape) string {
	var parts []string
	if tensorParallel(r) > 1 {
		parts = append(parts, "sequence parallel with tensor parallel")
	}
	if pipelineParallel(r) > 1 {
		switch v := virtualStages(r, s); v {
		case 1:
			parts = append(parts, "1F1B pipeline, not interleaved")
		default:
			parts = append(parts, fmt.Sprintf("1F1B pipeline with %d virtual stages per GPU", v))
		}
	}
	if contextParallel(r) > 1 {
		parts = append(parts, "ring attention for context parallel")
	}
	return strings.Join(parts, ", ")
}

// zeroRanks is how many ranks ZeRO can shard a GPU's states over: the
// data- and context-parallel ranks holding the same part of the model,
// or for split experts the GPUs per expert-parallel group and stage
// (trainingMemory's nDense and nExpert). ZeRO shards across data-parallel
// ranks only (DeepSpeed's ZeRO paper, Megatron's distributed optimizer);
// at 1 it shards nothing.
func zeroRanks(r *Request, s *shape) int {
	gpus, pp := max(r.GPUs, 1), pipelineParallel(r)
	n := max(gpus/(tensorParallel(r)*pp), 1)
	if splitsExperts(r, s) {
		n = max(n, gpus/(expertParallelDegree(r)*pp))
	}
	return n
}

// shardingStage is the ZeRO stage a request's memory and communication
// follow: the asked one, except that under a pipeline the weights and
// gradients of a stage stay gathered across its micro-batches (torchtitan
// turns FSDP's reshard_after_forward off with pipeline parallelism, and
// DeepSpeed refuses ZeRO-2/3 with its pipeline engine), so only the
// optimizer states are sharded: ZeRO-1. Offload keeps its own stage.
func shardingStage(r *Request) int {
	if pipelineParallel(r) > 1 && r.ZeROStage > 1 && r.Offload == OffloadNone {
		return 1
	}
	return r.ZeROStage
}

// hasLayout reports whether the request uses any model parallelism.
func hasLayout(r *Request) bool {
	return tensorParallel(r) > 1 || pipelineParallel(r) > 1 || contextParallel(r) > 1
}

// dataParallel is the data-parallel degree: the GPUs left after tensor,
// context and pipeline parallelism.
func dataParallel(r *Request) int {
	return max(r.GPUs/(tensorParallel(r)*pipelineParallel(r)*contextParallel(r)), 1)
}

// splitsExperts reports whether the routed experts are split over ranks
// (expert parallelism) rather than replicated: full training of a mixture
// of experts with EP above one.
func splitsExperts(r *Request, s *shape) bool {
	return r.Method == MethodFull && s.expertLinear > 0 && expertParallelDegree(r) > 1
}

// virtualStages is the interleaving of a pipeline: the virtual stages per
// GPU that leave about virtualStagesTarget layers each, 1 without a
// pipeline.
func virtualStages(r *Request, s *shape) int {
	pp := pipelineParallel(r)
	if pp <= 1 {
		return 1
	}
	return max(int(s.layers)/(pp*virtualStagesTarget), 1)
}

// inFlight is the micro-batches whose activations the busiest pipeline
// stage holds at once: PP under 1F1B (fewer when the step has fewer), more
// with interleaving; 1 without a pipeline.
func inFlight(r *Request, s *shape) float64 {
	pp := pipelineParallel(r)
	if pp <= 1 {
		return 1
	}
	m := float64(min(pp, max(r.GradAccumSteps, 1)))
	v := float64(virtualStages(r, s))
	if v > 1 {
		m *= 1 + float64(pp-1)/(float64(pp)*v)
	}
	return m
}

// bubbleFraction is the pipeline's idle time as a share of its compute:
// (PP-1)/(V·m).
func bubbleFraction(r *Request, s *shape) float64 {
	pp := pipelineParallel(r)
	if pp <= 1 {
		return 0
	}
	m := float64(max(r.GradAccumSteps, 1))
	return float64(pp-1) / (float64(virtualStages(r, s)) * m)
}

// gpusPerMachine is how many of the request's GPUs share one machine.
func gpusPerMachine(r *Request) int { return max(r.GPUs/max(r.Nodes, 1), 1) }

// groupBytesPerSec is the per-GPU bandwidth of a collective over a group
// of size ranks spaced stride apart in rank order: the card's link when
// the group fits in one machine, the GPU's share of the machine's network
// otherwise.
func groupBytesPerSec(r *Request, g *GPU, size, stride int) float64 {
	if size*stride <= gpusPerMachine(r) && g.LinkBytesPerSec > 0 {
		return g.LinkBytesPerSec
	}
	return fabricBytesPerSec(g) / float64(gpusPerMachine(r))
}

// layoutComm is the communication of one optimizer step on one GPU under
// a layout, in seconds: tensor-parallel collectives (exposed), the
// context-parallel ring (what the attention compute does not hide) and
// the expert all-to-all (exposed).
type layoutComm struct {
	tp, cp, ep float64
}

func (c layoutComm) sum() float64 { return c.tp + c.cp + c.ep }

// layoutCommSeconds is what a step's model parallelism costs each GPU.
// attnSec is the step's attention compute on the GPU, under which the
// context-parallel ring hides.
func layoutCommSeconds(r *Request, s *shape, g *GPU, attnSec float64) layoutComm {
	var c layoutComm
	tp, pp, cp := tensorParallel(r), pipelineParallel(r), contextParallel(r)
	accum := float64(max(r.GradAccumSteps, 1))
	tokens := float64(r.SeqLen) * float64(r.MicroBatch) / float64(cp) // per micro-batch on this GPU
	layers := math.Ceil(float64(s.layers) / float64(pp))
	if tp > 1 {
		colls := 4.0
		if r.GradCheckpointing {
			colls = 6
		}
		vol := 2 * float64(tp-1) / float64(tp) * tokens * float64(s.hidden) * 2
		c.tp = accum * layers * colls * vol / groupBytesPerSec(r, g, tp, 1)
	}
	if cp > 1 {
		kv := 2 * tokens * float64(s.kvDim) / float64(tp) * 2
		passes := 3.0
		if r.GradCheckpointing {
			passes = 4
		}
		vol := accum * layers * passes * float64(cp-1) * kv
		c.cp = max(0, vol/groupBytesPerSec(r, g, cp, tp)-attnSec)
	}
	if splitsExperts(r, s) {
		ep := expertParallelDegree(r)
		moeLayers := math.Ceil(float64(s.moeLayers) / float64(pp))
		vol := accum * 4 * tokens * float64(s.expertsActive) * float64(s.hidden) * 2 * moeLayers * float64(ep-1) / float64(ep)
		c.ep = vol / groupBytesPerSec(r, g, ep, tp)
	}
	return c
}

// dpCommSeconds is the gradient synchronisation of one step on one GPU:
// commBytesPerStep over the data-parallel group (with context parallelism
// Megatron reduces over DP × CP). Within a machine it runs on the card's
// link; across machines each GPU's share crosses the network, reduced
// first over the group's ranks in the same machine.
func dpCommSeconds(r *Request, s *shape, g *GPU) float64 {
	vol := commBytesPerStep(r, s)
	if vol <= 0 {
		return 0
	}
	if !hasLayout(r) {
		return commSeconds(r, g, vol)
	}
	mp := tensorParallel(r) * contextParallel(r)
	local := max(gpusPerMachine(r)/mp, 1) // ranks of one DP group per machine
	if local >= dataParallel(r) && g.LinkBytesPerSec > 0 {
		return vol / g.LinkBytesPerSec
	}
	var sec float64
	if local > 1 && g.LinkBytesPerSec > 0 {
		sec += vol / g.LinkBytesPerSec
	}
	perGPU := fabricBytesPerSec(g) / float64(gpusPerMachine(r))
	return sec + vol/float64(local)/perGPU
}

// layoutName writes a layout the way Megatron's and torchtitan's users
// do: "TP 8 × PP 16 × CP 2 × DP 64".
func layoutName(r *Request) string {
	out := ""
	add := func(name string, v int) {
		if v > 1 {
			if out != "" {
				out += " × "
			}
			out += fmt.Sprintf("%s %d", name, v)
		}
	}
	add("TP", tensorParallel(r))
	add("PP", pipelineParallel(r))
	add("CP", contextParallel(r))
	add("EP", expertParallelDegree(r))
	add("DP", dataParallel(r))
	if out == "" {
		return "one GPU"
	}
	return out
}

// fitLayout keeps a request's layout valid when a search moves it to
// another GPU count or card: a tensor, pipeline and context layout that
// does not divide the new count (or a tensor-parallel group wider than a
// machine of perNode) falls back to none, and expert parallelism to the
// widest that divides a stage's GPUs.
func fitLayout(r *Request, perNode int) {
	mp := tensorParallel(r) * pipelineParallel(r) * contextParallel(r)
	if mp > 1 && (r.GPUs%mp != 0 || tensorParallel(r) > max(perNode, 1)) {
		r.TensorParallel, r.PipelineParallel, r.ContextParallel = 1, 1, 1
	}
	for ep := expertParallelDegree(r); ep > 1 && (r.GPUs/pipelineParallel(r))%ep != 0; ep /= 2 {
		r.ExpertParallel = ep / 2
	}
	if r.GPUs <= 1 {
		r.ExpertParallel = 1
	}
}

// Layout writes a training request's parallel layout for people, "TP 8 ×
// PP 16 × CP 2 × DP 64", or "" when it has no tensor, pipeline or context
// parallelism (plain data parallelism, or serving).
func Layout(r Request) string {
	if r.Method == MethodInference || !hasLayout(&r) {
		return ""
	}
	return layoutName(&r)
}
