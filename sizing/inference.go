package sizing

const (
	// prefillChunkTokens is the most prompt tokens processed at once:
	// vLLM's chunked-prefill default for max_num_batched_tokens. It sizes
	// the inference workspace.
	prefillChunkTokens = 2048
	// bandwidthUtilisation is the share of peak memory bandwidth a decode
	// step reaches (an assumption; well-tuned kernels reach 70-85 %).
	bandwidthUtilisation = 0.8
)

// kvElemBytes is the bytes per cached element at a KV-cache precision:
// 16-bit 2, fp8 1, int8 as llama.cpp's q8_0 (8.5 bits), int4 as q4_0
// (4.5 bits), fp32 4.
func kvElemBytes(p Precision) float64 {
	switch p {
	case PrecisionFP32:
		return 4
	case PrecisionFP8:
		return 1
	case PrecisionINT8:
		return 8.5 / 8
	case PrecisionINT4:
		return 4.5 / 8
	}
	return 2
}

// kvCacheBytes is the whole KV cache of batch sequences of ctx tokens:
// 2 · layers · kv_heads · head_dim · ctx · batch · bytes for grouped-query
// attention (the 2 is K and V), sliding-window layers capped at the
// window, MLA's (kv_lora_rank + qk_rope_head_dim) latent per layer, plus
// the fixed state of the Mamba and linear-attention layers, which is the
// same at any context.
func kvCacheBytes(s *shape, ctx, batch int64, elemBytes float64) float64 {
	windowed := ctx
	if s.slidingLayers > 0 && s.window < ctx {
		windowed = s.window
	}
	full := s.kvLayers - s.slidingLayers
	tokens := float64(full*ctx + s.slidingLayers*windowed)
	tokens += float64(s.kvLayers * s.encoderSeq) // Whisper's cross-attention KV over its encoder frames
	return (float64(s.kvElems)*tokens + float64(s.stateElems)) * float64(batch) * elemBytes
}

// kvShare is the fraction of the KV cache one GPU holds: tensor
// parallelism within a machine splits the KV heads (a head is never split,
// so 8 KV heads over 16 GPUs still cost one head each; MLA's shared latent
// is replicated), pipeline stages across machines split the layers.
func kvShare(s *shape, gpus, nodes int) float64 {
	nodes = max(nodes, 1)
	tp := int64(max(gpus/nodes, 1))
	heads := (s.kvHeads + tp - 1) / tp
	return float64(heads) / float64(s.kvHeads) / float64(nodes)
}

// inferenceMemory is the per-GPU memory of serving the model: the weights
// split evenly over the GPUs (tensor parallel within a machine, pipeline
// across machines), the KV cache of MicroBatch concurrent requests at
// SeqLen tokens each, a workspace for one prefill chunk, and the overhead.
func inferenceMemory(r *Request, s *shape) Memory {
	gpus := max(r.GPUs, 1)
	ctx, batch := int64(r.SeqLen), int64(max(r.MicroBatch, 1))
	m := Memory{
		WeightsBytes:     ceilBytes(modelWeightBytes(s, r.Quant, r.Precision) / float64(gpus)),
		KVCacheBytes:     ceilBytes(kvCacheBytes(s, ctx, batch, kvElemBytes(r.KVPrecision)) * kvShare(s, gpus, r.Nodes)),
		ActivationsBytes: ceilBytes(inferenceWorkspace(s, ctx, batch)),
		OverheadBytes:    overheadBytes(gpus),
	}
	m.TotalBytes = m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes +
		m.ActivationsBytes + m.KVCacheBytes + m.OverheadBytes
	return m
}

// inferenceWorkspace is the transient memory of one forward pass: one
// layer's working set for a prefill chunk at 16 bit (normed input,
// residual, q, k, v, attention output, and three FFN-wide tensors) plus
// fp32 logits for the last position of every sequence. An encoder reads
// its whole batch at once (batch × sequence tokens) and pools instead of
// computing logits.
func inferenceWorkspace(s *shape, ctx, batch int64) float64 {
	tokens := min(ctx*batch, prefillChunkTokens)
	// An audio encoder reads all its frames at once, for every sequence.
	tokens = max(tokens, s.encoderSeq*batch)
	ffn := max(s.ffn, s.expertFFN*max(s.expertsActive, 1))
	perToken := 2 * float64(2*s.hidden+2*s.qDim+2*s.kvDim+3*ffn)
	if s.ssmLayers > 0 {
		perToken += 2 * float64(4*s.ssmInner+s.ssmProj) // x and z, the convolution and scan outputs, x_proj's
	}
	if s.encoderOnly {
		// The whole batch in one pass, no chunking; the pooled output
		// (one hidden vector per sequence) instead of logits.
		return float64(ctx*batch)*perToken + 4*float64(s.hidden*batch)
	}
	return float64(tokens)*perToken + 4*float64(s.vocab*batch)
}
