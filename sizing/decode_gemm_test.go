package sizing

import (
	"math"
	"testing"
)

// TestRowsEfficiency: a decode GEMM's share of peak rises with its rows,
// is half of gemmPeakShare at r½ = decodeRowsHalf × its ridge, and never
// reaches gemmPeakShare.
func TestRowsEfficiency(t *testing.T) {
	const ridge = 369
	if got := rowsEfficiency(decodeRowsHalf*ridge, ridge); math.Abs(got-gemmPeakShare/2) > 1e-12 {
		t.Errorf("at r½ rows: %.4f, want %.4f", got, gemmPeakShare/2)
	}
	prev := 0.0
	for _, rows := range []float64{1, 8, 60, 256, 1000, 8192} {
		e := rowsEfficiency(rows, ridge)
		if e <= prev || e >= gemmPeakShare {
			t.Errorf("%v rows: %.3f after %.3f (below %.2f and rising wanted)", rows, e, prev, gemmPeakShare)
		}
		prev = e
	}
	if rowsEfficiency(0, ridge) != 0 {
		t.Error("no rows, no work")
	}
}

// TestDecodeStepLoneRequest: one request's decode step is bound by its
// reads in every weight format and on every card, however fast the
// card's memory (a GEMM's floor at few rows is below its reads).
func TestDecodeStepLoneRequest(t *testing.T) {
	m := modelOf(t, "llama-3.1-70b")
	s := shapeOf(m)
	for _, gpu := range []string{"a100-80", "h100", "h200", "b200", "rtx-4090"} {
		g := gpuOf(t, gpu)
		for _, f := range []struct {
			q Quant
			p Precision
		}{{QuantNone, PrecisionBF16}, {QuantNone, PrecisionFP8}, {QuantAWQ, PrecisionBF16}, {QuantQ4_KM, PrecisionBF16}} {
			if f.p == PrecisionFP8 && !g.FP8 {
				continue
			}
			r := Request{Method: MethodInference, GPUs: 8, Quant: f.q, Precision: f.p}
			const ctx = 1000
			reads := decodeReadBytes(&s, r.Quant, r.Precision, 1)/8 + kvCacheBytes(&s, ctx, 1, kvElemBytes(r.KVPrecision))*kvShare(&s, r.GPUs, r.Nodes)
			want := reads/decodeBandwidth(&g) + decodeOverheadSec(&r, &s, &g) + 2*float64(s.layers)*float64(s.hidden)*2*2*7/8/g.LinkBytesPerSec
			if got := decodeStep(&r, &s, &g, 0, 1, ctx); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %s/%s: a lone request's step %.3f ms, its reads and floor %.3f ms", gpu, f.q, f.p, got*1e3, want*1e3)
			}
		}
	}
}

// TestGEMMClassRows: the same FLOPs and reads over fewer rows are never
// faster, and at many rows the class is compute-bound at near
// gemmPeakShare.
func TestGEMMClassRows(t *testing.T) {
	const peak, bw, bytes = 989e12, 2.68e12, 1e9
	flops := 2 * 1000 * bytes / 2 // 1,000 tokens over 0.5 G BF16 weights
	prev := 0.0
	for _, rows := range []float64{8000, 1000, 250, 60, 8} {
		got := gemmClassSeconds(flops, 2, bytes, rows, peak, bw, 0)
		if got < prev || got < bytes/bw {
			t.Errorf("%v rows: %.3f ms, after %.3f ms at more rows (reads %.3f ms)", rows, got*1e3, prev*1e3, bytes/bw*1e3)
		}
		prev = got
	}
	if got := gemmClassSeconds(100*flops, 2, bytes, 1e6, peak, bw, 0); !withinRel(got, 100*flops/(peak*gemmPeakShare), 0.01) {
		t.Errorf("at a million rows %.3f ms, want about %.3f ms", got*1e3, 100*flops/(peak*gemmPeakShare)*1e3)
	}
}

// TestDecodeStepExpertRows: Llama 4 Maverick at batch 1,000 on 8 H200
// sends about 8 tokens to each of its 128 experts, which read their
// weights for little work, while the dense layers' 1,000 rows are near
// compute-bound: the step is longer than 1.2 × one that lets the reads
// hide the compute at the prefill share (the estimator before issue #40,
// 1.4-1.9× TensorRT-LLM's rows), and a configured MFU runs it at that
// share whatever the rows.
func TestDecodeStepExpertRows(t *testing.T) {
	m, g := modelOf(t, "llama-4-maverick"), gpuOf(t, "h200")
	s := shapeOf(m)
	r := Request{Method: MethodInference, GPUs: 8, Precision: PrecisionFP8, KVPrecision: PrecisionFP8}
	const b, ctx = 1000, 1500
	gpus := float64(r.GPUs)
	reads := (decodeReadBytes(&s, r.Quant, r.Precision, b)/gpus + b*kvCacheBytes(&s, ctx, 1, kvElemBytes(r.KVPrecision))*kvShare(&s, r.GPUs, r.Nodes)) / decodeBandwidth(&g)
	compute := b * (2*float64(s.active) + 2*s.attentionFLOPsFwd(ctx)) / (peakFLOPS(&g, r.Precision) * prefillShare(&r, &s, &g, 0) * gpus)
	old := max(reads, compute) + decodeOverheadSec(&r, &s, &g)
	step := decodeStep(&r, &s, &g, 0, b, ctx)
	t.Logf("step %.1f ms, reads-hide-compute %.1f ms", step*1e3, old*1e3)
	if step < 1.2*old {
		t.Errorf("Maverick at batch %d: %.1f ms a step, no slower than %.1f ms with the GEMMs hidden under the reads", b, step*1e3, old*1e3)
	}
	if fixed := decodeStep(&r, &s, &g, 0.9, b, ctx); fixed >= step {
		t.Errorf("at a configured 90%% MFU the step is %.1f ms, not faster than the rows' %.1f ms", fixed*1e3, step*1e3)
	}
}
