package sizing

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

// Model kinds.
const (
	KindDecoder        = "decoder"         // GPT-style causal LM
	KindEncoder        = "encoder"         // BERT-style, no KV cache
	KindEncoderDecoder = "encoder-decoder" // T5, NLLB, Whisper
	KindDiffusion      = "diffusion"       // UNet or DiT image models (SD, SDXL, SD3, FLUX)
	KindSSM            = "ssm"             // state-space models (Mamba): a fixed state per layer, no KV cache
	KindHybrid         = "hybrid"          // attention layers beside state-space layers (Jamba)
)

// MLP and norm styles.
const (
	MLPGated      = "gated" // SwiGLU/GeGLU: gate, up and down matrices
	MLPPlain      = "plain" // up (fc1) and down (fc2) matrices
	NormRMS       = "rmsnorm"
	NormLayerNorm = "layernorm" // weight and bias
)

// Model is a transformer's architecture as its config.json states it,
// with enough detail to count its parameters exactly (ParamCount), size
// its KV cache (KVCacheBytes) and list its linear layers for LoRA
// (LinearShapes). The catalog lives in data/models.json.
//
// Layers is the number of decoder blocks (encoder blocks for an encoder;
// decoder blocks for an encoder-decoder, whose encoder has EncoderLayers).
// HeadDim is always set: from config.json's head_dim where explicit, or
// Hidden/Heads.
type Model struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Family        string `json:"family"`
	Kind          string `json:"kind"` // one of the Kind constants
	Layers        int    `json:"layers"`
	EncoderLayers int    `json:"encoder_layers,omitempty"`
	Hidden        int    `json:"hidden"`
	Intermediate  int    `json:"intermediate"` // dense FFN width (DeepSeek: the dense first layers)
	Heads         int    `json:"heads"`
	KVHeads       int    `json:"kv_heads"`
	HeadDim       int    `json:"head_dim"`
	Vocab         int    `json:"vocab"`

	TiedEmbeddings bool   `json:"tied_embeddings"`
	MLP            string `json:"mlp"`             // MLPGated or MLPPlain
	Norm           string `json:"norm"`            // NormRMS or NormLayerNorm
	NormsPerLayer  int    `json:"norms_per_layer"` // 2 usually; 4 for Gemma 2/3; 1 for Falcon-7B
	NoFinalNorm    bool   `json:"no_final_norm,omitempty"`
	QKNorm         bool   `json:"qk_norm,omitempty"`  // per-head-dim norms on q and k (Qwen3, Gemma 3)
	QKVBias        bool   `json:"qkv_bias,omitempty"` // biases on q, k, v (Qwen2, GPT-2, BERT)
	OutBias        bool   `json:"out_bias,omitempty"` // bias on the attention output projection
	MLPBias        bool   `json:"mlp_bias,omitempty"` // biases on MLP (and expert) matrices
	AttnSinks      bool   `json:"attn_sinks,omitempty"`
	FusedQKV       bool   `json:"fused_qkv,omitempty"`     // one qkv matrix (GPT-2, Falcon, Phi-3): matters for LoRA only
	FusedGateUp    bool   `json:"fused_gate_up,omitempty"` // one gate_up matrix (Phi-3)

	PositionEmbeddings int  `json:"position_embeddings,omitempty"` // learned absolute positions (GPT-2, BERT)
	TokenTypes         int  `json:"token_types,omitempty"`         // BERT segment embeddings
	EmbeddingNorm      bool `json:"embedding_norm,omitempty"`      // norm right after the embeddings (BERT)
	Pooler             bool `json:"pooler,omitempty"`              // BERT pooler dense layer
	RelativeBuckets    int  `json:"relative_buckets,omitempty"`    // T5 relative attention bias buckets per head
	NoKBias            bool `json:"no_k_bias,omitempty"`           // QKVBias without a bias on k (Whisper)
	// EncoderSeq is the fixed length an encoder-decoder's encoder always
	// reads (Whisper: 1,500 frames for 30 s of audio): the encoder's
	// activations and the decoder's cross-attention KV are that long
	// whatever the text; 0 when the encoder reads the text (T5, NLLB).
	EncoderSeq int `json:"encoder_seq,omitempty"`
	// CrossAttnLayers are decoder layers (counted in Layers, each the
	// size of a self-attention layer) that attend to an image's encoder
	// states instead of the text (Llama 3.2 Vision's
	// cross_attention_layers): no KV cache per text token, and per
	// sequence with an image CrossAttnTokens keys and values each
	// (max_num_tiles × (patches + CLS): 4 × 1,601). VisionOutputDim is
	// the width of the vision tower's output (its final and intermediate
	// layers concatenated, 7,680 for mllama).
	CrossAttnLayers int `json:"cross_attn_layers,omitempty"`
	CrossAttnTokens int `json:"cross_attn_tokens,omitempty"`
	VisionOutputDim int `json:"vision_output_dim,omitempty"`

	Experts            int  `json:"experts,omitempty"`             // routed experts per MoE layer
	ExpertsActive      int  `json:"experts_active,omitempty"`      // routed experts per token
	ExpertIntermediate int  `json:"expert_intermediate,omitempty"` // FFN width of one expert
	SharedExperts      int  `json:"shared_experts,omitempty"`      // always-on experts of width ExpertIntermediate
	DenseLayers        int  `json:"dense_layers,omitempty"`        // layers with a dense FFN: DeepSeek's first k, Llama 4 Maverick's every other
	RouterBias         bool `json:"router_bias,omitempty"`
	// SharedExpertIntermediate is the width of a shared expert where it
	// differs from ExpertIntermediate (Qwen2-MoE: 5632 beside 1408-wide
	// experts); 0 means ExpertIntermediate.
	SharedExpertIntermediate int  `json:"shared_expert_intermediate,omitempty"`
	SharedExpertGate         bool `json:"shared_expert_gate,omitempty"` // a hidden→1 sigmoid gate on the shared expert (Qwen2-MoE, Qwen3-Next)

	QLoRARank     int `json:"q_lora_rank,omitempty"` // DeepSeek MLA; 0 = plain q projection
	KVLoRARank    int `json:"kv_lora_rank,omitempty"`
	QKNopeHeadDim int `json:"qk_nope_head_dim,omitempty"`
	QKRopeHeadDim int `json:"qk_rope_head_dim,omitempty"`
	VHeadDim      int `json:"v_head_dim,omitempty"`

	// AttnOutputGate: q_proj also yields a per-channel gate on the
	// attention output (Qwen3-Next), doubling its width.
	AttnOutputGate bool `json:"attn_output_gate,omitempty"`
	// LinearAttnLayers are layers whose token mixer is linear attention
	// (Qwen3-Next's Gated DeltaNet) instead of softmax attention: each has
	// LinearAttnParams parameters and a fixed-size state, no KV cache.
	LinearAttnLayers int   `json:"linear_attn_layers,omitempty"`
	LinearAttnParams int64 `json:"linear_attn_params,omitempty"`
	// MixerState is the fixed state one sequence keeps in each of the
	// LinearAttnLayers (a recurrent or SSM state plus the causal
	// convolution's last inputs), in elements: the same at any context,
	// in place of a KV cache.
	MixerState int64 `json:"mixer_state,omitempty"`
	// SSM* give the geometry of the LinearAttnLayers when they are Mamba
	// blocks (Mamba, Mamba-2, Jamba): version 1 or 2, the inner width,
	// the state size N, Mamba-1's dt rank, Mamba-2's heads and groups.
	SSMVersion  int `json:"ssm_version,omitempty"`
	SSMInner    int `json:"ssm_inner,omitempty"`
	SSMStateDim int `json:"ssm_state,omitempty"`
	SSMDTRank   int `json:"ssm_dt_rank,omitempty"`
	SSMHeads    int `json:"ssm_heads,omitempty"`
	SSMGroups   int `json:"ssm_groups,omitempty"`

	// MTPLayers are multi-token-prediction layers shipped in the
	// checkpoint (DeepSeek-V3, GLM-4.5, Qwen3-Next): each a full decoder
	// layer plus a 2h→h projection and three norms. They count in the
	// total (they are in the files, and speculative decoding loads them),
	// not in the active parameters. MTPCopiesEmbeddings: each also stores
	// its own copy of the embedding table and LM head (DeepSeek-V3).
	MTPLayers           int  `json:"mtp_layers,omitempty"`
	MTPCopiesEmbeddings bool `json:"mtp_copies_embeddings,omitempty"`

	SlidingWindow int `json:"sliding_window,omitempty"` // tokens a sliding layer attends to
	SlidingLayers int `json:"sliding_layers,omitempty"` // how many layers use the window
	MaxContext    int `json:"max_context"`

	// Components, for a diffusion pipeline (Kind diffusion), are its
	// models with their exact counts; Hidden and Layers are then the DiT
	// denoiser's width and blocks. Denoiser is DenoiserDiT or
	// DenoiserUNet; TextTokens the prompt tokens a DiT attends beside the
	// image; CFG whether inference runs the denoiser on two batches
	// (classifier-free guidance); NativeResolution the side in pixels it
	// was trained at; LoRAPerRank the adapter parameters per unit of rank
	// on the denoiser's default LoRA targets.
	Components       []Component `json:"components,omitempty"`
	Denoiser         string      `json:"denoiser,omitempty"`
	TextTokens       int         `json:"text_tokens,omitempty"`
	CFG              bool        `json:"cfg,omitempty"`
	NativeResolution int         `json:"native_resolution,omitempty"`
	LoRAPerRank      int64       `json:"lora_per_rank,omitempty"`
	// VAEUpcast: the pipeline decodes in fp32 whatever the weights'
	// precision (the VAE config's force_upcast, which diffusers' Stable
	// Diffusion XL pipelines honour: SDXL's VAE overflows in fp16).
	VAEUpcast bool `json:"vae_upcast,omitempty"`
	// UNet is a UNet denoiser's layout (levels, transformer blocks,
	// heads), which sizes its activations; nil for a DiT.
	UNet *UNetShape `json:"unet,omitempty"`

	// ImageTokens is how many tokens one image becomes in a
	// vision-language model's sequence at its processor's default size;
	// 0 when unknown.
	ImageTokens int `json:"image_tokens,omitempty"`

	ExtraParams     int64  `json:"extra_params,omitempty"` // parameters outside the transformer, as a lump (vision tower)
	ExtraParamsNote string `json:"extra_params_note,omitempty"`

	// ReleasedFormat is the weight format the makers ship (fp8 for
	// DeepSeek-V3, mxfp4 for gpt-oss); empty for a bf16/fp16 release.
	ReleasedFormat Quant `json:"released_format,omitempty"`
	// Kept16 is what the maker's checkpoint in a quantised format keeps
	// in 16-bit (quantization_config's modules_to_not_convert, ignore or
	// exclude_modules); nil when that checkpoint quantises every linear
	// of the blocks. Meta's Llama-3.1-405B-Instruct-FP8 keeps attention
	// and the first and last layers in bf16.
	Kept16 *Kept16 `json:"kept_16bit,omitempty"`

	PublishedParams int64   `json:"published_params"`           // the count the authors or the Hub state
	PublishedActive int64   `json:"published_active,omitempty"` // MoE: active per token, where stated
	ParamsTolerance float64 `json:"params_tolerance,omitempty"` // relative; 0 means ParamCount must equal PublishedParams

	Aliases []string `json:"aliases"`
	Source  string   `json:"source"`
	// Note is what an answer for this model says of it beyond its figures
	// ("DeepSeek-R1 has DeepSeek-V3's architecture"); "" for most.
	Note string `json:"note,omitempty"`

	assumption string // set by BareModel
}

// Kept16 is the part of a quantised release left in 16-bit: the block
// linears of Roles (as LinearShapes names them: "attention", "mlp",
// "shared-expert", "router", "mixer") in every layer, and every dense
// linear of WholeLayers decoder layers (routed experts stay in the
// format). Format is the release it describes: the weights are sized
// this way only when asked in that format.
type Kept16 struct {
	Format      Quant    `json:"format"`
	Roles       []string `json:"roles,omitempty"`
	WholeLayers int      `json:"whole_layers,omitempty"`
}

// MLA reports whether the model uses multi-head latent attention
// (DeepSeek-V2/V3), whose KV cache holds one compressed latent per token.
func (m Model) MLA() bool { return m.KVLoRARank > 0 }

// MoE reports whether the model routes tokens to experts.
func (m Model) MoE() bool { return m.Experts > 0 }

// Assumption says how the model was made up when it is not a catalog or
// config.json model (a bare size); "" otherwise.
func (m Model) Assumption() string { return m.assumption }

// ParamCount counts the parameters from the architecture: total (what
// must be held in memory) and active (what one token passes through,
// for FLOPs; equal to total for dense models). Embeddings count once when
// tied; ExtraParams (a vision tower) count in both.
//
// For a mixture of experts, active leaves out the input embedding table
// (a row lookup, no matmul), as model cards count it: gpt-oss-20b's 3.6B
// and gpt-oss-120b's 5.1B active are the blocks plus the unembedding. A
// tied table is the LM head too and stays in.
func (m Model) ParamCount() (total, active int64) {
	if m.Kind == KindDiffusion {
		n := m.diffusionParamCount()
		return n, n
	}
	h := int64(m.Hidden)
	embed := int64(m.Vocab) * h
	embed += int64(m.PositionEmbeddings)*h + int64(m.TokenTypes)*h
	if m.EmbeddingNorm {
		embed += m.normParams(h)
	}
	if !m.TiedEmbeddings && m.Kind != KindEncoder {
		embed += int64(m.Vocab) * h
	}
	if m.Pooler {
		embed += h*h + h
	}
	fixed := embed + m.ExtraParams
	stacks := int64(1)
	if m.Kind == KindEncoderDecoder {
		stacks = 2
	}
	if !m.NoFinalNorm {
		fixed += stacks * m.normParams(h)
	}
	fixed += stacks * int64(m.RelativeBuckets) * int64(m.Heads)

	attn := m.attentionParams()
	norms := int64(m.NormsPerLayer) * m.normParams(h)
	denseLayer := attn + norms + m.mlpParams(m.Intermediate)

	total, active = fixed, fixed
	if m.Kind == KindEncoderDecoder {
		enc := int64(m.EncoderLayers) * denseLayer
		cross := m.attentionParams() + m.normParams(h)
		dec := int64(m.Layers) * (denseLayer + cross)
		return total + enc + dec, active + enc + dec
	}
	// Linear-attention layers swap their attention block for another.
	linear := int64(m.LinearAttnLayers) * (m.LinearAttnParams - attn)
	total, active = total+linear, active+linear
	if !m.MoE() {
		n := int64(m.Layers) * denseLayer
		total += n + int64(m.MTPLayers)*(m.mtpExtra()+denseLayer)
		return total, active + n
	}
	dense := int64(m.DenseLayers) * denseLayer
	router := h * int64(m.Experts)
	if m.RouterBias {
		router += int64(m.Experts)
	}
	expert := m.mlpParams(m.ExpertIntermediate)
	shared := int64(m.SharedExperts) * expert
	if m.SharedExpertIntermediate > 0 {
		shared = int64(m.SharedExperts) * m.mlpParams(m.SharedExpertIntermediate)
	}
	if m.SharedExpertGate {
		shared += h
	}
	moeLayers := int64(m.Layers - m.DenseLayers)
	moeLayer := attn + norms + router + shared + int64(m.Experts)*expert
	total += dense + moeLayers*moeLayer + int64(m.MTPLayers)*(m.mtpExtra()+moeLayer)
	if !m.TiedEmbeddings {
		active -= int64(m.Vocab)*h + int64(m.PositionEmbeddings)*h
	}
	active += dense + moeLayers*(attn+norms+router+shared+int64(m.ExpertsActive)*expert)
	return total, active
}

// mtpExtra counts what one multi-token-prediction layer adds to its
// decoder layer: the 2h→h projection, three norms and, where stored, its
// copies of the embedding table and LM head.
func (m Model) mtpExtra() int64 {
	h := int64(m.Hidden)
	n := 2*h*h + 3*m.normParams(h)
	if m.MTPCopiesEmbeddings {
		n += 2 * int64(m.Vocab) * h
	}
	return n
}

func (m Model) normParams(width int64) int64 {
	if m.Norm == NormLayerNorm {
		return 2 * width
	}
	return width
}

// attentionParams counts one attention block: projections, biases,
// q/k norms and sinks.
func (m Model) attentionParams() int64 {
	h, heads, kv, d := int64(m.Hidden), int64(m.Heads), int64(m.KVHeads), int64(m.HeadDim)
	if m.MLA() {
		qk := int64(m.QKNopeHeadDim + m.QKRopeHeadDim)
		var n int64
		if m.QLoRARank > 0 {
			r := int64(m.QLoRARank)
			n += h*r + r + r*heads*qk
		} else {
			n += h * heads * qk
		}
		r := int64(m.KVLoRARank)
		n += h*(r+int64(m.QKRopeHeadDim)) + r
		n += r * heads * int64(m.QKNopeHeadDim+m.VHeadDim)
		n += heads * int64(m.VHeadDim) * h
		return n
	}
	n := h*heads*d + 2*h*kv*d + heads*d*h
	if m.QKVBias {
		n += heads*d + 2*kv*d
		if m.NoKBias {
			n -= kv * d
		}
	}
	if m.OutBias {
		n += h
	}
	if m.QKNorm {
		n += 2 * d
	}
	if m.AttnOutputGate {
		n += h * heads * d
	}
	if m.AttnSinks {
		n += heads
	}
	return n
}

// mlpParams counts one feed-forward block (or one expert) of width inter.
func (m Model) mlpParams(inter int) int64 {
	h, i := int64(m.Hidden), int64(inter)
	if m.MLP == MLPGated {
		n := 3 * h * i
		if m.MLPBias {
			n += 2*i + h
		}
		return n
	}
	n := 2 * h * i
	if m.MLPBias {
		n += i + h
	}
	return n
}

// KVElemsPerTokenPerLayer is the number of cached elements one token adds
// to one attention layer: K and V for every KV head, or MLA's latent plus
// its shared rope key. Encoder-only models cache nothing.
func (m Model) KVElemsPerTokenPerLayer() int64 {
	switch {
	case m.Kind == KindEncoder:
		return 0
	case m.MLA():
		return int64(m.KVLoRARank + m.QKRopeHeadDim)
	default:
		return 2 * int64(m.KVHeads) * int64(m.HeadDim)
	}
}

// KVCacheBytes is the KV cache of one sequence of ctx tokens at
// bytesPerElem bytes per element (2 for fp16/bf16, 1 for fp8): every
// layer caches every token, except sliding-window layers, which keep at
// most SlidingWindow tokens. An encoder-decoder caches its decoder's
// self-attention, and Whisper its cross-attention over the 1,500 encoder
// frames too. Layers without a KV cache (Mamba, linear attention) add
// their fixed state, the same at any context. Multiply by the batch for
// concurrent sequences.
func (m Model) KVCacheBytes(bytesPerElem float64, ctx int) float64 {
	if ctx <= 0 {
		return 0
	}
	per := float64(m.KVElemsPerTokenPerLayer()) * bytesPerElem
	full := m.Layers - m.SlidingLayers - m.LinearAttnLayers - m.CrossAttnLayers
	windowed := ctx
	if m.SlidingLayers > 0 && m.SlidingWindow < ctx {
		windowed = m.SlidingWindow
	}
	state := float64(int64(m.LinearAttnLayers)*m.MixerState+m.crossAttnElems()) * bytesPerElem
	cross := float64(m.Layers) * float64(m.EncoderSeq) // cross-attention over a fixed-length encoder output
	return per*(float64(full)*float64(ctx)+float64(m.SlidingLayers)*float64(windowed)+cross) + state
}

// crossAttnElems is the KV one sequence with an image holds in the
// cross-attention layers, in elements: fixed whatever the text's length.
func (m Model) crossAttnElems() int64 {
	return int64(m.CrossAttnLayers) * int64(m.CrossAttnTokens) * m.KVElemsPerTokenPerLayer()
}

// KVBytesPerToken is the KV cache per token averaged over a context of
// ctx tokens: KVCacheBytes / ctx. Below the sliding window (or without
// one) it is the familiar 2 × layers × KV heads × head_dim × bytes; above
// it, sliding layers stop growing and the average falls.
func (m Model) KVBytesPerToken(bytesPerElem float64, ctx int) float64 {
	if ctx <= 0 {
		ctx = 1
	}
	return m.KVCacheBytes(bytesPerElem, ctx) / float64(ctx)
}

// Linear is one kind of linear layer, as LoRA sees it: a matrix of In ×
// Out appearing Count times in the whole model. A LoRA adapter of rank r
// on it adds Count × r × (In + Out) parameters.
type Linear struct {
	Name   string // q_proj, k_proj, v_proj, o_proj, qkv_proj, gate_proj, up_proj, gate_up_proj, down_proj, router, q_a_proj, q_b_proj, kv_a_proj, kv_b_proj; cross_* for cross-attention; in_proj, x_proj, dt_proj, out_proj of a Mamba mixer
	Role   string // "attention", "mlp", "expert", "shared-expert", "router" or "mixer"
	In     int
	Out    int
	Count  int
	Expert bool // inside a routed expert
}

// Params is the parameter count of all Count matrices, without biases.
func (l Linear) Params() int64 { return int64(l.Count) * int64(l.In) * int64(l.Out) }

// LoRAParams is the number of adapter parameters a rank-r LoRA adds on
// all Count matrices: r × (In + Out) each.
func (l Linear) LoRAParams(r int) int64 {
	return int64(l.Count) * int64(r) * int64(l.In+l.Out)
}

// LinearShapes lists the linear layers of the transformer blocks (not the
// embeddings or LM head), one entry per distinct kind, as modules appear
// in the Hugging Face implementation: fused qkv or gate_up where the model
// fuses them.
func (m Model) LinearShapes() []Linear {
	if m.Kind == KindDiffusion {
		return nil // a pipeline's layers are not listed; LoRAPerRank gives the adapters
	}
	h, q, kv := m.Hidden, m.Heads*m.HeadDim, m.KVHeads*m.HeadDim
	attnLayers := m.Layers + m.EncoderLayers - m.LinearAttnLayers
	var out []Linear
	add := func(name, role string, in, o, count int, expert bool) {
		if count > 0 {
			out = append(out, Linear{Name: name, Role: role, In: in, Out: o, Count: count, Expert: expert})
		}
	}
	switch {
	case m.MLA():
		qk := m.QKNopeHeadDim + m.QKRopeHeadDim
		if m.QLoRARank > 0 {
			add("q_a_proj", "attention", h, m.QLoRARank, attnLayers, false)
			add("q_b_proj", "attention", m.QLoRARank, m.Heads*qk, attnLayers, false)
		} else {
			add("q_proj", "attention", h, m.Heads*qk, attnLayers, false)
		}
		add("kv_a_proj", "attention", h, m.KVLoRARank+m.QKRopeHeadDim, attnLayers, false)
		add("kv_b_proj", "attention", m.KVLoRARank, m.Heads*(m.QKNopeHeadDim+m.VHeadDim), attnLayers, false)
		add("o_proj", "attention", m.Heads*m.VHeadDim, h, attnLayers, false)
	case m.FusedQKV:
		add("qkv_proj", "attention", h, q+2*kv, attnLayers, false)
		add("o_proj", "attention", q, h, attnLayers, false)
	default:
		qOut := q
		if m.AttnOutputGate {
			qOut = 2 * q
		}
		add("q_proj", "attention", h, qOut, attnLayers, false)
		add("k_proj", "attention", h, kv, attnLayers, false)
		add("v_proj", "attention", h, kv, attnLayers, false)
		add("o_proj", "attention", q, h, attnLayers, false)
	}
	if m.SSMVersion > 0 {
		n, in := m.LinearAttnLayers, m.SSMInner
		if m.SSMVersion == 2 {
			add("in_proj", "mixer", h, 2*in+2*m.SSMGroups*m.SSMStateDim+m.SSMHeads, n, false)
		} else {
			add("in_proj", "mixer", h, 2*in, n, false)
			add("x_proj", "mixer", in, m.SSMDTRank+2*m.SSMStateDim, n, false)
			add("dt_proj", "mixer", m.SSMDTRank, in, n, false)
		}
		add("out_proj", "mixer", in, h, n, false)
	}
	if m.Kind == KindEncoderDecoder {
		add("cross_q_proj", "attention", h, q, m.Layers, false)
		add("cross_k_proj", "attention", h, kv, m.Layers, false)
		add("cross_v_proj", "attention", h, kv, m.Layers, false)
		add("cross_o_proj", "attention", q, h, m.Layers, false)
	}
	mlp := func(role string, inter, count int, expert bool) {
		switch {
		case m.MLP == MLPGated && m.FusedGateUp:
			add("gate_up_proj", role, h, 2*inter, count, expert)
		case m.MLP == MLPGated:
			add("gate_proj", role, h, inter, count, expert)
			add("up_proj", role, h, inter, count, expert)
		default:
			add("up_proj", role, h, inter, count, expert)
		}
		add("down_proj", role, inter, h, count, expert)
	}
	denseLayers := attnLayers
	if m.MoE() {
		denseLayers = m.DenseLayers
	}
	mlp("mlp", m.Intermediate, denseLayers, false)
	if m.MoE() {
		moe := m.Layers - m.DenseLayers
		add("router", "router", h, m.Experts, moe, false)
		mlp("expert", m.ExpertIntermediate, moe*m.Experts, true)
		mlp("shared-expert", cmp.Or(m.SharedExpertIntermediate, m.ExpertIntermediate), moe*m.SharedExperts, false)
	}
	return out
}

// MinBareParams is the smallest bare size BareModel builds exactly;
// smaller requests are raised to it (and the assumption says so).
const MinBareParams = 1_000_000

// bareAnchor is a published dense shape BareModel takes its width from.
type bareAnchor struct {
	params float64
	hidden int
}

// bareAnchors are (total params, hidden) of well-known dense models:
// GPT-2 small (124M, 768), Qwen2.5-0.5B (rounded to 1024), Llama 3.2 1B
// (2048) and 3B (3072), Llama 2 7B (4096) and 13B (5120), LLaMA 30B
// (6656), Llama 2 70B (8192), GPT-3 175B (12288), Llama 3.1 405B (16384),
// plus small widths for toy sizes.
var bareAnchors = []bareAnchor{
	{1e6, 128}, {20e6, 256}, {60e6, 512}, {124e6, 768}, {494e6, 1024}, {1.24e9, 2048}, {3.2e9, 3072},
	{6.7e9, 4096}, {13e9, 5120}, {32.5e9, 6656}, {69e9, 8192}, {175e9, 12288}, {406e9, 16384},
}

// BareModel is a representative Llama-style decoder of exactly params
// parameters, for a question that names only a size ("13B", "350M").
// The rule:
//   - hidden is the width of the known dense model nearest in log(params)
//     (bareAnchors: 124M→768, 1.24B→2048, 3.2B→3072, 6.7B→4096,
//     13B→5120, 32.5B→6656, 69B→8192, 175B→12288, 406B→16384);
//     heads = hidden/128 (head_dim 128); 8 KV heads (grouped-query
//     attention) at every size, as today's dense models have (Llama 3
//     from 1B to 405B, Qwen2.5, Mistral, Gemma 2), fewer only where there
//     are fewer heads (a bare "8b" was sized with a KV
//     head per head, 608 KiB of KV per token against Llama 3.1 8B's 128);
//   - SwiGLU FFN of width 3.5 × hidden (Llama 3, Llama 2 70B); vocab
//     32,000, untied embeddings, RMSNorm; a context of 131,072 tokens, as
//     today's models of every size reach (Llama 3.1, Qwen2.5), so a
//     long context asked of a bare size is sized, not refused;
//   - layers = as many whole blocks as fit beside the embeddings (a size
//     too small for that gets one block and a smaller vocabulary); the
//     remainder widens the FFN, then the vocabulary, and what is left
//     (under 2 × hidden) is kept in ExtraParams, so ParamCount is exactly
//     params.
//
// experts > 0 builds a mixture of experts the way "8x7B" is meant: the
// dense shape above for params (the size after the "x"), with its FFN
// replicated into experts experts (top-2 routing, as Mixtral) and a
// router. The total is then about params + (experts-1) × the FFN share
// (8x7B: 45.4B, where Mixtral, 7.24B at its base, has 46.7B); Assumption states
// the total and active counts.
func BareModel(params int64, experts int) Model {
	raised := params < MinBareParams
	if raised {
		params = MinBareParams
	}
	h := bareHidden(float64(params))
	heads := max(1, h/128)
	kv, inter := min(heads, 8), h*7/2
	m := Model{
		Family: "bare", Kind: KindDecoder, Hidden: h, Heads: heads, KVHeads: kv, HeadDim: h / heads,
		Intermediate: inter, MLP: MLPGated, Norm: NormRMS, NormsPerLayer: 2,
		MaxContext: 131072, Source: "derived from the requested size (BareModel)",
	}
	normOnly, _ := m.ParamCount() // no layers, no vocabulary: the final norm
	block := m.blockParams()
	embed := 2 * 32000 * int64(h)
	if params-normOnly < embed+block {
		// Too small for a 32k vocabulary beside one block.
		m.Layers = 1
		m.Vocab = int((params - normOnly - block) / (2 * int64(h)))
	} else {
		m.Vocab = 32000
		m.Layers = int((params - normOnly - embed) / block)
	}
	fixed, _ := m.ParamCount()
	rem := params - fixed
	per := 3 * int64(h) * int64(m.Layers)
	m.Intermediate += int(rem / per)
	rem %= per
	m.Vocab += int(rem / (2 * int64(h)))
	m.ExtraParams = rem % (2 * int64(h))
	m.ExtraParamsNote = "rounding remainder of the bare size"
	m.ID = "bare-" + strings.ToLower(bareName(params))
	m.Name = bareName(params) + " (bare size)"
	m.PublishedParams = params
	m.assumption = fmt.Sprintf("%s taken as a Llama-style dense model of exactly %d parameters: layers %d, hidden %d, FFN %d, heads %d (%d KV: grouped-query attention, as today's dense models), vocab %d",
		bareName(params), params, m.Layers, m.Hidden, m.Intermediate, m.Heads, m.KVHeads, m.Vocab)
	if raised {
		m.assumption += fmt.Sprintf(" (raised to the %d-parameter minimum)", MinBareParams)
	}
	if experts > 0 {
		m.Experts, m.ExpertsActive = experts, min(2, experts)
		m.ExpertIntermediate = m.Intermediate
		total, active := m.ParamCount()
		size := fmt.Sprintf("%dx%s", experts, bareName(params))
		m.ID = "bare-" + strings.ToLower(size)
		m.Name = size + " (bare size)"
		m.PublishedParams, m.PublishedActive = total, active
		m.assumption = fmt.Sprintf("%s taken as a mixture of %d experts on a %s Llama-style shape (layers %d, hidden %d, expert FFN %d), top-%d routing: %d parameters in all, %d active per token",
			size, experts, bareName(params), m.Layers, m.Hidden, m.ExpertIntermediate, m.ExpertsActive, total, active)
	}
	return m
}

// blockParams is one dense transformer block of m.
func (m Model) blockParams() int64 {
	return m.attentionParams() + int64(m.NormsPerLayer)*m.normParams(int64(m.Hidden)) + m.mlpParams(m.Intermediate)
}

// bareHidden is the width of the anchor nearest to p in log space.
func bareHidden(p float64) int {
	best := bareAnchors[0]
	for _, a := range bareAnchors[1:] {
		if math.Abs(math.Log(p/a.params)) < math.Abs(math.Log(p/best.params)) {
			best = a
		}
	}
	return best.hidden
}

// bareName writes a size the way people say it: 13B, 350M, 1.5B.
func bareName(p int64) string {
	switch {
	case p >= 1e12:
		return trimFloat(float64(p)/1e12) + "T"
	case p >= 1e9:
		return trimFloat(float64(p)/1e9) + "B"
	default:
		return trimFloat(float64(p)/1e6) + "M"
	}
}

func bareID(p int64) string { return "bare-" + strings.ToLower(bareName(p)) }

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
