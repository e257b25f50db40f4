package launch

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The validator in this file checks an emitted config against the
// tools' own definitions, read from testdata (see SOURCES.md): every key
// or flag exists, every value has the tool's type, bounds and choices,
// and no combination in rules.txt is broken. It knows nothing of the
// estimate; launch_test.go's checks compare the config with the answer.

// spec is one key or flag: its types (alternatives), bounds and choices.
type spec struct {
	types   []string
	bounds  []string // ">0", ">=1", "<=1"
	choices []string // empty: any value of the type
}

// schema is a key file: section -> key -> spec.
type schema map[string]map[string]spec

// parseSpec reads "TYPE [BOUND...] [CHOICE...]".
func parseSpec(fields []string) spec {
	s := spec{types: strings.Split(fields[0], "|")}
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, ">") || strings.HasPrefix(f, "<") {
			s.bounds = append(s.bounds, f)
		} else {
			s.choices = append(s.choices, f)
		}
	}
	return s
}

// dataLines reads a testdata file's lines without comments and blanks.
func dataLines(t reporter, file string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out = append(out, f)
	}
	return out
}

func loadSchema(t reporter, file string) schema {
	t.Helper()
	s := schema{}
	for _, f := range dataLines(t, file) {
		if len(f) < 3 {
			t.Fatalf("%s: %q is not SECTION KEY TYPE", file, strings.Join(f, " "))
		}
		if s[f[0]] == nil {
			s[f[0]] = map[string]spec{}
		}
		s[f[0]][f[1]] = parseSpec(f[2:])
	}
	return s
}

// loadFlags reads a flag file: every spelling of an option maps to its
// spec and to its first spelling (so -c and --ctx-size are one option).
func loadFlags(t reporter, file string) (map[string]spec, map[string]string) {
	t.Helper()
	specs, canon := map[string]spec{}, map[string]string{}
	for _, f := range dataLines(t, file) {
		if len(f) < 2 {
			t.Fatalf("%s: %q is not NAMES TYPE", file, strings.Join(f, " "))
		}
		names := strings.Split(f[0], "|")
		for _, n := range names {
			specs[n], canon[n] = parseSpec(f[1:]), names[0]
		}
	}
	return specs, canon
}

// valueProblem says what is wrong with v under s, or "".
func valueProblem(s spec, v any) string {
	ok := false
	for _, typ := range s.types {
		if typeIs(typ, v) {
			ok = true
			break
		}
	}
	if !ok {
		return fmt.Sprintf("%v is not a %s", v, strings.Join(s.types, " or "))
	}
	if n, isNum := number(v); isNum {
		for _, b := range s.bounds {
			if !withinBound(n, b) {
				return fmt.Sprintf("%v is not %s", v, b)
			}
		}
	}
	if len(s.choices) > 0 && !slices.Contains(s.choices, fmt.Sprint(v)) {
		return fmt.Sprintf("%v is not one of %s", v, strings.Join(s.choices, ", "))
	}
	return ""
}

func typeIs(typ string, v any) bool {
	switch typ {
	case "any":
		return true
	case "bool":
		_, ok := v.(bool)
		return ok
	case "int":
		n, ok := number(v)
		return ok && n == math.Trunc(n)
	case "number":
		_, ok := number(v)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// withinBound checks n against ">0", ">=1", "<1", "<=1".
func withinBound(n float64, b string) bool {
	op := strings.TrimRight(b, "0123456789.-")
	lim, err := strconv.ParseFloat(b[len(op):], 64)
	if err != nil {
		return false
	}
	switch op {
	case ">":
		return n > lim
	case ">=":
		return n >= lim
	case "<":
		return n < lim
	case "<=":
		return n <= lim
	}
	return false
}

// checkSection reports unknown keys and bad values of one mapping.
func (s schema) checkSection(tool, section string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		sp, ok := s[section][k]
		if !ok {
			out = append(out, fmt.Sprintf("%s: %s key %q does not exist", tool, section, k))
			continue
		}
		if p := valueProblem(sp, v); p != "" {
			out = append(out, fmt.Sprintf("%s: %s.%s: %s", tool, section, k, p))
		}
	}
	slices.Sort(out)
	return out
}

// checkFlags reports flags the tool does not have, bad values and
// options given twice; it returns the values by first spelling.
func checkFlags(tool string, args []string, specs map[string]spec, canon map[string]string) (map[string]string, []string) {
	vals := map[string]string{}
	var out []string
	for i := 0; i < len(args); i++ {
		f := args[i]
		sp, ok := specs[f]
		if !ok {
			out = append(out, fmt.Sprintf("%s: option %s does not exist", tool, f))
			continue
		}
		if sp.types[0] == "flag" { // argparse store_true: no value
			if _, dup := vals[canon[f]]; dup {
				out = append(out, fmt.Sprintf("%s: option %s given twice", tool, canon[f]))
			}
			vals[canon[f]] = "true"
			continue
		}
		if i+1 >= len(args) {
			out = append(out, fmt.Sprintf("%s: option %s has no value", tool, f))
			break
		}
		i++
		var v any = args[i]
		switch sp.types[0] {
		case "int":
			n, err := strconv.Atoi(args[i])
			if err != nil {
				out = append(out, fmt.Sprintf("%s: %s %s is not a whole number", tool, f, args[i]))
				continue
			}
			v = n
		case "number":
			n, err := strconv.ParseFloat(args[i], 64)
			if err != nil {
				out = append(out, fmt.Sprintf("%s: %s %s is not a number", tool, f, args[i]))
				continue
			}
			v = n
		}
		if p := valueProblem(sp, v); p != "" {
			out = append(out, fmt.Sprintf("%s: %s: %s", tool, f, p))
		}
		name := canon[f]
		if _, dup := vals[name]; dup {
			out = append(out, fmt.Sprintf("%s: option %s given twice", tool, name))
		}
		vals[name] = args[i]
	}
	return vals, out
}

// splitCommand splits an emitted command line: backslash-newline
// continuations, single-quoted words, no other quoting.
func splitCommand(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var args []string
	for _, f := range strings.Fields(text) {
		args = append(args, strings.Trim(f, "'"))
	}
	return args
}

// validate checks one emitted config against its tool's definitions;
// the plan gives the world size DeepSpeed's batch rule multiplies by and
// what the SkyPilot rules need (spot, the Hub repo).
func validate(t reporter, cfg Config, p Plan) []string {
	t.Helper()
	switch cfg.Kind {
	case KindDeepSpeed:
		return validateDeepSpeed(t, cfg.Text, max(p.Request.GPUs, 1))
	case KindAccelerate:
		return validateAccelerate(t, cfg.Text)
	case KindVLLM:
		return validateVLLM(t, cfg.Text)
	case KindSGLang:
		return validateSGLang(t, cfg.Text)
	case KindLlamaCpp:
		return validateLlama(t, cfg.Text)
	case KindSkyPilot:
		return validateSkyPilot(t, cfg.Text, p)
	case KindMegatron:
		return validateMegatron(t, cfg.Text)
	}
	return []string{fmt.Sprintf("unknown kind %q", cfg.Kind)}
}

func validateDeepSpeed(t reporter, text string, world int) []string {
	s := loadSchema(t, "deepspeed.txt")
	var c map[string]any
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return []string{"deepspeed: not JSON: " + err.Error()}
	}
	out := s.checkSection("deepspeed", "top", c)
	zero, _ := c["zero_optimization"].(map[string]any)
	out = append(out, s.checkSection("deepspeed", "zero", zero)...)
	for _, sec := range []string{"bf16", "fp16"} {
		if m, ok := c[sec].(map[string]any); ok {
			out = append(out, s.checkSection("deepspeed", sec, m)...)
		}
	}
	stage, _ := number(zero["stage"])
	for _, sec := range []string{"offload_param", "offload_optimizer"} {
		m, ok := zero[sec].(map[string]any)
		if !ok {
			continue
		}
		out = append(out, s.checkSection("deepspeed", sec, m)...)
		dev, _ := m["device"].(string)
		if sec == "offload_param" && dev != "" && dev != "none" && stage != 3 {
			out = append(out, fmt.Sprintf("ds-offload-param-stage3: offload_param to %s at stage %v", dev, stage))
		}
		if dev == "nvme" && stage != 3 {
			out = append(out, fmt.Sprintf("ds-nvme-stage3: %s to nvme at stage %v runs as CPU offload", sec, stage))
		}
		if path, _ := m["nvme_path"].(string); dev == "nvme" && path == "" {
			out = append(out, fmt.Sprintf("ds-nvme-path: %s to nvme names no nvme_path", sec))
		}
		if r, ok := number(m["ratio"]); ok && r < 1 && stage != 3 {
			out = append(out, fmt.Sprintf("ds-ratio-stage3: %s.ratio %v at stage %v", sec, r, stage))
		}
	}
	enabled := func(sec string) bool {
		m, _ := c[sec].(map[string]any)
		e, _ := m["enabled"].(bool)
		return e
	}
	if enabled("bf16") && enabled("fp16") {
		out = append(out, "ds-fp16-bf16: bf16 and fp16 both enabled")
	}
	global, _ := number(c["train_batch_size"])
	micro, _ := number(c["train_micro_batch_size_per_gpu"])
	gas, _ := number(c["gradient_accumulation_steps"])
	if global != micro*gas*float64(world) {
		out = append(out, fmt.Sprintf("ds-batch: train_batch_size %v != %v x %v x world size %d", global, micro, gas, world))
	}
	return out
}

func validateAccelerate(t reporter, text string) []string {
	s := loadSchema(t, "accelerate.txt")
	var c map[string]any
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		return []string{"accelerate: not YAML: " + err.Error()}
	}
	out := s.checkSection("accelerate", "top", c)
	fsdp, _ := c["fsdp_config"].(map[string]any)
	out = append(out, s.checkSection("accelerate", "fsdp", fsdp)...)
	version, written := number(fsdp["fsdp_version"])
	if !written {
		out = append(out, "acc-fsdp-version: fsdp_version is not written")
	}
	if version != 2 {
		return out
	}
	if _, ok := fsdp["fsdp_reshard_after_forward"].(bool); !ok {
		out = append(out, fmt.Sprintf("acc-fsdp2-reshard-bool: fsdp_reshard_after_forward %v under FSDP2", fsdp["fsdp_reshard_after_forward"]))
	}
	if _, ok := fsdp["fsdp_sharding_strategy"]; ok {
		out = append(out, "acc-fsdp2-no-sharding-strategy: fsdp_sharding_strategy under FSDP2")
	}
	for _, k := range []string{"fsdp_backward_prefetch", "fsdp_use_orig_params", "fsdp_sync_module_states", "fsdp_forward_prefetch"} {
		if _, ok := fsdp[k]; ok {
			out = append(out, "acc-fsdp2-no-fsdp1-keys: "+k+" under FSDP2")
		}
	}
	if sd, ok := fsdp["fsdp_state_dict_type"]; ok && sd != "SHARDED_STATE_DICT" && sd != "FULL_STATE_DICT" {
		out = append(out, fmt.Sprintf("acc-fsdp2-state-dict: %v under FSDP2", sd))
	}
	return out
}

func validateVLLM(t reporter, text string) []string {
	args := splitCommand(text)
	if len(args) < 3 || args[0] != "vllm" || args[1] != "serve" || strings.HasPrefix(args[2], "-") {
		return []string{fmt.Sprintf("vllm: not `vllm serve MODEL ...`: %q", text)}
	}
	specs, canon := loadFlags(t, "vllm.txt")
	vals, out := checkFlags("vllm", args[3:], specs, canon)
	if q := vals["--quantization"]; (q == "awq" || q == "gptq") && vals["--dtype"] != "float16" && vals["--dtype"] != "half" {
		out = append(out, fmt.Sprintf("vllm-quant-act-dtype: --quantization %s with --dtype %q", q, vals["--dtype"]))
	}
	if u, err := strconv.ParseFloat(vals["--gpu-memory-utilization"], 64); err == nil && u < vllmDefaultUtilization {
		out = append(out, fmt.Sprintf("vllm-util-floor: --gpu-memory-utilization %.2f", u))
	}
	return out
}

// validateMegatron checks a `torchrun ... pretrain_gpt.py ...` command:
// Megatron's flags against megatron.txt, and the divisibility rules
// Megatron asserts at start.
func validateMegatron(t reporter, text string) []string {
	args := splitCommand(text)
	env := map[string]string{}
	for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
		k, v, _ := strings.Cut(args[0], "=")
		env[k] = v
		args = args[1:]
	}
	i := slices.Index(args, "pretrain_gpt.py")
	if len(args) < 2 || args[0] != "torchrun" || i < 0 {
		return []string{fmt.Sprintf("megatron: not `torchrun ... pretrain_gpt.py ...`: %q", text)}
	}
	world := 1
	for j := 1; j+1 < i; j += 2 {
		if n, err := strconv.Atoi(args[j+1]); err == nil && (args[j] == "--nproc-per-node" || args[j] == "--nnodes") {
			world *= n
		}
	}
	specs, canon := loadFlags(t, "megatron.txt")
	vals, out := checkFlags("megatron", args[i+1:], specs, canon)
	get := func(name string, def int) int {
		if n, err := strconv.Atoi(vals[name]); err == nil {
			return n
		}
		return def
	}
	tp, pp, cp := get("--tensor-model-parallel-size", 1), get("--pipeline-model-parallel-size", 1), get("--context-parallel-size", 1)
	if world%(tp*pp*cp) != 0 {
		return append(out, fmt.Sprintf("mg-world: world size %d is not divisible by TP %d × PP %d × CP %d", world, tp, pp, cp))
	}
	dp := world / (tp * pp * cp)
	if gbs, mbs := get("--global-batch-size", 0), get("--micro-batch-size", 1); gbs%(mbs*dp) != 0 {
		out = append(out, fmt.Sprintf("mg-batch: global batch %d is not divisible by micro-batch %d × data-parallel %d", gbs, mbs, dp))
	}
	if heads, groups := get("--num-attention-heads", tp), get("--num-query-groups", tp); heads%tp != 0 || groups%tp != 0 {
		out = append(out, fmt.Sprintf("mg-heads: %d heads / %d query groups not divisible by TP %d", heads, groups, tp))
	}
	if v := get("--num-layers-per-virtual-pipeline-stage", 0); v > 0 && (get("--num-layers", 0)/pp)%v != 0 {
		out = append(out, fmt.Sprintf("mg-vpp: %d layers per stage not divisible by %d per virtual stage", get("--num-layers", 0)/pp, v))
	}
	if (tp > 1 || cp > 1) && env["CUDA_DEVICE_MAX_CONNECTIONS"] != "1" {
		out = append(out, fmt.Sprintf("mg-cuda-connections: TP %d, CP %d without CUDA_DEVICE_MAX_CONNECTIONS=1", tp, cp))
	}
	return append(out, megatronStages(get("--num-layers", 0), pp, get("--decoder-first-pipeline-num-layers", 0), get("--decoder-last-pipeline-num-layers", 0),
		get("--num-layers-per-virtual-pipeline-stage", 0))...)
}

// megatronStages is Megatron's check of the layers over pipeline stages:
// even stages unless --decoder-first/last-pipeline-num-layers are given
// (megatron/training/arguments.py validate_args), and then each at least
// one layer with the middle stages' layers dividing evenly
// (megatron/core/transformer/transformer_config.py), with no
// --num-layers-per-virtual-pipeline-stage beside them.
func megatronStages(layers, pp, first, last, vpp int) []string {
	if first == 0 && last == 0 {
		if layers%pp != 0 {
			return []string{fmt.Sprintf("mg-uneven: Number of layers should be divisible by the pipeline-model-parallel size (%d layers, PP %d)", layers, pp)}
		}
		return nil
	}
	if vpp > 0 {
		return []string{"mg-uneven: --num-layers-per-virtual-pipeline-stage with uneven first/last stages"}
	}
	middle, stages := layers, pp
	for _, n := range []int{first, last} {
		if n > 0 {
			middle -= n
			stages--
		}
	}
	if middle < 0 || (middle == 0) != (stages == 0) || stages > 0 && middle%stages != 0 {
		return []string{fmt.Sprintf("mg-uneven: %d middle layers over %d middle stages (first %d, last %d of %d)", middle, stages, first, last, layers)}
	}
	return nil
}

func validateSGLang(t reporter, text string) []string {
	args := splitCommand(text)
	if len(args) < 3 || args[0] != "python" || args[1] != "-m" || args[2] != "sglang.launch_server" {
		return []string{fmt.Sprintf("sglang: not `python -m sglang.launch_server ...`: %q", text)}
	}
	specs, canon := loadFlags(t, "sglang.txt")
	_, out := checkFlags("sglang", args[3:], specs, canon)
	return out
}

func validateLlama(t reporter, text string) []string {
	args := splitCommand(text)
	if len(args) < 1 || args[0] != "llama-server" {
		return []string{fmt.Sprintf("llama.cpp: not a llama-server command: %q", text)}
	}
	specs, canon := loadFlags(t, "llama_server.txt")
	vals, out := checkFlags("llama.cpp", args[1:], specs, canon)
	if v := vals["-ctv"]; strings.HasPrefix(v, "q") || strings.HasPrefix(v, "iq") { // the quantised cache types
		if fa := vals["-fa"]; fa != "on" && fa != "enabled" && fa != "true" && fa != "1" {
			out = append(out, fmt.Sprintf("llama-quant-v-fa: -ctv %s with flash attention %q", v, fa))
		}
	}
	return out
}

// skyEnvName is the schema's patternProperties for envs.
var skyEnvName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// heredoc finds the config a SkyPilot setup writes: cat > FILE <<'EOF'.
var heredoc = regexp.MustCompile(`(?s)cat > (\S+) <<'EOF'\n(.*?)EOF\n`)

func validateSkyPilot(t reporter, text string, p Plan) []string {
	s := loadSchema(t, "skypilot.txt")
	var task map[string]any
	if err := yaml.Unmarshal([]byte(text), &task); err != nil {
		return []string{"skypilot: not YAML: " + err.Error()}
	}
	out := s.checkSection("skypilot", "task", task)
	res, _ := task["resources"].(map[string]any)
	out = append(out, s.checkSection("skypilot", "resources", res)...)
	envs, _ := task["envs"].(map[string]any)
	for k, v := range envs {
		if _, isString := v.(string); !skyEnvName.MatchString(k) || !isString && v != nil {
			out = append(out, fmt.Sprintf("skypilot: envs.%s = %v", k, v))
		}
	}
	secrets, _ := task["secrets"].(map[string]any)
	for k, v := range secrets {
		if _, isString := v.(string); !isString && v != nil {
			out = append(out, fmt.Sprintf("skypilot: secrets.%s = %v", k, v))
		}
	}
	if spot, _ := res["use_spot"].(bool); spot != p.Spot {
		out = append(out, fmt.Sprintf("sky-spot: use_spot %v for a plan priced spot %v", res["use_spot"], p.Spot))
	}
	if _, inSecrets := secrets["HF_TOKEN"]; gated(p.HubID) && !inSecrets && envs["HF_TOKEN"] == nil {
		out = append(out, "sky-gated-token: "+p.HubID+" is gated and the task passes no HF_TOKEN")
	}
	run, _ := task["run"].(string)
	setup, _ := task["setup"].(string)
	if strings.HasPrefix(run, "vllm serve") {
		return append(out, validateVLLM(t, run)...)
	}
	m := heredoc.FindStringSubmatch(setup)
	if m == nil {
		return append(out, "skypilot: the setup writes no launcher config")
	}
	inner := Config{Kind: KindDeepSpeed, Text: m[2]}
	if strings.HasSuffix(m[1], ".yaml") {
		inner.Kind = KindAccelerate
	}
	out = append(out, validate(t, inner, p)...)
	if inner.Kind == KindAccelerate && strings.Contains(inner.Text, "fsdp_activation_checkpointing: true") && strings.Contains(run, "--gradient_checkpointing true") {
		out = append(out, "acc-ckpt-once: FSDP activation checkpointing and --gradient_checkpointing true")
	}
	return out
}

// validationCases are the answers every kind is emitted for and
// validated: the golden cases and more, over methods, stages, offload,
// precisions, quantisations, KV caches, GPUs and machine counts.
var validationCases = append(slices.Clone(launchCases),
	launchCase{name: "zero1-a100", words: "llama 3.1 8b full on 8 a100 zero 1"},
	launchCase{name: "spot-asked-a100", words: "llama 3.1 8b full on 8 a100 zero 2 on spot instances"},
	launchCase{name: "zero2-offload-cpu", words: "llama 3.1 8b full on 4 a100 zero 2 offload cpu"},
	launchCase{name: "zero3-h200", words: "llama 3.1 8b full on 8 h200 zero 3 context 8192"},
	launchCase{name: "zero3-fp16-v100", words: "llama 3.2 1b full on 8 v100 32gb zero 3 fp16 context 1024"},
	launchCase{name: "zero3-sgd", words: "llama 3.1 8b full on 8 a100 zero 3 sgd"},
	launchCase{name: "zero3-offload-adafactor", words: "llama 3.1 8b full on 2 a100 zero 3 offload cpu adafactor"},
	launchCase{name: "zero3-no-ckpt", words: "llama 3.2 1b full on 8 h100 zero 3 no gradient checkpointing"},
	launchCase{name: "zero3-4nodes", words: "llama 3.1 70b full on 4 nodes of 8 h100 zero 3 gradient checkpointing"},
	launchCase{name: "pure-bf16-ckpt", words: "llama 3.1 8b full on 4 h100 zero 3 pure bf16 gradient checkpointing"},
	launchCase{name: "lora-a100", words: "mistral 7b lora on 1 a100"},
	launchCase{name: "lora-2-l40s", words: "llama 3.1 8b lora on 2 l40s zero 2"},
	launchCase{name: "qlora-4090", words: "llama 3.1 8b qlora rtx 4090"},
	launchCase{name: "qlora-8bit-adam", words: "qwen3 14b qlora on 1 l40s adamw 8bit"},
	launchCase{name: "gemma-full", words: "gemma 2 9b full on 8 h100 zero 3"},
	launchCase{name: "qwen-full-b200", words: "qwen3 14b full on 8 b200 zero 2"},
	launchCase{name: "serve-8b-h100", words: "llama 3.1 8b inference h100"},
	launchCase{name: "serve-8b-batch", words: "llama 3.1 8b inference h100 batch 32 context 8192"},
	launchCase{name: "serve-70b-fp8", words: "llama 3.1 70b inference fp8 2 h100"},
	launchCase{name: "serve-70b-2nodes", words: "llama 3.1 70b inference on 2 nodes of 4 l40s"},
	launchCase{name: "serve-gptq", words: "llama 3.1 70b inference gptq 2 a100"},
	launchCase{name: "serve-mistral-a10g", words: "mistral 7b inference a10g"},
	launchCase{name: "serve-qwen-kvfp8", words: "qwen3 14b inference l40s kv fp8 context 16384"},
	launchCase{name: "serve-gemma-l4", words: "gemma 2 9b inference l4"},
	launchCase{name: "gguf-q4-kvq4", words: "llama 3.1 8b inference q4_k_m rtx 3090 kv int4"},
	launchCase{name: "gguf-2gpus", words: "llama 3.1 70b inference q4_k_m 2 rtx 4090"},
	launchCase{name: "gguf-q8-l4", words: "mistral 7b inference q8_0 l4"},
	launchCase{name: "megatron-8b-cp2-fp8", words: "llama 3.1 8b full on 8 h100 tp 2 cp 2 context 16384 fp8 fused loss"},
	launchCase{name: "megatron-405b-3d", words: "llama 3.1 405b full on 256 nodes of 8 h100 context 8192 global batch 16M tokens"},
	launchCase{name: "megatron-405b-pp8", words: "llama 3.1 405b full on 32 nodes of 8 h100 tp 8 pp 8"},
)

// TestEmittedConfigsValidate emits every kind for every validation case
// and checks each config against the tools' definitions. A kind that
// cannot run the answer must refuse it with an *Unsupported; every case
// must emit at least one config.
func TestEmittedConfigsValidate(t *testing.T) {
	if len(validationCases) < 30 {
		t.Fatalf("%d validation cases; the table needs at least 30", len(validationCases))
	}
	emitted := 0
	for _, c := range validationCases {
		t.Run(c.name, func(t *testing.T) {
			_, a := answerFor(t, c)
			if !a.Fits {
				t.Fatalf("%q does not fit as asked; the table needs answers that fit", c.words)
			}
			p := PlanOf(a)
			n := 0
			for _, k := range Kinds {
				cfg, err := Emit(k, p)
				if err != nil {
					if _, ok := err.(*Unsupported); !ok {
						t.Errorf("%s: %v, want a refusal", k, err)
					}
					continue
				}
				n++
				for _, problem := range validate(t, cfg, p) {
					t.Errorf("%s: %s\n%s", k, problem, cfg.Text)
				}
			}
			if n == 0 {
				t.Errorf("no kind emits a config")
			}
			emitted += n
		})
	}
	t.Logf("%d configs from %d answers validated", emitted, len(validationCases))
}

// TestRulesAreChecked breaks an emitted config the way each rule of
// rules.txt forbids and checks that the validator names that rule, so
// every rule listed is one the tests enforce.
func TestRulesAreChecked(t *testing.T) {
	breaks := []struct {
		rule, caseName string
		kind           Kind
		edit           func(p *Plan, text string) string
	}{
		{"ds-batch", "zero2-accum", KindDeepSpeed, replace(`"train_batch_size": 64`, `"train_batch_size": 32`)},
		{"ds-fp16-bf16", "zero2-accum", KindDeepSpeed, replace(`"bf16": {`, `"fp16": {"enabled": true}, "bf16": {`)},
		{"ds-offload-param-stage3", "zero2-offload-cpu", KindDeepSpeed, replace(`"offload_optimizer"`, `"offload_param": {"device": "cpu"}, "offload_optimizer"`)},
		{"ds-nvme-stage3", "zero2-offload-cpu", KindDeepSpeed, replace(`"device": "cpu"`, `"device": "nvme", "nvme_path": "/local_nvme"`)},
		{"ds-ratio-stage3", "zero2-offload-cpu", KindDeepSpeed, replace(`"device": "cpu"`, `"device": "cpu", "ratio": 0.5`)},
		{"ds-nvme-path", "zero3-nvme", KindDeepSpeed, replace(`"nvme_path": "/local_nvme",`, ``)},
		{"acc-fsdp-version", "zero2-accum", KindAccelerate, replace("  fsdp_version: 2\n", "")},
		{"acc-fsdp2-reshard-bool", "zero2-accum", KindAccelerate, replace("fsdp_reshard_after_forward: false", "fsdp_reshard_after_forward: SHARD_GRAD_OP")},
		{"acc-fsdp2-no-sharding-strategy", "zero2-accum", KindAccelerate, replace("  fsdp_version: 2\n", "  fsdp_version: 2\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n")},
		{"acc-fsdp2-no-fsdp1-keys", "zero2-accum", KindAccelerate, replace("  fsdp_version: 2\n", "  fsdp_version: 2\n  fsdp_use_orig_params: true\n")},
		{"acc-fsdp2-state-dict", "zero2-accum", KindAccelerate, replace("SHARDED_STATE_DICT", "LOCAL_STATE_DICT")},
		{"acc-ckpt-once", "pure-bf16-ckpt", KindSkyPilot, replace("--gradient_checkpointing false", "--gradient_checkpointing true")},
		{"llama-quant-v-fa", "gguf-kv-int8", KindLlamaCpp, replace("-fa on", "-fa off")},
		{"vllm-quant-act-dtype", "tp2-awq", KindVLLM, replace("--dtype float16", "--dtype bfloat16 --quantization awq")},
		{"vllm-util-floor", "fp8-l4", KindVLLM, func(_ *Plan, s string) string {
			return regexp.MustCompile(`--gpu-memory-utilization \S+`).ReplaceAllString(s, "--gpu-memory-utilization 0.24")
		}},
		{"sky-spot", "zero3-offload-2nodes", KindSkyPilot, replace("use_spot: true", "use_spot: false")},
		{"sky-gated-token", "zero2-accum", KindSkyPilot, replace("secrets:\n  HF_TOKEN: null\n", "")},
		{"mg-world", "megatron-70b-tp8-pp2", KindMegatron, replace("--nnodes 4", "--nnodes 3")},
		{"mg-batch", "megatron-70b-tp8-pp2", KindMegatron, func(_ *Plan, s string) string {
			return regexp.MustCompile(`--global-batch-size \d+`).ReplaceAllString(s, "--global-batch-size 3")
		}},
		{"mg-heads", "megatron-8b-cp2-fp8", KindMegatron, replace("--num-query-groups 8", "--num-query-groups 3")},
		{"mg-vpp", "megatron-70b-tp8-pp2", KindMegatron, replace("--num-layers-per-virtual-pipeline-stage 4", "--num-layers-per-virtual-pipeline-stage 7")},
		{"mg-cuda-connections", "megatron-70b-tp8-pp2", KindMegatron, replace("CUDA_DEVICE_MAX_CONNECTIONS=1 ", "")},
		{"mg-uneven", "megatron-405b-pp8", KindMegatron, func(_ *Plan, s string) string {
			return regexp.MustCompile(`\s*\\\n\s*--decoder-(first|last)-pipeline-num-layers \d+`).ReplaceAllString(s, "")
		}},
	}
	byName := map[string]launchCase{}
	for _, c := range validationCases {
		byName[c.name] = c
	}
	tested := map[string]bool{}
	for _, b := range breaks {
		tested[b.rule] = true
		_, a := answerFor(t, byName[b.caseName])
		p := PlanOf(a)
		cfg, err := Emit(b.kind, p)
		if err != nil {
			t.Fatalf("%s: %s/%s: %v", b.rule, b.caseName, b.kind, err)
		}
		if got := validate(t, cfg, p); len(got) != 0 {
			t.Fatalf("%s: %s/%s untouched: %v", b.rule, b.caseName, b.kind, got)
		}
		broken := b.edit(&p, cfg.Text)
		if broken == cfg.Text {
			t.Fatalf("%s: the edit changed nothing in\n%s", b.rule, cfg.Text)
		}
		cfg.Text = broken
		got := validate(t, cfg, p)
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, b.rule+":") }) {
			t.Errorf("%s: broken %s/%s gives %v, want the rule named\n%s", b.rule, b.caseName, b.kind, got, broken)
		}
	}
	for _, f := range dataLines(t, "rules.txt") {
		if !tested[f[0]] {
			t.Errorf("rules.txt: rule %s has no test that breaks it", f[0])
		}
		delete(tested, f[0])
	}
	for r := range tested {
		t.Errorf("rule %s is tested but not listed in rules.txt", r)
	}
}

func replace(old, new string) func(*Plan, string) string {
	return func(_ *Plan, s string) string { return strings.Replace(s, old, new, 1) }
}

// TestValidatorCatchesUnknownNames: a key, flag or value the tool does
// not have fails, for every tool.
func TestValidatorCatchesUnknownNames(t *testing.T) {
	for _, tt := range []struct {
		caseName string
		kind     Kind
		old, new string
		want     string
	}{
		{"zero2-accum", KindDeepSpeed, `"gradient_clipping"`, `"grad_clip"`, `top key "grad_clip" does not exist`},
		{"zero2-accum", KindDeepSpeed, `"overlap_comm"`, `"overlap_communication"`, `zero key "overlap_communication"`},
		{"zero2-accum", KindDeepSpeed, `"stage": 2`, `"stage": 4`, "zero.stage: 4 is not one of"},
		{"zero3-nvme", KindDeepSpeed, `"device": "nvme"`, `"device": "disk"`, "device: disk is not one of"},
		{"zero2-accum", KindAccelerate, "distributed_type: FSDP", "distributed_type: FSDP2", "distributed_type: FSDP2 is not one of"},
		{"zero2-accum", KindAccelerate, "fsdp_auto_wrap_policy", "fsdp_wrap_policy", `fsdp key "fsdp_wrap_policy"`},
		{"tp8-kvfp8", KindVLLM, "--max-model-len", "--max-len", "option --max-len does not exist"},
		{"tp8-kvfp8", KindVLLM, "--kv-cache-dtype fp8", "--kv-cache-dtype int8", "int8 is not one of"},
		{"tp8-kvfp8", KindVLLM, "--tensor-parallel-size 8", "--tensor-parallel-size 0", "0 is not >=1"},
		{"gguf-kv-int8", KindLlamaCpp, "-ctk q8_0", "-ctk int8", "int8 is not one of"},
		{"gguf-4090", KindLlamaCpp, "-np 4", "--slots 4", "option --slots does not exist"},
		{"zero3-offload-2nodes", KindSkyPilot, "disk_size:", "disk:", `resources key "disk"`},
		{"zero3-offload-2nodes", KindSkyPilot, "num_nodes: 2", "num_nodes: two", "num_nodes: two is not a int"},
	} {
		var c launchCase
		for _, v := range validationCases {
			if v.name == tt.caseName {
				c = v
			}
		}
		_, a := answerFor(t, c)
		p := PlanOf(a)
		cfg, err := Emit(tt.kind, p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cfg.Text, tt.old) {
			t.Fatalf("%s/%s has no %q", tt.caseName, tt.kind, tt.old)
		}
		cfg.Text = strings.Replace(cfg.Text, tt.old, tt.new, 1)
		got := validate(t, cfg, p)
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, tt.want) }) {
			t.Errorf("%s/%s with %q: %v, want %q", tt.caseName, tt.kind, tt.new, got, tt.want)
		}
	}
}

// TestNVMeBelowStage3Refused: DeepSpeed would run an NVMe config at
// stage 1 or 2 as CPU offload, so the emitter refuses it and says why.
func TestNVMeBelowStage3Refused(t *testing.T) {
	_, a := answerFor(t, launchCase{name: "nvme", words: "llama 3.1 70b full on 8 a100 zero 3 offload nvme"})
	p := PlanOf(a)
	for _, stage := range []int{1, 2} {
		p.Request.ZeROStage = stage
		_, err := Emit(KindDeepSpeed, p)
		if err == nil || !strings.Contains(err.Error(), "NVMe only at ZeRO stage 3") {
			t.Errorf("stage %d with NVMe offload: %v, want a refusal naming stage 3", stage, err)
		}
	}
}

// TestGated: the gated families of fitbot's catalog, and no others.
func TestGated(t *testing.T) {
	for id, want := range map[string]bool{
		"meta-llama/Llama-3.1-8B": true, "mistralai/Mistral-7B-v0.1": true, "google/gemma-2-9b": true,
		"google-bert/bert-base-uncased": false, "google/flan-t5-xl": false, "Qwen/Qwen3-14B": false, "": false,
	} {
		if got := gated(id); got != want {
			t.Errorf("gated(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestSpotAsked: a question that asks for spot launches on spot even
// where the card's cheapest known price is on demand.
func TestSpotAsked(t *testing.T) {
	for words, want := range map[string]bool{
		"llama 3.1 8b full on 8 a100 zero 2 on spot instances": true,
		"llama 3.1 70b inference on 2 h100 spot":               true,
		"llama 3.1 8b full on 8 a100 zero 2 preemptible":       true,
		"llama 3.1 8b full on 8 a100 zero 2":                   false,
	} {
		q, a := answerFor(t, launchCase{name: "spot", words: words})
		if q.Spot != want || a.Request.Spot != want {
			t.Errorf("%q: query spot %v, request spot %v; want %v", words, q.Spot, a.Request.Spot, want)
		}
		cfg, err := Emit(KindSkyPilot, PlanOf(a))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(cfg.Text, "use_spot: true"); got != want {
			t.Errorf("%q: use_spot true written %v, want %v", words, got, want)
		}
		if a.Request.GPU == "h100" && (a.Price == nil || a.Price.Market != "spot") {
			t.Errorf("%q: priced %+v, want the H100's spot price", words, a.Price)
		}
	}
}
