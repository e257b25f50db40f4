package launch

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fitbot/fitbot/sizing"
)

// skyAccelerators maps fitbot's GPU ids to the accelerator names SkyPilot
// uses (`sky show-gpus`). Cards SkyPilot cannot rent (Apple silicon,
// consumer cards no cloud lists) are missing.
var skyAccelerators = map[string]string{
	"b200": "B200", "h200": "H200", "h100": "H100", "h100-nvl": "H100-NVL", "h100-pcie": "H100",
	"mi300x": "MI300X", "a100-80": "A100-80GB", "a100-80-pcie": "A100-80GB", "a100-40": "A100",
	"a100-40-pcie": "A100", "l40s": "L40S", "l4": "L4", "a40": "A40", "a10": "A10", "a10g": "A10G",
	"t4": "T4", "v100-32": "V100-32GB", "v100-16": "V100", "rtx-6000-ada": "RTX6000-Ada",
	"rtx-a6000": "RTXA6000", "rtx-5090": "RTX5090", "rtx-4090": "RTX4090", "rtx-3090": "RTX3090",
	"l40": "L40", "gh200": "GH200",
}

// skyTask is a SkyPilot task YAML (docs.skypilot.co, reference/yaml-spec)
// in the keys a plan sets.
type skyTask struct {
	Name      string             `yaml:"name"`
	Workdir   string             `yaml:"workdir,omitempty"`
	NumNodes  int                `yaml:"num_nodes"`
	Resources skyResources       `yaml:"resources"`
	Envs      map[string]string  `yaml:"envs,omitempty"`
	Secrets   map[string]*string `yaml:"secrets,omitempty"`
	Setup     string             `yaml:"setup"`
	Run       string             `yaml:"run"`
}

type skyResources struct {
	Accelerators string `yaml:"accelerators"`
	UseSpot      bool   `yaml:"use_spot"`
	DiskSize     int    `yaml:"disk_size"`
	Ports        int    `yaml:"ports,omitempty"`
}

// diskSlackGiB is what a SkyPilot disk holds besides the estimate's
// figure: the image, Python libraries and logs.
const diskSlackGiB = 50

// skyDiskSize is resources.disk_size (GiB) for the plan: the estimate's
// disk figure (the checkpoint, NVMe-offloaded state) plus the slack.
func skyDiskSize(p Plan) int {
	return int(math.Ceil(float64(p.DiskBytes)/gib)) + diskSlackGiB
}

func emitSkyPilot(p Plan) (Config, error) {
	r := p.Request
	acc, ok := skyAccelerators[r.GPU]
	if !ok {
		return Config{}, &Unsupported{Kind: KindSkyPilot, Reason: fmt.Sprintf("SkyPilot rents no %s", r.GPU)}
	}
	nodes := max(r.Nodes, 1)
	perNode := max(r.GPUs/nodes, 1)
	t := skyTask{
		Name:     taskName(p),
		NumNodes: nodes,
		Resources: skyResources{
			Accelerators: fmt.Sprintf("%s:%d", acc, perNode),
			UseSpot:      p.Spot,
			DiskSize:     skyDiskSize(p),
		},
	}
	var notes []string
	if training(r) && DefaultKind(r) == KindMegatron {
		return Config{}, &Unsupported{Kind: KindSkyPilot, Reason: "the answer's layout runs under Megatron-LM, whose launch fitbot writes as a torchrun command, not a SkyPilot task", Try: KindMegatron}
	}
	if training(r) {
		inner, err := Emit(DefaultKind(r), p)
		if err != nil {
			return Config{}, err
		}
		t.Workdir = "."
		t.Envs = trainingEnvs(p)
		t.Setup = trainingSetup(r, inner)
		t.Run = trainingRun(r, inner)
		notes = append(notes, "workdir . is synced to the cluster: train.py is your script, taking Hugging Face Trainer arguments")
		notes = append(notes, inner.Notes...)
	} else {
		if nodes > 1 {
			return Config{}, &Unsupported{Kind: KindSkyPilot, Reason: "serving over several machines needs a Ray cluster the task does not set up", Try: KindVLLM}
		}
		if isGGUF(r.Quant) {
			return Config{}, &Unsupported{Kind: KindSkyPilot, Reason: "the SkyPilot task serves with vLLM and this answer serves a GGUF file", Try: KindLlamaCpp}
		}
		args, vnotes, err := vllmArgs(p)
		if err != nil {
			return Config{}, err
		}
		args = append(args, "--port", "8000")
		t.Resources.Ports = 8000
		t.Setup = "pip install vllm\n"
		t.Run = shellCommand(args)
		notes = append(notes, vnotes...)
	}
	if gated(p.HubID) {
		// A null secret is filled from the launching shell: sky launch
		// --secret HF_TOKEN. SkyPilot keeps secrets out of its logs.
		t.Secrets = map[string]*string{"HF_TOKEN": nil}
		notes = append(notes, fmt.Sprintf("%s is gated on the Hugging Face Hub: accept its licence there, then launch with your token: sky launch --secret HF_TOKEN sky_task.yaml", p.HubID))
	}
	switch {
	case p.Spot && !training(p.Request):
		notes = append(notes, "use_spot: the answer is priced at spot capacity; a preempted server drops its requests until it is back: `sky serve up` with replicas replaces preempted ones")
	case p.Spot:
		notes = append(notes, "use_spot: the answer is for spot capacity; a preempted job restarts from its last checkpoint under `sky jobs launch`")
	}
	data, err := marshalYAML(t)
	if err != nil {
		return Config{}, fmt.Errorf("skypilot task: %w", err)
	}
	return Config{Kind: KindSkyPilot, Filename: "sky_task.yaml", Text: string(data), Notes: notes}, nil
}

// gatedOrgs are the Hugging Face organisations whose model repos in
// fitbot's catalog are gated (a licence to accept before the weights
// download): every meta-llama and mistralai repo, Google's Gemma.
var gatedOrgs = map[string]string{"meta-llama": "", "mistralai": "", "google": "gemma"}

// gated reports whether a Hub repo needs a token to download: a repo of
// a gated organisation (whose name starts with the gated family, where
// only one family of the organisation is gated).
func gated(hubID string) bool {
	org, name, ok := strings.Cut(hubID, "/")
	if !ok {
		return false
	}
	prefix, isGated := gatedOrgs[org]
	return isGated && strings.HasPrefix(strings.ToLower(name), prefix)
}

// taskName is a SkyPilot-safe name: lower-case letters, digits and dashes.
func taskName(p Plan) string {
	base := p.Request.Model
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	var b strings.Builder
	b.WriteString("fitbot-")
	for _, c := range strings.ToLower(base + "-" + string(p.Request.Method)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else if !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// trainingEnvs carries the plan's numbers to the script.
func trainingEnvs(p Plan) map[string]string {
	r := p.Request
	model := p.HubID
	if model == "" {
		model = "your-org/your-model"
	}
	env := map[string]string{
		"MODEL":   model,
		"SEQ_LEN": strconv.Itoa(r.SeqLen),
	}
	if r.Method == sizing.MethodLoRA || r.Method == sizing.MethodQLoRA {
		env["LORA_RANK"] = strconv.Itoa(r.LoRARank)
	}
	return env
}

// trainingSetup installs the libraries and writes the launcher's config.
func trainingSetup(r sizing.Request, inner Config) string {
	pkgs := "torch transformers accelerate"
	if inner.Kind == KindDeepSpeed {
		pkgs += " deepspeed"
	}
	if r.Method == sizing.MethodLoRA || r.Method == sizing.MethodQLoRA {
		pkgs += " peft"
	}
	if r.Method == sizing.MethodQLoRA || r.Optimizer == sizing.OptimizerAdamW8bit {
		pkgs += " bitsandbytes"
	}
	return fmt.Sprintf("pip install %s\ncat > %s <<'EOF'\n%sEOF\n", pkgs, inner.Filename, inner.Text)
}

// hfOptim is the Trainer's --optim for an optimizer.
func hfOptim(o sizing.Optimizer) string {
	switch o {
	case sizing.OptimizerAdamW8bit:
		return "adamw_bnb_8bit"
	case sizing.OptimizerSGD, sizing.OptimizerSGDMomentum:
		return "sgd"
	case sizing.OptimizerAdafactor:
		return "adafactor"
	}
	return "adamw_torch"
}

// trainingRun starts the script on every node: torchrun with DeepSpeed's
// config, or accelerate launch with the FSDP one, with the plan's batch
// and precision as Trainer arguments.
func trainingRun(r sizing.Request, inner Config) string {
	var b strings.Builder
	b.WriteString("MASTER_ADDR=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)\n")
	if inner.Kind == KindDeepSpeed {
		b.WriteString("torchrun --nnodes=$SKYPILOT_NUM_NODES --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE \\\n")
		b.WriteString("  --node_rank=$SKYPILOT_NODE_RANK --master_addr=$MASTER_ADDR --master_port=29500 \\\n")
		fmt.Fprintf(&b, "  train.py --deepspeed %s \\\n", inner.Filename)
	} else {
		fmt.Fprintf(&b, "accelerate launch --config_file %s \\\n", inner.Filename)
		b.WriteString("  --num_machines=$SKYPILOT_NUM_NODES --machine_rank=$SKYPILOT_NODE_RANK \\\n")
		b.WriteString("  --main_process_ip=$MASTER_ADDR --main_process_port=29500 \\\n")
		b.WriteString("  train.py \\\n")
	}
	b.WriteString("  --model_name_or_path $MODEL \\\n")
	fmt.Fprintf(&b, "  --per_device_train_batch_size %d --gradient_accumulation_steps %d \\\n", max(r.MicroBatch, 1), gradAccum(r))
	fmt.Fprintf(&b, "  --optim %s --gradient_checkpointing %t", hfOptim(r.Optimizer), scriptCheckpointing(r, inner.Kind))
	switch r.Precision {
	case sizing.PrecisionBF16:
		b.WriteString(" --bf16 true")
	case sizing.PrecisionFP16:
		b.WriteString(" --fp16 true")
	}
	b.WriteByte('\n')
	return b.String()
}

// scriptCheckpointing is the Trainer's --gradient_checkpointing: the
// estimate's, except under FSDP, whose config checkpoints the activations
// itself (the Trainer refuses both at once).
func scriptCheckpointing(r sizing.Request, k Kind) bool {
	return r.GradCheckpointing && k != KindAccelerate
}

// marshalYAML writes YAML with the two-space indent config files use.
func marshalYAML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
