package sizing

// Activation memory in training, after Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models" (arXiv:2205.05198,
// §4, Table 2): one GPT layer saves s·b·h·(34 + 5·a·s/h) bytes at 16 bit.
//
// The 34 is a sum over the tensors the layer saves for backward, and this
// file keeps it as that sum so that it holds for today's architectures too.
// Per token, with p bytes per element (2 at 16 bit) and 1-byte dropout masks:
//
//	two norms' inputs                 2·p·h        (4h)
//	q, k, v projections' input        p·h          (2h)
//	Q, K, V for QK^T and ·V           p·(q + 2·kv) (6h: q = kv = h under MHA)
//	output projection's input         p·q          (2h)
//	dropout masks after attn and MLP  2·h          (2h, only with dropout)
//	MLP, two matrices of width I      p·h + 2·p·I  (2h + 16h at I = 4h)
//	MLP, gated (SwiGLU) of width I    p·h + 4·p·I  (gate out, SiLU out, up out, product)
//	attention scores, no FlashAttention a·s·(p + 1 + p) with dropout, a·s·p without
//
// For GPT-2's shape (MHA, I = 4h, dropout, 16 bit) that is exactly
// 34·h + 5·a·s per token. Grouped-query attention shrinks the K and V terms
// to the KV width; a SwiGLU MLP saves four I-wide tensors instead of two;
// models trained without dropout save no masks. FlashAttention never
// materialises the scores, so the a·s term goes (Korthikanti's "selective
// recompute" row). Mixture-of-experts layers save the routed experts' MLP
// tensors for each of the k experts a token visits, plus the fp32 router
// logits. LoRA adds the rank-wide A output of each adapted linear.
//
// Full gradient checkpointing stores only each layer's input (2·s·b·h at
// 16 bit) and rebuilds one layer's full working set during recompute.
//
// The loss adds s·b·V·(p + 4 + 4 + 4 + 4) at its peak, the start of the
// backward: the logits in the compute precision, their fp32 upcast
// (Hugging Face causal-LM heads call logits.float()), the contiguous
// shifted copy the loss takes (logits[..., :-1, :].contiguous()), the fp32
// log-softmax cross-entropy keeps for backward, and the fp32 gradient of
// the logits it produces. For vocabularies of 128k-256k tokens this is the
// largest single activation: for Llama 3.1 8B it is 2.3 MB per token, and
// it is what makes Hugging Face + FlashAttention-2 QLoRA stop at 28k tokens
// on 80 GB where the layers alone would allow 45k (Unsloth's published
// context-length table, July 2024). Fused or chunked cross-entropy
// (Unsloth, Liger) avoids most of it: request.fused_loss
// (fusedLossBytesPerToken); fitbot sizes the plain path unless asked.

// layerActivationBytes is what one layer saves for backward per token of
// the micro-batch (multiply by s·b), at p bytes per element. moe selects a
// mixture-of-experts layer. seq is used only without FlashAttention.
func layerActivationBytes(s *shape, p float64, seq int64, flash, moe bool, loraRank int) float64 {
	h := float64(s.hidden)
	var mlp float64
	switch {
	case moe:
		mlp = float64(s.expertsActive)*mlpActivation(p, h, float64(s.expertFFN), s.gated) +
			float64(s.sharedExperts)*mlpActivation(p, h, float64(s.sharedFFN), s.gated) +
			4*float64(s.experts)
	case s.ffn > 0:
		mlp = mlpActivation(p, h, float64(s.ffn), s.gated)
	}
	return attentionActivation(s, p, seq, flash) + mlp + p*float64(loraRank)*float64(s.loraActivePerLayer)
}

// attentionActivation is what one attention block saves per token.
func attentionActivation(s *shape, p float64, seq int64, flash bool) float64 {
	h := float64(s.hidden)
	q := float64(s.qDim)
	kv := float64(s.kvDim)
	masks := 0.0
	if s.dropout {
		masks = 1
	}
	attn := 2*p*h + p*h + p*(q+2*kv) + p*q + 2*masks*h
	if !flash {
		attn += float64(s.heads) * float64(seq) * (p + masks*(1+p))
	}
	return attn
}

// mambaActivation is what one Mamba mixer saves per token in place of
// attention: the norm's and in_proj's inputs (2h) and what mamba_ssm's
// MambaInnerFn keeps for backward at its default checkpoint_lvl 1
// (ops/selective_scan_interface.py: save_for_backward of xz, x_dbl and
// the scan output out, 3·inner + dt rank + 2N; conv1d_out and delta are
// recomputed, the scan's chunk states are negligible).
func mambaActivation(s *shape, p float64) float64 {
	return p * float64(2*s.hidden+3*s.ssmInner+s.ssmProj)
}

// mlpActivation is what one MLP of width i saves per token.
func mlpActivation(p, h, i float64, gated bool) float64 {
	if gated {
		return p*h + 4*p*i
	}
	return p*h + 2*p*i
}

// activationElemBytes is the element size of activations at a training
// precision: fp32 4 bytes, everything else 16-bit (FP8 training keeps its
// saved activations in BF16).
func activationElemBytes(p Precision) float64 {
	if p == PrecisionFP32 {
		return 4
	}
	return 2
}

// trainingActivationBytes is the activation memory of the busiest GPU,
// the loss included. FlashAttention is assumed. Data parallelism does not
// shard activations; tensor parallelism with sequence parallelism divides
// every saved tensor by TP and context parallelism divides the tokens by
// CP (Korthikanti et al. §4.2). Under a pipeline the first stage holds
// the L/PP layers of inFlight micro-batches, the last stage one
// micro-batch and the loss (vocabulary-parallel: ÷ TP); the larger of the
// two is the answer. A paired preference objective (DPO) runs two
// sequences per example.
func trainingActivationBytes(r *Request, s *shape) int64 {
	p := activationElemBytes(r.Precision)
	seq, b := int64(r.SeqLen), int64(r.MicroBatch)*sequencesPerExample(r)
	tp, pp, cp := float64(tensorParallel(r)), float64(pipelineParallel(r)), float64(contextParallel(r))
	layers, largest := layerActivationsPerToken(s, p, seq, true, r.GradCheckpointing, loraRankOf(r))
	if r.OffloadActivations && r.GradCheckpointing {
		// Unsloth's offloaded checkpointing: every layer input waits in host
		// RAM; the GPU holds the one being sent or fetched and the next.
		layers = min(layers, 2*p*float64(s.hidden))
	}
	loss := lossBytesPerToken(s, p)
	if r.FusedLoss {
		loss = fusedLossBytesPerToken(s, p)
	}
	tokens := float64(seq*b) / cp / tp
	stage := layers / pp
	first := stage*inFlight(r, s) + largest
	last := stage + largest + loss
	return ceilBytes(tokens * max(first, last))
}

// activationBytes is the activation total for a micro-batch of b
// sequences of seq tokens at p bytes per element on one GPU.
func activationBytes(s *shape, p float64, seq, b int64, flash, checkpointing bool, loraRank int) float64 {
	layers, largest := layerActivationsPerToken(s, p, seq, flash, checkpointing, loraRank)
	return float64(seq*b) * (layers + largest + lossBytesPerToken(s, p))
}

// layerActivationsPerToken is what the layers save per token: every
// layer's tensors, or with full checkpointing each layer's input plus,
// separately (largest), the one layer's working set rebuilt during
// recompute.
func layerActivationsPerToken(s *shape, p float64, seq int64, flash, checkpointing bool, loraRank int) (layers, largest float64) {
	dense := layerActivationBytes(s, p, seq, flash, false, loraRank)
	denseLayers := s.layers - s.moeLayers
	layers = float64(denseLayers) * dense
	if denseLayers > 0 {
		largest = dense
	}
	if s.moeLayers > 0 {
		moe := layerActivationBytes(s, p, seq, flash, true, loraRank)
		layers += float64(s.moeLayers) * moe
		largest = max(largest, moe)
	}
	if s.ssmLayers > 0 {
		// Mamba layers save their mixer's tensors instead of attention's.
		swap := mambaActivation(s, p) - attentionActivation(s, p, seq, flash)
		layers += float64(s.ssmLayers) * swap
		if s.ssmLayers == s.layers {
			largest += swap
		}
	}
	stored := float64(s.layers) // layer inputs kept under checkpointing
	if s.encoderSeq > 0 && seq > 0 {
		// An audio encoder's layers run over its fixed frames, not the
		// text: weigh them by encoderSeq/seq tokens per text token.
		ratio := float64(s.encoderSeq) / float64(seq)
		dec := float64(s.layers - s.encLayers)
		layers = dense * (dec + float64(s.encLayers)*ratio)
		stored = dec + float64(s.encLayers)*ratio
		largest = dense * max(1, ratio)
	}
	if checkpointing {
		return stored * p * float64(s.hidden), largest
	}
	return layers, 0
}

// fusedLossBytesPerToken is the loss term with fused or chunked
// cross-entropy (Liger's FusedLinearCrossEntropy, Unsloth, Apple's Cut
// Cross-Entropy): the logits are computed a chunk at a time and their
// gradient folded into the hidden state's at once, so per token only a
// hidden-sized fp32 chunk of logits, its gradient and the hidden
// gradient remain (Liger sizes its chunks to about hidden × tokens).
func fusedLossBytesPerToken(s *shape, p float64) float64 {
	return float64(s.hidden) * (4 + 4 + p)
}

// lossBytesPerToken is the logits and cross-entropy term per token. An
// encoder is fine-tuned with a classification head on its pooled output:
// a hidden-sized pooler activation per token at most, no vocabulary.
func lossBytesPerToken(s *shape, p float64) float64 {
	if s.encoderOnly {
		return float64(s.hidden) * p
	}
	upcast := 4.0
	if p >= 4 {
		upcast = 0
	}
	return float64(s.vocab) * (p + upcast + 4 + 4 + 4)
}

func loraRankOf(r *Request) int {
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		return r.LoRARank
	}
	return 0
}

// lossIsLargest reports whether the loss term takes more activation
// memory than all the layers together: where fused or chunked
// cross-entropy helps most (128k-256k vocabularies at long sequences,
// with checkpointing).
func lossIsLargest(r *Request, s *shape) bool {
	p := activationElemBytes(r.Precision)
	layers, largest := layerActivationsPerToken(s, p, int64(r.SeqLen), true, r.GradCheckpointing, loraRankOf(r))
	return lossBytesPerToken(s, p) > layers+largest
}

// lossLargestCheckpointed reports whether the loss would be the largest
// activation once gradient checkpointing is on: a long sequence whose
// layers dominate without it (Llama 3.1 8B LoRA at 32k: 100 GiB with
// checkpointing alone, 31 GiB with a fused loss too).
func lossLargestCheckpointed(r Request, s *shape) bool {
	r.GradCheckpointing = true
	return lossIsLargest(&r, s)
}
