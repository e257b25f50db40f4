package sizing

import (
	"encoding/json"
	"errors"
)

// visionParams counts the vision tower and projector of a multimodal
// config.json (outer, the top-level object) from its vision_config, for
// the wrappers whose towers fitbot knows: llava (CLIP), gemma3 (SigLIP),
// llama4, qwen2_vl, qwen2_5_vl and mistral3 (Pixtral). It returns the
// count and what it is, or 0 and why the tower is not counted.
// textHidden is the language model's width, which the projector maps
// into. A malformed vision_config is not an error: the tower is then
// named as not counted.
func visionParams(outer rawConfig, textHidden int) (n int64, what, why string) {
	top := outer.str("model_type")
	var vc rawConfig
	if raw, ok := outer["vision_config"]; !ok || json.Unmarshal(raw, &vc) != nil || vc == nil {
		return 0, "", "config.json has no vision_config to count it from"
	}
	r := configReader{cfg: vc, used: map[string]bool{}}
	th := int64(textHidden)
	switch top {
	case "llava":
		n, what = r.clipTower(), "the CLIP vision tower and projector"
		h := int64(r.need(maxVisionDim, "hidden_size"))
		n += h*th + th + th*th + th // linear_1, linear_2
	case "gemma3":
		n, what = r.siglipTower(), "the SigLIP vision tower and projector"
		h := int64(r.need(maxVisionDim, "hidden_size"))
		n += h*th + h // mm_input_projection, mm_soft_emb_norm
	case "llama4":
		n, what = r.llama4Tower(th), "the Llama 4 vision tower and projector"
	case "qwen2_vl":
		n, what = r.qwen2VLTower(), "the Qwen2-VL vision tower and merger"
	case "qwen2_5_vl":
		n, what = r.qwen25VLTower(), "the Qwen2.5-VL vision tower and merger"
	case "mistral3":
		n, what = r.pixtralTower(outer, th), "the Pixtral vision tower and projector"
	case "mllama":
		n, what = r.mllamaTower(outer, th), "the Llama 3.2 Vision tower (local and global layers over up to 4 tiles) and projector, with the image-token embeddings and the cross-attention layers' norms and gates"
	default:
		return 0, "", "fitbot does not know this wrapper's vision tower"
	}
	if r.err != nil {
		var ie *InputError
		if errors.As(r.err, &ie) {
			return 0, "", "vision_config: " + ie.Problem
		}
		return 0, "", r.err.Error()
	}
	return n, what, ""
}

// Limits on vision_config values, far above any real tower, that keep the
// arithmetic in int64.
const (
	maxVisionDim    = 1 << 16 // widths, image size
	maxVisionLayers = 1000
	maxVisionSmall  = 64 // patch, merge and temporal sizes, MLP ratio
)

// vitLayers counts n pre-norm ViT encoder layers of width h and MLP width
// i: q, k, v, o and a two-matrix MLP, all with biases, two LayerNorms.
func vitLayers(layers, h, i int64) int64 {
	return layers * (4*(h*h+h) + 2*h*i + i + h + 4*h)
}

// patches is the number of patches an image_size image makes.
func (r *configReader) patches() (patch, grid int64) {
	p := int64(r.need(maxVisionSmall, "patch_size"))
	img := int64(r.need(maxVisionDim, "image_size"))
	if p == 0 {
		return 1, 0
	}
	return p, (img / p) * (img / p)
}

func (r *configReader) channels() int64 {
	if c, ok := r.num(16, "num_channels"); ok && c > 0 {
		return int64(c)
	}
	return 3
}

// clipTower is CLIP's ViT: a bias-free patch convolution, a class token,
// learned positions, pre and post LayerNorms.
func (r *configReader) clipTower() int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	layers := int64(r.need(maxVisionLayers, "num_hidden_layers"))
	p, grid := r.patches()
	return r.channels()*p*p*h + h + (grid+1)*h + 2*h + vitLayers(layers, h, i) + 2*h
}

// siglipTower is SigLIP's ViT: a patch convolution with bias, learned
// positions, a post LayerNorm, no pooling head (Gemma 3 uses none).
func (r *configReader) siglipTower() int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	layers := int64(r.need(maxVisionLayers, "num_hidden_layers"))
	p, grid := r.patches()
	return r.channels()*p*p*h + h + grid*h + vitLayers(layers, h, i) + 2*h
}

// llama4Tower is Llama 4's ViT (an unfolded bias-free patch projection,
// a class token, learned positions, pre and post LayerNorms), its pixel
// shuffle MLP and the projector into the language model.
func (r *configReader) llama4Tower(textHidden int64) int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	layers := int64(r.need(maxVisionLayers, "num_hidden_layers"))
	p, grid := r.patches()
	in := int64(r.need(maxVisionDim, "projector_input_dim"))
	out := int64(r.need(maxVisionDim, "projector_output_dim"))
	vision := int64(r.need(maxVisionDim, "vision_output_dim"))
	tower := r.channels()*p*p*h + h + (grid+1)*h + 2*h + vitLayers(layers, h, i) + 2*h
	return tower + i*in + out*out + vision*textHidden
}

// qwen2VLTower is Qwen2-VL's ViT: a bias-free 3D patch convolution over
// temporal_patch_size frames, LayerNorm blocks with fused qkv, and the
// merger that folds spatial_merge_size² patches into one token.
func (r *configReader) qwen2VLTower() int64 {
	e := int64(r.need(maxVisionDim, "embed_dim"))
	depth := int64(r.need(maxVisionLayers, "depth"))
	ratio := int64(r.need(maxVisionSmall, "mlp_ratio"))
	out := int64(r.need(maxVisionDim, "hidden_size"))
	return vitLayers(depth, e, e*ratio) + r.qwenPatchesAndMerger(e, out, 2*e)
}

// qwen25VLTower is Qwen2.5-VL's ViT: Qwen2-VL's patch convolution and
// merger, with RMSNorm blocks and a gated MLP with biases.
func (r *configReader) qwen25VLTower() int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	depth := int64(r.need(maxVisionLayers, "depth"))
	out := int64(r.need(maxVisionDim, "out_hidden_size"))
	block := 2*h + 4*(h*h+h) + 3*h*i + 2*i + h
	return depth*block + r.qwenPatchesAndMerger(h, out, h)
}

// qwenPatchesAndMerger is what Qwen2-VL and Qwen2.5-VL share around their
// blocks: the bias-free 3D patch convolution over temporal_patch_size
// frames into width, and the merger (a norm of mergerNorm parameters, then
// two linear layers) that folds spatial_merge_size² patches into one token
// of the language model's width out.
func (r *configReader) qwenPatchesAndMerger(width, out, mergerNorm int64) int64 {
	p := int64(r.need(maxVisionSmall, "patch_size"))
	tp := int64(r.need(maxVisionSmall, "temporal_patch_size"))
	merge := int64(r.need(maxVisionSmall, "spatial_merge_size"))
	c, ok := r.num(16, "in_chans", "in_channels")
	if !ok || c == 0 {
		c = 3
	}
	ctx := width * merge * merge
	return int64(c)*tp*p*p*width + mergerNorm + ctx*ctx + ctx + ctx*out + out
}

// pixtralTower is Pixtral's ViT (a bias-free patch convolution, RMSNorm
// blocks with a gated MLP and no biases) and Mistral 3's projector: a
// norm, the patch merger folding spatial_merge_size² patches, and two
// linear layers into the language model.
func (r *configReader) pixtralTower(outer rawConfig, textHidden int64) int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	layers := int64(r.need(maxVisionLayers, "num_hidden_layers"))
	p := int64(r.need(maxVisionSmall, "patch_size"))
	top := configReader{cfg: outer, used: map[string]bool{}}
	merge, ok := top.num(maxVisionSmall, "spatial_merge_size")
	if !ok || merge == 0 {
		merge = 2
	}
	bias := top.flag("multimodal_projector_bias", false)
	if top.err != nil {
		r.fail(top.err.Error())
	}
	m := int64(merge)
	tower := r.channels()*p*p*h + h + layers*(4*h*h+3*h*i+2*h)
	projector := h + h*m*m*h + h*textHidden + textHidden*textHidden
	if bias {
		projector += 2 * textHidden
	}
	return tower + projector
}

// mllamaAspectRatios is MllamaVisionConfig's default
// supported_aspect_ratios count for 4 tiles (1×1 ... 4×1).
const mllamaAspectRatios = 8

// mllamaImage is what one image is to Llama 3.2 Vision's cross-attention
// layers: max_num_tiles × (patches + CLS) encoder states, of the tower's
// output width vision_output_dim (the final layer and the
// intermediate_layers_indices concatenated); zeros when vision_config
// does not say.
func (r *configReader) mllamaImage() (tokens, outDim int64) {
	_, grid := r.patches()
	tiles := int64(r.need(maxVisionSmall, "max_num_tiles"))
	return tiles * (grid + 1), int64(r.need(maxVisionDim, "vision_output_dim"))
}

// mllamaTower is MllamaVisionModel (transformers' modeling_mllama.py): a
// bias-free patch embedding, a class embedding, gated position
// embeddings (one per patch, and one per aspect ratio, tile and patch),
// gated pre- and post-tile embeddings (per aspect ratio and tile),
// pre/post LayerNorms, num_hidden_layers local and num_global_layers
// gated global encoder layers (bias-free attention, a two-matrix MLP with
// biases), and the projector from vision_output_dim into the language
// model. The language model's extras outside its Llama layers come with
// it: embed_tokens has 8 rows beyond vocab_size (the image token and
// reserved ones), and each cross-attention layer adds q and k RMSNorms of
// head_dim and two tanh gates.
func (r *configReader) mllamaTower(outer rawConfig, textHidden int64) int64 {
	h := int64(r.need(maxVisionDim, "hidden_size"))
	i := int64(r.need(maxVisionDim, "intermediate_size"))
	local := int64(r.need(maxVisionLayers, "num_hidden_layers"))
	global := int64(r.need(maxVisionLayers, "num_global_layers"))
	p, grid := r.patches()
	tokens, out := r.mllamaImage()
	tiles := tokens / (grid + 1)
	ratios := int64(mllamaAspectRatios)
	r.used["supported_aspect_ratios"] = true
	if raw, ok := r.cfg["supported_aspect_ratios"]; ok && string(raw) != "null" {
		var list [][]int
		if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
			r.fail("supported_aspect_ratios is not a list of [rows, columns] pairs")
			return 0
		}
		ratios = int64(len(list))
	}
	positions := grid + 1
	layer := 4*h*h + 2*h*i + i + h + 4*h // vitLayers without the attention biases
	tower := r.channels()*p*p*h + h +
		positions*h + (ratios+1)*tiles*positions*h + 1 + // gated position embeddings
		2*((ratios+1)*tiles*h+1) + // gated pre- and post-tile embeddings
		2*2*h + (local+global)*layer + 2*global
	projector := out*textHidden + textHidden
	var text rawConfig
	if raw, ok := outer["text_config"]; ok {
		_ = json.Unmarshal(raw, &text) // ModelFromConfig read it already
	}
	tr := configReader{cfg: text, used: map[string]bool{}}
	heads := int64(tr.need(maxConfigDim, "num_attention_heads"))
	cross := int64(len(tr.ints("cross_attention_layers")))
	if tr.err != nil || heads == 0 {
		r.fail("text_config: num_attention_heads and cross_attention_layers are needed for the cross-attention layers")
		return 0
	}
	extras := 8*textHidden + cross*(2*(textHidden/heads)+2)
	return tower + projector + extras
}

// mllamaImageOf reads mllamaImage from a config.json's vision_config.
func mllamaImageOf(raw rawConfig) (tokens, outDim int) {
	var vc rawConfig
	if v, ok := raw["vision_config"]; ok {
		_ = json.Unmarshal(v, &vc) // visionParams read it already
	}
	r := configReader{cfg: vc, used: map[string]bool{}}
	t, o := r.mllamaImage()
	return int(t), int(o)
}
