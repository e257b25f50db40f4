package sizing

// UNet denoisers (Stable Diffusion 1.x, SDXL) are walked level by level,
// as diffusers' UNet2DConditionModel runs them: conv_in at the latent's
// full size, then per level LayersPerBlock resnets, each followed by a
// Transformer2DModel of Transformers[level] blocks where the level has
// attention, and a stride-2 convolution down to the next level; the mid
// block (resnet, transformer, resnet) at the smallest level; then per
// level, back up, one more resnet than on the way down, each reading the
// previous output concatenated with a skip tensor from the way down, and
// a nearest-neighbour upsample with its convolution. A 1024px SDXL image
// is a 128×128 latent: 16,384 positions at level 0 (320 channels, no
// attention), 4,096 at level 1 (640, 2 transformer blocks per
// attention), 1,024 at level 2 (1,280, 10 blocks).
//
// Training saves, per latent position, about (at 16 bits, GroupNorm and
// LayerNorm outputs in fp32 under autocast, as torch.autocast runs them):
//   - a resnet from cin to c channels: GroupNorm's input, its fp32
//     output kept by SiLU, the fp16 copy the convolution reads, then the
//     same on c channels after conv1: 8·cin + 10·c bytes;
//   - a transformer block of width C: self-attention (LayerNorm input,
//     the projections' input, q, k, v, the attention output: 14·C),
//     cross-attention over the prompt (q side only: 8·C) and the GEGLU
//     feed-forward (its 8C-wide projection, the GELU of the gate, their
//     product: 36·C), 58·C bytes; attention runs in memory-efficient
//     kernels (SDPA or xformers), so no score matrix is saved;
//   - Transformer2DModel's GroupNorm, proj_in and proj_out: 6·C bytes;
//     a down- or upsampling convolution: its 16-bit input.
//
// With gradient checkpointing (unet.enable_gradient_checkpointing, and
// kohya's --gradient_checkpointing) each resnet and each transformer
// block keeps only its input, and one is rebuilt at a time in backward.

// UNetShape is a UNet2DConditionModel's layout, from its config.json.
type UNetShape struct {
	Channels        []int `json:"channels"`         // block_out_channels, one per level
	Transformers    []int `json:"transformers"`     // transformer blocks per attention at each level (transformer_layers_per_block; 0 for a DownBlock2D level)
	Heads           []int `json:"heads"`            // attention heads at each level
	MidTransformers int   `json:"mid_transformers"` // transformer blocks in the mid block
	LayersPerBlock  int   `json:"layers_per_block"` // resnets per level on the way down (one more on the way up)
	CrossDim        int   `json:"cross_dim"`        // cross_attention_dim: the prompt embeddings' width
}

// unetUnit is one module of the walk, at a level, with what it holds.
type unetUnit struct {
	level int
	in    float64 // channels of its input: what checkpointing keeps
	saved float64 // bytes per position it saves for backward at 16 bits
	ckpt  bool    // a checkpointed unit (a resnet or a transformer block)
	heads int     // attention heads of its self-attention; 0 for a module without
}

// unetResnet is a ResnetBlock2D from cin to c channels.
func unetResnet(level int, cin, c float64) unetUnit {
	return unetUnit{level: level, in: cin, saved: 8*cin + 10*c, ckpt: true}
}

// attention is a Transformer2DModel of n blocks of width c at the level,
// none when n is 0.
func (u *UNetShape) attention(level int, c float64, n int) []unetUnit {
	if n == 0 {
		return nil
	}
	out := []unetUnit{{level: level, in: c, saved: 6 * c}}
	for range n {
		out = append(out, unetUnit{level: level, in: c, saved: 58 * c, ckpt: true, heads: u.Heads[level]})
	}
	return out
}

// units walks the UNet from conv_in to conv_out.
func (u *UNetShape) units() []unetUnit {
	c0 := float64(u.Channels[0])
	out := []unetUnit{{level: 0, in: 4, saved: 2 * 4}} // conv_in over the 4 latent channels
	stack := []float64{c0}                             // skip tensors' channels, consumed at the level they are pushed for
	prev := c0
	last := len(u.Channels) - 1
	for i, ch := range u.Channels {
		c := float64(ch)
		for range u.LayersPerBlock {
			out = append(out, unetResnet(i, prev, c))
			prev = c
			out = append(out, u.attention(i, c, u.Transformers[i])...)
			stack = append(stack, c)
		}
		if i < last {
			out = append(out, unetUnit{level: i, in: c, saved: 2 * c}) // stride-2 convolution
			stack = append(stack, c)
		}
	}
	out = append(out, unetResnet(last, prev, prev))
	out = append(out, u.attention(last, prev, u.MidTransformers)...)
	out = append(out, unetResnet(last, prev, prev))
	for i := last; i >= 0; i-- {
		c := float64(u.Channels[i])
		for range u.LayersPerBlock + 1 {
			skip := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			out = append(out, unetResnet(i, prev+skip, c))
			prev = c
			out = append(out, u.attention(i, c, u.Transformers[i])...)
		}
		if i > 0 {
			out = append(out, unetUnit{level: i - 1, in: c, saved: 2 * c}) // upsample's convolution at the next level's size
		}
	}
	// norm_out (fp32), SiLU, conv_out.
	return append(out, unetUnit{level: 0, in: c0, saved: 2*c0 + 4*c0 + 4*c0 + 2*c0})
}

// blocks is how many resnets and transformer blocks the UNet runs: its
// layers, as a pipeline stage would split them.
func (u *UNetShape) blocks() int64 {
	var n int64
	for _, x := range u.units() {
		if x.ckpt {
			n++
		}
	}
	return n
}

// positions is the latent positions at a level for a latent of side.
func positions(side int64, level int) float64 {
	s := float64(side >> level)
	return s * s
}

// trainingActivations is what backward needs of one image whose latent
// has the side, at 16 bits: every unit's saved tensors, or with
// checkpointing every checkpointed unit's input, the rest as saved, and
// the largest checkpointed unit rebuilt.
func (u *UNetShape) trainingActivations(side int64, checkpointing bool) float64 {
	var total, rebuilt float64
	for _, x := range u.units() {
		n := positions(side, x.level)
		if !checkpointing || !x.ckpt {
			total += n * x.saved
			continue
		}
		total += n * 2 * x.in
		rebuilt = max(rebuilt, n*x.saved)
	}
	return total + rebuilt
}

// scoreCopies is how many heads×n² 16-bit score matrices of the largest
// self-attention a UNet's inference step holds at its peak. diffusers
// measured SDXL (fp16, SDPA, A100; huggingface/blog
// simple_sdxl_optimizations.md) at 15.40 GB for 4 images of 1024px with
// VAE slicing and 15.48 GB with the Tiny Autoencoder, where the weights
// are 7 GB and one image's fp32 decode about 5: the UNet's step over 8
// latents (classifier-free guidance) is about 8.4 GB, 1.05 GB per
// latent. Skip tensors and the widest feed-forward are under 0.15 GB; the
// rest is what the 64×64 level's attention (10 heads over 4,096
// positions, 0.34 GB per matrix) holds if its scores are materialised:
// about three such matrices (the scores, their softmax, its gradient-free
// copy back to 16 bits). The figure is held as measured; with a kernel
// that never materialises the scores the step is smaller.
const scoreCopies = 3

// inferenceStep is the UNet's working set for one latent of the side in
// one denoising step, at 16 bits: the skip tensors held from the way
// down plus the largest module's transient (half what training saves of
// it), and the scores of the largest self-attention (scoreCopies).
func (u *UNetShape) inferenceStep(side int64) float64 {
	var skips, transient, scores float64
	for _, x := range u.units() {
		n := positions(side, x.level)
		transient = max(transient, n*x.saved/2)
		if x.heads > 0 {
			scores = max(scores, scoreCopies*2*float64(x.heads)*n*n)
		}
	}
	// The skip tensors: conv_in's output, every down resnet's (or its
	// transformer's) output and every downsample's.
	for i, ch := range u.Channels {
		n := positions(side, i)
		k := float64(u.LayersPerBlock)
		if i == 0 {
			k++ // conv_in
		}
		if i > 0 {
			k++ // the downsample that entered the level
		}
		skips += 2 * k * float64(ch) * n
	}
	return skips + transient + scores
}

// loraPerRank is the LoRA parameters per unit of rank on diffusers'
// default UNet targets (to_q, to_k, to_v, to_out.0 of every attention):
// per transformer block of width C, self-attention's four C×C
// projections (8C per rank), cross-attention's q and out (4C) and its k
// and v from the prompt's width (2·(cross+C)).
func (u *UNetShape) loraPerRank() int64 {
	var n int64
	for _, x := range u.units() {
		if x.heads > 0 {
			c := int64(x.in)
			n += 14*c + 2*int64(u.CrossDim)
		}
	}
	return n
}
