package sizing

import (
	"fmt"
	"math"
	"testing"
)

// states is the model-state bytes (weights + gradients + optimizer) of a
// Memory.
func states(m Memory) int64 { return m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes }

// bare is the shape of a bare-size model of exactly params parameters.
func bareShape(params int64) shape { return shapeOf(BareModel(params, 0)) }

func trainReq(method Method, opt Optimizer, prec Precision, gpus, stage int) Request {
	r := Request{Method: method, Optimizer: opt, Precision: prec, GPUs: gpus, Nodes: 1, ZeROStage: stage,
		Offload: OffloadNone, SeqLen: 2048, MicroBatch: 1}
	if method == MethodLoRA || method == MethodQLoRA {
		r.LoRARank = 16
	}
	if method == MethodQLoRA {
		r.Quant, r.GradCheckpointing = QuantNF4DQ, true
	}
	return r
}

// TestBytesPerParamByOptimizer reproduces the seeds' optimizer table
// (seeds/003 "Hardware Requirements" §3: K = 12, ~6, 4, 0 giving 16Ψ, 10Ψ,
// 8Ψ, 4Ψ) and its note that pure FP32 Adam is also 16Ψ (4+4+4+4).
func TestBytesPerParamByOptimizer(t *testing.T) {
	const psi = 1_000_000_000
	s := bareShape(psi)
	for _, tc := range []struct {
		opt  Optimizer
		prec Precision
		want int64 // bytes per parameter
	}{
		{OptimizerAdamW, PrecisionBF16, 16},
		{OptimizerAdamW8bit, PrecisionBF16, 10},
		{OptimizerSGDMomentum, PrecisionBF16, 8},
		{OptimizerSGD, PrecisionBF16, 4},
		{OptimizerAdamW, PrecisionFP32, 16},
		{OptimizerAdamW, PrecisionFP16, 16},
	} {
		r := trainReq(MethodFull, tc.opt, tc.prec, 1, 0)
		if got := states(trainingMemory(&r, &s)); got != tc.want*psi {
			t.Errorf("%s %s: model states = %d B, want %d B (%d B/param)", tc.opt, tc.prec, got, tc.want*psi, tc.want)
		}
	}
}

// TestAdafactorFactored checks Adafactor's factored second moment: per
// matrix rows+cols instead of rows×cols (Shazeer & Stern 2018), on top of
// the fp32 master copy, so its total sits just above 8 B/param.
func TestAdafactorFactored(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-2-7b"))
	r := trainReq(MethodFull, OptimizerAdafactor, PrecisionBF16, 1, 0)
	m := trainingMemory(&r, &s)
	perParam := float64(states(m)) / float64(s.total)
	if perParam <= 8 || perParam > 8.01 {
		t.Errorf("Adafactor = %.4f B/param, want just above 8 (2 weights + 2 grads + 4 master + factored moments)", perParam)
	}
	// Llama-2-7B: 32 layers × (4 attention 4096×4096 + 3 MLP 4096×11008) +
	// 2 embeddings 32000×4096 + norms, each matrix rows+cols.
	want := int64(32*(4*(4096+4096)+3*(4096+11008)) + 2*(32000+4096) + (32*2+1)*4096)
	if s.factored != want {
		t.Errorf("factored elements = %d, want %d", s.factored, want)
	}
}

// TestZeROTable reproduces the seeds' ZeRO table (seeds/003 §3 "With
// ZeRO", after Rajbhandari et al. 2020 Fig. 1): per GPU, stage 1
// 4Ψ+12Ψ/N, stage 2 2Ψ+14Ψ/N, stage 3 16Ψ/N.
func TestZeROTable(t *testing.T) {
	const psi = 7_000_000_000
	s := bareShape(psi)
	for _, n := range []int64{1, 2, 4, 8, 64} {
		for stage, want := range []int64{16 * psi, 4*psi + 12*psi/n, 2*psi + 14*psi/n, 16 * psi / n} {
			r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, int(n), stage)
			if got := states(trainingMemory(&r, &s)); got != want {
				t.Errorf("stage %d, N=%d: %d B per GPU, want %d", stage, n, got, want)
			}
		}
	}
}

// TestGatheredLayers: ZeRO-3 / FSDP full sharding holds two blocks'
// 16-bit weights and one block's 16-bit gradients unsharded beside the
// shards, as a term of its own: the model states stay the seeds' 16Ψ/N.
// Nothing is gathered below stage 3, on one GPU, under a pipeline (ZeRO-1
// there), or with parameter offload (offloadResident holds DeepSpeed's
// working set in the weights and gradients terms).
func TestGatheredLayers(t *testing.T) {
	const psi = 7_000_000_000
	s := bareShape(psi)
	block := float64(s.total-s.embedParams()) / float64(s.layers)
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 8, 3)
	m := trainingMemory(&r, &s)
	if got, want := m.GatheredBytes, int64(math.Ceil(block*(2*2+2))); got < want-1 || got > want+1 {
		t.Errorf("ZeRO-3 on 8 GPUs: gathered %d B, want 3 blocks of %.0f parameters at 2 B = %d", got, block, want)
	}
	if got, want := states(m), int64(16*psi/8); got != want {
		t.Errorf("ZeRO-3 on 8 GPUs: model states %d B, want 16Ψ/N = %d", got, want)
	}
	if m.TotalBytes != m.WeightsBytes+m.GradientsBytes+m.OptimizerBytes+m.ActivationsBytes+m.OverheadBytes+m.GatheredBytes {
		t.Errorf("total %d is not the sum of the terms", m.TotalBytes)
	}
	r.Method, r.LoRARank = MethodLoRA, 16
	if got := trainingMemory(&r, &s).GatheredBytes; float64(got) < block*2*2 || float64(got) > block*2*2*1.01 {
		t.Errorf("LoRA at ZeRO-3: gathered %d B, want two blocks of the frozen base (%.0f B) and the adapters' gradients", got, block*2*2)
	}
	for _, tc := range []struct {
		name   string
		change func(*Request)
	}{
		{"ZeRO-2", func(r *Request) { r.ZeROStage = 2 }},
		{"one GPU", func(r *Request) { r.GPUs = 1 }},
		{"pipeline", func(r *Request) { r.PipelineParallel = 2 }},
		{"parameter offload", func(r *Request) { r.Offload = OffloadCPU }},
	} {
		r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 8, 3)
		tc.change(&r)
		if got := trainingMemory(&r, &s).GatheredBytes; got != 0 {
			t.Errorf("%s: gathered %d B, want 0", tc.name, got)
		}
	}
	// Over 64 GPUs DeepSpeed's offload working set is more than a 7B's
	// shards; it is held to what ZeRO-3 keeps without offload, the shards
	// and the gathered layers, and no longer to the shards alone.
	r = trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 64, 3)
	without := trainingMemory(&r, &s)
	r.Offload = OffloadCPU
	with := trainingMemory(&r, &s)
	if got := with.WeightsBytes + with.GradientsBytes; got <= states(without) || got > states(without)+without.GatheredBytes {
		t.Errorf("offload on 64 GPUs: %d B resident, want above the shards (%d) and at most the shards and gathered layers (%d)",
			got, states(without), states(without)+without.GatheredBytes)
	}
}

// TestWorkedExamples reproduces the seeds' worked examples (seeds/003 §3:
// full FT 16Ψ, LoRA ≈ 2Ψ) for bare sizes, and the exact figure for the
// catalog's Mistral-7B-v0.1, whose 7.24B parameters make 115.9 GB rather
// than the table's rounded 112 GB.
func TestWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		name       string
		psi        int64
		full, lora float64 // GB, as the seeds print them
	}{
		{"Qwen3-0.6B", 600e6, 9.6, 1.2},
		{"Qwen2-VL-2B", 2e9, 32, 4},
		{"Mistral-7B", 7e9, 112, 14},
		{"gpt-oss-20b", 20e9, 320, 40},
		{"Llama-70B", 70e9, 1120, 140},
	} {
		s := bareShape(tc.psi)
		r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 1, 0)
		if got := float64(states(trainingMemory(&r, &s))) / 1e9; got != tc.full {
			t.Errorf("%s full fine-tune = %.2f GB, want %.2f GB", tc.name, got, tc.full)
		}
		r = trainReq(MethodLoRA, OptimizerAdamW, PrecisionBF16, 1, 0)
		m := trainingMemory(&r, &s)
		if base := float64(m.WeightsBytes-2*s.loraParams(16)) / 1e9; base != tc.lora {
			t.Errorf("%s LoRA frozen base = %.2f GB, want %.2f GB", tc.name, base, tc.lora)
		}
		if adapters := m.GradientsBytes + m.OptimizerBytes + 2*s.loraParams(16); adapters != 16*s.loraParams(16) {
			t.Errorf("%s LoRA adapters' states = %d B, want 16 × %d", tc.name, adapters, s.loraParams(16))
		}
	}
	s := shapeOf(modelOf(t, "mistral-7b-v0.1"))
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 1, 0)
	if got, want := states(trainingMemory(&r, &s)), int64(16*7_241_732_096); got != want {
		t.Errorf("Mistral-7B-v0.1 full fine-tune = %d B, want 16 × 7,241,732,096 = %d", got, want)
	}
}

// TestLoRAParamsExact counts LoRA adapters from the architecture: r·(in+out)
// per targeted linear per layer. Llama-2-7B at rank 16 on q,k,v,o,gate,up,
// down: 32 × 16 × (4·(4096+4096) + 3·(4096+11008)) = 39,976,960, the
// figure PEFT's print_trainable_parameters reports for this setup.
func TestLoRAParamsExact(t *testing.T) {
	for _, tc := range []struct {
		model string
		rank  int
		want  int64
	}{
		{"llama-2-7b", 16, 32 * 16 * (4*(4096+4096) + 3*(4096+11008))},
		{"llama-2-7b", 8, 32 * 8 * (4*(4096+4096) + 3*(4096+11008))},
		// GQA: k and v project to 8 × 128 = 1024.
		{"llama-3.1-8b", 16, 32 * 16 * (2*(4096+4096) + 2*(4096+1024) + 3*(4096+14336))},
		// Mixtral: every expert's w1, w2, w3 carries an adapter; the router does not.
		{"mixtral-8x7b", 16, 32 * 16 * (2*(4096+4096) + 2*(4096+1024) + 8*3*(4096+14336))},
	} {
		s := shapeOf(modelOf(t, tc.model))
		if got := s.loraParams(tc.rank); got != tc.want {
			t.Errorf("%s rank %d: %d adapter params, want %d", tc.model, tc.rank, got, tc.want)
		}
	}
}

// TestQLoRA65BOn48GB reproduces the QLoRA paper's headline (Dettmers et
// al. 2023, abstract: "finetune a 65B parameter model on a single 48GB
// GPU") with LLaMA-65B's published shape (Touvron et al. 2023, Table 2:
// 80 layers, hidden 8192, 64 heads; FFN 22016, vocab 32000 from its
// config.json). It must fit an RTX A6000 and the 4-bit base must be near
// 4.127 bits per weight.
func TestQLoRA65BOn48GB(t *testing.T) {
	llama65 := Model{ID: "llama-65b", Name: "LLaMA 65B", Kind: KindDecoder, Layers: 80, Hidden: 8192, Intermediate: 22016,
		Heads: 64, KVHeads: 64, HeadDim: 128, Vocab: 32000, MLP: MLPGated, Norm: NormRMS, NormsPerLayer: 2, MaxContext: 2048}
	a, err := (&Estimator{}).Answer(Query{Arch: &llama65, Method: MethodQLoRA, GPU: "rtx-a6000"})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits {
		t.Errorf("LLaMA-65B QLoRA on a 48 GB card: %s of %s, want it to fit", gibString(a.PerGPU.TotalBytes), gibString(a.VRAMBytes))
	}
	s := shapeOf(llama65)
	bits := 8 * (float64(modelWeightBytes(&s, QuantNF4DQ, PrecisionBF16)) - 2*float64(s.total-s.linear)) / float64(s.linear)
	if bits < 4.126 || bits > 4.128 {
		t.Errorf("NF4 with double quantisation = %.4f bits per weight, want 4.127 (QLoRA paper §3)", bits)
	}
}

// TestThreeBOn3090 is the seeds' exercise (seeds/000 "Exercises": a 3B
// model with Adam in mixed precision needs 16 × 3B = 48 GB; an RTX 3090
// has 24 GB, so no), with the smallest change on the same card offered.
func TestThreeBOn3090(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Params: 3e9, Method: MethodFull, GPU: "rtx-3090"})
	if err != nil {
		t.Fatal(err)
	}
	if got := states(a.PerGPU); got != 48e9 {
		t.Errorf("model states = %d, want 48 GB", got)
	}
	if a.Fits || a.Headroom != HeadroomOver {
		t.Errorf("fits = %v (%s), want a 3B full fine-tune not to fit a 3090", a.Fits, a.Headroom)
	}
	if a.BindingTerm != "optimizer" {
		t.Errorf("binding term = %q, want optimizer", a.BindingTerm)
	}
	if len(a.Alternatives) == 0 || a.Alternatives[0].GPU != "rtx-3090" || a.Alternatives[0].GPUs != 1 {
		t.Fatalf("first alternative = %+v, want a altChange on the same single card", a.Alternatives)
	}
	for _, alt := range a.Alternatives {
		if !alt.Fits || alt.TotalBytes > gpuOf(t, alt.GPU).MemoryBytes {
			t.Errorf("alternative %+v does not fit its card", alt)
		}
	}
}

// TestOffload checks that offload moves the optimizer states and the
// gradients (stage 1-2, ZeRO-Offload) and the weights too (stage 3) off
// the GPU, and that host RAM is 1.5× the 16Ψ DeepSpeed counts there
// (12 B of Adam state plus 4 B of fp32 gradients).
func TestOffload(t *testing.T) {
	const psi = 7_000_000_000
	s := bareShape(psi)
	r := trainReq(MethodFull, OptimizerAdamW, PrecisionBF16, 1, 2)
	r.Offload = OffloadCPU
	m := trainingMemory(&r, &s)
	if m.OptimizerBytes != 0 || m.GradientsBytes != 0 || m.WeightsBytes != 2*psi {
		t.Errorf("ZeRO-2 offload: optimizer %d, gradients %d, weights %d; want 0, 0 and 2Ψ", m.OptimizerBytes, m.GradientsBytes, m.WeightsBytes)
	}
	ram, _ := hostNeeds(&r, &s)
	if want := int64(1.5 * 16 * psi); ram != want {
		t.Errorf("host RAM = %d, want 1.5 × 16Ψ = %d", ram, want)
	}
	r.ZeROStage = 3
	// DeepSpeed keeps up to stage3_max_live_parameters (1e9) gathered, the
	// prefetch bucket (5e7) and the largest tensor (the 32k × 4k embedding).
	if m3, want := trainingMemory(&r, &s), 2*(1e9+5e7+float64(s.vocab*s.hidden)); !withinRel(float64(m3.WeightsBytes), want, 1e-6) {
		t.Errorf("ZeRO-3 offload keeps %d B of weights on the GPU, want %.0f (live parameters, prefetch, the embedding)", m3.WeightsBytes, want)
	}
	r.Offload = OffloadNVMe
	if _, disk := hostNeeds(&r, &s); disk < 18*psi {
		t.Errorf("NVMe offload disk = %d, want the 16-bit checkpoint plus 18Ψ of offloaded state", disk)
	}
}

func modelOf(t testing.TB, id string) Model {
	t.Helper()
	m, _, err := LookupModel(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func gpuOf(t testing.TB, id string) GPU {
	t.Helper()
	g, _, err := LookupGPU(id)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ExampleEstimateMemory() {
	m, _, _ := LookupModel("llama-3.1-8b")
	r := Request{Method: MethodFull, Optimizer: OptimizerAdamW, Precision: PrecisionBF16, GPUs: 8, Nodes: 1,
		ZeROStage: 3, Offload: OffloadNone, SeqLen: 2048, MicroBatch: 1}
	fmt.Printf("%.1f GiB per GPU\n", float64(EstimateMemory(r, m).TotalBytes)/(1<<30))
	// Output: 32.5 GiB per GPU
}

// TestA100FullFineTuneCeiling reproduces seeds/000 ("Training Memory Lower
// Bound"): 80 GB / 16 B gives a naive 5B limit, but with activations and
// the CUDA context "a realistic A100 80 GB ceiling for full fine-tuning
// with standard Adam is closer to 3B parameters".
func TestA100FullFineTuneCeiling(t *testing.T) {
	for _, tc := range []struct {
		params int64
		fits   bool
	}{{3e9, true}, {5e9, false}} {
		a, err := (&Estimator{}).Answer(Query{Params: tc.params, Method: MethodFull, GPU: "a100-80"})
		if err != nil {
			t.Fatal(err)
		}
		if a.Fits != tc.fits {
			t.Errorf("%s full fine-tune on an A100 80 GB: fits %v (%s), want %v", bareName(tc.params), a.Fits, gibString(a.PerGPU.TotalBytes), tc.fits)
		}
	}
}
