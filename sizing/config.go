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

// ModelFromConfig builds a Model from the bytes of a Hugging Face
// config.json. It reads the decoders teams use (llama, llama4, mistral,
// mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, gemma,
// gemma2, gemma3, phi3, deepseek_v2, deepseek_v3, kimi_k2, glm4_moe,
// gpt_oss), GPT-2, GPT-NeoX, BLOOM, Falcon, BERT, T5 and M2M100/NLLB,
// and the multimodal wrappers that nest their language model under
// text_config (llava, gemma3, llama4, qwen2_vl, qwen2_5_vl, mistral3:
// their vision tower is counted as ExtraParams from vision_config;
// another wrapper's tower is named as not counted). Multi-token-prediction layers are counted in the
// total and named; a quantization_config of fp8 (fbgemm_fp8, FP8 or
// 4-bit int compressed-tensors), mxfp4, gptq, awq or bitsandbytes sets
// ReleasedFormat, and its list of unconverted modules sets Kept16.
//
// Every key that changes the parameter count is either read or refused
// by name: nothing is ignored silently. An unknown model_type is read as
// a Llama-style decoder, and Assumption says so. name becomes the
// model's id and display name ("" uses _name_or_path or model_type). A
// missing or malformed field is an *InputError naming it. sizing does no
// I/O: the caller reads the file (or the Hub's copy of it).
func ModelFromConfig(data []byte, name string) (Model, error) {
	var raw rawConfig
	if err := json.Unmarshal(data, &raw); err != nil {
		// Python's json writes Infinity and NaN (Mamba-2's
		// time_step_limit): read them as null, no count depends on them.
		if json.Unmarshal(pythonNonFinite(data), &raw) != nil {
			return Model{}, &InputError{Problem: fmt.Sprintf("config.json is not a JSON object: %v", err), Hint: configHint}
		}
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
	nested := false
	if tc, ok := raw["text_config"]; ok && string(tc) != "null" {
		var inner rawConfig
		if err := json.Unmarshal(tc, &inner); err != nil || inner == nil {
			return Model{}, configErr(`"text_config" is not an object`)
		}
		cfg, nested = inner, true
	}
	if name == "" {
		name = orDefault(top, "config.json model")
	}
	mt := orDefault(cfg.str("model_type"), top)
	if err := refuseFamily(raw, cfg, name); err != nil {
		return Model{}, err
	}
	r := configReader{cfg: cfg, defaults: configDefaults[mt], used: map[string]bool{}}
	m, more := r.model(mt)
	r.refuseUnread(mt)
	if r.err != nil {
		return Model{}, r.err
	}
	more = append(more, r.notes...)
	m.ID = strings.ToLower(strings.Join(strings.Fields(name), "-"))
	m.Name = name
	m.Source = fmt.Sprintf("config.json (model_type %s)", orDefault(m.Family, "unknown"))
	if err := m.checkShape(); err != nil {
		return Model{}, err
	}
	if vc, ok := raw["vision_config"]; (ok && string(vc) != "null") || nested {
		n, what, why := visionParams(raw, m.Hidden)
		if n > 0 {
			m.ExtraParams, m.ExtraParamsNote = n, what
			m.ImageTokens = imageTokensOf(raw, top)
			if top == "mllama" {
				m.CrossAttnTokens, m.VisionOutputDim = mllamaImageOf(raw)
			}
			notes = append(notes, fmt.Sprintf("%s counted: %s parameters from vision_config", what, roundCount(n)))
		} else {
			notes = append(notes, fmt.Sprintf("the %s vision tower is not counted (%s)", orDefault(top, "model's"), why))
		}
	}
	if ac, ok := raw["audio_config"]; ok && string(ac) != "null" {
		notes = append(notes, fmt.Sprintf("the %s audio tower is not counted", orDefault(top, "model's")))
	}
	format, qnote := releasedFormat(raw)
	m.ReleasedFormat = format
	if qnote != "" {
		notes = append(notes, qnote)
	}
	if _, scope := quantBytesPerParam(format, 1); format != QuantNone && scope == scopeLinear {
		// MXFP4's scope is the routed experts already.
		if m.Kept16 = keptModules(format, unconvertedModules(raw["quantization_config"])); m.Kept16 != nil {
			notes = append(notes, keptNote(m.Kept16))
		}
	}
	notes = append(notes, more...)
	if m.MaxContext == 0 {
		m.MaxContext = 4096
		notes = append(notes, "config.json states no context length, 4096 assumed")
	}
	if len(notes) > 0 {
		m.assumption = fmt.Sprintf("%s from config.json: %s", name, strings.Join(notes, "; "))
	}
	return m, nil
}

// roundCount writes a parameter count the way model cards do: 871.9M,
// 14.77B.
func roundCount(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + "B"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatInt(n, 10)
}

// releasedFormat reads quantization_config: the format the weights ship
// in, and a note for a method fitbot sizes as its nearest known one or
// not at all.
func releasedFormat(raw rawConfig) (Quant, string) {
	v, ok := raw["quantization_config"]
	if !ok || string(v) == "null" {
		return QuantNone, ""
	}
	var q struct {
		Method   string `json:"quant_method"`
		Bits     int    `json:"bits"`
		Load4Bit bool   `json:"load_in_4bit"`
		Load8Bit bool   `json:"load_in_8bit"`
		Algo     string `json:"quant_algo"` // NVIDIA ModelOpt: NVFP4, FP8
		// compressed-tensors (llm-compressor): the weights' format per
		// group of modules.
		Groups map[string]struct {
			Weights *struct {
				Bits int    `json:"num_bits"`
				Type string `json:"type"`
			} `json:"weights"`
		} `json:"config_groups"`
	}
	if err := json.Unmarshal(v, &q); err != nil {
		return QuantNone, fmt.Sprintf("quantization_config is %s, not understood: the weights are sized unquantised", clip(string(v)))
	}
	switch {
	case q.Method == "fp8", q.Method == "fbgemm_fp8":
		// fbgemm_fp8 (Meta's Llama 3.1 405B FP8): e4m3 with one scale per
		// output row, as good as the block-scaled bytes here.
		return QuantFP8, ""
	case q.Method == "compressed-tensors":
		for _, g := range q.Groups {
			switch w := g.Weights; {
			case w == nil:
			case w.Bits == 8 && w.Type == "float":
				return QuantFP8, ""
			case w.Bits == 4 && w.Type == "int":
				return QuantGPTQ, ""
			}
		}
	case q.Method == "mxfp4":
		return QuantMXFP4, ""
	case q.Method == "modelopt" && strings.EqualFold(q.Algo, "nvfp4"):
		return QuantNVFP4, ""
	case q.Method == "modelopt" && strings.EqualFold(q.Algo, "fp8"):
		return QuantFP8, ""
	case q.Method == "gptq" && q.Bits == 4:
		return QuantGPTQ, ""
	case q.Method == "awq" && q.Bits == 4:
		return QuantAWQ, ""
	case q.Method == "bitsandbytes" && q.Load4Bit:
		return QuantNF4, ""
	case q.Method == "bitsandbytes" && q.Load8Bit:
		return QuantINT8, ""
	}
	return QuantNone, fmt.Sprintf("the weights ship quantised (quant_method %q) in a format fitbot does not size; the counts are exact but the weight bytes are those of the precision asked for", q.Method)
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

// configReader reads fields and keeps the first error. It records every
// key it looks at, so that refuseUnread can name the count-changing keys
// no reader handled.
type configReader struct {
	cfg      rawConfig
	defaults map[string]int // transformers' defaults for the model_type, used when a field is left out
	used     map[string]bool
	notes    []string
	err      error
}

// countKeys are config.json keys that change the parameter count. The
// reader for a model_type reads those its architecture has; any other
// set to something other than its neutral value (null, false, 0, empty)
// is refused by name rather than ignored.
var countKeys = []string{
	"tie_word_embeddings", "attention_bias", "mlp_bias", "qkv_bias", "use_bias", "bias", "attention_out_bias",
	"use_qk_norm", "qk_layernorm", "attn_output_gate",
	"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts",
	"n_shared_experts", "num_shared_experts", "moe_num_shared_experts", "shared_expert_intermediate_size",
	"moe_intermediate_size", "intermediate_size_mlp",
	"first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers", "interleave_moe_layer_step", "moe_layers",
	"num_nextn_predict_layers", "mtp_num_hidden_layers",
	"kv_lora_rank", "q_lora_rank",
	"full_attention_interval", "linear_num_value_heads", "linear_num_key_heads",
	"cross_attention_layers",
	"vocab_size_per_layer_input", "hidden_size_per_layer_input", "altup_num_inputs", "laurel_rank",
	"shared_intermediate_size", "mlp_layer_types", "index_head_dim",
	"hybrid_override_pattern", "layers_block_type", "ssm_state_size", "mamba_d_state", "mamba_num_heads", "mamba_n_heads",
}

// moeKeys are the count keys that only matter when a model has experts.
var moeKeys = []string{
	"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts",
	"n_shared_experts", "num_shared_experts", "moe_num_shared_experts", "shared_expert_intermediate_size", "moe_intermediate_size",
	"first_k_dense_replace", "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers", "interleave_moe_layer_step", "moe_layers",
}

// refuseUnread fails on the first count-changing key no reader looked at.
func (r *configReader) refuseUnread(mt string) {
	for _, k := range countKeys {
		v, ok := r.cfg[k]
		if !ok || r.used[k] {
			continue
		}
		switch strings.TrimSpace(string(v)) {
		case "null", "false", "0", "[]", "{}", `""`:
			continue
		}
		r.fail(fmt.Sprintf("config.json sets %q to %s, which changes the parameter count, and fitbot does not model it for model_type %q; ask with the model's size instead (a bare size such as 30B is a Llama-style model of that many parameters)", k, clip(string(v)), orDefault(mt, "unknown")))
		return
	}
}

// str reads a string field ("" when absent or not a string).
func (r *configReader) str(key string) string {
	r.used[key] = true
	return r.cfg.str(key)
}

// ints reads a list of whole numbers (nil when absent).
func (r *configReader) ints(key string) []int {
	r.used[key] = true
	v, ok := r.cfg[key]
	if !ok || string(v) == "null" {
		return nil
	}
	var out []int
	if err := json.Unmarshal(v, &out); err != nil {
		r.fail(fmt.Sprintf("%q is %s, want a list of whole numbers", key, clip(string(v))))
		return nil
	}
	return out
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
		r.used[k] = true
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
	r.used[key] = true
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
	case "gpt_neox":
		return r.gptNeoX(), nil
	case "bloom":
		return r.bloom()
	case "falcon", "RefinedWeb", "RefinedWebModel":
		return r.falcon(), nil
	case "bert":
		return r.bert(), nil
	case "t5", "mt5":
		return r.t5(mt), nil
	case "m2m_100", "nllb", "nllb-moe":
		return r.m2m100(mt), nil
	case "whisper":
		return r.whisper()
	case "roberta", "xlm-roberta":
		return r.roberta(mt)
	case "mamba", "falcon_mamba", "mamba2":
		return r.mamba(mt)
	case "jamba":
		return r.jamba()
	case "gemma3n", "gemma3n_text":
		r.fail("Gemma 3n (model_type " + mt + ") is not supported: its per-layer embeddings, AltUp and LAuReL blocks are not modelled, nor its audio and vision towers; ask with its size instead (a bare 8B)")
		return Model{}, nil
	case "mllama", "mllama_text_model":
		return r.mllama()
	}
	return r.llamaLike(mt)
}

// mllama reads Llama 3.2 Vision's language model: a Llama 3.1 decoder
// of which cross_attention_layers (every fifth) attend to the image's
// encoder states instead of the text; each is the size of a
// self-attention layer (q, k, v, o and the MLP), its norms and gates are
// counted with the vision tower.
func (r *configReader) mllama() (Model, []string) {
	cross := r.ints("cross_attention_layers")
	m, notes := r.llamaLike("llama")
	m.Family = "mllama"
	if len(cross) == 0 || len(cross) >= m.Layers {
		r.fail(fmt.Sprintf("cross_attention_layers lists %d layers of %d; Llama 3.2 Vision has some and not all", len(cross), m.Layers))
		return m, notes
	}
	m.CrossAttnLayers = len(cross)
	notes = append(notes, fmt.Sprintf("%d of %d layers are cross-attention layers (cross_attention_layers): they keep no KV cache per text token but the keys and values of the image's encoder states, per sequence", len(cross), m.Layers))
	return m, notes
}

// knownLlamaLike are the model_types llamaLike reads with their own
// rules; any other is read as plain Llama and the assumption says so.
var knownLlamaLike = map[string]bool{
	"llama": true, "llama4_text": true, "mistral": true, "mixtral": true,
	"qwen2": true, "qwen2_vl": true, "qwen2_5_vl": true, "qwen2_moe": true, "qwen3": true, "qwen3_moe": true, "qwen3_next": true,
	"phi3": true, "gemma": true, "gemma2": true, "gemma3": true, "gemma3_text": true, "gpt_oss": true,
	"deepseek_v2": true, "deepseek_v3": true, "kimi_k2": true, "glm4_moe": true,
}

// llamaLike reads a decoder in the Llama mould: gated MLP, RMSNorm,
// rotary positions, optional GQA, MoE (interleaved, shared experts), MLA,
// sliding or chunked windows, linear-attention layers and MTP layers.
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
	if !knownLlamaLike[mt] {
		notes = append(notes, fmt.Sprintf("model_type %q is not one fitbot knows, so it is read as a Llama-style decoder (gated MLP, RMSNorm, no biases); the count may be off by biases and norms", mt))
	}
	switch mt {
	case "qwen2", "qwen2_vl", "qwen2_5_vl", "qwen2_moe":
		m.QKVBias = true
	case "qwen3", "qwen3_moe", "qwen3_next":
		m.QKNorm = true
	case "phi3":
		m.FusedQKV, m.FusedGateUp = true, true
		notes = append(notes, "Phi-3's sliding window is not modelled, so the KV cache is an upper bound")
	case "gemma2":
		m.NormsPerLayer = 4
	case "gemma3", "gemma3_text":
		m.NormsPerLayer, m.QKNorm = 4, true
	case "gpt_oss":
		m.QKVBias = r.flag("attention_bias", true)
		m.OutBias, m.MLPBias, m.AttnSinks, m.RouterBias = m.QKVBias, true, true, true
	case "glm4_moe":
		m.QKNorm = r.flag("use_qk_norm", false)
		m.RouterBias = true // e_score_correction_bias of the noaux_tc router
	case "llama4_text":
		r.flag("use_qk_norm", false) // an L2 norm without weights
	}
	if mt == "qwen3_next" {
		m.AttnOutputGate = r.flag("attn_output_gate", true)
	}
	switch mt {
	case "llama", "mistral", "llama4_text", "qwen3", "qwen3_moe", "qwen3_next", "gemma", "gemma2", "gemma3", "gemma3_text":
		m.QKVBias = r.flag("attention_bias", false)
		m.OutBias = m.QKVBias
	case "glm4_moe":
		m.QKVBias = r.flag("attention_bias", false) // q, k and v only
	}
	if mt == "llama" || mt == "mistral" {
		m.MLPBias = r.flag("mlp_bias", false)
	}
	r.experts(&m, mt)
	if rank, ok := r.num(maxConfigDim, "kv_lora_rank"); ok && rank > 0 {
		m.KVLoRARank = rank
		m.QLoRARank, _ = r.num(maxConfigDim, "q_lora_rank")
		m.QKNopeHeadDim = r.need(maxConfigDim, "qk_nope_head_dim")
		m.QKRopeHeadDim = r.need(maxConfigDim, "qk_rope_head_dim")
		m.VHeadDim = r.need(maxConfigDim, "v_head_dim")
		m.HeadDim = m.QKNopeHeadDim + m.QKRopeHeadDim
		m.KVHeads = m.Heads
	}
	notes = append(notes, r.linearAttention(&m, mt)...)
	notes = append(notes, r.mtp(&m, mt)...)
	switch mt {
	case "llama4_text":
		notes = append(notes, r.chunked(&m)...)
	case "qwen3_next":
		r.used["layer_types"] = true
	default:
		r.sliding(&m, mt)
	}
	return m, notes
}

// experts reads the mixture of experts: routed experts, their width, the
// shared experts, and which layers keep a dense FFN.
func (r *configReader) experts(m *Model, mt string) {
	m.Experts, _ = r.num(maxConfigDim, "num_local_experts", "num_experts", "n_routed_experts")
	if m.Experts == 0 {
		// Without experts, the keys of an MoE layout change nothing.
		for _, k := range moeKeys {
			r.used[k] = true
		}
		m.Intermediate = r.need(maxConfigDim, "intermediate_size", "ffn_hidden_size", "n_inner")
		return
	}
	m.ExpertsActive = r.need(maxConfigDim, "num_experts_per_tok", "num_experts_per_token", "experts_per_token")
	m.ExpertIntermediate, _ = r.num(maxConfigDim, "moe_intermediate_size", "intermediate_size")
	if m.ExpertIntermediate == 0 && r.err == nil {
		r.fail(`config.json has no "moe_intermediate_size" (or "intermediate_size") for its experts`)
	}
	m.SharedExperts, _ = r.num(maxConfigDim, "n_shared_experts")
	if w, ok := r.num(maxConfigDim, "shared_expert_intermediate_size"); ok && w > 0 {
		m.SharedExperts, m.SharedExpertIntermediate, m.SharedExpertGate = 1, w, true
	}
	switch mt {
	case "llama4_text":
		m.SharedExperts = 1 // Llama 4's always-on expert, as wide as a routed one
	case "deepseek_v2", "deepseek_v3", "kimi_k2":
		m.RouterBias = r.str("topk_method") == "noaux_tc"
	}
	m.DenseLayers = r.denseLayers(m.Layers)
	if m.DenseLayers > 0 {
		m.Intermediate = r.need(maxConfigDim, "intermediate_size_mlp", "intermediate_size", "ffn_hidden_size")
	} else {
		m.Intermediate, _ = r.num(maxConfigDim, "intermediate_size_mlp", "intermediate_size")
	}
}

// denseLayers counts the layers of an MoE model that keep a dense FFN,
// from whichever layout config.json states: DeepSeek's first k and
// layer frequency, Qwen-MoE's sparse step and mlp_only_layers, Llama 4's
// interleave step or explicit moe_layers.
func (r *configReader) denseLayers(layers int) int {
	firstK, _ := r.num(maxConfigLayers, "first_k_dense_replace")
	step := func(key string) int {
		n, ok := r.num(maxConfigLayers, key)
		if ok && n == 0 {
			r.fail(fmt.Sprintf("%q is 0", key))
		}
		return max(n, 1)
	}
	freq, sparse, interleave := step("moe_layer_freq"), step("decoder_sparse_step"), step("interleave_moe_layer_step")
	only := map[int]bool{}
	for _, i := range r.ints("mlp_only_layers") {
		only[i] = true
	}
	var listed map[int]bool
	if l := r.ints("moe_layers"); l != nil {
		listed = map[int]bool{}
		for _, i := range l {
			listed[i] = true
		}
	}
	dense := 0
	for i := range layers {
		moe := i >= firstK && i%freq == 0 && (i+1)%sparse == 0 && !only[i]
		if listed != nil {
			moe = moe && listed[i]
		} else {
			moe = moe && (i+1)%interleave == 0
		}
		if !moe {
			dense++
		}
	}
	return dense
}

// linearAttention reads Qwen3-Next's hybrid layout: Gated DeltaNet
// layers between softmax-attention ones, every full_attention_interval-th
// layer (or as layer_types lists them) being full attention.
func (r *configReader) linearAttention(m *Model, mt string) []string {
	if mt != "qwen3_next" {
		return nil
	}
	n := 0
	if v, ok := r.cfg["layer_types"]; ok && string(v) != "null" {
		var types []string
		if err := json.Unmarshal(v, &types); err != nil {
			r.fail(fmt.Sprintf(`"layer_types" is %s, want a list of strings`, clip(string(v))))
			return nil
		}
		for i, t := range types {
			if t == "linear_attention" && i < m.Layers {
				n++
			}
		}
	} else {
		n = r.offInterval(m.Layers, "full_attention_interval")
	}
	r.used["full_attention_interval"] = true
	kHeads := r.need(maxConfigDim, "linear_num_key_heads")
	vHeads := r.need(maxConfigDim, "linear_num_value_heads")
	kDim := r.need(maxConfigDim, "linear_key_head_dim")
	vDim := r.need(maxConfigDim, "linear_value_head_dim")
	kernel, ok := r.num(64, "linear_conv_kernel_dim")
	if !ok {
		kernel = 4
	}
	if r.err != nil {
		return nil
	}
	if f := float64(m.Hidden) * (2*float64(kHeads*kDim) + 3*float64(vHeads*vDim)); f > 1e14 {
		r.fail(fmt.Sprintf("a linear-attention block of %.3g parameters is not a real model", f))
		return nil
	}
	h, keyDim, valueDim := int64(m.Hidden), int64(kHeads*kDim), int64(vHeads*vDim)
	m.LinearAttnLayers = n
	m.LinearAttnParams = h*(2*keyDim+2*valueDim) + // in_proj_qkvz
		h*2*int64(vHeads) + // in_proj_ba
		(2*keyDim+valueDim)*int64(kernel) + // depthwise conv1d
		2*int64(vHeads) + int64(vDim) + // dt_bias, A_log, gated norm
		valueDim*h // out_proj
	// Each keeps a recurrent state of vHeads × kDim × vDim and the
	// depthwise convolution's last kernel-1 inputs per sequence.
	m.MixerState = int64(vHeads)*int64(kDim)*int64(vDim) + (2*keyDim+valueDim)*int64(kernel-1)
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d of %d layers are linear attention (Gated DeltaNet): no KV cache, a fixed state of %s elements per sequence each, counted in the KV cache at its precision", n, m.Layers, Commas(m.MixerState))}
}

// mtp reads the multi-token-prediction layers a checkpoint ships.
func (r *configReader) mtp(m *Model, mt string) []string {
	n, ok := r.num(maxConfigLayers, "num_nextn_predict_layers", "mtp_num_hidden_layers")
	if !ok && mt == "qwen3_next" {
		// Qwen3-Next's checkpoints carry one mtp.* layer that its config
		// does not mention (vLLM's default of 1).
		n = 1
	}
	if n == 0 {
		return nil
	}
	m.MTPLayers = n
	// DeepSeek-V3, Kimi K2 and GLM-4.5 store the MTP layer's own copy of
	// the embedding table and LM head (the Hub's totals include them).
	m.MTPCopiesEmbeddings = mt == "deepseek_v3" || mt == "kimi_k2" || mt == "glm4_moe"
	extra := m.mtpExtra()
	layer := m.attentionParams() + int64(m.NormsPerLayer)*m.normParams(int64(m.Hidden))
	if m.MoE() {
		layer += int64(m.Hidden)*int64(m.Experts) + int64(m.Experts+m.SharedExperts)*m.mlpParams(m.ExpertIntermediate)
	} else {
		layer += m.mlpParams(m.Intermediate)
	}
	return []string{fmt.Sprintf("%d multi-token-prediction layer(s) (about %s parameters) are in the checkpoint: counted in the total, not in the active parameters", n, roundCount(int64(n)*(extra+layer)))}
}

// offInterval is how many of layers are not every interval-th one, the
// interval read from key (every 4th when the config does not say).
func (r *configReader) offInterval(layers int, key string) int {
	interval, ok := r.num(maxConfigLayers, key)
	if !ok || interval == 0 {
		interval = 4
	}
	return layers - layers/interval
}

// encoderDecoder reads the layers and widths of an encoder-decoder
// config in BART's keys (M2M100, Whisper).
func (r *configReader) encoderDecoder(m *Model) {
	m.EncoderLayers = r.need(maxConfigLayers, "encoder_layers")
	m.Layers = r.need(maxConfigLayers, "decoder_layers")
	m.Hidden = r.need(maxConfigDim, "d_model")
	m.Heads = r.need(maxConfigDim, "encoder_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = r.need(maxConfigDim, "encoder_ffn_dim")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
}

// chunked reads Llama 4's chunked attention: layers with rotary positions
// attend within chunks of attention_chunk_size tokens; every
// no_rope_layer_interval-th layer (NoPE) attends to everything.
func (r *configReader) chunked(m *Model) []string {
	chunk, ok := r.num(maxConfigCtx, "attention_chunk_size")
	if !ok || chunk == 0 {
		return nil
	}
	n := 0
	if l := r.ints("no_rope_layers"); l != nil {
		for i, v := range l {
			if v != 0 && i < m.Layers {
				n++
			}
		}
	} else {
		n = r.offInterval(m.Layers, "no_rope_layer_interval")
	}
	if n == 0 {
		return nil
	}
	m.SlidingWindow, m.SlidingLayers = chunk, n
	return []string{fmt.Sprintf("chunked attention (%d-token chunks) on %d of %d layers is sized as a %d-token window", chunk, n, m.Layers, chunk)}
}

// sliding reads which layers attend through a sliding window: an explicit
// layer_types list, else the family's known pattern.
func (r *configReader) sliding(m *Model, mt string) {
	var types []string
	if v, ok := r.cfg["layer_types"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &types); err != nil {
			r.fail(fmt.Sprintf(`"layer_types" is %s, want a list of strings`, clip(string(v))))
			return
		}
		for _, t := range types {
			if t != "sliding_attention" && t != "full_attention" {
				r.fail(fmt.Sprintf(`"layer_types" has a %q layer, which fitbot does not model for model_type %q`, t, mt))
				return
			}
		}
	}
	window, ok := r.num(maxConfigCtx, "sliding_window")
	if !ok || window == 0 {
		return
	}
	if types != nil {
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

// gptNeoX reads GPT-NeoX and Pythia: LayerNorm, fused qkv with biases,
// a plain MLP with biases, untied input and output embeddings.
func (r *configReader) gptNeoX() Model {
	m := Model{Family: "gpt_neox", Kind: KindDecoder, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2,
		MLPBias: true, FusedQKV: true}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers")
	m.Hidden = r.need(maxConfigDim, "hidden_size")
	m.Heads = r.need(maxConfigDim, "num_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = r.need(maxConfigDim, "intermediate_size")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.QKVBias = r.flag("attention_bias", true)
	m.OutBias = m.QKVBias
	m.TiedEmbeddings = r.flag("tie_word_embeddings", false)
	m.MaxContext, _ = r.num(maxConfigCtx, "max_position_embeddings")
	return m
}

// bloom reads BLOOM: ALiBi (no position table), a LayerNorm on the
// embeddings, fused qkv, a 4h plain MLP, biases everywhere, tied
// embeddings.
func (r *configReader) bloom() (Model, []string) {
	m := Model{Family: "bloom", Kind: KindDecoder, MLP: MLPPlain, Norm: NormLayerNorm, NormsPerLayer: 2,
		QKVBias: true, OutBias: true, MLPBias: true, FusedQKV: true, EmbeddingNorm: true}
	m.Layers = r.need(maxConfigLayers, "n_layer", "num_hidden_layers")
	m.Hidden = r.need(maxConfigDim, "hidden_size", "n_embed")
	m.Heads = r.need(maxConfigDim, "n_head", "num_attention_heads")
	m.KVHeads = m.Heads
	m.Intermediate = 4 * m.Hidden
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	if m.MaxContext, _ = r.num(maxConfigCtx, "seq_length", "max_position_embeddings"); m.MaxContext > 0 {
		return m, nil
	}
	m.MaxContext = 2048
	return m, []string{"BLOOM's ALiBi positions set no context length, its training length 2048 assumed"}
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
	r.flag("tie_word_embeddings", true) // the encoder's count has no LM head either way
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
	r.encoderDecoder(&m)
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
	if m.Heads == 0 && m.Kind == KindSSM {
		if m.upperBoundParams() > 1e15 {
			return configErr(fmt.Sprintf("the architecture has over 10^15 parameters (%d layers, hidden %d): not a real model", m.Layers, m.Hidden))
		}
		return nil
	}
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
	layers := float64(m.Layers + 2*m.EncoderLayers + m.MTPLayers)
	linear := float64(m.LinearAttnLayers) * float64(m.LinearAttnParams)
	mtp := float64(m.MTPLayers) * (2*h*h + 2*float64(m.Vocab)*h)
	return layers*(2*attn+ffn+8*h) + 2*float64(m.Vocab)*h + float64(m.PositionEmbeddings)*h + linear + mtp
}
