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

type fsdpConfig struct {
	AutoWrapPolicy          string `yaml:"fsdp_auto_wrap_policy"`
	BackwardPrefetch        string `yaml:"fsdp_backward_prefetch"`
	CPURAMEfficientLoading  bool   `yaml:"fsdp_cpu_ram_efficient_loading"`
	OffloadParams           bool   `yaml:"fsdp_offload_params"`
	ShardingStrategy        string `yaml:"fsdp_sharding_strategy"`
	StateDictType           string `yaml:"fsdp_state_dict_type"`
	SyncModuleStates        bool   `yaml:"fsdp_sync_module_states"`
	UseOrigParams           bool   `yaml:"fsdp_use_orig_params"`
	ActivationCheckpointing bool   `yaml:"fsdp_activation_checkpointing"`
}

// fsdpStrategy is FSDP's sharding strategy for a ZeRO stage: stage 3
// shards weights, gradients and optimizer state (FULL_SHARD), stage 2
// gradients and optimizer state (SHARD_GRAD_OP). Stages 0 and 1 have no
// FSDP counterpart.
func fsdpStrategy(stage int) (string, bool) {
	switch stage {
	case 3:
		return "FULL_SHARD", true
	case 2:
		return "SHARD_GRAD_OP", true
	}
	return "", false
}

func emitAccelerate(p Plan) (Config, error) {
	r := p.Request
	if !training(r) {
		return Config{}, &Unsupported{Kind: KindAccelerate, Reason: "Accelerate/FSDP configs are for training and this answer serves the model", Try: DefaultKind(r)}
	}
	strategy, ok := fsdpStrategy(r.ZeROStage)
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
			AutoWrapPolicy:          "TRANSFORMER_BASED_WRAP",
			BackwardPrefetch:        "BACKWARD_PRE",
			CPURAMEfficientLoading:  true,
			OffloadParams:           r.Offload == sizing.OffloadCPU,
			ShardingStrategy:        strategy,
			StateDictType:           "SHARDED_STATE_DICT",
			SyncModuleStates:        true,
			UseOrigParams:           true,
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
	notes = append(notes, trainingNotes(r)...)
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
