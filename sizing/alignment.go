package sizing

import "fmt"

// alignment is a preference or RL objective trained on top of a model and
// what it holds beside the policy being trained.
type alignment struct {
	Name  string   // the Request.Alignment value and the canonical word
	label string   // how answers name it
	Words []string // the normalised words that name it
	// reference says a frozen reference copy of the policy is held for the
	// KL term or the log-prob ratios (DPO, IPO, KTO, PPO, GRPO); ORPO and
	// SimPO are reference-free.
	reference bool
	// paired says each example is a chosen and a rejected answer that
	// run through the model together (TRL's concatenated forward), so a
	// micro-batch of N examples holds the activations of 2N sequences.
	paired bool
	// online says the reference scores fresh rollouts (PPO, GRPO), so its
	// log-probs cannot be computed ahead of the run.
	online bool
	// notCounted is what the objective also needs that fitbot does not
	// size; empty when the reference is all.
	notCounted string
}

// alignments are the objectives fitbot reads. IPO runs in TRL's
// DPOTrainer (loss_type "ipo"); RLHF is read as PPO.
var Alignments = []alignment{
	{Name: "dpo", label: "DPO", Words: []string{"dpo", "directpreferenceoptimization"}, reference: true, paired: true},
	{Name: "ipo", label: "IPO", Words: []string{"ipo"}, reference: true, paired: true},
	{Name: "kto", label: "KTO", Words: []string{"kto"}, reference: true},
	{Name: "orpo", label: "ORPO", Words: []string{"orpo"}, paired: true},
	{Name: "simpo", label: "SimPO", Words: []string{"simpo"}, paired: true},
	{Name: "ppo", label: "PPO", Words: []string{"ppo", "rlhf"}, reference: true, online: true,
		notCounted: "a reward model and a value model (trained, with its own gradients and optimizer state) and the rollouts' generation"},
	{Name: "grpo", label: "GRPO", Words: []string{"grpo"}, reference: true, online: true,
		notCounted: "a reward model (when one scores the completions rather than reward functions) and the completions' generation (vLLM)"},
}

// alignmentNamed is the objective named n, and false for none.
func alignmentNamed(n string) (alignment, bool) {
	for _, a := range Alignments {
		if a.Name == n {
			return a, true
		}
	}
	return alignment{}, false
}

// heldReference says the request holds a second, frozen copy of the
// policy's weights on the GPUs: a reference-model objective trained in
// full. With LoRA or QLoRA the reference is the base with the adapters
// switched off (TRL with PEFT), so nothing more is held.
func heldReference(r *Request) bool {
	a, ok := alignmentNamed(r.Alignment)
	return ok && a.reference && r.Method == MethodFull
}

// runsReference says each trained token also goes through a forward pass
// of the reference model (held, or the base with the adapters off).
func runsReference(r *Request) bool {
	a, ok := alignmentNamed(r.Alignment)
	return ok && a.reference && r.Method != MethodInference
}

// sequencesPerExample is how many sequences one example of the
// request's micro-batch runs through the model at once: 2 for a paired
// preference objective (chosen and rejected), 1 otherwise.
func sequencesPerExample(r *Request) int64 {
	if a, ok := alignmentNamed(r.Alignment); ok && a.paired {
		return 2
	}
	return 1
}

// resolveAlignment says what the request's objective adds, in words: the
// reference copy counted (its size per GPU before sharding), or why none
// is held, and what is not sized.
func (rs *resolved) resolveAlignment(q Query) {
	a, ok := alignmentNamed(q.Alignment)
	if !ok {
		return
	}
	r := &rs.req
	if r.Method == MethodInference {
		rs.assume("%s read as how the model was trained: serving it is sized like any other", a.label)
		return
	}
	r.Alignment = a.Name
	switch {
	case !a.reference:
		rs.assume("%s: reference-free, no reference model held", a.label)
	case r.Method == MethodFull:
		wB, _, _ := trainingStateBytes(r.Optimizer, r.Precision)
		drop := "precompute the reference log-probs to drop it"
		if a.online {
			drop = "it scores each rollout for the KL term"
		}
		rs.assume("%s: a frozen reference copy of the policy's weights, %s, counted in weights (sharded like them) and its forward pass in the speed; %s",
			a.label, gibString(ceilBytes(wB*float64(rs.shape.total))), drop)
	default:
		rs.assume("%s with %s: the reference is the frozen base with the adapters switched off (TRL with PEFT), no second copy; its forward pass is counted in the speed",
			a.label, r.Method)
	}
	if a.paired {
		rs.assume("%s: micro-batch %d is %d chosen/rejected pair(s), run together (TRL's concatenated forward): activations of %d sequences",
			a.label, r.MicroBatch, r.MicroBatch, 2*r.MicroBatch)
	}
	if a.notCounted != "" {
		rs.notes = append(rs.notes, fmt.Sprintf("%s also needs %s: not counted here", a.label, a.notCounted))
	}
}

// AlignmentLabel is how answers name the request's preference or RL
// objective ("DPO", "GRPO"), to put before its method; empty for none.
func AlignmentLabel(r Request) string {
	a, _ := alignmentNamed(r.Alignment)
	return a.label
}
