package sizing

import "fmt"

// nvlinkBridge are the PCIe cards that take an NVLink bridge between two
// of them (NVIDIA's product briefs: H100 PCIe, A100 PCIe, A40, RTX A6000,
// A5000 and A4500, GeForce RTX 3090 and 3090 Ti, RTX 2080 Ti); the
// catalog sizes them over PCIe, as most machines run them.
var nvlinkBridge = map[string]bool{
	"h100-pcie": true, "a100-80-pcie": true, "a100-40-pcie": true, "a40": true, "rtx-a6000": true, "rtx-a5000": true,
	"rtx-a4500": true, "rtx-3090": true, "rtx-3090-ti": true, "rtx-2080-ti": true,
}

// crossNodeNote says what crosses the network between machines for the
// answer's layout, and whether InfiniBand-class links are needed: a
// layout with tensor parallelism inside each machine and pipeline stages
// across sends one micro-batch's hidden states per stage boundary, which
// ordinary Ethernet carries; data parallelism across machines (ZeRO or
// plain) all-reduces every gradient each step, which wants InfiniBand or
// RoCE (400 Gb/s per GPU in DGX-class clusters).
func crossNodeNote(r *Request, s *shape) string {
	if r.PipelineParallel > 1 && r.TensorParallel*r.PipelineParallel == r.GPUs && r.GPUs/r.Nodes == r.TensorParallel {
		mb := float64(r.SeqLen) * float64(max(r.MicroBatch, 1)) * float64(s.hidden) * 2 / 1e6
		return fmt.Sprintf("across the %d machines this layout (tensor parallel %d inside each, %d pipeline stages across) sends only each micro-batch's hidden states between stages, %.0f MB a hop: 100 Gb/s Ethernet carries that, InfiniBand is not needed; sharding with FSDP or ZeRO-3 over all %d GPUs instead would move the weights and gradients every step and want InfiniBand or RoCE",
			r.Nodes, r.TensorParallel, r.PipelineParallel, mb, r.GPUs)
	}
	grads := float64(s.trainable(r)) * 2 / 1e9
	return fmt.Sprintf("across the %d machines data parallelism all-reduces %.0f GB of gradients every step (more with ZeRO-3's weight gathers): at 100 Gb/s Ethernet that is seconds a step, so InfiniBand or RoCE (200-400 Gb/s per GPU) is what keeps the speed above; the speed counts the network", r.Nodes, grads)
}

// allReduceLatency is the time of one small all-reduce within a
// machine: NCCL's launch and ring hops, about 5 µs over NVLink and 15 µs
// over PCIe for the few kilobytes a decode step moves (NCCL's tuning
// model puts the base latency of a ring all-reduce at a few µs per hop).
func allReduceLatency(g *GPU) float64 {
	if g.Link == LinkPCIe {
		return 15e-6
	}
	return 5e-6
}

// linkNote answers "do we need nvlink": the link the answer's cards have
// and what its speed counts over it. Serving with tensor parallelism
// all-reduces each layer's hidden state twice per token (2 × layers ×
// hidden × 2 bytes, a ring moving 2(N-1)/N of it each way), which at
// batch 1 is a small share of a decode step even over PCIe; training
// moves gradients (and, at ZeRO-3, weights) every step, which a slow
// link can make the bound.
func linkNote(r *Request, s *shape, g *GPU, t Throughput) string {
	link := fmt.Sprintf("%s has NVLink (%.0f GB/s each way per card)", g.Name, g.LinkBytesPerSec/1e9)
	switch {
	case g.Link == LinkPCIe && nvlinkBridge[g.ID]:
		link = fmt.Sprintf("%s is sized over PCIe (%.0f GB/s each way per card); it takes a 2-card NVLink bridge, which fitbot does not assume", g.Name, g.LinkBytesPerSec/1e9)
	case g.Link == LinkPCIe:
		link = fmt.Sprintf("%s has no NVLink: its cards talk over PCIe (%.0f GB/s each way per card)", g.Name, g.LinkBytesPerSec/1e9)
	case g.Link == LinkInfinityFabric:
		link = fmt.Sprintf("%s links by AMD Infinity Fabric (%.0f GB/s each way per card)", g.Name, g.LinkBytesPerSec/1e9)
	case g.Link == LinkUnified:
		return fmt.Sprintf("%s is one chip: there is no link between cards to ask about", g.Name)
	}
	switch {
	case r.GPUs <= 1:
		return link + "; on one card no link is used"
	case r.Nodes > 1:
		return link + "; " + crossNodeNote(r, s)
	case r.Method == MethodInference && t.TokensPerSecond != nil && *t.TokensPerSecond > 0 && g.LinkBytesPerSec > 0:
		tp := float64(tpSize(r))
		calls := 2 * float64(s.layers)
		vol := calls * float64(s.hidden) * 2 * 2 * (tp - 1) / tp
		comm := (vol/g.LinkBytesPerSec + calls*allReduceLatency(g)) * 1e3
		step := 1e3 / *t.TokensPerSecond
		note := link + fmt.Sprintf("; tensor parallel %d all-reduces each layer twice per token: about %.1f ms of each %.0f ms token at batch 1, most of it the %d calls' latency, not bandwidth",
			int(tp), comm, step, int(calls))
		if g.Link == LinkPCIe {
			note += ". NVLink is not needed to serve this; it matters for large batches, long prompts and training"
		}
		return note
	case r.Method == MethodInference:
		return link + "; the speed counts tensor parallelism's all-reduces over it"
	}
	return link + "; the speed counts the gradient (and at ZeRO-3 the weight) traffic over it each step, which a slower link makes longer"
}
