package sizing

import (
	"fmt"
	"strings"
)

// Diffusion image models are pipelines of components, each loaded at its
// own precision: text encoders (CLIP, OpenCLIP, T5-XXL), a denoiser (a
// UNet or a diffusion transformer, DiT) run once per step, and a VAE that
// decodes the latents into pixels. The resolution and the batch decide
// the activations: the VAE works at 1/8 of the image's side, a DiT then
// patches 2×2 latents into one token, so a 1024px image is 4,096 image
// tokens beside the prompt's text tokens.
//
// Inference (diffusers' DiffusionPipeline): without offload every
// component stays on the GPU; with model CPU offload
// (enable_model_cpu_offload) the components take turns, so the peak is
// the largest component with its own working set. A quantisation asked
// for (fp8, nf4, int8) applies to the denoiser and to a T5-XXL text
// encoder, as diffusers' PipelineQuantizationConfig examples quantise
// "transformer" and "text_encoder_2"; CLIP encoders and the VAE stay
// 16-bit.
//
// Fine-tuning (diffusers' train_dreambooth[_lora]_* scripts): the prompt
// embeddings and the image latents are computed once and the text
// encoders and the VAE are freed (--cache_latents; the scripts always
// precompute the embeddings when the text encoders are not trained), so
// the GPU holds the denoiser, its trainable state and its activations.
// A DiT's activations are its blocks over image and text tokens; a
// UNet's are walked level by level (unet.go), so fine-tuning is sized
// for a UNet whose layout the catalog holds (SD 1.5, SDXL).

// Component roles.
const (
	RoleDenoiser    = "denoiser"
	RoleTextEncoder = "text-encoder"
	RoleVAE         = "vae"
)

// Denoiser kinds.
const (
	DenoiserDiT  = "dit"
	DenoiserUNet = "unet"
)

// Component is one model of a diffusion pipeline, as model_index.json
// names it, with its exact parameter count.
type Component struct {
	Name   string `json:"name"` // "transformer", "unet", "text_encoder", "text_encoder_2", "vae"
	Role   string `json:"role"` // RoleDenoiser, RoleTextEncoder or RoleVAE
	Params int64  `json:"params"`
}

// latentScale is the VAE's downsampling: 8 pixels per latent on a side.
const latentScale = 8

// defaultResolution is the side a diffusion question is sized at when it
// names none: the model's native one.
func (m Model) defaultResolution() int {
	if m.NativeResolution > 0 {
		return m.NativeResolution
	}
	return 1024
}

// componentsWith returns the components with the role, in order.
func (m Model) componentsWith(role string) []Component {
	var out []Component
	for _, c := range m.Components {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// diffusionShape is what the memory model needs of a pipeline.
type diffusionShape struct {
	denoiser   int64 // parameters
	kind       string
	hidden     int64 // DiT width (UNet: 0)
	blocks     int64 // DiT blocks
	textTokens int64 // prompt tokens the DiT attends with the image (T5 max length)
	cfg        bool  // classifier-free guidance runs the denoiser on two batches
	encoders   []int64
	bigEncoder int64 // index of the T5-XXL encoder in encoders, -1 when none
	vae        int64
	loraRank   int64 // LoRA parameters per unit of rank on the denoiser
	vaeFP32    bool  // the VAE decodes in fp32 (Model.VAEUpcast)
	unet       *UNetShape
}

func diffusionShapeOf(m Model) *diffusionShape {
	d := &diffusionShape{kind: m.Denoiser, hidden: int64(m.Hidden), blocks: int64(m.Layers),
		textTokens: int64(m.TextTokens), cfg: m.CFG, bigEncoder: -1, loraRank: m.diffusionLoRAPerRank(), vaeFP32: m.VAEUpcast, unet: m.UNet}
	for _, c := range m.Components {
		switch c.Role {
		case RoleDenoiser:
			d.denoiser += c.Params
		case RoleTextEncoder:
			if c.Params > 1e9 {
				d.bigEncoder = int64(len(d.encoders))
			}
			d.encoders = append(d.encoders, c.Params)
		case RoleVAE:
			d.vae += c.Params
		}
	}
	return d
}

// imageTokens is the DiT's tokens for one image of side res pixels.
func (d *diffusionShape) imageTokens(res int64) int64 {
	side := res / latentScale / 2 // 2×2 latent patches
	return side * side
}

// denoiserStepBytes is the working set of one denoising step at 16 bit:
// for a DiT, one block's tensors over the image and text tokens (the
// normed input, q, k, v, attention output, a 4×-wide MLP, the modulated
// residuals: about 16 hidden-wide values per token; attention in SDPA's
// memory-efficient kernels, so no score matrix is kept); for a UNet with
// its layout, the walk's step (UNetShape.inferenceStep: skip tensors, the
// widest module and the measured attention scores), otherwise its
// 320-channel level at the latent's full size, about 8 such tensors.
func (d *diffusionShape) denoiserStepBytes(res, batch int64) float64 {
	if d.cfg {
		batch *= 2
	}
	if d.kind == DenoiserDiT {
		tokens := d.imageTokens(res) + d.textTokens
		return 2 * 16 * float64(tokens*d.hidden*batch)
	}
	side := res / latentScale
	if d.unet != nil {
		return d.unet.inferenceStep(side) * float64(batch)
	}
	return 2 * 8 * 320 * float64(side*side*batch)
}

// vaeDecodeChannels is how many channels' worth of values the VAE
// decoder holds per full-resolution pixel at its peak. The Stable
// Diffusion VAE (block_out_channels 128, 256, 512, 512; SDXL, SD 1.5, SD3
// and FLUX.1 share it) reaches full resolution by upsampling its
// 256-channel block: the nearest-neighbour copy and its convolution's
// output, then the next resnet's input (kept for its shortcut) and its
// normalised activations, four 256-channel tensors at once. With fp32
// decoding this puts SDXL's 4 images of 1024px at 17.5 GB with model
// offload, where diffusers measured 20.21 GB ("Exploring simple
// optimizations for SDXL", A100 40GB).
const vaeDecodeChannels = 4 * 256

// vaeDecodeBytes is the VAE decoder's peak for batch images of side res,
// in fp32 when the pipeline upcasts the VAE, 16-bit otherwise (the
// pipeline decodes the batch at once unless VAE slicing is on).
func (d *diffusionShape) vaeDecodeBytes(res, batch int64) float64 {
	return d.vaeElemBytes() * vaeDecodeChannels * float64(res*res*batch)
}

// vaeElemBytes is the bytes per VAE weight and activation.
func (d *diffusionShape) vaeElemBytes() float64 {
	if d.vaeFP32 {
		return 4
	}
	return 2
}

// diffusionWeightBytes is one component's weights: quant (or the
// precision) for the denoiser and a T5-XXL encoder, 16-bit for the rest.
func diffusionWeightBytes(params int64, quantised bool, q Quant, p Precision) float64 {
	if !quantised {
		q = QuantNone
		if p != PrecisionFP32 {
			p = PrecisionBF16
		}
	}
	return float64(params) * weightElemBytes(q, p, 3072, true, false, false)
}

// diffusionInferenceMemory is the per-GPU memory of generating Batch
// images of Resolution pixels on one GPU.
func diffusionInferenceMemory(r *Request, d *diffusionShape) Memory {
	res, batch := int64(r.Resolution), int64(max(r.MicroBatch, 1))
	type part struct{ weights, work float64 }
	parts := []part{{diffusionWeightBytes(d.denoiser, true, r.Quant, r.Precision), d.denoiserStepBytes(res, batch)}}
	for i, n := range d.encoders {
		// A text encoder's forward over 512 prompt tokens is small.
		parts = append(parts, part{diffusionWeightBytes(n, int64(i) == d.bigEncoder, r.Quant, r.Precision), 0})
	}
	vae := diffusionWeightBytes(d.vae, false, r.Quant, r.Precision)
	if d.vaeFP32 {
		vae = 4 * float64(d.vae) // upcast before decoding, in place
	}
	decoded := batch
	if r.VAESlicing {
		decoded = 1
	}
	parts = append(parts, part{vae, d.vaeDecodeBytes(res, decoded)})
	var weights, work float64
	if r.Offload == OffloadCPU {
		// Model CPU offload: one component on the GPU at a time.
		var peak float64
		for _, p := range parts {
			if p.weights+p.work > peak {
				peak, weights, work = p.weights+p.work, p.weights, p.work
			}
		}
	} else {
		for _, p := range parts {
			weights += p.weights
			work = max(work, p.work)
		}
	}
	m := Memory{WeightsBytes: ceilBytes(weights), ActivationsBytes: ceilBytes(work), OverheadBytes: overheadBytes(r.GPUs)}
	m.TotalBytes = m.WeightsBytes + m.ActivationsBytes + m.OverheadBytes
	return m
}

// diffusionTrainingMemory is the per-GPU memory of fine-tuning a
// denoiser: its frozen weights (LoRA, QLoRA) or its full training state,
// the trainable state in fitbot's usual convention, and the activations
// of Batch images at Resolution: for a DiT every block's tensors, or with
// gradient checkpointing each block's input plus one block rebuilt; for a
// UNet the walk's (UNetShape.trainingActivations).
func diffusionTrainingMemory(r *Request, d *diffusionShape) Memory {
	wB, gB, oB := trainingStateBytes(r.Optimizer, r.Precision)
	trainable := float64(d.denoiser)
	var base float64
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		trainable = float64(d.loraRank * int64(r.LoRARank))
		base = diffusionWeightBytes(d.denoiser, true, r.Quant, r.Precision)
	}
	n := float64(max(r.GPUs, 1))
	weights, grads, opt := base+wB*trainable, gB*trainable, oB*trainable
	if r.ZeROStage >= 1 {
		opt /= n
	}
	if r.ZeROStage >= 2 {
		grads /= n
	}
	if r.ZeROStage >= 3 {
		weights /= n
	}
	res, batch := int64(r.Resolution), int64(max(r.MicroBatch, 1))
	tokens := float64((d.imageTokens(res) + d.textTokens) * batch)
	p := activationElemBytes(r.Precision)
	block := p * 16 * float64(d.hidden) // one block's saved tensors per token, as denoiserStepBytes counts them
	acts := tokens * block * float64(d.blocks)
	if r.GradCheckpointing {
		acts = tokens * (p*float64(d.hidden)*float64(d.blocks) + block)
	}
	if d.unet != nil {
		acts = p / 2 * d.unet.trainingActivations(res/latentScale, r.GradCheckpointing) * float64(batch)
	}
	m := Memory{
		WeightsBytes: ceilBytes(weights), GradientsBytes: ceilBytes(grads), OptimizerBytes: ceilBytes(opt),
		ActivationsBytes: ceilBytes(acts), OverheadBytes: overheadBytes(r.GPUs),
	}
	m.TotalBytes = m.WeightsBytes + m.GradientsBytes + m.OptimizerBytes + m.ActivationsBytes + m.OverheadBytes
	return m
}

// diffusionLoRAPerRank is the denoiser's LoRA parameters per unit of
// rank: the catalog's figure, or a UNet's from its layout.
func (m Model) diffusionLoRAPerRank() int64 {
	if m.LoRAPerRank == 0 && m.UNet != nil {
		return m.UNet.loraPerRank()
	}
	return m.LoRAPerRank
}

// diffusionParamCount is the pipeline's total: every component.
func (m Model) diffusionParamCount() int64 {
	var n int64
	for _, c := range m.Components {
		n += c.Params
	}
	return n
}

// diffusionAssumptions say how a diffusion answer was sized.
func (rs *resolved) diffusionAssumptions(q Query) error {
	r, m := &rs.req, rs.model
	if m.Denoiser == DenoiserUNet && m.UNet == nil && r.Method != MethodInference {
		// No Try: its inference is another question, and so is another
		// pipeline's fine-tuning.
		return inputErr("", "%s is a UNet diffusion model whose layout fitbot does not hold; it sizes its inference but not its fine-tuning (%s): "+
			"the UNets sized for fine-tuning are sd-1.5 and sdxl", m.Name, r.Method)
	}
	var names []string
	for _, c := range m.Components {
		names = append(names, fmt.Sprintf("%s %s", c.Name, humanCount(c.Params)))
	}
	rs.assume("%s is a diffusion pipeline: %s", m.Name, strings.Join(names, ", "))
	r.Resolution = q.Resolution
	switch {
	case r.Resolution > 0:
	case r.Method != MethodInference && m.Denoiser == DenoiserDiT:
		r.Resolution = 512
		rs.assume("512px training images (the --resolution default of diffusers' FLUX and SD3 DreamBooth scripts)")
	default:
		r.Resolution = m.defaultResolution()
		rs.assume("%dpx images (the model's native size)", r.Resolution)
	}
	multiple, why := 2*latentScale, "the latent patch size of a diffusion model"
	if m.UNet != nil {
		// Each level of a UNet halves the latent.
		multiple, why = max(multiple, latentScale<<(len(m.UNet.Channels)-1)), "what the UNet's levels halve evenly"
	}
	if r.Resolution%multiple != 0 {
		return inputErr(fmt.Sprintf("fit %s %s %dpx", m.ID, r.Method, m.defaultResolution()), "%dpx is not a multiple of %d, %s", r.Resolution, multiple, why)
	}
	side := r.Resolution / latentScale
	r.SeqLen = side * side // latents per image: what the denoiser reads
	if m.Denoiser == DenoiserDiT {
		r.SeqLen = (side/2)*(side/2) + m.TextTokens
	}
	if r.Method == MethodInference {
		how := "every component stays on the GPU"
		if r.Offload == OffloadCPU {
			how = "model CPU offload: one component on the GPU at a time (enable_model_cpu_offload)"
		}
		vae := "the VAE stays 16-bit"
		if m.VAEUpcast {
			vae = "the VAE is upcast to fp32 to decode (its config's force_upcast), offload or not"
		}
		decode := "the VAE decodes the whole batch at once (offload does not lower that peak; VAE slicing does)"
		if q.VAESlicing || r.MicroBatch <= 1 {
			decode = "the VAE decodes one image at a time"
		}
		rs.assume("%d image(s) of %dpx at once (latents %d×%d); %s; quantisation applies to the denoiser and a T5-XXL text encoder, CLIP stays 16-bit, %s; %s: its peak is four 256-channel tensors at full resolution per image",
			max(r.MicroBatch, 1), r.Resolution, side, side, how, vae, decode)
		if m.CFG {
			rs.assume("classifier-free guidance runs the denoiser on 2× the batch")
		}
		return nil
	}
	if m.UNet != nil {
		rs.assume("fine-tuning the unet only, text encoders frozen: prompt embeddings and image latents are computed once and the text encoders and VAE freed (diffusers' scripts, --cache_latents; kohya's --cache_text_encoder_outputs); latents %d×%d per image at %dpx; attention in memory-efficient kernels (SDPA or xformers), no score matrix saved",
			side, side, r.Resolution)
		if r.GradCheckpointing {
			rs.assume("gradient checkpointing keeps each resnet's and each transformer block's input and rebuilds one at a time (unet.enable_gradient_checkpointing)")
		}
	} else {
		rs.assume("fine-tuning the %s only: prompt embeddings and image latents are computed once and the text encoders and VAE freed (diffusers' DreamBooth scripts, --cache_latents); %d image token(s) + %d text tokens per image at %dpx",
			m.componentsWith(RoleDenoiser)[0].Name, (side/2)*(side/2), m.TextTokens, r.Resolution)
	}
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		rs.assume("LoRA on the attention projections (to_q, to_k, to_v, to_out.0), diffusers' default targets: %s adapter parameters at rank %d",
			humanCount(m.diffusionLoRAPerRank()*int64(r.LoRARank)), r.LoRARank)
	}
	return nil
}

// diffusionMemory is the per-GPU memory of a diffusion request.
func diffusionMemory(r *Request, d *diffusionShape) Memory {
	if r.Method == MethodInference {
		return diffusionInferenceMemory(r, d)
	}
	return diffusionTrainingMemory(r, d)
}

// perHour is the price of gpus GPUs for an hour; nil without a price.
func (p *Price) perHour(gpus int) *float64 {
	if p == nil {
		return nil
	}
	v := p.USDPerGPUHour * float64(max(gpus, 1))
	return &v
}

// diffusionTry is one change to a diffusion question that does not fit,
// and what it is in words.
type diffusionTry struct {
	change func(*Query)
	what   string
}

// maxDiffusionAlternatives is how many fitting ways a diffusion answer
// that does not fit lists.
const maxDiffusionAlternatives = 3

// diffusionAlternatives are the ways on the asked card(s) that fit a
// diffusion question that does not, in the order people reach for them
// (FLUX.1 dev on a 3090 runs with an fp8 transformer;
// FLUX LoRA on a 4090 trains on an fp8 base): for inference an fp8
// or nf4 denoiser and T5-XXL, then model CPU offload; for LoRA an fp8
// base, with gradient checkpointing, then QLoRA; for full fine-tuning
// LoRA, then QLoRA. Other cards are not searched. q is the question as
// asked, asked its resolution.
func (e *Estimator) diffusionAlternatives(q Query, asked *resolved) []Alternative {
	r := &asked.req
	if q.GPU == "" {
		q.GPU, q.GPUs = r.GPU, r.GPUs
	}
	on := true
	fp8 := diffusionTry{func(q *Query) { q.Quant = QuantFP8 }, "fp8 frozen base (the denoiser's weights)"}
	weights := "denoiser weights"
	if asked.shape.diffusion.bigEncoder >= 0 {
		weights = "denoiser and T5-XXL weights"
	}
	if r.Method == MethodInference {
		fp8.what = "fp8 " + weights
	}
	ckpt := diffusionTry{func(q *Query) { q.GradCheckpointing = &on }, "gradient checkpointing"}
	slicing := diffusionTry{func(q *Query) { q.VAESlicing = true }, "VAE slicing (enable_vae_slicing: one image decoded at a time)"}
	qlora := diffusionTry{func(q *Query) { q.Method, q.Quant = MethodQLoRA, "" }, "QLoRA (nf4 base, adapters only, gradient checkpointing)"}
	var tries [][]diffusionTry
	switch {
	case r.Method == MethodInference && r.Quant == QuantNone:
		nf4 := diffusionTry{func(q *Query) { q.Quant = QuantNF4 }, "nf4 " + weights + " (bitsandbytes)"}
		offload := diffusionTry{func(q *Query) { q.Offload = OffloadCPU }, "model CPU offload (one component on the GPU at a time)"}
		tries = [][]diffusionTry{{fp8}, {nf4}, {offload}, {fp8, offload}}
		if r.MicroBatch > 1 && !r.VAESlicing {
			// Offload cannot lower the VAE's decode of the whole batch;
			// slicing it can.
			tries = append(tries, []diffusionTry{slicing}, []diffusionTry{fp8, slicing}, []diffusionTry{offload, slicing})
		}
	case r.Method == MethodInference && r.Offload != OffloadCPU:
		tries = [][]diffusionTry{{{func(q *Query) { q.Offload = OffloadCPU }, "model CPU offload (one component on the GPU at a time)"}}}
		if r.MicroBatch > 1 && !r.VAESlicing {
			tries = append(tries, []diffusionTry{slicing})
		}
	case r.Method == MethodInference && r.MicroBatch > 1 && !r.VAESlicing:
		tries = [][]diffusionTry{{slicing}}
	case r.Method == MethodLoRA && r.Quant == QuantNone:
		tries = [][]diffusionTry{{fp8}, {fp8, ckpt}, {qlora}}
	case r.Method == MethodFull:
		rank := q.LoRARank
		if rank == 0 {
			rank = defaultLoRARank
		}
		lora := diffusionTry{func(q *Query) { q.Method = MethodLoRA }, fmt.Sprintf("LoRA rank %d (frozen 16-bit base)", rank)}
		tries = [][]diffusionTry{{lora}, {lora, ckpt}, {lora, fp8, ckpt}, {qlora}}
	}
	var out []Alternative
	for _, t := range tries {
		q2 := q
		var what []string
		for _, c := range t {
			c.change(&q2)
			what = append(what, c.what)
		}
		rs, err := resolve(q2)
		if err != nil {
			continue
		}
		mem := rs.memory(&rs.req)
		vram := rs.gpu.MemoryBytes
		if mem.TotalBytes > vram {
			continue
		}
		req := rs.req
		where := "on the same card"
		if req.GPUs > 1 {
			where = fmt.Sprintf("on the same %d× %s", req.GPUs, rs.gpu.Name)
		}
		a := Alternative{Method: req.Method, Optimizer: req.Optimizer, GPU: req.GPU, GPUs: req.GPUs, ZeROStage: req.ZeROStage, Offload: req.Offload,
			Fits: true, TotalBytes: mem.TotalBytes, Headroom: headroom(mem.TotalBytes, vram), Request: req,
			Why: fmt.Sprintf("%s %s: %s per GPU", strings.Join(what, " + "), where, gibString(mem.TotalBytes))}
		if a.Headroom == HeadroomTight {
			a.Why += " (tight: under 20% headroom)"
		}
		a.USDPerHour = e.price(req.GPU).perHour(req.GPUs)
		out = append(out, a)
		if len(out) == maxDiffusionAlternatives {
			break
		}
	}
	return out
}
