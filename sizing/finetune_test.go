package sizing

import (
	"errors"
	"strings"
	"testing"
)

// TestNVMeOffloadNeedsStage3: DeepSpeed offloads to NVMe at ZeRO stage 3
// only; asked at stage 2 the answer sizes CPU offload and says so, and
// "nvme" alone means stage 3.
func TestNVMeOffloadNeedsStage3(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "a100-80", Offload: OffloadNVMe, ZeROStage: stagePtr(2)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.Offload != OffloadCPU || !anyHasPrefix(a.Warnings, "NVMe offload is ZeRO-3 only") {
		t.Errorf("nvme at stage 2: offload %s, warnings %q", a.Request.Offload, a.Warnings)
	}
	if a.HostRAMBytes < 100e9 {
		t.Errorf("host RAM %d B: the optimizer states of 8B (~128 GB) must be in it", a.HostRAMBytes)
	}
	a, err = (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "a100-80", Offload: OffloadNVMe})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.ZeROStage != 3 || a.Request.Offload != OffloadNVMe {
		t.Errorf("nvme alone: stage %d offload %s, want ZeRO-3 to NVMe", a.Request.ZeROStage, a.Request.Offload)
	}
}

// TestQLoRA8bit: an 8-bit LLM.int8 base is a QLoRA base (about 1 byte per
// linear weight); 2- and 3-bit are refused with the widths that work.
func TestQLoRA8bit(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "llama-3.1-8b", Method: MethodQLoRA, Quant: QuantINT8, GPU: "rtx-4090"})
	if err != nil {
		t.Fatal(err)
	}
	s := shapeOf(modelOf(t, "llama-3.1-8b"))
	if want := modelWeightBytes(&s, QuantINT8, PrecisionBF16); float64(a.PerGPU.WeightsBytes) < want {
		t.Errorf("8-bit base weights %d B, want at least %.0f", a.PerGPU.WeightsBytes, want)
	}
	for _, in := range []string{"llama-3.1-8b qlora 2bit 4090", "llama-3.1-8b qlora 3-bit rtx 4090"} {
		_, err := Parse(in)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "4-bit (NF4) or 8-bit") {
			t.Errorf("%q: %v, want the supported widths named", in, err)
		}
	}
}

// TestModulesToSave: training the embeddings and LM head beside LoRA adds
// their parameters' full training state (2 × 128,256 × 4,096 = 1.05B for
// Llama 3.1 8B, 16 B each under mixed-precision AdamW).
func TestModulesToSave(t *testing.T) {
	on := true
	q := Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "a100-80"}
	plain, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	q.ModulesToSave = &on
	with, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	states := func(m Memory) float64 { return float64(m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes) }
	if got, want := states(with.PerGPU)-states(plain.PerGPU), 16*2*128256*4096.0; !withinRel(got, want, 0.001) {
		t.Errorf("modules_to_save adds %.3g B of model states, want %.3g", got, want)
	}
	q.Method = MethodFull
	if _, err := (&Estimator{}).Answer(q); err == nil {
		t.Error("modules_to_save with full training: no error")
	}
}

// TestOffloadedCheckpointing: Unsloth's offloaded checkpointing keeps two
// layer inputs on the GPU instead of all of them, and puts the rest in
// host RAM; it turns checkpointing on.
func TestOffloadedCheckpointing(t *testing.T) {
	on := true
	q := Query{Model: "llama-3.1-70b", Method: MethodQLoRA, GPU: "a100-80", SeqLen: 32768}
	plain, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	q.OffloadActivations = &on
	off, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	if off.PerGPU.ActivationsBytes >= plain.PerGPU.ActivationsBytes || off.HostRAMBytes <= plain.HostRAMBytes {
		t.Errorf("offloaded: activations %d (plain %d), host RAM %d (plain %d)", off.PerGPU.ActivationsBytes, plain.PerGPU.ActivationsBytes, off.HostRAMBytes, plain.HostRAMBytes)
	}
	q.GradCheckpointing = new(bool)
	if _, err := (&Estimator{}).Answer(q); err == nil {
		t.Error("offloaded checkpointing with checkpointing off: no error")
	}
}

// TestFusedLossAlternative: where the loss term is the largest activation
// (128k vocabulary, 16k sequence, checkpointing) the alternatives offer
// fused cross-entropy, and asking for it shrinks the activations.
func TestFusedLossAlternative(t *testing.T) {
	q := Query{Model: "llama-3.1-8b", Method: MethodQLoRA, GPU: "rtx-4090", SeqLen: 16384}
	a, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, alt := range a.Alternatives {
		if strings.Contains(alt.Why, "fused cross-entropy") && alt.Request.FusedLoss && alt.Fits {
			found = true
		}
	}
	if !found {
		t.Errorf("no fused-loss alternative: %+v", a.Alternatives)
	}
	on := true
	q.FusedLoss = &on
	f, err := (&Estimator{}).Answer(q)
	if err != nil {
		t.Fatal(err)
	}
	if f.PerGPU.ActivationsBytes*3 > a.PerGPU.ActivationsBytes {
		t.Errorf("fused loss activations %d, plain %d: want under a third", f.PerGPU.ActivationsBytes, a.PerGPU.ActivationsBytes)
	}
}
