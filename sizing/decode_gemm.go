package sizing

import "math"

// A decode step's matmuls see few rows: a dense layer the batch (every
// running request's one new token, the same on each tensor-parallel GPU),
// a routed expert only the tokens sent to it, batch × top-k / experts
// (about 60 for Llama 4 Scout and 8 for Maverick at batch 1,000). A GEMM
// of few rows is a skinny one: it reads all of its weights for little
// work, and the tensor cores pad its rows to their tile. Each class of
// GEMM in a step therefore takes the longer of its compute (FLOPs at the
// share of peak its rows reach) and its weight reads (at the decode
// bandwidth), and the classes run one after another: the dense linears,
// the routed experts and the attention over the KV cache are separate
// kernels, so one's memory time does not hide another's compute.
//
// A decode GEMM of r rows reaches gemmPeakShare × r/(r + r½) of peak.
// r½ is decodeRowsHalf × the card's ridge for the GEMM's weights, the rows
// at which its FLOPs at peak take as long as its weight reads at the
// decode bandwidth: peak × bytes per weight / (2 × bandwidth), 369 rows
// for FP8 or BF16 weights on an H100, 92 for 4-bit ones. A GEMM's time
// at few rows is then at least decodeRowsHalf/gemmPeakShare of its reads,
// below them, so a lone request stays bound by the reads in every weight
// format, and a batch turns a GEMM compute-bound at rows proportional to
// its bytes per weight (4-bit kernels sooner, as they do). decodeRowsHalf
// is fitted to TensorRT-LLM's published throughput rows (testdata/
// serving/throughput.tsv; SOURCES.md).
const decodeRowsHalf = 0.6

// rowsEfficiency is the share of peak a decode GEMM over rows rows
// reaches when its ridge (rows at which compute equals reads) is ridge:
// rising with the rows and saturating at gemmPeakShare.
func rowsEfficiency(rows, ridge float64) float64 {
	if rows <= 0 {
		return 0
	}
	return gemmPeakShare * rows / (rows + decodeRowsHalf*ridge)
}

// gemmClassSeconds is one class of decode GEMMs on a replica: flops
// FLOPs over weights of perWeight bytes each, bytes of them read, each
// weight used by rows tokens, at peak FLOP/s and bw bytes/s (the
// replica's), or at rate FLOP/s when a configured MFU sets it: the longer
// of the compute and the reads.
func gemmClassSeconds(flops, perWeight, bytes, rows, peak, bw, rate float64) float64 {
	if rate <= 0 {
		rate = peak * rowsEfficiency(rows, peak*perWeight/(2*bw))
	}
	t := bytes / bw
	if rate > 0 {
		t = max(t, flops/rate)
	}
	return t
}

// decodeExpertReadBytes is the routed-expert part of decodeReadBytes:
// the experts a batch of b tokens visits (up to b × top-k of E per
// layer), whole.
func decodeExpertReadBytes(s *shape, q Quant, p Precision, b int64) float64 {
	if s.expertLinear <= 0 || s.experts <= 0 {
		return 0
	}
	visited := min(float64(b*s.expertsActive)/float64(s.experts), 1)
	return visited * float64(s.expertLinear) * weightElemBytes(q, p, s.hidden, true, true, true)
}

// decodeStep is one decode step of a replica at batch b with each
// request's KV cache at ctx tokens: the dense linears (rows b), the
// routed experts (rows b × top-k / experts each) and the attention over
// every request's KV cache, each the longer of its compute and its
// reads, one after another; plus the fixed part: the per-layer floor, and
// under tensor parallelism the two all-reduces per layer of the batch's
// hidden states over the link. A configured MFU (the question's or the
// Estimator's) runs every kernel at that share, whatever its rows.
func decodeStep(r *Request, s *shape, g *GPU, mfu float64, b, ctx int) float64 {
	gpus := float64(max(r.GPUs, 1))
	bw := decodeBandwidth(g) * gpus
	if bw <= 0 {
		return math.Inf(1)
	}
	peak := peakFLOPS(g, r.Precision) * gpus
	prefill := peak * prefillShare(r, s, g, mfu)
	var fixed float64
	if r.MFU > 0 || mfu > 0 {
		fixed = prefill
	}
	batch := float64(b)
	expert := s.activeExpertParams()
	expertBytes := decodeExpertReadBytes(s, r.Quant, r.Precision, int64(b))
	dense := float64(s.active) - expert
	denseBytes := decodeReadBytes(s, r.Quant, r.Precision, int64(b)) - expertBytes
	t := gemmClassSeconds(2*batch*dense, denseBytes/max(dense, 1), denseBytes, batch, peak, bw, fixed)
	if expert > 0 {
		perExpert := max(batch*float64(s.expertsActive)/float64(s.experts), 1)
		t += gemmClassSeconds(2*batch*expert, weightElemBytes(r.Quant, r.Precision, s.hidden, true, true, true),
			expertBytes, perExpert, peak, bw, fixed)
	}
	kv := batch * kvCacheBytes(s, int64(ctx), 1, kvElemBytes(r.KVPrecision)) * kvShare(s, r.GPUs, r.Nodes) * gpus
	t += gemmClassSeconds(2*batch*s.attentionFLOPsFwd(int64(ctx)), 0, kv, 0, peak, bw, prefill)
	t += decodeOverheadSec(r, s, g)
	if tp := float64(tpSize(r)); tp > 1 && g.LinkBytesPerSec > 0 {
		t += 2 * float64(s.layers) * batch * float64(s.hidden) * 2 * 2 * (tp - 1) / tp / g.LinkBytesPerSec
	}
	return t
}
