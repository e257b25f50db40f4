package sizing

import (
	"fmt"
	"slices"
	"strings"
)

// maxExpertParallel is the widest expert-parallel group fitbot picks:
// DeepSeek-V3 trained with EP 64 over eight machines (technical report
// §3.2.2), the widest published.
const maxExpertParallel = 64

// resolveLayout takes the parallel layout the question asked, checks it
// against the GPUs, and gives a mixture of experts expert parallelism when
// none was said.
func (rs *resolved) resolveLayout(q Query) error {
	r := &rs.req
	asked := q.TensorParallel > 1 || q.PipelineParallel > 1 || q.ContextParallel > 1 || q.ExpertParallel > 1
	r.TensorParallel, r.PipelineParallel = max(q.TensorParallel, 1), max(q.PipelineParallel, 1)
	r.ContextParallel, r.ExpertParallel = max(q.ContextParallel, 1), max(q.ExpertParallel, 1)
	if r.Method == MethodInference {
		nodes := max(r.Nodes, 1)
		sized := (q.TensorParallel <= 1 || q.TensorParallel == r.GPUs/nodes) && (q.PipelineParallel <= 1 || q.PipelineParallel == nodes) &&
			q.ContextParallel <= 1 && q.ExpertParallel <= 1
		if asked && !sized { // tensor parallel over a machine's GPUs, pipeline stages across machines is what is sized
			rs.notes = append(rs.notes, "the parallel layout asked (tp/pp/cp/ep) is not sized on its own in serving: the weights and KV cache are split evenly over the GPUs, as tensor parallelism splits them; pipeline parallelism splits the layers instead, which takes about the same memory per GPU")
		}
		r.TensorParallel, r.PipelineParallel, r.ContextParallel, r.ExpertParallel = 1, 1, 1, 1
		return nil
	}
	mp := r.TensorParallel * r.PipelineParallel * r.ContextParallel
	try := fmt.Sprintf("fit %s full %d %s tp 8 pp 4", ifEmpty(r.Model, "llama-3.1-70b"), max(r.GPUs, 32), ifEmpty(r.GPU, "h100"))
	if r.GPUs%mp != 0 {
		return inputErr(try, "tensor × pipeline × context parallel = %d does not divide %d GPUs", mp, r.GPUs)
	}
	if int64(r.PipelineParallel) > rs.shape.layers {
		return inputErr(try, "%d pipeline stages for %d layers: a stage needs at least one layer", r.PipelineParallel, rs.shape.layers)
	}
	if r.TensorParallel > 1 && rs.shape.heads > 0 && rs.shape.heads%int64(r.TensorParallel) != 0 {
		return inputErr(try, "tensor parallel %d does not divide the model's %d attention heads", r.TensorParallel, rs.shape.heads)
	}
	if r.ExpertParallel > 1 {
		if rs.shape.experts == 0 {
			return inputErr(try, "expert parallelism needs a mixture-of-experts model; %s has no routed experts", rs.model.Name)
		}
		if int64(r.ExpertParallel) > rs.shape.experts || (r.GPUs/r.PipelineParallel)%r.ExpertParallel != 0 {
			return inputErr(try, "expert parallel %d must divide the %d GPUs of a pipeline stage and not exceed the %d experts",
				r.ExpertParallel, r.GPUs/r.PipelineParallel, rs.shape.experts)
		}
	}
	if r.Method == MethodFull && rs.shape.experts > 0 && r.ExpertParallel == 1 && q.ExpertParallel == 0 && r.GPUs > 1 {
		r.ExpertParallel = defaultExpertParallel(r, &rs.shape)
		if r.ExpertParallel > 1 {
			rs.assume("expert parallel %d: each GPU holds %d of the %d routed experts; tokens reach them by all-to-all", r.ExpertParallel, rs.shape.experts/int64(r.ExpertParallel), rs.shape.experts)
		}
	}
	return nil
}

// defaultExpertParallel is the expert parallelism fitbot gives a mixture
// of experts: the largest power of two that divides the experts and the
// GPUs of a stage, up to maxExpertParallel.
func defaultExpertParallel(r *Request, s *shape) int {
	limit := min(int(s.experts), r.GPUs/pipelineParallel(r), maxExpertParallel)
	ep := 1
	for ep*2 <= limit && s.experts%int64(ep*2) == 0 && (r.GPUs/pipelineParallel(r))%(ep*2) == 0 {
		ep *= 2
	}
	return ep
}

// layoutCandidate is one layout the search tries.
type layoutCandidate struct {
	tp, pp, cp int
}

// searchLayout picks a layout when the question named none, the run
// spans machines (within one, ZeRO/FSDP is what fine-tuning recipes run
// and the inverse searches assume) and data parallelism alone (FSDP /
// ZeRO) does not fit or spends more time communicating than computing: of the tensor (within one machine),
// pipeline and context degrees that divide the GPUs, the fastest whose
// memory fits the card, with ZeRO-1 over the data-parallel ranks as
// Megatron runs it, a comfortable fit before a tight one. It says which.
func (rs *resolved) searchLayout(q Query) {
	r := &rs.req
	forced := q.ModelParallel // "3d parallel", "megatron": search even where FSDP would do
	if r.Method != MethodFull || r.GPUs < 2 || (r.Nodes < 2 && !forced) || !rs.gpuNamed || hasLayout(r) ||
		q.TensorParallel != 0 || q.PipelineParallel != 0 || q.ContextParallel != 0 ||
		(q.ZeROStage != nil || q.DeepSpeed) && !forced { // "with zero3", "deepspeed": DeepSpeed or FSDP, not a Megatron layout
		return
	}
	fits := trainingMemory(r, &rs.shape).TotalBytes <= rs.gpu.MemoryBytes
	_, compute, comm := trainingSpeed(r, &rs.shape, &rs.gpu, 0)
	if fits && comm <= compute && !forced {
		return
	}
	best, bestTPS := *r, 0.0
	found, bestComfy := false, false
	perNode := gpusPerMachine(r)
	for _, tp := range []int{1, 2, 4, 8} {
		if tp > perNode || (rs.shape.heads > 0 && rs.shape.heads%int64(tp) != 0) {
			continue
		}
		for _, pp := range []int{1, 2, 4, 8, 16, 32} {
			if int64(pp) > rs.shape.layers {
				continue
			}
			for _, cp := range []int{1, 2, 4, 8} {
				if forced && tp*pp == 1 {
					continue
				}
				c := layoutCandidate{tp, pp, cp}
				cand, ok := rs.layoutRequest(q, c)
				if !ok {
					continue
				}
				total := trainingMemory(&cand, &rs.shape).TotalBytes
				if total > rs.gpu.MemoryBytes {
					continue
				}
				// A comfortable fit beats a tight one; then the faster.
				comfy := total <= comfortableBytes(rs.gpu.MemoryBytes)
				tps, _, _ := trainingSpeed(&cand, &rs.shape, &rs.gpu, 0)
				if !found || (comfy && !bestComfy) || (comfy == bestComfy && tps > bestTPS) {
					best, bestTPS, bestComfy, found = cand, tps, comfy, true
				}
			}
		}
	}
	if !found || (fits && bestTPS <= 0) {
		return
	}
	why := "does not fit"
	switch {
	case forced:
		why = "was not what the question asked (a Megatron-style layout)"
	case fits:
		why = "is communication-bound"
	}
	if !hasLayout(&best) && best.ZeROStage == r.ZeROStage {
		return
	}
	stageBefore := r.ZeROStage
	*r = best
	if r.ZeROStage != stageBefore {
		rs.assumptions = slices.DeleteFunc(rs.assumptions, func(a string) bool { return strings.HasPrefix(a, "ZeRO stage ") })
	}
	if q.GlobalBatchTokens > 0 {
		rs.assumptions = slices.DeleteFunc(rs.assumptions, func(a string) bool { return strings.HasPrefix(a, "global batch of ") })
		rs.assume("global batch of %s tokens: %d accumulation steps of %s tokens (sequence × micro-batch × %d data-parallel GPUs)",
			thousands(float64(q.GlobalBatchTokens)), r.GradAccumSteps, thousands(float64(r.GlobalBatchTokens/int64(max(r.GradAccumSteps, 1)))), dataParallel(r))
	}
	rs.assume("layout %s chosen: ZeRO/FSDP over all %d GPUs %s; of the tensor (within a machine), pipeline and context degrees that divide them, the fastest that fits, with ZeRO-%d over the data-parallel ranks (Megatron's distributed optimizer)",
		layoutName(r), r.GPUs, why, r.ZeROStage)
}

// layoutRequest is the request under a candidate layout: the global batch
// kept when the question gave one (accumulation recomputed for the new
// data-parallel degree), ZeRO-1 under model parallelism.
func (rs *resolved) layoutRequest(q Query, c layoutCandidate) (Request, bool) {
	r := rs.req
	mp := c.tp * c.pp * c.cp
	if r.GPUs%mp != 0 || (c.cp > 1 && r.SeqLen%(2*c.cp) != 0) {
		return r, false
	}
	r.TensorParallel, r.PipelineParallel, r.ContextParallel = c.tp, c.pp, c.cp
	if mp > 1 && r.Offload == OffloadNone && q.ZeROStage == nil {
		r.ZeROStage = 1
	}
	if rs.shape.experts > 0 && q.ExpertParallel == 0 {
		r.ExpertParallel = defaultExpertParallel(&r, &rs.shape)
	}
	dp := dataParallel(&r)
	if batchUnsaid(q) {
		r.GradAccumSteps = pipelineAccum(c.pp)
	}
	if q.GlobalBatchTokens > 0 {
		perStep := int64(r.SeqLen) * int64(r.MicroBatch) * int64(dp)
		r.GradAccumSteps = int((q.GlobalBatchTokens + perStep - 1) / perStep)
	}
	r.GlobalBatchTokens = int64(r.SeqLen) * int64(r.MicroBatch) * int64(dp) * int64(max(r.GradAccumSteps, 1))
	return r, true
}

// batchUnsaid is whether the question left the step's size to fitbot: no
// accumulation steps and no global batch.
func batchUnsaid(q Query) bool { return q.GradAccumSteps == 0 && q.GlobalBatchTokens == 0 }

// pipelineAccum is the micro-batches per step when the question did not
// say: 1 without a pipeline, 4 × PP with one, so the 1F1B bubble
// (PP-1)/(V·m) stays under a quarter of the compute (Narayanan et al.
// 2021, §2.2: m ≫ p). One micro-batch through 32 stages ran DeepSeek-V3
// at 1% MFU.
func pipelineAccum(pp int) int {
	if pp <= 1 {
		return 1
	}
	return 4 * pp
}
