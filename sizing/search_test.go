package sizing

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// rowForward is the forward question for one largest-model row at a size:
// what `fit <size> <method> <n>x<gpu>` asks, with the ZeRO stage the
// search used for multi-GPU training.
func rowForward(q Query, row LargestRow, params int64) Query {
	f := Query{Params: params, Method: row.Method, GPU: q.GPU, GPUs: q.GPUs, SeqLen: q.SeqLen, MicroBatch: q.MicroBatch}
	switch {
	case row.Method == MethodInference && row.Quant == QuantINT8:
		f.Precision = PrecisionINT8
	case row.Method == MethodInference && row.Quant != QuantNone:
		f.Precision = PrecisionINT4
	case row.Method == MethodInference:
		f.Precision = row.Precision // a 16-bit row: not a model's released format
	case row.Method != MethodInference && q.GPUs > 1:
		stage := row.ZeROStage
		f.ZeROStage = &stage
	}
	return f
}

// TestLargestModelAgreesWithForwardEstimator is the search's contract: for
// every row, the size it reports fits when the forward estimator
// (Estimator.Answer) is asked about it, and one step (1M parameters) more
// does not.
func TestLargestModelAgreesWithForwardEstimator(t *testing.T) {
	e := &Estimator{}
	for _, q := range []Query{
		{GPU: "rtx-4090", GPUs: 2, Method: MethodLoRA},
		{GPU: "rtx-4090"},
		{GPU: "a100-80", Method: MethodFull},
		{GPU: "h100", GPUs: 8, Method: MethodQLoRA},
		{GPU: "l4", Method: MethodInference, Precision: PrecisionINT4},
		{GPU: "t4", SeqLen: 4096},
		{GPU: "m3-max-128", Method: MethodInference},
	} {
		t.Run(Format(q), func(t *testing.T) {
			a, err := e.LargestModel(q)
			if err != nil {
				t.Fatal(err)
			}
			if a.Kind != IntentLargest || a.Largest == nil {
				t.Fatalf("kind %q, largest %v", a.Kind, a.Largest)
			}
			if len(a.Largest.Rows) != len(largestRows) {
				t.Fatalf("%d rows, want %d", len(a.Largest.Rows), len(largestRows))
			}
			for _, row := range a.Largest.Rows {
				if row.Note != "" {
					if row.MaxParams != 0 {
						t.Errorf("%s: note %q with a size", row.Label, row.Note)
					}
					continue
				}
				if row.MaxParams <= 0 || row.MaxParams%searchStep != 0 {
					t.Fatalf("%s: max params %d", row.Label, row.MaxParams)
				}
				at, err := e.Answer(rowForward(q, row, row.MaxParams))
				if err != nil {
					t.Fatalf("%s: forward at the answer: %v", row.Label, err)
				}
				if !at.Fits || at.PerGPU.TotalBytes != row.TotalBytes {
					t.Errorf("%s: %d params: forward fits=%v total %d, search total %d", row.Label, row.MaxParams, at.Fits, at.PerGPU.TotalBytes, row.TotalBytes)
				}
				more, err := e.Answer(rowForward(q, row, row.MaxParams+searchStep))
				if err != nil {
					t.Fatalf("%s: forward one step more: %v", row.Label, err)
				}
				if more.Fits {
					t.Errorf("%s: %d params + one step still fits (%d of %d bytes)", row.Label, row.MaxParams, more.PerGPU.TotalBytes, more.VRAMBytes)
				}
				for _, m := range row.CatalogModels {
					fq := rowForward(q, row, 0)
					fq.Params, fq.Model = 0, m.Model
					ma, err := e.Answer(fq)
					if err != nil {
						t.Fatalf("%s: %s: %v", row.Label, m.Model, err)
					}
					if !ma.Fits || ma.PerGPU.TotalBytes != m.TotalBytes {
						t.Errorf("%s: catalog %s listed with %d bytes, forward fits=%v with %d", row.Label, m.Model, m.TotalBytes, ma.Fits, ma.PerGPU.TotalBytes)
					}
				}
				if !slices.IsSortedFunc(row.CatalogModels, func(a, b ModelFit) int { return int(b.Params>>20 - a.Params>>20) }) {
					t.Errorf("%s: catalog models not largest first: %v", row.Label, row.CatalogModels)
				}
			}
		})
	}
}

// TestLargestModelOrdering checks the relations any reader expects: QLoRA
// holds more than LoRA, LoRA more than full fine-tuning, int4 serving more
// than int8 more than 16-bit, and two cards more than one; the asked
// method comes first.
func TestLargestModelOrdering(t *testing.T) {
	e := &Estimator{}
	size := func(a AskAnswer, label string) int64 {
		for _, r := range a.Largest.Rows {
			if r.Label == label {
				return r.MaxParams
			}
		}
		t.Fatalf("no row %q", label)
		return 0
	}
	one, err := e.LargestModel(Query{GPU: "rtx-4090", Method: MethodQLoRA})
	if err != nil {
		t.Fatal(err)
	}
	two, err := e.LargestModel(Query{GPU: "rtx-4090", GPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if first := one.Largest.Rows[0]; first.Label != "QLoRA" || !first.Asked {
		t.Errorf("first row %q (asked %v), want the asked QLoRA", first.Label, first.Asked)
	}
	for _, pair := range [][2]string{{"QLoRA", "LoRA"}, {"LoRA", "full fine-tune"}, {"inference int4", "inference int8"}, {"inference int8", "inference 16-bit"}} {
		if size(one, pair[0]) <= size(one, pair[1]) {
			t.Errorf("%s %d <= %s %d", pair[0], size(one, pair[0]), pair[1], size(one, pair[1]))
		}
	}
	for _, r := range one.Largest.Rows {
		if size(two, r.Label) <= r.MaxParams {
			t.Errorf("%s: 2 cards %d <= 1 card %d", r.Label, size(two, r.Label), r.MaxParams)
		}
	}
	// The seeds: a realistic single A100 80 GB ceiling for full fine-tuning
	// with AdamW is about 3B (not the naive 80/16 = 5B).
	a100, err := e.LargestModel(Query{GPU: "a100-80", Method: MethodFull})
	if err != nil {
		t.Fatal(err)
	}
	if got := size(a100, "full fine-tune"); got < 3e9 || got > 5e9 {
		t.Errorf("A100 80 GB full fine-tune ceiling %d, want 3B-5B (seeds: about 3B with activations)", got)
	}
}

// TestLargestModelNothingFits: a T4 asked to full fine-tune at a million
// tokens of context fits no size at all; the answer says so and finds the
// nearest sequence length at which something fits.
func TestLargestModelNothingFits(t *testing.T) {
	e := &Estimator{}
	q := Query{GPU: "t4", Method: MethodFull, SeqLen: 1 << 20}
	a, err := e.LargestModel(q)
	if err != nil {
		t.Fatal(err)
	}
	full := a.Largest.Rows[0]
	if full.Method != MethodFull || full.MaxParams != 0 {
		t.Fatalf("full row %+v, want nothing that fits", full)
	}
	n := full.Nearest
	if n == nil || n.SeqLen == 0 || n.SeqLen >= q.SeqLen || n.MaxParams <= 0 {
		t.Fatalf("nearest %+v, want a shorter sequence with a size", n)
	}
	// Bare shapes carry a 4096-token context; the search lifts it, and so
	// does this forward check, through an architecture given directly.
	unbounded := func(params int64) *Model {
		m := BareModel(params, 0)
		m.MaxContext = 0
		return &m
	}
	fq := Query{Arch: unbounded(n.MaxParams), Method: MethodFull, GPU: "t4", SeqLen: n.SeqLen}
	if got, err := e.Answer(fq); err != nil || !got.Fits {
		t.Errorf("the nearest (%d params at %d tokens) does not fit forward: %v %v", n.MaxParams, n.SeqLen, got.Fits, err)
	}
	longer := Query{Arch: unbounded(MinBareParams), Method: MethodFull, GPU: "t4", SeqLen: n.SeqLen * 2}
	if got, err := e.Answer(longer); err != nil || got.Fits {
		t.Errorf("twice the nearest sequence (%d) fits the smallest size (%v): the nearest is not the nearest", n.SeqLen*2, err)
	}
}

func TestLargestModelNeedsHardware(t *testing.T) {
	_, err := (&Estimator{}).LargestModel(Query{Method: MethodLoRA})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Hint, "what") {
		t.Fatalf("err %v, want an InputError with a `fit what` example", err)
	}
}

// TestMaxContextKVArithmetic reproduces the longest context of Llama 3.1
// 8B served in bf16 on an L4 by hand. Figures: the catalog's L4 reports
// 23,034 MiB = 24,152,899,584 bytes; Llama 3.1 8B has 8,030,261,248
// parameters (2 bytes each), 32 layers, 8 KV heads of 128, hidden 4096,
// FFN 14,336, vocab 128,256. The KV cache per token is 2 (K and V) × 32 ×
// 8 × 128 × bytes per element; the fixed terms are the CUDA context
// (1.3 GB) and one 2,048-token prefill chunk's workspace, 2 bytes × (2 ×
// 4096 + 2 × 4096 + 2 × 1024 + 3 × 14336) per token, plus fp32 logits of
// each sequence's last position.
func TestMaxContextKVArithmetic(t *testing.T) {
	const (
		vram     = 24_152_899_584
		weights  = 2 * 8_030_261_248
		overhead = 1_300_000_000
		chunk    = 2048 * 2 * (2*4096 + 2*4096 + 2*1024 + 3*14336)
	)
	logits := func(batch int64) int64 { return 4 * 128_256 * batch }
	kvPerToken := func(bytes int64) int64 { return 2 * 32 * 8 * 128 * bytes }
	for _, tt := range []struct {
		name  string
		q     Query
		batch int64
		kvB   int64
	}{
		{"bf16 KV, one request", Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "l4"}, 1, 2},
		{"fp8 KV, one request", Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "l4", KVPrecision: PrecisionFP8}, 1, 1},
		{"bf16 KV, 4 concurrent", Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "l4", MicroBatch: 4}, 4, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			free := int64(vram - weights - overhead - chunk - logits(tt.batch))
			want := int(free / (kvPerToken(tt.kvB) * tt.batch))
			a, err := (&Estimator{}).MaxContext(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			c := a.MaxContext
			if c.MaxTokens != want || c.Bound != BoundMemory {
				t.Fatalf("max context %d (%s), want %d by hand (memory)", c.MaxTokens, c.Bound, want)
			}
			if got := int64(c.KVBytesPerToken); got != kvPerToken(tt.kvB)*tt.batch {
				t.Errorf("KV bytes per token %d, want %d", got, kvPerToken(tt.kvB)*tt.batch)
			}
			if c.ModelMaxTokens != 131072 || a.Request.SeqLen != want || c.PerGPU.TotalBytes > vram {
				t.Errorf("model max %d, request seq %d, total %d", c.ModelMaxTokens, a.Request.SeqLen, c.PerGPU.TotalBytes)
			}
		})
	}
	if want := 49_897; want != int((vram-weights-overhead-chunk-logits(1))/kvPerToken(2)) {
		t.Errorf("the hand figure moved: %d", want)
	}
}

// TestMaxContextBounds: where memory allows more than the model was
// trained for, the model's max_position_embeddings wins and the answer
// says so; training's longest sequence agrees with the forward estimator
// at its boundary; a model too big for the card finds the nearest change.
func TestMaxContextBounds(t *testing.T) {
	e := &Estimator{}
	a, err := e.MaxContext(Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "h200"})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.MaxContext; c.Bound != BoundModel || c.MaxTokens != 131072 || c.MemoryMaxTokens <= 131072 {
		t.Errorf("H200: %d tokens (%s), memory %d; want the model's 131072", c.MaxTokens, c.Bound, c.MemoryMaxTokens)
	}

	q := Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "rtx-4090"}
	a, err = e.MaxContext(q)
	if err != nil {
		t.Fatal(err)
	}
	n := a.MaxContext.MaxTokens
	if n <= 0 || a.MaxContext.Bound != BoundMemory {
		t.Fatalf("LoRA on a 4090: %d (%s)", n, a.MaxContext.Bound)
	}
	for _, tt := range []struct {
		seq  int
		fits bool
	}{{n, true}, {n + 1, false}} {
		fq := q
		fq.SeqLen = tt.seq
		got, err := e.Answer(fq)
		if err != nil || got.Fits != tt.fits {
			t.Errorf("forward at seq %d: fits %v (%v), want %v", tt.seq, got.Fits, err, tt.fits)
		}
	}

	a, err = e.MaxContext(Query{Model: "llama-3.1-70b", Method: MethodInference, GPU: "l4"})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.MaxContext; c.MaxTokens != 0 || c.Nearest == nil || c.Nearest.MaxTokens <= 0 {
		t.Errorf("70B on one L4: %+v, want nothing and a nearest change", c)
	}

	if _, err := e.MaxContext(Query{Model: "llama-3.1-8b"}); err == nil {
		t.Error("no GPU: want an InputError")
	}
}

// TestWhichGPU: every option fits as the forward estimator sees it, within
// one machine, with the fewest cards that fit; priced options come first,
// cheapest for the run when a token budget is given.
func TestWhichGPU(t *testing.T) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.69, "a100-80": 1.89, "h100": 2.99, "l4": 0.80}}
	q := Query{Params: 13e9, Method: MethodLoRA, Tokens: 1e9}
	a, err := e.WhichGPU(q)
	if err != nil {
		t.Fatal(err)
	}
	w := a.WhichGPU
	if w.FitsNothing || len(w.Options) < 10 {
		t.Fatalf("%d options (fits nothing %v)", len(w.Options), w.FitsNothing)
	}
	seen := map[string]bool{}
	pricedDone := false
	var last float64
	for i, o := range w.Options {
		g := gpuOf(t, o.GPU)
		if seen[o.GPU] || o.Nodes != 1 || o.GPUs > MaxPerNode(g) {
			t.Errorf("option %d: %s ×%d on %d nodes (seen %v)", i, o.GPU, o.GPUs, o.Nodes, seen[o.GPU])
		}
		seen[o.GPU] = true
		fq := q
		fq.GPU, fq.GPUs = o.GPU, o.GPUs
		fwd, err := e.Answer(fq)
		if err != nil || !fwd.Fits {
			t.Errorf("%d× %s: forward fits %v (%v)", o.GPUs, o.GPU, fwd.Fits, err)
		}
		if o.GPUs > 1 {
			fq.GPUs = o.GPUs / 2
			if fewer, err := e.Answer(fq); err == nil && fewer.Fits {
				t.Errorf("%s: %d cards listed but %d fit", o.GPU, o.GPUs, fq.GPUs)
			}
		}
		switch {
		case o.USDTotal == nil:
			pricedDone = true
		case pricedDone:
			t.Errorf("%s priced after unpriced options", o.GPU)
		case *o.USDTotal < last:
			t.Errorf("%s: run cost %.2f after %.2f", o.GPU, *o.USDTotal, last)
		default:
			last = *o.USDTotal
			if o.Hours == nil || o.USDPerHour == nil || !nearlyEqual(*o.USDTotal, *o.Hours**o.USDPerHour) {
				t.Errorf("%s: total %v is not hours %v × $/h %v", o.GPU, *o.USDTotal, o.Hours, o.USDPerHour)
			}
		}
	}
	if a.Request.GPU != w.Options[0].GPU {
		t.Errorf("request for %s, first option %s", a.Request.GPU, w.Options[0].GPU)
	}

	big, err := e.WhichGPU(Query{Model: "llama-3.1-405b", Method: MethodFull})
	if err != nil {
		t.Fatal(err)
	}
	if !big.WhichGPU.FitsNothing || big.WhichGPU.Nearest == nil || big.WhichGPU.Nearest.Nodes < 2 {
		t.Errorf("405B full: fits nothing %v, nearest %+v; want several machines", big.WhichGPU.FitsNothing, big.WhichGPU.Nearest)
	}
}

func BenchmarkLargestModel(b *testing.B) {
	e := &Estimator{}
	q := Query{GPU: "rtx-4090", GPUs: 2, Method: MethodLoRA}
	for b.Loop() {
		if _, err := e.LargestModel(q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMaxContext(b *testing.B) {
	e := &Estimator{}
	q := Query{Model: "llama-3.1-8b", Method: MethodInference, GPU: "l4"}
	for b.Loop() {
		if _, err := e.MaxContext(q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWhichGPU(b *testing.B) {
	e := &Estimator{Prices: stubPrices{"rtx-4090": 0.69, "a100-80": 1.89, "h100": 2.99}}
	q := Query{Params: 13e9, Method: MethodLoRA, Tokens: 1e9}
	for b.Loop() {
		if _, err := e.WhichGPU(q); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMergeAssumptions: the parser and the estimator both say how they
// read an ambiguous name; the answer says it once.
func TestMergeAssumptions(t *testing.T) {
	p, err := Parse("7b full h100")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	got := MergeAssumptions(p.Notes, a.Assumptions)
	n := 0
	for _, s := range got {
		if s == `"h100" taken as H100 SXM 80 GB` {
			n++
		}
	}
	if n != 1 || len(got) != len(a.Assumptions) {
		t.Errorf("the h100 note appears %d times in %q", n, got)
	}
	if got := MergeAssumptions([]string{"a", "b"}, []string{"b", "c", "a"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("merge = %q, want [a b c]", got)
	}
}

// TestLargestModelIsLargest guards the search against memory that is not
// monotonic in the size (a new anchor width makes fewer, wider layers and
// a smaller KV cache): on a grid of sizes above the answer (whole steps,
// up to twice the answer, 400 points log-spaced), none fits forward.
func TestLargestModelIsLargest(t *testing.T) {
	e := &Estimator{}
	for _, q := range []Query{
		{GPU: "t4", Method: MethodInference, SeqLen: 1 << 20}, // the KV cache dominates: not monotonic
		{GPU: "rtx-4090", GPUs: 2, Method: MethodLoRA},
	} {
		a, err := e.LargestModel(q)
		if err != nil {
			t.Fatal(err)
		}
		row := a.Largest.Rows[0]
		if !row.Asked || row.MaxParams == 0 {
			t.Fatalf("%s: first row %+v", Format(q), row)
		}
		for i := 1; i <= 400; i++ {
			p := int64(float64(row.MaxParams) * math.Pow(2, float64(i)/400))
			p = max((p+searchStep-1)/searchStep*searchStep, row.MaxParams+searchStep)
			m := BareModel(p, 0)
			m.MaxContext = 0
			fq := rowForward(q, row, 0)
			fq.Arch = &m
			got, err := e.Answer(fq)
			if err != nil {
				t.Fatal(err)
			}
			if got.Fits {
				t.Fatalf("%s: %d params fit, above the answer %d", Format(q), p, row.MaxParams)
			}
		}
	}
}

// TestMaxContextFamilies: a state-space model's longest context is the
// search's ceiling, not a length it "was trained for" (Mamba 2.8B said
// "trained for 10.49M tokens", with "0 KiB of KV cache per token"); a
// diffusion pipeline has no context and is refused with the fit to ask
// (FLUX.1 [dev] offered "fp8 weights, up to 10.49M tokens").
func TestMaxContextFamilies(t *testing.T) {
	a, err := (&Estimator{}).MaxContext(Query{Model: "mamba-2.8b", GPU: "l4"})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.MaxContext; c.Bound != BoundSearch || c.ModelMaxTokens != 0 || c.KVBytesPerToken != 0 || c.MaxTokens != MaxSeqLen {
		t.Errorf("Mamba 2.8B on an L4: bound %s, model max %d, KV per token %g, max %d", c.Bound, c.ModelMaxTokens, c.KVBytesPerToken, c.MaxTokens)
	}
	_, err = (&Estimator{}).MaxContext(Query{Model: "flux.1-dev", Method: MethodLoRA, GPU: "rtx-4090", GPUs: 2})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "diffusion") || ie.Hint != "fit flux.1-dev lora 2xrtx-4090" {
		t.Errorf("FLUX max context: %v, want a diffusion refusal trying the fit", err)
	}
}
