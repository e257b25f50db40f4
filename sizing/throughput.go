package sizing

import "fmt"

const (
	// DefaultMFU is the model-FLOPs utilisation assumed when the
	// Estimator's MFU is zero: the seeds' "well-tuned runs hit 40-55 %",
	// at its low end.
	DefaultMFU = 0.40
	// interNodeBytesPerSec is the link between machines unless said
	// otherwise: 100 Gb/s-class InfiniBand, 12.5 GB/s (the seeds'
	// "production multi-node" row).
	interNodeBytesPerSec = 12.5e9
	// qloraDequantFactor is the extra time QLoRA spends dequantising NF4
	// weights before every forward and backward matmul (an assumption:
	// bitsandbytes QLoRA runs about 30 % slower than 16-bit LoRA).
	qloraDequantFactor = 1.3
)

// trainingFLOPsPerToken is the compute per trained token: 6 × active
// parameters (forward 2, backward 4; Kaplan et al., Transformer Math 101),
// 8 with full recomputation. LoRA and QLoRA skip the weight-gradient GEMMs
// of the frozen base: 4 × active (forward 2, activation gradients 2), +2
// with recomputation; QLoRA's dequantisation adds qloraDequantFactor.
// Attention's own FLOPs are left out, as the 6P rule does.
func trainingFLOPsPerToken(r *Request, active int64) float64 {
	p := float64(active)
	var f float64
	switch r.Method {
	case MethodLoRA, MethodQLoRA:
		f = 4 * p
		if r.GradCheckpointing {
			f += 2 * p
		}
		if r.Method == MethodQLoRA {
			f *= qloraDequantFactor
		}
	default:
		f = 6 * p
		if r.GradCheckpointing {
			f = 8 * p
		}
	}
	return f
}

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

// linkBytesPerSec is the slowest link a collective over the request's
// GPUs crosses.
func linkBytesPerSec(r *Request, g *GPU) float64 {
	if r.Nodes > 1 {
		return interNodeBytesPerSec
	}
	return g.LinkBytesPerSec
}

// commBytesPerStep is what each GPU sends per optimizer step under ZeRO
// (ZeRO paper §7): 2Ψ (reduce-scatter + all-gather, as plain data
// parallelism) for stages 0-2, 3Ψ for stage 3, in 16-bit bytes, times
// the ring's (N-1)/N. LoRA reduces only the adapters' gradients; at stage
// 3 the frozen base is gathered too, forward and backward.
func commBytesPerStep(r *Request, s *shape) float64 {
	n := float64(r.GPUs)
	if n <= 1 {
		return 0
	}
	psi := float64(s.trainable(r))
	vol := 2 * psi * 2
	if r.ZeROStage == 3 {
		vol = 3 * psi * 2
		if r.Method == MethodLoRA || r.Method == MethodQLoRA {
			vol += 2 * modelWeightBytes(s, r.Quant, r.Precision)
		}
	}
	return vol * (n - 1) / n
}

// trainingSpeed is the training throughput in tokens per second over all
// GPUs, with the seconds per step spent computing and communicating (the
// two overlap; the slower one sets the pace).
func trainingSpeed(r *Request, s *shape, g *GPU, mfu float64) (tokensPerSec, computeSec, commSec float64) {
	peak := peakFLOPS(g, r.Precision) * mfu
	if peak <= 0 {
		return 0, 0, 0
	}
	tokensPerGPU := float64(r.SeqLen) * float64(r.MicroBatch)
	computeSec = tokensPerGPU * trainingFLOPsPerToken(r, s.active) / peak
	if bw := linkBytesPerSec(r, g); bw > 0 {
		commSec = commBytesPerStep(r, s) / bw
	}
	step := max(computeSec, commSec)
	if step <= 0 {
		return 0, 0, 0
	}
	return tokensPerGPU * float64(r.GPUs) / step, computeSec, commSec
}

// inferenceSpeed is decode tokens per second over all concurrent requests
// (memory-bound: each step reads the active weights and the KV cache at
// full context, at bandwidthUtilisation of peak) and prefill tokens per
// second (compute-bound: 2 × active parameters per token at the MFU).
func inferenceSpeed(r *Request, s *shape, g *GPU, mfu float64) (decode, prefill float64) {
	gpus := float64(max(r.GPUs, 1))
	weights := modelWeightBytes(s, r.Quant, r.Precision) * float64(s.active) / float64(max(s.total, 1))
	kv := kvCacheBytes(s, int64(r.SeqLen), int64(r.MicroBatch), kvElemBytes(r.KVPrecision)) * kvShare(s, r.GPUs, r.Nodes)
	perGPU := weights/gpus + kv
	if bw := g.BandwidthBytesPerSec * bandwidthUtilisation; bw > 0 && perGPU > 0 {
		decode = float64(r.MicroBatch) * bw / perGPU
	}
	if peak := peakFLOPS(g, r.Precision) * mfu; peak > 0 && s.active > 0 {
		prefill = gpus * peak / (2 * float64(s.active))
	}
	return decode, prefill
}

// runSpeed is the tokens per second a run of r on g goes at: training
// throughput, or decode throughput for inference (what a token budget
// counts).
func runSpeed(r *Request, s *shape, g *GPU, mfu float64) float64 {
	if r.Method == MethodInference {
		decode, _ := inferenceSpeed(r, s, g, mfu)
		return decode
	}
	tps, _, _ := trainingSpeed(r, s, g, mfu)
	return tps
}

// runHoursAt is how long r's token budget takes at tps tokens per second.
func runHoursAt(r *Request, tps float64) float64 { return float64(r.Tokens) / tps / 3600 }

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

// throughput fills the speed, time and cost of a request on a card.
func throughput(r *Request, s *shape, g *GPU, mfu float64, price *Price) (Throughput, []string) {
	var t Throughput
	var warnings []string
	var tps float64
	if r.Method == MethodInference {
		decode, prefill := inferenceSpeed(r, s, g, mfu)
		tps = decode
		if prefill > 0 {
			t.PrefillTokensPerSecond = &prefill
		}
	} else {
		var compute, comm float64
		tps, compute, comm = trainingSpeed(r, s, g, mfu)
		if comm > compute && compute > 0 {
			warnings = append(warnings, fmt.Sprintf(
				"communication-bound: ZeRO-%d moves %.1f GB per GPU per step over %s (%.0f GB/s), %.1f s against %.1f s of compute; larger micro-batches or gradient accumulation amortise it",
				r.ZeROStage, commBytesPerStep(r, s)/1e9, linkName(r, g), linkBytesPerSec(r, g)/1e9, comm, compute))
		}
		if r.Offload != OffloadNone {
			warnings = append(warnings, fmt.Sprintf("%s offload runs the optimizer step off the GPU; the step is slower than the compute estimate shows", r.Offload))
		}
	}
	if tps > 0 {
		t.TokensPerSecond = &tps
		if r.Tokens > 0 {
			h := runHoursAt(r, tps)
			t.Hours = &h
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
