package launch

import (
	"encoding/json"
	"fmt"

	"github.com/fitbot/fitbot/sizing"
)

// deepSpeedConfig is the part of DeepSpeed's config JSON
// (deepspeed.ai/docs/config-json) a plan sets. DeepSpeed checks that
// train_batch_size = train_micro_batch_size_per_gpu x
// gradient_accumulation_steps x world size.
type deepSpeedConfig struct {
	TrainBatchSize       int           `json:"train_batch_size"`
	MicroBatchPerGPU     int           `json:"train_micro_batch_size_per_gpu"`
	GradAccumSteps       int           `json:"gradient_accumulation_steps"`
	GradientClipping     float64       `json:"gradient_clipping"`
	BF16                 *enabled      `json:"bf16,omitempty"`
	FP16                 *fp16Settings `json:"fp16,omitempty"`
	ZeroOptimization     zeroSettings  `json:"zero_optimization"`
	ZeroAllowUntestedOpt *bool         `json:"zero_allow_untested_optimizer,omitempty"`
}

type enabled struct {
	Enabled bool `json:"enabled"`
}

type fp16Settings struct {
	Enabled   bool `json:"enabled"`
	LossScale int  `json:"loss_scale"` // 0: dynamic loss scaling
}

type zeroSettings struct {
	Stage               int              `json:"stage"`
	OffloadOptimizer    *offloadSettings `json:"offload_optimizer,omitempty"`
	OffloadParam        *offloadSettings `json:"offload_param,omitempty"`
	OverlapComm         bool             `json:"overlap_comm"`
	ContiguousGradients bool             `json:"contiguous_gradients"`
	GatherOnSave        *bool            `json:"stage3_gather_16bit_weights_on_model_save,omitempty"`
}

type offloadSettings struct {
	Device    string `json:"device"`
	NVMePath  string `json:"nvme_path,omitempty"`
	PinMemory bool   `json:"pin_memory"`
}

// nvmePath is where an NVMe-offload config points DeepSpeed; the notes
// say to change it to the machine's local NVMe mount.
const nvmePath = "/local_nvme"

func emitDeepSpeed(p Plan) (Config, error) {
	r := p.Request
	if !training(r) {
		try := KindVLLM
		if isGGUF(r.Quant) {
			try = KindLlamaCpp
		}
		return Config{}, &Unsupported{Kind: KindDeepSpeed, Reason: "DeepSpeed configs are for training and this answer serves the model", Try: try}
	}
	if hasModelParallel(r) {
		return Config{}, &Unsupported{Kind: KindDeepSpeed, Reason: "the answer splits the model by tensor, pipeline or context parallelism, which a DeepSpeed config does not express", Try: KindMegatron}
	}
	if r.Precision == sizing.PrecisionPureBF16 {
		return Config{}, &Unsupported{Kind: KindDeepSpeed, Reason: "the answer trains in pure bf16 and DeepSpeed keeps an fp32 master copy of the weights", Try: KindAccelerate}
	}
	if r.Offload != sizing.OffloadNone && r.Offload != "" && r.ZeROStage == 0 {
		return Config{}, &Unsupported{Kind: KindDeepSpeed, Reason: "offload needs a ZeRO stage"}
	}
	if r.Offload == sizing.OffloadNVMe && r.ZeROStage != 3 {
		// DeepSpeed's stage 1 and 2 optimizer (runtime/zero/stage_1_and_2.py)
		// treats any offload device as CPU: an "nvme" config there keeps the
		// optimizer state in host RAM the estimate did not count.
		return Config{}, &Unsupported{Kind: KindDeepSpeed, Reason: fmt.Sprintf(
			"DeepSpeed offloads to NVMe only at ZeRO stage 3 (ZeRO-Infinity); at stage %d it would keep the optimizer state in CPU memory instead, which this answer did not count: ask for zero 3 with offload nvme, or offload cpu", r.ZeROStage)}
	}
	c := deepSpeedConfig{
		TrainBatchSize:   globalBatch(r),
		MicroBatchPerGPU: max(r.MicroBatch, 1),
		GradAccumSteps:   gradAccum(r),
		GradientClipping: 1.0,
		ZeroOptimization: zeroSettings{Stage: r.ZeROStage, OverlapComm: r.GPUs > 1, ContiguousGradients: r.ZeROStage >= 2},
	}
	switch r.Precision {
	case sizing.PrecisionBF16:
		c.BF16 = &enabled{Enabled: true}
	case sizing.PrecisionFP16:
		c.FP16 = &fp16Settings{Enabled: true}
	}
	var notes []string
	if off := offloadTo(r.Offload); off != nil {
		c.ZeroOptimization.OffloadOptimizer = off
		if r.ZeROStage == 3 {
			param := *off
			c.ZeroOptimization.OffloadParam = &param
		}
		if r.Offload == sizing.OffloadNVMe {
			notes = append(notes, fmt.Sprintf("nvme_path is %s: point it at the machine's local NVMe drive", nvmePath))
		}
		if r.Optimizer != sizing.OptimizerAdamW {
			// DeepSpeed's CPU Adam runs the offloaded step; another optimizer
			// must be allowed explicitly.
			t := true
			c.ZeroAllowUntestedOpt = &t
			notes = append(notes, fmt.Sprintf("offload with %s: DeepSpeed's fast CPU optimizer is Adam/AdamW only", r.Optimizer))
		}
	}
	if r.ZeROStage == 3 {
		t := true
		c.ZeroOptimization.GatherOnSave = &t
	}
	notes = append(notes, trainingNotes(r, KindDeepSpeed)...)
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return Config{}, fmt.Errorf("deepspeed config: %w", err)
	}
	return Config{Kind: KindDeepSpeed, Filename: "ds_config.json", Text: string(data) + "\n", Notes: notes}, nil
}

func offloadTo(o sizing.Offload) *offloadSettings {
	switch o {
	case sizing.OffloadCPU:
		return &offloadSettings{Device: "cpu", PinMemory: true}
	case sizing.OffloadNVMe:
		return &offloadSettings{Device: "nvme", NVMePath: nvmePath, PinMemory: true}
	}
	return nil
}

// trainingNotes are the settings of a training plan that live in the
// training script rather than in the launcher's config. Under Accelerate's
// FSDP the config itself checkpoints activations, and the script must not
// do it again: the Hugging Face Trainer refuses both at once.
func trainingNotes(r sizing.Request, k Kind) []string {
	var n []string
	n = append(n, fmt.Sprintf("optimizer %s, sequence length %d: set them in the training script", r.Optimizer, r.SeqLen))
	switch {
	case r.GradCheckpointing && k == KindAccelerate:
		n = append(n, "the estimate assumes activation checkpointing: fsdp_activation_checkpointing does it, so leave gradient checkpointing off in the script (the Trainer refuses both at once)")
	case r.GradCheckpointing:
		n = append(n, "the estimate assumes gradient checkpointing: turn it on in the script (model.gradient_checkpointing_enable())")
	}
	switch r.Method {
	case sizing.MethodLoRA:
		n = append(n, fmt.Sprintf("LoRA rank %d on every linear layer of the blocks (PEFT target_modules=\"all-linear\")", r.LoRARank))
	case sizing.MethodQLoRA:
		n = append(n, fmt.Sprintf("QLoRA: 4-bit %s base (bitsandbytes), LoRA rank %d on every linear layer", r.Quant, r.LoRARank))
	}
	return n
}
