package launch

import (
	"fmt"

	"github.com/fitbot/fitbot/sizing"
)

// accelerateConfig is the Accelerate config file (`accelerate launch
// --config_file`) of an FSDP run, in the keys `accelerate config` writes.
type accelerateConfig struct {
	ComputeEnvironment string     `yaml:"compute_environment"`
	DistributedType    string     `yaml:"distributed_type"`
	MixedPrecision     string     `yaml:"mixed_precision"`
	NumMachines        int        `yaml:"num_machines"`
	NumProcesses       int        `yaml:"num_processes"`
	MachineRank        int        `yaml:"machine_rank"`
	MainFunction       string     `yaml:"main_training_function"`
	RdzvBackend        string     `yaml:"rdzv_backend"`
	SameNetwork        bool       `yaml:"same_network"`
	UseCPU             bool       `yaml:"use_cpu"`
	FSDP               fsdpConfig `yaml:"fsdp_config"`
}

// fsdpConfig is fsdp_config in FSDP2 (fsdp_version 2): resharding after
// the forward pass replaces FSDP1's sharding strategy, and the FSDP1-only
// keys (backward prefetch, use_orig_params, sync_module_states) are not
// written, as Accelerate's FullyShardedDataParallelPlugin drops them with a
// warning under FSDP2.
type fsdpConfig struct {
	Version                 int    `yaml:"fsdp_version"`
	AutoWrapPolicy          string `yaml:"fsdp_auto_wrap_policy"`
	CPURAMEfficientLoading  bool   `yaml:"fsdp_cpu_ram_efficient_loading"`
	OffloadParams           bool   `yaml:"fsdp_offload_params"`
	ReshardAfterForward     bool   `yaml:"fsdp_reshard_after_forward"`
	StateDictType           string `yaml:"fsdp_state_dict_type"`
	ActivationCheckpointing bool   `yaml:"fsdp_activation_checkpointing"`
}

// fsdpReshard is FSDP2's reshard_after_forward for a ZeRO stage: stage 3
// frees the gathered weights after each block's forward (FSDP1's
// FULL_SHARD), stage 2 keeps them until the backward (SHARD_GRAD_OP).
// Stages 0 and 1 have no FSDP counterpart.
func fsdpReshard(stage int) (reshard, ok bool) {
	switch stage {
	case 3:
		return true, true
	case 2:
		return false, true
	}
	return false, false
}

func emitAccelerate(p Plan) (Config, error) {
	r := p.Request
	if !training(r) {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: "Accelerate/FSDP configs are for training and this answer serves the model", Try: DefaultKind(r)}
	}
	if hasModelParallel(r) {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: "the answer splits the model by tensor, pipeline or context parallelism, which an Accelerate/FSDP config does not express", Try: KindMegatron}
	}
	reshard, ok := fsdpReshard(r.ZeROStage)
	if !ok {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: fmt.Sprintf("FSDP shards at ZeRO stage 2 or 3 and this answer uses stage %d", r.ZeROStage), Try: KindDeepSpeed}
	}
	if r.Offload == sizing.OffloadNVMe {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: "FSDP offloads to CPU memory, not NVMe", Try: KindDeepSpeed}
	}
	if r.Offload == sizing.OffloadCPU && r.ZeROStage != 3 {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: "FSDP offloads parameters only with full sharding (stage 3)", Try: KindDeepSpeed}
	}
	c := accelerateConfig{
		ComputeEnvironment: "LOCAL_MACHINE",
		DistributedType:    "FSDP",
		MixedPrecision:     mixedPrecision(r.Precision),
		NumMachines:        max(r.Nodes, 1),
		NumProcesses:       max(r.GPUs, 1),
		MainFunction:       "main",
		RdzvBackend:        "static",
		SameNetwork:        true,
		FSDP: fsdpConfig{
			Version:                 2,
			AutoWrapPolicy:          "TRANSFORMER_BASED_WRAP",
			CPURAMEfficientLoading:  true,
			OffloadParams:           r.Offload == sizing.OffloadCPU,
			ReshardAfterForward:     reshard,
			StateDictType:           "SHARDED_STATE_DICT",
			ActivationCheckpointing: r.GradCheckpointing,
		},
	}
	data, err := marshalYAML(c)
	if err != nil {
		return Config{}, fmt.Errorf("accelerate config: %w", err)
	}
	notes := []string{fmt.Sprintf("micro-batch %d per GPU, gradient accumulation %d (global batch %d): pass them to the script (Accelerator(gradient_accumulation_steps=%d))",
		max(r.MicroBatch, 1), gradAccum(r), globalBatch(r), gradAccum(r))}
	if r.Nodes > 1 {
		notes = append(notes, "run it on every machine with its own machine_rank and the head's main_process_ip")
	}
	if r.Precision == sizing.PrecisionPureBF16 {
		notes = append(notes, "pure bf16: load the model in bf16 (torch_dtype=torch.bfloat16) and keep mixed_precision \"no\", so no fp32 copy is made")
	}
	notes = append(notes, "fsdp_version 2 is FSDP2: it needs PyTorch 2.6 or later")
	notes = append(notes, trainingNotes(r, KindAccelerate)...)
	return Config{Kind: KindAccelerate, Filename: "accelerate_fsdp.yaml", Text: string(data), Notes: notes}, nil
}

// mixedPrecision is Accelerate's mixed_precision for a training
// precision; pure bf16 is "no" (the weights themselves are bf16).
func mixedPrecision(p sizing.Precision) string {
	switch p {
	case sizing.PrecisionBF16:
		return "bf16"
	case sizing.PrecisionFP16:
		return "fp16"
	case sizing.PrecisionFP8:
		return "fp8"
	}
	return "no"
}
