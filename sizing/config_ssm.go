package sizing

import (
	"fmt"
	"strings"
)

// State-space (Mamba) models keep no KV cache: each Mamba layer carries a
// fixed state per sequence, its SSM state (inner × state_size elements)
// and the last conv_kernel-1 inputs of its causal convolution, whatever
// the context. A hybrid (Jamba) keeps KV in its attention layers only.
//
// Parameter counts follow transformers' modules: MambaMixer
// (models/mamba/modeling_mamba.py), Mamba2Mixer (models/mamba2) and
// JambaMambaMixer (models/jamba), whose shapes are set by MambaConfig,
// Mamba2Config and JambaConfig.

func init() {
	for _, mt := range []string{"mamba", "falcon_mamba", "mamba2", "jamba"} {
		familyReaders[mt] = true
	}
}

// mambaMixer is one Mamba or Mamba-2 block's token mixer.
type mambaMixer struct {
	version        int // 1 or 2
	hidden, inner  int
	state, dtRank  int // Mamba-1: dt_rank; Mamba-2: 0
	heads, groups  int // Mamba-2
	kernel         int
	convBias, bias bool
	dtNorms        bool // Jamba's RMSNorms on dt, B and C
}

// params counts the mixer's parameters.
func (x mambaMixer) params() int64 {
	h, in, n, k := int64(x.hidden), int64(x.inner), int64(x.state), int64(x.kernel)
	b := func(on bool, n int64) int64 {
		if on {
			return n
		}
		return 0
	}
	if x.version == 2 {
		g, heads := int64(x.groups), int64(x.heads)
		conv := in + 2*g*n
		p := h*(2*in+2*g*n+heads) + b(x.bias, 2*in+2*g*n+heads) // in_proj
		p += conv*k + b(x.convBias, conv)                       // conv1d
		p += 3 * heads                                          // dt_bias, A_log, D
		p += in                                                 // gated RMSNorm
		p += in*h + b(x.bias, h)                                // out_proj
		return p
	}
	r := int64(x.dtRank)
	p := h*2*in + b(x.bias, 2*in) // in_proj
	p += in*k + b(x.convBias, in) // conv1d
	p += in * (r + 2*n)           // x_proj
	p += r*in + in                // dt_proj with its bias
	p += in*n + in                // A_log, D
	p += in*h + b(x.bias, h)      // out_proj
	p += b(x.dtNorms, r+2*n)      // Jamba's dt, B and C norms
	return p
}

// stateElems is the fixed state one sequence keeps in one layer: the SSM
// state and the convolution's last kernel-1 inputs.
func (x mambaMixer) stateElems() int64 {
	in, n, k := int64(x.inner), int64(x.state), int64(x.kernel)
	conv := in
	if x.version == 2 {
		conv += 2 * int64(x.groups) * n
	}
	return in*n + conv*(k-1)
}

// apply sets the mixer on m for its n Mamba layers.
func (x mambaMixer) apply(m *Model, n int) {
	m.LinearAttnLayers, m.LinearAttnParams = n, x.params()
	m.SSMVersion, m.SSMInner, m.SSMStateDim = x.version, x.inner, x.state
	m.SSMDTRank, m.SSMHeads, m.SSMGroups = x.dtRank, x.heads, x.groups
	m.MixerState = x.stateElems()
}

// mamba reads Mamba (mamba, falcon_mamba) and Mamba-2 (mamba2): every
// layer a norm and a mixer, no attention, no MLP.
func (r *configReader) mamba(mt string) (Model, []string) {
	m := Model{Family: mt, Kind: KindSSM, MLP: MLPPlain, Norm: NormRMS, NormsPerLayer: 1}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers", "n_layer")
	m.Hidden = r.need(maxConfigDim, "hidden_size", "d_model")
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	if !r.flag("rms_norm", true) {
		m.Norm = NormLayerNorm
	}
	m.TiedEmbeddings = r.flag("tie_word_embeddings", true)
	x := mambaMixer{hidden: m.Hidden, version: 1}
	x.state = r.need(maxConfigDim, "state_size", "ssm_state_size", "d_state")
	expand, ok := r.num(64, "expand")
	if !ok {
		expand = 2
	}
	if x.inner, ok = r.num(maxConfigDim, "intermediate_size"); !ok || x.inner == 0 {
		x.inner = expand * m.Hidden
	}
	if x.kernel, ok = r.num(64, "conv_kernel", "d_conv"); !ok || x.kernel == 0 {
		x.kernel = 4
	}
	x.convBias = r.flag("use_conv_bias", true)
	x.bias = r.flag("use_bias", false)
	if mt == "mamba2" {
		x.version = 2
		x.heads = r.need(maxConfigDim, "num_heads")
		x.groups = r.need(maxConfigDim, "n_groups")
		if hd, ok := r.num(maxConfigDim, "head_dim"); ok && hd > 0 {
			x.inner = x.heads * hd
		}
		r.used["time_step_rank"] = true
	} else {
		x.dtRank = r.dtRank("time_step_rank", m.Hidden)
	}
	if r.err != nil {
		return m, nil
	}
	x.apply(&m, m.Layers)
	m.MaxContext = MaxSeqLen // no positions: any context, at a constant state
	what := "Mamba"
	if x.version == 2 {
		what = "Mamba-2"
	}
	return m, []string{fmt.Sprintf("%s state-space model: no KV cache; each of the %d layers keeps a fixed state of %s elements per sequence (SSM state %d×%d plus the convolution's last %d inputs), the same at any context",
		what, m.Layers, Commas(x.stateElems()), x.inner, x.state, x.kernel-1)}
}

// dtRank reads a Mamba dt rank: a number, or "auto" for ceil(hidden/16).
func (r *configReader) dtRank(key string, hidden int) int {
	if r.cfg.str(key) == "auto" {
		r.used[key] = true
		return (hidden + 15) / 16
	}
	n, ok := r.num(maxConfigDim, key)
	if !ok || n == 0 {
		return (hidden + 15) / 16
	}
	return n
}

// jamba reads Jamba: attention on every attn_layer_period-th layer (from
// attn_layer_offset), Mamba on the others; a mixture of experts on every
// expert_layer_period-th layer (from expert_layer_offset), a dense MLP on
// the others.
func (r *configReader) jamba() (Model, []string) {
	m := Model{Family: "jamba", Kind: KindHybrid, MLP: MLPGated, Norm: NormRMS, NormsPerLayer: 2}
	m.Layers = r.need(maxConfigLayers, "num_hidden_layers")
	m.Hidden = r.need(maxConfigDim, "hidden_size")
	m.Heads = r.need(maxConfigDim, "num_attention_heads")
	m.KVHeads, _ = r.num(maxConfigDim, "num_key_value_heads")
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	m.Vocab = r.need(maxConfigVocab, "vocab_size")
	m.Intermediate = r.need(maxConfigDim, "intermediate_size")
	m.TiedEmbeddings = r.flag("tie_word_embeddings", false)
	m.MaxContext, _ = r.num(maxConfigCtx, "max_position_embeddings")
	if m.MaxContext == 0 {
		m.MaxContext = 262144
	}
	period := func(key string, def int) int {
		n, ok := r.num(maxConfigLayers, key)
		if !ok {
			return def
		}
		if n == 0 {
			r.fail(fmt.Sprintf("%q is 0", key))
			return 1
		}
		return n
	}
	offset := func(key string, def int) int {
		n, ok := r.num(maxConfigLayers, key)
		if !ok {
			return def
		}
		return n
	}
	attnPeriod, attnOffset := period("attn_layer_period", 8), offset("attn_layer_offset", 4)
	expPeriod, expOffset := period("expert_layer_period", 2), offset("expert_layer_offset", 1)
	m.Experts, _ = r.num(maxConfigDim, "num_experts")
	m.ExpertsActive, _ = r.num(maxConfigDim, "num_experts_per_tok")
	if r.err != nil {
		return m, nil
	}
	attn, moe := 0, 0
	for i := range m.Layers {
		if i%attnPeriod == attnOffset {
			attn++
		}
		if i%expPeriod == expOffset {
			moe++
		}
	}
	if m.Experts > 1 && moe > 0 {
		m.ExpertIntermediate = m.Intermediate
		m.DenseLayers = m.Layers - moe
		if m.ExpertsActive == 0 {
			m.ExpertsActive = 2
		}
	} else {
		m.Experts, m.ExpertsActive = 0, 0
	}
	x := mambaMixer{hidden: m.Hidden, version: 1, dtNorms: true}
	x.state = r.need(maxConfigDim, "mamba_d_state")
	expand, ok := r.num(64, "mamba_expand")
	if !ok {
		expand = 2
	}
	x.inner = expand * m.Hidden
	if x.kernel, ok = r.num(64, "mamba_d_conv"); !ok || x.kernel == 0 {
		x.kernel = 4
	}
	x.dtRank = r.dtRank("mamba_dt_rank", m.Hidden)
	x.convBias = r.flag("mamba_conv_bias", true)
	x.bias = r.flag("mamba_proj_bias", false)
	if r.err != nil {
		return m, nil
	}
	x.apply(&m, m.Layers-attn)
	return m, []string{fmt.Sprintf("Jamba hybrid: %d of %d layers are attention and keep a KV cache; the other %d are Mamba, each with a fixed state of %s elements per sequence, the same at any context",
		attn, m.Layers, m.Layers-attn, Commas(x.stateElems()))}
}

// ssmNote says how a model's fixed per-sequence state was counted, for
// the answer's assumptions; "" for a model without one.
func (m Model) ssmNote() string {
	if m.MixerState == 0 || m.LinearAttnLayers == 0 {
		return ""
	}
	what := "linear-attention"
	if m.SSMVersion > 0 {
		what = "Mamba"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s layers keep a fixed state of %s elements per sequence each (counted in the KV cache at its precision, constant in context)",
		m.LinearAttnLayers, what, Commas(m.MixerState))
	if full := m.Layers - m.LinearAttnLayers; full > 0 {
		fmt.Fprintf(&b, "; the %d attention layers keep a KV cache", full)
	} else {
		b.WriteString("; no layer keeps a KV cache")
	}
	return b.String()
}
