package sizing

import "testing"

// gptShape is a GPT-3-style layer as Korthikanti et al. 2022 model it:
// multi-head attention, a two-matrix MLP of width 4h, dropout, LayerNorm.
// The numbers are GPT-3 175B's (their Table 3): h 12288, a 96, s 2048.
func gptShape() shape {
	const h, a = 12288, 96
	return shape{layers: 96, hidden: h, ffn: 4 * h, heads: a, kvHeads: a, qDim: h, kvDim: h, vocab: 51200, dropout: true}
}

// TestKorthikantiPerLayer reproduces Korthikanti et al. 2022
// (arXiv:2205.05198) Table 2: s·b·h·(34 + 5·a·s/h) bytes per layer without
// recomputation, s·b·h·34 with the attention scores not stored (their
// selective recomputation; FlashAttention never stores them), and
// 2·s·b·h per layer with full recomputation.
func TestKorthikantiPerLayer(t *testing.T) {
	s := gptShape()
	const seq, b = 2048, 1
	h, a := float64(s.hidden), float64(s.heads)
	sbh := float64(seq * b * s.hidden)
	for _, tc := range []struct {
		name  string
		flash bool
		want  float64
	}{
		{"no recompute", false, sbh * (34 + 5*a*seq/h)},
		{"scores not stored", true, sbh * 34},
	} {
		if got := float64(seq*b) * layerActivationBytes(&s, 2, seq, tc.flash, false, 0); got != tc.want {
			t.Errorf("%s: %.0f bytes per layer, want %.0f", tc.name, got, tc.want)
		}
	}
	// Full recomputation: the layer inputs of every layer plus one layer's
	// working set while it is recomputed, plus the loss term.
	full := activationBytes(&s, 2, seq, b, true, true, 0)
	want := float64(s.layers)*2*sbh + 34*sbh + float64(seq*b)*lossBytesPerToken(&s, 2)
	if full != want {
		t.Errorf("full recompute = %.0f, want L·2sbh + one layer + loss = %.0f", full, want)
	}
}

// TestActivationsModernLayer checks the generalised constant on
// Llama-2-7B (MHA, SwiGLU I = 11008, no dropout): per token per layer
// 2 norms (4h) + qkv input (2h) + Q,K,V (6h) + o input (2h) + MLP input
// (2h) + four I-wide tensors (8I) = 16h + 8I bytes at 16 bit.
func TestActivationsModernLayer(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-2-7b"))
	if got, want := layerActivationBytes(&s, 2, 4096, true, false, 0), float64(16*4096+8*11008); got != want {
		t.Errorf("Llama-2-7B layer = %.0f B/token, want 16h + 8I = %.0f", got, want)
	}
	// Grouped-query attention shrinks K and V: Llama-3.1-8B has 8 KV heads
	// of 128 (1024 wide) against 4096-wide queries.
	s = shapeOf(modelOf(t, "llama-3.1-8b"))
	if got, want := layerActivationBytes(&s, 2, 4096, true, false, 0), float64(4*4096+2*4096+2*(4096+2*1024)+2*4096+2*4096+8*14336); got != want {
		t.Errorf("Llama-3.1-8B layer = %.0f B/token, want %.0f", got, want)
	}
}

// TestLogitsTerm checks the loss term s·b·V·(2 + 4 + 4 + 4 + 4): 16-bit
// logits, their fp32 upcast, the shifted copy, the fp32 log-softmax and
// its gradient. For Llama 3's 128,256-token vocabulary at 2048 tokens that
// is 4.7 GB, more than four layers' worth.
func TestLogitsTerm(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-3.1-8b"))
	got := 2048 * lossBytesPerToken(&s, 2)
	if want := float64(2048 * 128256 * 18); got != want {
		t.Errorf("logits = %.0f, want %.0f", got, want)
	}
	if layer := 2048 * layerActivationBytes(&s, 2, 2048, true, false, 0); got < 4*layer {
		t.Errorf("logits %.0f should exceed four layers (%.0f each) for a 128k vocabulary", got, layer)
	}
}

// TestCheckpointingShrinks: full checkpointing must cut activations of a
// deep model, and the QLoRA default turns it on.
func TestCheckpointingShrinks(t *testing.T) {
	s := shapeOf(modelOf(t, "llama-2-13b"))
	off := activationBytes(&s, 2, 4096, 1, true, false, 0)
	on := activationBytes(&s, 2, 4096, 1, true, true, 0)
	if on >= off/4 {
		t.Errorf("checkpointing: %.0f → %.0f, want at least a 4× cut over 40 layers", off, on)
	}
}
