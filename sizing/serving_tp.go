package sizing

import "fmt"

// tensorParallelServes reports whether a serving engine can split the
// model's attention over tp GPUs. vLLM refuses a tensor-parallel size
// that does not divide the attention heads ("Total number of attention
// heads (64) must be divisible by tensor parallel size (3)",
// ModelConfig.verify_with_parallel_config), and its QKV projection
// splits the KV heads evenly or, with more GPUs than KV heads, copies
// each head to a whole number of them (QKVParallelLinear). MLA's shared
// latent is copied to every GPU, so only its heads count.
func tensorParallelServes(s *shape, tp int) bool {
	t := int64(tp)
	if tp <= 1 || s.heads <= 0 {
		return true
	}
	if s.heads%t != 0 {
		return false
	}
	if s.mla || s.kvHeads <= 0 {
		return true
	}
	return s.kvHeads%t == 0 || t%s.kvHeads == 0
}

// largestServingTP is the largest tensor-parallel size of at most n GPUs
// the model's heads allow (tensorParallelServes).
func largestServingTP(s *shape, n int) int {
	for tp := n; tp > 1; tp-- {
		if tensorParallelServes(s, tp) {
			return tp
		}
	}
	return 1
}

// servingLayout is the engine's split of gpus over nodes machines: tensor
// parallel over the most GPUs of a machine that divide it and the
// model's heads, pipeline stages over the rest and across machines.
func servingLayout(s *shape, gpus, nodes int) (tp, pp int) {
	nodes = max(nodes, 1)
	per := max(gpus/nodes, 1)
	for tp = per; tp > 1; tp-- {
		if per%tp == 0 && tensorParallelServes(s, tp) {
			break
		}
	}
	tp = max(tp, 1)
	return tp, per / tp * nodes
}

// tensorParallelNote is the warning of a serving answer whose GPUs in one
// machine do not divide the model's heads: tensor parallelism over them
// is refused, so it says what runs instead (a layer split or pipeline
// stages, which take about the memory sized here, with the GPUs taking
// turns on one request; or tensor parallelism on the largest count that
// divides the heads). "" when the count divides them.
func (rs *resolved) tensorParallelNote(r *Request) string {
	tp := int(tpSize(r))
	s := &rs.shape
	if tensorParallelServes(s, tp) {
		return ""
	}
	heads := fmt.Sprintf("%d attention heads", s.heads)
	if !s.mla && s.kvHeads > 0 && s.kvHeads != s.heads {
		heads += fmt.Sprintf(" (%d KV heads)", s.kvHeads)
	}
	note := fmt.Sprintf("tensor parallel %d is not possible: %s's %s do not split over %d GPUs, and vLLM refuses --tensor-parallel-size %d. "+
		"On %d GPUs it runs as llama.cpp's layer split (--split-mode layer) or vLLM pipeline parallel %d (--pipeline-parallel-size %d): about the memory per GPU sized here, "+
		"but the GPUs take turns on each token, so one request decodes at about 1/%d of the speed above",
		tp, rs.model.Name, heads, tp, tp, tp, tp, tp, tp)
	if d := largestServingTP(s, tp); d > 1 {
		t := *r
		t.GPUs, t.Nodes = d, 1
		if m := rs.memory(&t); m.TotalBytes <= rs.gpu.MemoryBytes {
			note += fmt.Sprintf("; or tensor parallel %d on %d of them (%s per GPU)", d, d, gibString(m.TotalBytes))
		} else {
			note += fmt.Sprintf("; tensor parallel %d on %d of them does not hold it (%s per GPU)", d, d, gibString(m.TotalBytes))
		}
	}
	return note
}
