package sizing

import "fmt"

// Whisper is an encoder-decoder over audio: the encoder reads 30 s of
// log-mel frames through two convolutions (the second of stride 2) into
// max_source_positions (1,500) frames, always that many; the decoder
// writes up to max_target_positions (448) text tokens, caching its
// self-attention and its cross-attention over the 1,500 frames. The count
// follows transformers' WhisperForConditionalGeneration: biases on q, v
// and out but not k, LayerNorms, a GELU MLP with biases, learned
// positions on both sides, and proj_out tied to the token embedding.

func init() { familyReaders["whisper"] = true }

// whisper reads a WhisperConfig.
func (r *configReader) whisper() (Model, []string) {
	m := Model{Family: "whisper", Kind: KindEncoderDecoder, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2,
		QKVBias: true, NoKBias: true, OutBias: true, MLPBias: true, TiedEmbeddings: true}
	m.EncoderLayers = r.need(maxConfigLayers, "encoder_layers")
	m.Layers = r.need(maxConfigLayers, "decoder_layers")
	m.Hidden = r.need(maxConfigDim, "d_model")
	m.Heads = r.need(maxConfigDim, "encoder_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = r.need(maxConfigDim, "encoder_ffn_dim")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	mels := r.need(1024, "num_mel_bins")
	m.EncoderSeq = r.need(maxConfigCtx, "max_source_positions")
	m.PositionEmbeddings = r.need(maxConfigCtx, "max_target_positions")
	m.MaxContext = m.PositionEmbeddings
	r.flag("tie_word_embeddings", true)
	if h, ok := r.num(maxConfigDim, "decoder_attention_heads"); ok && h != m.Heads {
		r.fail(fmt.Sprintf("decoder_attention_heads %d differs from encoder_attention_heads %d, which fitbot does not model for Whisper", h, m.Heads))
	}
	if f, ok := r.num(maxConfigDim, "decoder_ffn_dim"); ok && f != m.Intermediate {
		r.fail(fmt.Sprintf("decoder_ffn_dim %d differs from encoder_ffn_dim %d, which fitbot does not model for Whisper", f, m.Intermediate))
	}
	if r.err != nil {
		return m, nil
	}
	m.ExtraParams, m.ExtraParamsNote = whisperFrontend(mels, m.Hidden, m.EncoderSeq), "the audio frontend (two convolutions) and the encoder's position table"
	return m, []string{fmt.Sprintf("Whisper: the encoder always reads %d audio frames (30 s); the decoder caches up to %d text tokens and its cross-attention over the %d frames",
		m.EncoderSeq, m.MaxContext, m.EncoderSeq)}
}

// whisperFrontend counts what Whisper's encoder has outside its layers:
// conv1 (mels→d, kernel 3), conv2 (d→d, kernel 3), both with biases, and
// the position table of frames rows.
func whisperFrontend(mels, d, frames int) int64 {
	h := int64(d)
	return int64(mels)*h*3 + h + h*h*3 + h + int64(frames)*h
}

// Whisper's audio rate: a clip is 30 s of audio; spoken English at about
// 150 words a minute is about 75 words, some 100 text tokens.
const (
	clipSeconds = 30
	clipTokens  = 100
)

// audioRate says how many hours of audio an hour the speed t transcribes:
// a clip's encoder frames at the prefill rate, then its
// text tokens decoded one at a time, greedily. At a batch above 1 the
// rate is not sized.
func audioRate(t Throughput, frames int64, batch int) string {
	if batch > 1 || t.TokensPerSecond == nil || t.PrefillTokensPerSecond == nil || *t.TokensPerSecond <= 0 || *t.PrefillTokensPerSecond <= 0 {
		return "hours of audio an hour are sized at batch 1 only (one 30 s clip at a time)"
	}
	enc := float64(frames) / *t.PrefillTokensPerSecond
	dec := clipTokens / *t.TokensPerSecond
	return fmt.Sprintf("audio: about %.0f hours of audio an hour, one 30 s clip at a time: %s encoder frames in %.2f s, then about %d text tokens decoded greedily in %.2f s (speech at about 150 words a minute; no beam search, no batching; not checked against a published figure)",
		clipSeconds/(enc+dec), Commas(frames), enc, clipTokens, dec)
}
