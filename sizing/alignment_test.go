package sizing

import (
	"strings"
	"testing"
)

// TestAlignmentReference: DPO trained in full holds a frozen reference
// copy of the policy's weights (one more 16-bit copy, sharded like the
// weights at ZeRO-3) and runs its forward pass; with LoRA the reference is
// the base with the adapters off, so the weights are unchanged; ORPO
// holds none; a paired objective runs chosen and rejected together (twice
// the activations), KTO's single examples do not; GRPO says what it does
// not count.
func TestAlignmentReference(t *testing.T) {
	answer := func(q Query) Answer {
		t.Helper()
		a, err := (&Estimator{}).Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	zero := func(n int) *int { return &n }
	s := shapeOf(modelOf(t, "llama-3.1-8b"))
	for _, stage := range []int{1, 3} {
		q := Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 2, ZeROStage: zero(stage)}
		sft := answer(q)
		q.Alignment = "dpo"
		dpo := answer(q)
		want := 2 * float64(s.total)
		if stage == 3 {
			want /= 2
		}
		if got := float64(dpo.PerGPU.WeightsBytes - sft.PerGPU.WeightsBytes); got < want-1 || got > want+1 {
			t.Errorf("zero%d: DPO adds %.0f B of weights, want the reference copy %.0f B", stage, got, want)
		}
		if *dpo.Throughput.TokensPerSecond >= *sft.Throughput.TokensPerSecond {
			t.Errorf("zero%d: DPO %.0f tok/s, not slower than SFT %.0f: the reference forward is not counted", stage, *dpo.Throughput.TokensPerSecond, *sft.Throughput.TokensPerSecond)
		}
		if dpo.Request.Alignment != "dpo" || !anyHasPrefix(dpo.Assumptions, "DPO: a frozen reference copy of the policy's weights, 15.0 GiB, counted") {
			t.Errorf("zero%d: alignment %q, assumptions %q", stage, dpo.Request.Alignment, dpo.Assumptions)
		}
	}

	q := Query{Model: "llama-3.1-8b", Method: MethodLoRA, GPU: "rtx-4090"}
	lora := answer(q)
	q.Alignment = "dpo"
	if dpo := answer(q); dpo.PerGPU.WeightsBytes != lora.PerGPU.WeightsBytes || !anyHasPrefix(dpo.Assumptions, "DPO with lora: the reference is the frozen base") {
		t.Errorf("DPO LoRA: weights %d B against %d B, assumptions %q", dpo.PerGPU.WeightsBytes, lora.PerGPU.WeightsBytes, dpo.Assumptions)
	}

	q = Query{Model: "llama-3.1-8b", Method: MethodFull, GPU: "h100", GPUs: 2}
	sft := answer(q)
	q.Alignment = "orpo"
	orpo := answer(q)
	if orpo.PerGPU.WeightsBytes != sft.PerGPU.WeightsBytes || !anyHasPrefix(orpo.Assumptions, "ORPO: reference-free") {
		t.Errorf("ORPO: weights %d B against %d B, assumptions %q", orpo.PerGPU.WeightsBytes, sft.PerGPU.WeightsBytes, orpo.Assumptions)
	}
	// A pair (chosen and rejected) runs together: twice the activations.
	if orpo.PerGPU.ActivationsBytes != 2*sft.PerGPU.ActivationsBytes || !anyHasPrefix(orpo.Assumptions, "ORPO: micro-batch 1 is 1 chosen/rejected pair(s)") {
		t.Errorf("ORPO activations %d B, want twice SFT's %d B; assumptions %q", orpo.PerGPU.ActivationsBytes, sft.PerGPU.ActivationsBytes, orpo.Assumptions)
	}
	q.Alignment = "kto" // unpaired
	if kto := answer(q); kto.PerGPU.ActivationsBytes != sft.PerGPU.ActivationsBytes {
		t.Errorf("KTO activations %d B, want SFT's %d B: its examples are single", kto.PerGPU.ActivationsBytes, sft.PerGPU.ActivationsBytes)
	}

	q.Alignment = "grpo"
	grpo := answer(q)
	if !strings.Contains(strings.Join(grpo.Warnings, "\n"), "GRPO also needs a reward model") {
		t.Errorf("GRPO warnings %q: the reward model and generation must be said not counted", grpo.Warnings)
	}
	// Online: the reference scores fresh rollouts, nothing to precompute.
	if !anyHasPrefix(grpo.Assumptions, "GRPO: a frozen reference copy") || strings.Contains(strings.Join(grpo.Assumptions, "\n"), "precompute") {
		t.Errorf("GRPO assumptions %q", grpo.Assumptions)
	}
}
