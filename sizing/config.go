package sizing

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// configHint is the example every config.json error ends with.
const configHint = "pass the config.json of the model's Hugging Face repo, e.g. fitbot fit --config ./config.json lora rtx-4090"

// Limits on config.json values, far above any real model, that keep the
// arithmetic in int64.
const (
	maxConfigDim    = 1 << 20 // hidden, FFN, head_dim, vocab, experts, ...
	maxConfigLayers = 10_000
	maxConfigCtx    = 1 << 26
	maxConfigVocab  = 1 << 24
)

// ModelFromConfig builds a Model from a Hugging Face config.json: the
// Llama family and its relatives (llama, mistral, mixtral, qwen2, qwen3,
// qwen3_moe, phi3, gemma, gemma2, gemma3, gpt_oss, deepseek_v2/v3, and
// VLMs nesting their language model under text_config, such as llava and
// gemma3), GPT-2, Falcon, BERT, T5 and M2M100/NLLB. An unknown
// model_type is read as a Llama-style decoder, and Assumption says so.
// name becomes the model's id and display name ("" uses _name_or_path or
// model_type). A missing or malformed field is an *InputError naming it.
// sizing does no I/O: the caller reads the file.
func ModelFromConfig(data []byte, name string) (Model, error) {
	var raw rawConfig
	if err := json.Unmarshal(data, &raw); err != nil {
		return Model{}, &InputError{Problem: fmt.Sprintf("config.json is not a JSON object: %v", err), Hint: configHint}
	}
	if raw == nil {
		return Model{}, &InputError{Problem: "config.json is not a JSON object", Hint: configHint}
	}
	if name == "" {
		name = raw.str("_name_or_path")
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
	}
	top := raw.str("model_type")
	var notes []string
	cfg := raw
	if tc, ok := raw["text_config"]; ok && string(tc) != "null" {
		var inner rawConfig
		if err := json.Unmarshal(tc, &inner); err != nil || inner == nil {
			return Model{}, configErr(`"text_config" is not an object`)
		}
		cfg = inner
		notes = append(notes, fmt.Sprintf("the %s vision tower is not counted (config.json gives no parameter count for it)", orDefault(top, "model's")))
	}
	if name == "" {
		name = orDefault(top, "config.json model")
	}
	mt := orDefault(cfg.str("model_type"), top)
	r := configReader{cfg: cfg, defaults: configDefaults[mt]}
	m, more := r.model(mt)
	if r.err != nil {
		return Model{}, r.err
	}
	more = append(more, r.notes...)
	m.ID = strings.ToLower(strings.Join(strings.Fields(name), "-"))
	m.Name = name
	m.Source = fmt.Sprintf("config.json (model_type %s)", orDefault(m.Family, "unknown"))
	m.ReleasedFormat = releasedFormat(raw)
	notes = append(notes, more...)
	if err := m.checkShape(); err != nil {
		return Model{}, err
	}
	if m.MaxContext == 0 {
		m.MaxContext = 4096
		notes = append(notes, "config.json states no context length, 4096 assumed")
	}
	if len(notes) > 0 {
		m.assumption = fmt.Sprintf("%s from config.json: %s", name, strings.Join(notes, "; "))
	}
	return m, nil
}

// rawConfig is config.json as a map, read field by field so that the
// many spellings and nulls in real configs can be handled one by one.
type rawConfig map[string]json.RawMessage

func (c rawConfig) str(key string) string {
	var s string
	if v, ok := c[key]; ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// configReader reads fields and keeps the first error.
type configReader struct {
	cfg      rawConfig
	defaults map[string]int // transformers' defaults for the model_type, used when a field is left out
	notes    []string
	err      error
}

// configDefaults are transformers' config-class defaults that real
// configs rely on by leaving fields out (llava-hf's text_config gives
// only what differs from LlamaConfig).
var configDefaults = map[string]map[string]int{
	"llama": {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000, "max_position_embeddings": 2048},
}

// num returns the first of keys that is present and not null, as a
// whole number in [0, limit]; ok is false when none is present.
func (r *configReader) num(limit int, keys ...string) (n int, ok bool) {
	for _, k := range keys {
		v, present := r.cfg[k]
		if !present || string(v) == "null" {
			continue
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || f < 0 || f > float64(limit) {
			r.fail(fmt.Sprintf("%q is %s, want a whole number from 0 to %d", k, clip(string(v)), limit))
			return 0, false
		}
		return int(f), true
	}
	return 0, false
}

// need is num for a field the model cannot be built without.
func (r *configReader) need(limit int, keys ...string) int {
	n, ok := r.num(limit, keys...)
	if d, has := r.defaults[keys[0]]; !ok && has && r.err == nil {
		r.notes = append(r.notes, fmt.Sprintf("%s not given, the transformers default %d used", keys[0], d))
		return d
	}
	if !ok {
		if r.err == nil {
			alt := ""
			if len(keys) > 1 {
				quoted := make([]string, len(keys)-1)
				for i, k := range keys[1:] {
					quoted[i] = strconv.Quote(k)
				}
				alt = " (or " + strings.Join(quoted, ", ") + ")"
			}
			r.fail(fmt.Sprintf("config.json has no %q%s", keys[0], alt))
		}
		return 0
	}
	if n == 0 {
		r.fail(fmt.Sprintf("%q is 0", keys[0]))
	}
	return n
}

func (r *configReader) flag(key string, def bool) bool {
	v, ok := r.cfg[key]
	if !ok || string(v) == "null" {
		return def
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		r.fail(fmt.Sprintf("%q is %s, want true or false", key, clip(string(v))))
	}
	return b
}

func (r *configReader) fail(problem string) {
	if r.err == nil {
		r.err = configErr(problem)
	}
}

func configErr(problem string) error { return &InputError{Problem: problem, Hint: configHint} }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// model reads the fields for model_type mt (that of text_config where
// nested). It returns the notes to add to the assumption.
func (r *configReader) model(mt string) (Model, []string) {
	switch mt {
	case "gpt2":
		return r.gpt2(), nil
	case "falcon", "RefinedWeb", "RefinedWebModel":
		return r.falcon(), nil
	case "bert":
		return r.bert(), nil
	case "t5", "mt5":
		return r.t5(mt), nil
	case "m2m_100", "nllb", "nllb-moe":
		return r.m2m100(mt), nil
	}
	return r.llamaLike(mt)
}

// llamaLike reads a decoder in the Llama mould: gated MLP, RMSNorm,
// rotary positions, optional GQA, MoE, MLA and sliding windows.
func (r *configReader) llamaLike(mt string) (Model, []string) {
	var notes []string
	m := Model{Family: mt, Kind: KindDecoder, MLP: MLPGated, Norm: NormRMS, NormsPerLayer: 2}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers", "n_layer", "num_layers")
	m.Hidden = r.need(maxConfigDim, "hidden_size", "d_model", "n_embd")
	m.Heads = r.need(maxConfigDim, "num_attention_heads", "n_head")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.KVHeads, _ = r.num(maxConfigDim, "num_key_value_heads")
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	m.HeadDim, _ = r.num(maxConfigDim, "head_dim")
	if m.MaxContext, _ = r.num(maxConfigCtx, "max_position_embeddings", "max_sequence_length", "seq_length"); m.MaxContext == 0 {
		m.MaxContext = r.defaults["max_position_embeddings"]
	}
	tiedDefault := false
	switch mt {
	case "gemma", "gemma2", "gemma3", "gemma3_text":
		tiedDefault = true
	}
	m.TiedEmbeddings = r.flag("tie_word_embeddings", tiedDefault)

	switch mt {
	case "llama", "mistral", "mixtral", "qwen2", "qwen2_vl", "qwen2_5_vl", "qwen2_moe", "qwen3", "qwen3_moe", "phi3",
		"gemma", "gemma2", "gemma3", "gemma3_text", "gpt_oss", "deepseek_v2", "deepseek_v3":
	default:
		notes = append(notes, fmt.Sprintf("model_type %q is not one fitbot knows, so it is read as a Llama-style decoder (gated MLP, RMSNorm, no biases); the count may be off by biases and norms", mt))
	}
	switch mt {
	case "qwen2", "qwen2_vl", "qwen2_5_vl", "qwen2_moe":
		m.QKVBias = true
	case "qwen3", "qwen3_moe":
		m.QKNorm = true
	case "phi3":
		m.FusedQKV, m.FusedGateUp = true, true
		notes = append(notes, "Phi-3's sliding window is not modelled, so the KV cache is an upper bound")
	case "gemma2":
		m.NormsPerLayer = 4
	case "gemma3", "gemma3_text":
		m.NormsPerLayer, m.QKNorm = 4, true
	case "gpt_oss":
		m.QKVBias, m.OutBias, m.MLPBias, m.AttnSinks, m.RouterBias = true, true, true, true, true
	case "deepseek_v3":
		m.RouterBias = true // e_score_correction_bias of the noaux_tc router
	}
	if mt == "llama" || mt == "mistral" {
		m.QKVBias = r.flag("attention_bias", false)
		m.OutBias = m.QKVBias
		m.MLPBias = r.flag("mlp_bias", false)
	}

	m.Experts, _ = r.num(maxConfigDim, "num_local_experts", "num_experts", "n_routed_experts")
	if m.Experts > 0 {
		m.ExpertsActive = r.need(maxConfigDim, "num_experts_per_tok", "num_experts_per_token", "experts_per_token")
		m.ExpertIntermediate, _ = r.num(maxConfigDim, "moe_intermediate_size", "intermediate_size")
		m.SharedExperts, _ = r.num(maxConfigDim, "n_shared_experts")
		m.DenseLayers, _ = r.num(maxConfigLayers, "first_k_dense_replace")
		if w, ok := r.num(maxConfigDim, "shared_expert_intermediate_size"); ok && w > 0 {
			notes = append(notes, fmt.Sprintf("the shared expert (width %d) is not counted", w))
		}
		if m.ExpertIntermediate == 0 && r.err == nil {
			r.fail(`config.json has no "moe_intermediate_size" (or "intermediate_size") for its experts`)
		}
	}
	if m.Experts == 0 || m.DenseLayers > 0 {
		m.Intermediate = r.need(maxConfigDim, "intermediate_size", "ffn_hidden_size", "n_inner")
	} else {
		m.Intermediate, _ = r.num(maxConfigDim, "intermediate_size")
	}

	if rank, ok := r.num(maxConfigDim, "kv_lora_rank"); ok && rank > 0 {
		m.KVLoRARank = rank
		m.QLoRARank, _ = r.num(maxConfigDim, "q_lora_rank")
		m.QKNopeHeadDim = r.need(maxConfigDim, "qk_nope_head_dim")
		m.QKRopeHeadDim = r.need(maxConfigDim, "qk_rope_head_dim")
		m.VHeadDim = r.need(maxConfigDim, "v_head_dim")
		m.HeadDim = m.QKNopeHeadDim + m.QKRopeHeadDim
		m.KVHeads = m.Heads
	}
	r.sliding(&m, mt)
	return m, notes
}

// sliding reads which layers attend through a sliding window: an explicit
// layer_types list, else the family's known pattern.
func (r *configReader) sliding(m *Model, mt string) {
	window, ok := r.num(maxConfigCtx, "sliding_window")
	if !ok || window == 0 {
		return
	}
	if v, ok := r.cfg["layer_types"]; ok && string(v) != "null" {
		var types []string
		if err := json.Unmarshal(v, &types); err != nil {
			r.fail(fmt.Sprintf(`"layer_types" is %s, want a list of strings`, clip(string(v))))
			return
		}
		n := 0
		for i, t := range types {
			if t == "sliding_attention" && i < m.Layers {
				n++
			}
		}
		m.SlidingWindow, m.SlidingLayers = window, n
		if n == 0 {
			m.SlidingWindow = 0
		}
		return
	}
	switch mt {
	case "mistral", "mixtral":
		m.SlidingWindow, m.SlidingLayers = window, m.Layers
	case "gemma2":
		m.SlidingWindow, m.SlidingLayers = window, (m.Layers+1)/2 // even layers slide
	case "gemma3", "gemma3_text":
		p, ok := r.num(maxConfigLayers, "sliding_window_pattern")
		if !ok || p == 0 {
			p = 6
		}
		m.SlidingWindow, m.SlidingLayers = window, m.Layers-m.Layers/p
	case "qwen2", "qwen2_moe", "qwen3", "qwen3_moe":
		if r.flag("use_sliding_window", false) {
			from, ok := r.num(maxConfigLayers, "max_window_layers")
			if !ok {
				from = 0
			}
			m.SlidingWindow, m.SlidingLayers = window, max(0, m.Layers-from)
			if m.SlidingLayers == 0 {
				m.SlidingWindow = 0
			}
		}
	}
}

func (r *configReader) gpt2() Model {
	m := Model{Family: "gpt2", Kind: KindDecoder, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2,
		QKVBias: true, OutBias: true, MLPBias: true, FusedQKV: true}
	m.Layers = r.need(maxConfigLayers, "n_layer", "num_hidden_layers")
	m.Hidden = r.need(maxConfigDim, "n_embd", "hidden_size")
	m.Heads = r.need(maxConfigDim, "n_head", "num_attention_heads")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.KVHeads = m.Heads
	if m.Intermediate, _ = r.num(maxConfigDim, "n_inner"); m.Intermediate == 0 {
		m.Intermediate = 4 * m.Hidden
	}
	m.PositionEmbeddings = r.need(maxConfigCtx, "n_positions", "max_position_embeddings")
	m.MaxContext = m.PositionEmbeddings
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	return m
}

func (r *configReader) falcon() Model {
	m := Model{Family: "falcon", Kind: KindDecoder, MLP: MLPPlain, Norm: NormLayerNorm, FusedQKV: true}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers", "n_layer")
	m.Hidden = r.need(maxConfigDim, "hidden_size")
	m.Heads = r.need(maxConfigDim, "num_attention_heads", "n_head")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	if m.Intermediate, _ = r.num(maxConfigDim, "ffn_hidden_size"); m.Intermediate == 0 {
		m.Intermediate = 4 * m.Hidden
	}
	m.QKVBias = r.flag("bias", false)
	m.OutBias, m.MLPBias = m.QKVBias, m.QKVBias
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	m.MaxContext, _ = r.num(maxConfigCtx, "max_position_embeddings")
	if m.MaxContext == 0 {
		m.MaxContext = 2048
	}
	switch {
	case r.flag("new_decoder_architecture", false):
		m.KVHeads = r.need(maxConfigDim, "num_kv_heads")
		m.NormsPerLayer, _ = r.num(8, "num_ln_in_parallel_attn")
		if m.NormsPerLayer == 0 {
			m.NormsPerLayer = 2
		}
	case r.flag("multi_query", true):
		m.KVHeads, m.NormsPerLayer = 1, 1
	default:
		m.KVHeads, m.NormsPerLayer = m.Heads, 1
	}
	if !r.flag("parallel_attn", true) {
		m.NormsPerLayer = 2
	}
	return m
}

func (r *configReader) bert() Model {
	m := Model{Family: "bert", Kind: KindEncoder, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2, NoFinalNorm: true,
		QKVBias: true, OutBias: true, MLPBias: true, EmbeddingNorm: true, Pooler: true, TiedEmbeddings: true}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers")
	m.Hidden = r.need(maxConfigDim, "hidden_size")
	m.Heads = r.need(maxConfigDim, "num_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = r.need(maxConfigDim, "intermediate_size")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.PositionEmbeddings = r.need(maxConfigCtx, "max_position_embeddings")
	m.MaxContext = m.PositionEmbeddings
	m.TokenTypes, _ = r.num(maxConfigDim, "type_vocab_size")
	return m
}

func (r *configReader) t5(mt string) Model {
	m := Model{Family: mt, Kind: KindEncoderDecoder, Norm: NormRMS, NormsPerLayer: 2, MLP: MLPPlain}
	m.EncoderLayers = r.need(maxConfigLayers, "num_layers")
	if m.Layers, _ = r.num(maxConfigLayers, "num_decoder_layers"); m.Layers == 0 {
		m.Layers = m.EncoderLayers
	}
	m.Hidden = r.need(maxConfigDim, "d_model")
	m.Heads = r.need(maxConfigDim, "num_heads")
	m.KVHeads = m.Heads
	m.HeadDim = r.need(maxConfigDim, "d_kv")
	m.Intermediate = r.need(maxConfigDim, "d_ff")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.RelativeBuckets, _ = r.num(maxConfigDim, "relative_attention_num_buckets")
	if strings.HasPrefix(r.cfg.str("feed_forward_proj"), "gated-") {
		m.MLP = MLPGated
	}
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	if m.MaxContext, _ = r.num(maxConfigCtx, "n_positions"); m.MaxContext == 0 {
		m.MaxContext = 512
	}
	return m
}

func (r *configReader) m2m100(mt string) Model {
	m := Model{Family: mt, Kind: KindEncoderDecoder, Norm: NormLayerNorm, NormsPerLayer: 2, MLP: MLPPlain,
		QKVBias: true, OutBias: true, MLPBias: true}
	m.EncoderLayers = r.need(maxConfigLayers, "encoder_layers")
	m.Layers = r.need(maxConfigLayers, "decoder_layers")
	m.Hidden = r.need(maxConfigDim, "d_model")
	m.Heads = r.need(maxConfigDim, "encoder_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = r.need(maxConfigDim, "encoder_ffn_dim")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.MaxContext, _ = r.num(maxConfigCtx, "max_position_embeddings")
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	if mt == "nllb-moe" {
		r.fail("NLLB-MoE configs are not supported; use facebook/nllb-200-distilled-600M or a dense NLLB")
	}
	return m
}

// checkShape rejects architectures that cannot be counted: heads that do
// not divide, experts that do not add up.
func (m *Model) checkShape() error {
	if m.HeadDim == 0 {
		if m.Hidden%m.Heads != 0 {
			return configErr(fmt.Sprintf("hidden size %d is not a multiple of %d heads and config.json has no \"head_dim\"", m.Hidden, m.Heads))
		}
		m.HeadDim = m.Hidden / m.Heads
	}
	if m.KVHeads > m.Heads || m.Heads%m.KVHeads != 0 {
		return configErr(fmt.Sprintf("%d attention heads do not group into %d key/value heads", m.Heads, m.KVHeads))
	}
	if m.MoE() && (m.ExpertsActive > m.Experts || m.DenseLayers >= m.Layers) {
		return configErr(fmt.Sprintf("%d experts per token of %d, %d dense layers of %d: inconsistent", m.ExpertsActive, m.Experts, m.DenseLayers, m.Layers))
	}
	if m.upperBoundParams() > 1e15 {
		return configErr(fmt.Sprintf("the architecture has over 10^15 parameters (%d layers, hidden %d, %d experts): not a real model", m.Layers+m.EncoderLayers, m.Hidden, m.Experts))
	}
	return nil
}

// upperBoundParams bounds ParamCount from above in floating point, so
// that absurd configs are rejected before int64 arithmetic can overflow.
func (m Model) upperBoundParams() float64 {
	h, q, kv := float64(m.Hidden), float64(m.Heads)*float64(m.HeadDim), float64(m.KVHeads)*float64(m.HeadDim)
	attn := 2*h*q + 2*h*kv + 3*q + h
	if m.MLA() {
		heads := float64(m.Heads)
		attn += h*float64(m.QLoRARank) + float64(m.QLoRARank)*heads*float64(m.QKNopeHeadDim+m.QKRopeHeadDim) +
			h*float64(m.KVLoRARank+m.QKRopeHeadDim) + float64(m.KVLoRARank)*heads*float64(m.QKNopeHeadDim+m.VHeadDim) + heads*float64(m.VHeadDim)*h
	}
	ffn := 3 * h * float64(max(m.Intermediate, m.ExpertIntermediate)) * float64(1+m.Experts+m.SharedExperts)
	layers := float64(m.Layers + 2*m.EncoderLayers)
	return layers*(2*attn+ffn+8*h) + 2*float64(m.Vocab)*h + float64(m.PositionEmbeddings)*h
}
