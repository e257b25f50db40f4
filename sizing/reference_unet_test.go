package sizing

import (
	"errors"
	"strings"
	"testing"
)

// TestReferenceUNetFineTuning: fine-tuning a UNet (SD 1.5, SDXL) against
// the published fits and misfits of diffusers' and kohya's READMEs
// (testdata/training/SOURCES.md, "UNet fine-tuning"). Each row is a
// verdict on the card the source names; the published memory is a bound
// ("fits a 16 GB GPU", "AdamW 8bit doesn't seem to work" on 24 GB), so
// the check is the verdict, and the total stays under the bound where the
// source says it fits.
func TestReferenceUNetFineTuning(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		source string
		q      Query
		fits   bool
	}{
		// diffusers examples/dreambooth/README.md "Training on a 16GB GPU":
		// CompVis/stable-diffusion-v1-4 (SD 1.5's UNet), 512px, batch 1 with
		// prior preservation (instance and class images: 2 per step),
		// gradient checkpointing, 8-bit Adam, fp32 (no --mixed_precision).
		{"SD1 DreamBooth, 16 GB", Query{Model: "sd-1.5", Method: MethodFull, GPU: "t4", MicroBatch: 2, Resolution: 512,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit, Precision: PrecisionFP32}, true},
		// The same README, "Training on a 12GB GPU": + xformers, grads set
		// to none.
		{"SD1 DreamBooth, 12 GB", Query{Model: "sd-1.5", Method: MethodFull, GPU: "rtx-3060", MicroBatch: 2, Resolution: 512,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit, Precision: PrecisionFP32}, true},
		// diffusers examples/text_to_image/README.md "Hardware": SD 1.x
		// full fine-tune with gradient checkpointing and fp16 mixed
		// precision on a single 24 GB GPU, batch 1, AdamW.
		{"SD1 text-to-image full, 24 GB", Query{Model: "sd-1.5", Method: MethodFull, GPU: "rtx-4090", MicroBatch: 1, Resolution: 512,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW}, true},
		// diffusers docs/source/en/training/lora.md: the SD 1.5 LoRA run
		// (train_text_to_image_lora.py, 512px, batch 1, fp16, no
		// checkpointing) "takes ~5 hours on a 2080 Ti GPU with 11GB".
		{"SD1.5 LoRA, 2080 Ti 11 GB", Query{Model: "sd-1.5", Method: MethodLoRA, GPU: "rtx-2080-ti", MicroBatch: 1, Resolution: 512,
			GradCheckpointing: &off, LoRARank: 4}, true},
		// diffusers examples/dreambooth/README_sdxl.md "Dog toy example
		// with < 16GB VRAM": SDXL LoRA (rank 4) at 1024px, batch 1, xformers,
		// gradient checkpointing, 8-bit Adam, fp16.
		{"SDXL DreamBooth LoRA, < 16 GB", Query{Model: "sdxl", Method: MethodLoRA, GPU: "t4", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit, LoRARank: 4}, true},
		// The same README: its experiments without those flags ran on one
		// A100 40GB.
		{"SDXL DreamBooth LoRA, A100 40GB", Query{Model: "sdxl", Method: MethodLoRA, GPU: "a100-40", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &off, LoRARank: 4}, true},
		// kohya-ss/sd-scripts docs/train_SDXL-en.md: "The LoRA training can
		// be done with 8GB GPU memory (10GB recommended)": U-Net only,
		// gradient checkpointing, cached latents and text encoder outputs,
		// an 8-bit optimizer, dim 4 to 8.
		{"kohya SDXL LoRA, 10 GB", Query{Model: "sdxl", Method: MethodLoRA, GPU: "rtx-3080", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit, LoRARank: 8}, true},
		{"kohya SDXL LoRA, 8 GB", Query{Model: "sdxl", Method: MethodLoRA, GPU: "rtx-3070", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit, LoRARank: 4}, true},
		// The same page: "The fine-tuning can be done with 24GB GPU memory
		// with the batch size of 1": U-Net only, gradient checkpointing,
		// cached outputs, Adafactor; "AdamW 8bit doesn't seem to work".
		{"kohya SDXL full, Adafactor, 24 GB", Query{Model: "sdxl", Method: MethodFull, GPU: "rtx-4090", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &on, Optimizer: OptimizerAdafactor}, true},
		{"kohya SDXL full, AdamW 8-bit, 24 GB", Query{Model: "sdxl", Method: MethodFull, GPU: "rtx-4090", MicroBatch: 1, Resolution: 1024,
			GradCheckpointing: &on, Optimizer: OptimizerAdamW8bit}, false},
	} {
		a, err := (&Estimator{}).Answer(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.source, err)
		}
		t.Logf("%s: %s on %s (%s), fits %v", tc.source, gibString(a.PerGPU.TotalBytes), tc.q.GPU, gibString(a.VRAMBytes), a.Fits)
		if a.Fits != tc.fits {
			t.Errorf("%s: fits %v with %s on %s; published: fits %v", tc.source, a.Fits, gibString(a.PerGPU.TotalBytes), tc.q.GPU, tc.fits)
		}
	}
}

// TestUNetLoRAParameters: diffusers' default UNet LoRA (to_q, to_k, to_v,
// to_out.0) at rank 4 is 5.81M parameters on SDXL (a 23.2 MB fp32
// pytorch_lora_weights.safetensors) and 0.80M on SD 1.5 (3.2 MB): the
// walk's count, per transformer block 14·C + 2·cross_attention_dim per
// unit of rank.
func TestUNetLoRAParameters(t *testing.T) {
	for id, want := range map[string]int64{"sdxl": 5_806_080, "sd-1.5": 797_184} {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.diffusionLoRAPerRank() * 4; got != want {
			t.Errorf("%s LoRA at rank 4 = %d parameters, want %d", id, got, want)
		}
	}
}

// TestUNetActivations: the walk's activations follow the latent (4× at
// twice the side), checkpointing keeps a fraction of them, and fp32
// doubles them; SDXL at 1024px saves more than SD 1.5 at 512px (its
// 64×64 level carries 2 transformer blocks per attention, its 32×32
// level 10).
func TestUNetActivations(t *testing.T) {
	sd, _, _ := LookupModel("sd-1.5")
	xl, _, _ := LookupModel("sdxl")
	full, ckpt := xl.UNet.trainingActivations(128, false), xl.UNet.trainingActivations(128, true)
	if half := xl.UNet.trainingActivations(64, false); full/half < 3.9 || full/half > 4.1 {
		t.Errorf("SDXL 1024px/512px activations = %.2f, want 4", full/half)
	}
	if ckpt > full/5 {
		t.Errorf("SDXL with checkpointing keeps %.2f GB of %.2f", ckpt/gb, full/gb)
	}
	if small := sd.UNet.trainingActivations(64, false); small*4 > full {
		t.Errorf("SD 1.5 at 512px saves %.2f GB, SDXL at 1024px %.2f", small/gb, full/gb)
	}
	on := true
	ask := func(p Precision) int64 {
		a, err := (&Estimator{}).Answer(Query{Model: "sdxl", Method: MethodFull, GPU: "h100", GradCheckpointing: &on, Precision: p})
		if err != nil {
			t.Fatal(err)
		}
		return a.PerGPU.ActivationsBytes
	}
	if b16, b32 := ask(PrecisionBF16), ask(PrecisionFP32); b32 != 2*b16 {
		t.Errorf("fp32 activations %d, bf16 %d; want twice", b32, b16)
	}
}

// TestUNetFineTuningSaid: a UNet fine-tuning answer says what it assumed
// (text encoders frozen, latents cached, memory-efficient attention) and
// defaults to the model's native resolution; a resolution the UNet's
// levels cannot halve evenly is refused with a Try.
func TestUNetFineTuningSaid(t *testing.T) {
	a, err := (&Estimator{}).Answer(Query{Model: "sdxl", Method: MethodLoRA, GPU: "rtx-4090"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Request.Resolution != 1024 {
		t.Errorf("SDXL LoRA at %dpx, want its native 1024", a.Request.Resolution)
	}
	said := strings.Join(a.Assumptions, "\n")
	for _, w := range []string{"text encoders frozen", "latents 128×128", "memory-efficient kernels", "23.2M adapter parameters at rank 16"} {
		if !strings.Contains(said, w) {
			t.Errorf("assumptions do not say %q:\n%s", w, said)
		}
	}
	_, err = (&Estimator{}).Answer(Query{Model: "sd-1.5", Method: MethodLoRA, GPU: "rtx-4090", Resolution: 544})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Problem, "multiple of 64") || ie.Hint == "" {
		t.Errorf("SD 1.5 at 544px: %v, want a refusal naming the multiple of 64 with a Try", err)
	}
}
