package sizing

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The architecture families a request can name (request.architecture).
// A model is sized only by the rules of its own family; a family, or a
// model type within one, that fitbot cannot size is refused by name and
// never sized as a decoder from its parameter count.
const (
	ArchDecoder        = KindDecoder        // GPT-style causal LM (the default)
	ArchEncoder        = KindEncoder        // BERT-style: embeddings, rerankers
	ArchEncoderDecoder = KindEncoderDecoder // T5, NLLB, Whisper
	ArchDiffusion      = KindDiffusion      // UNet or DiT image models
	ArchSSM            = KindSSM            // Mamba: a fixed state per layer, no KV cache
	ArchHybrid         = KindHybrid         // attention layers beside SSM or linear-attention layers
	ArchVisionLanguage = "vision-language"  // a decoder with a vision tower
)

// Architecture is the family the model is sized as: its Kind, except that
// a decoder with a vision tower is vision-language and one whose layers
// mix attention with state-keeping mixers (Qwen3-Next's Gated DeltaNet)
// is hybrid.
func (m Model) Architecture() string {
	switch {
	case m.Kind == KindDecoder && m.LinearAttnLayers > 0 && m.LinearAttnLayers < m.Layers:
		return ArchHybrid
	case m.Kind == KindDecoder && m.ExtraParams > 0 && strings.Contains(strings.ToLower(m.ExtraParamsNote), "vision"):
		return ArchVisionLanguage
	case m.Kind == "":
		return ArchDecoder
	}
	return m.Kind
}

// sizedFamilies says, in words, what fitbot sizes: every refusal ends
// with it, so that the asker knows what to ask instead.
const sizedFamilies = "fitbot sizes decoder LLMs (Llama, Qwen, Mistral, Gemma, DeepSeek, gpt-oss and their config.json), vision-language decoders (LLaVA, Qwen2-VL, Gemma 3), " +
	"state-space models and hybrids (Mamba, Jamba, Qwen3-Next), encoders (BERT, XLM-RoBERTa: bge, e5, gte, nomic), encoder-decoders (T5, NLLB, Whisper) " +
	"and the catalog's diffusion pipelines by name (FLUX.1, SD3, SDXL, SD 1.5); see docs/families.md"

// familyInfo is what fitbot knows of a model type it does not read as a
// decoder: the family it belongs to and what it is, in words.
type familyInfo struct {
	arch string // one of the Arch constants, or "vision" / "audio" for towers fitbot has no family for
	what string // "Whisper, a speech encoder-decoder"
}

// nonDecoderTypes are the config.json model_types that are not decoder
// LLMs, by transformers' names. Those ModelFromConfig has a reader for
// are sized by their family; the others are refused by name.
var nonDecoderTypes = map[string]familyInfo{
	"whisper":          {ArchEncoderDecoder, "Whisper, a speech encoder-decoder"},
	"mamba":            {ArchSSM, "Mamba, a state-space model"},
	"mamba2":           {ArchSSM, "Mamba-2, a state-space model"},
	"falcon_mamba":     {ArchSSM, "Falcon Mamba, a state-space model"},
	"rwkv":             {ArchSSM, "RWKV, a recurrent model"},
	"xlstm":            {ArchSSM, "xLSTM, a recurrent model"},
	"jamba":            {ArchHybrid, "Jamba, an attention and Mamba hybrid"},
	"zamba":            {ArchHybrid, "Zamba, an attention and Mamba hybrid"},
	"zamba2":           {ArchHybrid, "Zamba2, an attention and Mamba-2 hybrid"},
	"bamba":            {ArchHybrid, "Bamba, an attention and Mamba-2 hybrid"},
	"falcon_h1":        {ArchHybrid, "Falcon-H1, an attention and Mamba-2 hybrid"},
	"nemotron_h":       {ArchHybrid, "Nemotron-H, an attention and Mamba-2 hybrid"},
	"granitemoehybrid": {ArchHybrid, "Granite 4.0, an attention and Mamba-2 hybrid"},
	"lfm2":             {ArchHybrid, "LFM2, a convolution and attention hybrid"},
	"recurrent_gemma":  {ArchHybrid, "RecurrentGemma, a recurrent and attention hybrid"},
	"roberta":          {ArchEncoder, "RoBERTa, a BERT-style encoder"},
	"xlm-roberta":      {ArchEncoder, "XLM-RoBERTa, a BERT-style encoder"},
	"distilbert":       {ArchEncoder, "DistilBERT, a BERT-style encoder"},
	"deberta":          {ArchEncoder, "DeBERTa, a BERT-style encoder"},
	"deberta-v2":       {ArchEncoder, "DeBERTa-v2, a BERT-style encoder"},
	"electra":          {ArchEncoder, "ELECTRA, a BERT-style encoder"},
	"modernbert":       {ArchEncoder, "ModernBERT, an encoder"},
	"mpnet":            {ArchEncoder, "MPNet, a BERT-style encoder"},
	"nomic_bert":       {ArchEncoder, "Nomic BERT, an embedding encoder"},
	"new":              {ArchEncoder, "GTE (NewModel), an embedding encoder"},
	"jina_bert":        {ArchEncoder, "Jina BERT, an embedding encoder"},
	"bart":             {ArchEncoderDecoder, "BART, an encoder-decoder"},
	"mbart":            {ArchEncoderDecoder, "mBART, an encoder-decoder"},
	"marian":           {ArchEncoderDecoder, "Marian, a translation encoder-decoder"},
	"pegasus":          {ArchEncoderDecoder, "Pegasus, an encoder-decoder"},
	"umt5":             {ArchEncoderDecoder, "UMT5, an encoder-decoder"},
	"longt5":           {ArchEncoderDecoder, "LongT5, an encoder-decoder"},
	"speech_to_text":   {ArchEncoderDecoder, "Speech2Text, a speech encoder-decoder"},
	"seamless_m4t":     {ArchEncoderDecoder, "SeamlessM4T, a speech and text encoder-decoder"},
	"seamless_m4t_v2":  {ArchEncoderDecoder, "SeamlessM4T v2, a speech and text encoder-decoder"},
	"wav2vec2":         {"audio", "wav2vec 2.0, a speech encoder"},
	"hubert":           {"audio", "HuBERT, a speech encoder"},
	"wavlm":            {"audio", "WavLM, a speech encoder"},
	"musicgen":         {"audio", "MusicGen, an audio generator"},
	"encodec":          {"audio", "EnCodec, an audio codec"},
	"bark":             {"audio", "Bark, a text-to-speech model"},
	"clip":             {"vision", "CLIP, an image and text encoder"},
	"siglip":           {"vision", "SigLIP, an image and text encoder"},
	"vit":              {"vision", "ViT, an image encoder"},
	"dinov2":           {"vision", "DINOv2, an image encoder"},
	"convnext":         {"vision", "ConvNeXt, an image classifier"},
	"swin":             {"vision", "Swin, an image encoder"},
	"sam":              {"vision", "SAM, an image segmenter"},
	"detr":             {"vision", "DETR, an object detector"},
}

// nonCausalHeads are the endings of transformers' architecture classes
// that are not a causal LM: a config whose model_type fitbot does not
// know is read as a decoder only when its architectures do not end so.
var nonCausalHeads = []string{
	"ForMaskedLM", "ForImageClassification", "ForCTC", "ForAudioClassification", "ForSpeechSeq2Seq",
	"ForObjectDetection", "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice",
	"ForSemanticSegmentation", "ForDepthEstimation", "ForMaskGeneration", "ForTextToSpeech",
	"ForTextToWaveform", "ForPreTraining", "ForSeq2SeqLM", "ForZeroShotImageClassification",
}

// diffusionWhat names a diffusers class in words.
func diffusionWhat(class string) string {
	switch {
	case strings.HasPrefix(class, "Flux"):
		return "FLUX.1, a diffusion transformer (DiT) image model"
	case strings.HasPrefix(class, "StableDiffusion3"), strings.HasPrefix(class, "SD3"):
		return "Stable Diffusion 3, a diffusion transformer (MMDiT) image model"
	case strings.HasPrefix(class, "StableDiffusionXL"):
		return "SDXL, a UNet diffusion image model"
	case strings.HasPrefix(class, "StableDiffusion"), strings.HasPrefix(class, "UNet2D"):
		return "Stable Diffusion, a UNet diffusion image model"
	case strings.HasPrefix(class, "AutoencoderKL"):
		return "a diffusion pipeline's VAE"
	}
	return "a diffusers pipeline"
}

// configFamily reads which family a config.json (or a diffusers
// model_index.json, or the Hub's short "config" of a repo) belongs to:
// diffusers' _class_name first, then model_type (of text_config where a
// multimodal wrapper nests one), then the architectures' class names.
// arch is "" for a decoder fitbot reads; what names the model in words.
func configFamily(raw rawConfig) (arch, what, typ string) {
	if class := diffusersClass(raw); class != "" {
		return ArchDiffusion, diffusionWhat(class), class
	}
	mt := raw.str("model_type")
	if info, ok := nonDecoderTypes[mt]; ok {
		return info.arch, info.what, mt
	}
	var archs []string
	if v, ok := raw["architectures"]; ok {
		_ = json.Unmarshal(v, &archs) // a malformed list is the reader's to refuse
	}
	if !hasReader(mt) {
		for _, a := range archs {
			for _, h := range nonCausalHeads {
				if strings.HasSuffix(a, h) {
					return "other", fmt.Sprintf("%s, which is not a causal language model", a), a
				}
			}
		}
	}
	return "", "", mt
}

// diffusersClass is the diffusers class a config names: its own
// _class_name (model_index.json, a component's config.json) or the Hub's
// {"diffusers": {"_class_name": ...}}.
func diffusersClass(raw rawConfig) string {
	if c := raw.str("_class_name"); c != "" {
		return c
	}
	if v, ok := raw["diffusers"]; ok {
		var d rawConfig
		if json.Unmarshal(v, &d) == nil && d != nil {
			return d.str("_class_name")
		}
	}
	return ""
}

// hasReader reports whether ModelFromConfig reads model type mt with
// rules of its own (any other is read as a Llama-style decoder, when its
// architectures say it is a causal LM).
func hasReader(mt string) bool {
	switch mt {
	case "gpt2", "gpt_neox", "bloom", "falcon", "RefinedWeb", "RefinedWebModel", "bert", "t5", "mt5", "m2m_100", "nllb":
		return true
	}
	return knownLlamaLike[mt] || familyReaders[mt]
}

// familyWord is a family as a refusal says it: "fitbot does not size
// <word> models".
func familyWord(arch string) string {
	switch arch {
	case "vision":
		return "image-encoder"
	case "audio":
		return "speech and audio"
	case "other":
		return "non-causal"
	}
	return arch
}

// familyRefusal is the error for a model of a family, or a model type,
// fitbot does not size: it names the model and what it is, and says what
// fitbot does size.
func familyRefusal(name, arch, what, typ string) *InputError {
	kind := familyWord(arch)
	who := name
	if who == "" {
		who = "this model"
	}
	hint := "fit llama-3.1-8b lora rtx-4090"
	if arch == ArchDiffusion {
		// A pipeline repo fitbot cannot read is sized by the catalog
		// model of its class, asked by name.
		hint = "fit " + diffusionCatalogID(typ) + " inference rtx-4090"
	}
	return &InputError{
		Problem: fmt.Sprintf("%s is %s (%s), and fitbot does not size %s models of this type yet; it is not sized as a decoder LLM from its parameter count either. %s",
			who, what, typ, kind, sizedFamilies),
		Hint: hint,
	}
}

// diffusionCatalogID is the catalog pipeline a diffusers class belongs to.
func diffusionCatalogID(class string) string {
	switch {
	case strings.HasPrefix(class, "Flux"):
		return "flux.1-dev"
	case strings.HasPrefix(class, "StableDiffusion3"), strings.HasPrefix(class, "SD3"):
		return "sd3-medium"
	case strings.HasPrefix(class, "StableDiffusionXL"):
		return "sdxl"
	}
	return "sd-1.5"
}

// familyReaders are the non-decoder model types ModelFromConfig reads
// with their family's rules.
var familyReaders = map[string]bool{}

// refuseFamily is the refusal of a config whose family, or model type,
// fitbot does not size; nil when it reads it. raw is the whole config,
// cfg the language model's (text_config where nested).
func refuseFamily(raw, cfg rawConfig, name string) error {
	for _, c := range []rawConfig{raw, cfg} {
		arch, what, typ := configFamily(c)
		if arch == "" || familyReaders[typ] {
			continue
		}
		return familyRefusal(name, arch, what, typ)
	}
	return nil
}

// addImages counts a vision-language request's images in its sequence:
// each becomes ImageTokens tokens that are cached and attended like text
// (the vision tower's own activations, one image at a time, are small
// beside them and not counted).
func (rs *resolved) addImages(q Query) error {
	r, m := &rs.req, rs.model
	if m.CrossAttnLayers > 0 {
		// The image is read by the cross-attention layers, not the
		// sequence: crossAttnAssumptions says how it is counted.
		r.Images = q.Images
		return nil
	}
	if m.Architecture() != ArchVisionLanguage || m.ImageTokens == 0 {
		what := "is not a vision-language model"
		if m.Architecture() == ArchVisionLanguage {
			what = "is a vision-language model whose tokens per image fitbot does not know"
		}
		return inputErr(fmt.Sprintf("fit %s %s ctx %d", m.ID, r.Method, r.SeqLen+1024),
			"%s %s; say the images as context instead (a 1024px image is about 1,000-1,400 tokens in most)", m.Name, what)
	}
	r.Images = q.Images
	extra := q.Images * m.ImageTokens
	if m.MaxContext > 0 && r.SeqLen+extra > m.MaxContext {
		return inputErr(fmt.Sprintf("fit %s %s 1 image", m.ID, r.Method),
			"%d image(s) of %d tokens and %d tokens of text are longer than %s's context of %d tokens", q.Images, m.ImageTokens, r.SeqLen, m.Name, m.MaxContext)
	}
	rs.assume("%d image(s) of %s tokens each (%s's processor at its default size) are counted in the sequence beside %s tokens of text: %s tokens in all, in the KV cache and the activations",
		q.Images, thousands(float64(m.ImageTokens)), m.Name, thousands(float64(r.SeqLen)), thousands(float64(r.SeqLen+extra)))
	r.SeqLen += extra
	return nil
}

// qwenVLImageTokens is Qwen2-VL's tokens for a 1024×1024 image: its
// processor's smart_resize rounds each side to 1,036 (a multiple of 28),
// 14px patches merged 2×2 give (1036/28)² = 1,369.
const qwenVLImageTokens = 1369

// imageTokensOf reads how many tokens one image becomes for a multimodal
// wrapper: LLaVA's (image_size/patch_size)² CLIP patches (the CLS token
// dropped), Gemma 3's mm_tokens_per_image, Qwen2-VL's tokens at 1024px;
// 0 for a wrapper fitbot does not know.
func imageTokensOf(raw rawConfig, top string) int {
	var vc rawConfig
	if v, ok := raw["vision_config"]; ok {
		_ = json.Unmarshal(v, &vc) // visionParams read it already
	}
	r := configReader{cfg: vc, used: map[string]bool{}}
	switch top {
	case "llava":
		img, _ := r.num(maxVisionDim, "image_size")
		patch, _ := r.num(maxVisionSmall, "patch_size")
		if patch > 0 {
			return (img / patch) * (img / patch)
		}
	case "gemma3":
		top := configReader{cfg: raw, used: map[string]bool{}}
		if n, ok := top.num(1<<16, "mm_tokens_per_image"); ok {
			return n
		}
		return 256
	case "qwen2_vl", "qwen2_5_vl":
		return qwenVLImageTokens
	}
	return 0
}

// pythonNonFinite replaces the Infinity, -Infinity and NaN that Python's
// json module writes (and JSON does not allow) with null, outside
// strings.
func pythonNonFinite(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, word := range []string{"-Infinity", "Infinity", "NaN"} {
			if strings.HasPrefix(string(data[i:min(len(data), i+len(word))]), word) {
				out = append(out, "null"...)
				i += len(word) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}

// crossAttnAssumptions says how a cross-attention vision model (Llama
// 3.2 Vision) is sized: its image outside the text sequence, the image's
// keys and values in the cross-attention layers per sequence, and in
// serving the max_num_seqs the engine is sized with.
func (rs *resolved) crossAttnAssumptions() {
	r, m := &rs.req, rs.model
	if m.CrossAttnLayers == 0 {
		return
	}
	kv := float64(m.crossAttnElems()) * kvElemBytes(r.KVPrecision)
	rs.assume("%s reads one image (up to 4 tiles, %s encoder states) in its %d cross-attention layers, not in the text sequence: their keys and values, %s per sequence, are counted whether or not a request sends an image; the other %d layers hold the text's KV cache",
		m.Name, Commas(int64(m.CrossAttnTokens)), m.CrossAttnLayers, gibString(int64(kv)), m.Layers-m.CrossAttnLayers)
	if r.Images > 1 {
		rs.assume("%d images asked: Llama 3.2 Vision attends to one image per prompt (transformers keeps the last; vLLM's limit is one), so one is counted", r.Images)
	}
	if r.Method == MethodInference {
		rs.assume("vLLM sized at --max-num-seqs %d, its recipe for Llama 3.2 Vision: its profiling pass runs the vision tower on one image per sequence (%s per image), and the default 256 fails at start-up even on an 80 GB card",
			crossAttnMaxSeqs, gibString(int64(rs.shape.imageProfileElems*2)))
	}
}
