package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// spotPrices prices H100s at a spot rate and every other card on demand,
// so that the SkyPilot tasks show use_spot both ways.
type spotPrices struct{}

func (spotPrices) GPUHourPrice(gpu string) (sizing.Price, bool) {
	at := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	if gpu == "h100" {
		return sizing.Price{USDPerGPUHour: 1.90, Provider: "vast", Market: "spot", AsOf: at}, true
	}
	return sizing.Price{USDPerGPUHour: 1.10, Provider: "runpod", Market: "on_demand", AsOf: at}, true
}

// launchCase is one answer the configs are made from.
type launchCase struct {
	name  string
	words string
}

var launchCases = []launchCase{
	{name: "megatron-70b-tp8-pp2", words: "llama 3.1 70b full on 4 nodes of 8 h100 tp 8 pp 2 gradient checkpointing global batch 4M tokens 2T tokens"},
	{name: "megatron-mixtral-8bit", words: "mixtral 8x7b full on 8 h100 tp 4 pp 2 8-bit adam"},
	{name: "zero2-accum", words: "llama 3.1 8b full on 8 a100 zero 2 micro batch 2 grad accum 4"},
	{name: "zero3-offload-2nodes", words: "llama 3.1 70b full on 2 nodes of 8 h100 zero 3 offload cpu"},
	{name: "zero3-nvme", words: "llama 3.1 70b full on 8 a100 zero 3 offload nvme"},
	{name: "lora-4090-accum", words: "llama 3.2 3b lora 4090 gradient accumulation 8"},
	{name: "qlora-a100", words: "llama 3.1 70b qlora on 1 a100"},
	{name: "pure-bf16-zero3", words: "llama 3.1 8b full on 4 h100 zero 3 pure bf16"},
	{name: "tp2-awq", words: "llama 3.1 70b inference awq 2 l40s context 8192"},
	{name: "tp8-kvfp8", words: "llama 3.1 70b inference 8 h100 kv fp8 context 32768 batch 16"},
	{name: "fp8-l4", words: "llama 3.1 8b inference fp8 l4"},
	{name: "gguf-4090", words: "llama 3.1 8b inference q4_k_m rtx 4090 context 8192 batch 4"},
	{name: "gguf-kv-int8", words: "llama 3.1 8b inference q8_0 rtx 4090 kv int8 context 16384"},
	// 64 heads do not split over 3 GPUs: vLLM refuses tensor parallel 3,
	// so the replica runs as 3 pipeline stages.
	{name: "tp-not-3", words: "llama 3.3 70b inference awq 3 rtx 5090"},
	// vLLM runs on no Apple GPU: its config is refused.
	{name: "mac", words: "llama 3.1 8b inference q4_k_m m4 max 128gb"},
}

func answerFor(t *testing.T, c launchCase) (sizing.Query, sizing.Answer) {
	t.Helper()
	parsed, err := reading.Parse(c.words)
	if err != nil {
		t.Fatalf("Parse(%q): %v", c.words, err)
	}
	q := parsed.Query
	est := &sizing.Estimator{Prices: spotPrices{}}
	a, err := est.Answer(q)
	if err != nil {
		t.Fatalf("Answer(%q): %v", c.words, err)
	}
	return q, a
}

// TestEmitGolden writes every kind for every case, the refusals included,
// and compares with testdata/golden; each emitted config is then parsed
// back and checked against the estimate (checkConfig).
func TestEmitGolden(t *testing.T) {
	for _, c := range launchCases {
		_, a := answerFor(t, c)
		if !a.Fits {
			t.Fatalf("%s: the case must fit as asked (per GPU %d of %d bytes)", c.name, a.PerGPU.TotalBytes, a.VRAMBytes)
		}
		p := PlanOf(a)
		emitted := 0
		for _, k := range Kinds {
			t.Run(c.name+"/"+string(k), func(t *testing.T) {
				cfg, err := Emit(k, p)
				var got string
				if err != nil {
					var u *Unsupported
					if !errors.As(err, &u) {
						t.Fatalf("Emit: %v, want an *Unsupported refusal", err)
					}
					got = "error: " + err.Error() + "\n"
				} else {
					emitted++
					checkConfig(t, cfg, p)
					got = cfg.Text + "---- notes ----\n" + strings.Join(cfg.Notes, "\n") + "\n"
				}
				golden.Check(t, filepath.Join("testdata", "golden", c.name+"."+strings.ReplaceAll(string(k), ".", "")+".txt"), []byte(got))
			})
		}
		if emitted == 0 {
			t.Errorf("%s: no kind emitted", c.name)
		}
	}
}

// TestDefaultKindEmits checks that the kind an answer's button shows
// always has a config.
func TestDefaultKindEmits(t *testing.T) {
	for _, c := range launchCases {
		_, a := answerFor(t, c)
		p := PlanOf(a)
		if _, err := Emit(DefaultKind(a.Request), p); err != nil {
			t.Errorf("%s: default kind %s: %v", c.name, DefaultKind(a.Request), err)
		}
	}
}

// reporter is what the checks need of a test: *testing.T, or a collector
// that lets a test see that a check fails on a tampered config.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

// checkConfig parses an emitted config back and checks that it names
// only keys or flags its tool documents and says what the estimate
// assumed.
func checkConfig(t reporter, cfg Config, p Plan) {
	t.Helper()
	if !strings.HasSuffix(cfg.Text, "\n") {
		t.Errorf("%s config does not end in a newline", cfg.Kind)
	}
	for _, problem := range validate(t, cfg, p) {
		t.Errorf("%s", problem)
	}
	switch cfg.Kind {
	case KindDeepSpeed:
		checkDeepSpeed(t, cfg.Text, p.Request)
	case KindAccelerate:
		checkAccelerate(t, cfg.Text, p.Request)
	case KindVLLM:
		checkVLLM(t, cfg.Text, p)
	case KindSGLang:
		checkSGLang(t, cfg.Text, p)
	case KindLlamaCpp:
		checkLlama(t, cfg.Text, p)
	case KindSkyPilot:
		checkSkyPilot(t, cfg.Text, p)
	case KindMegatron:
		checkMegatron(t, cfg.Text, p.Request)
	default:
		t.Fatalf("unknown kind %q", cfg.Kind)
	}
}

// checkMegatron compares a Megatron-LM command with the estimate: the
// layout, the batch (global = micro × accumulation × data-parallel), the
// sequence, recompute and precision.
func checkMegatron(t reporter, text string, r sizing.Request) {
	t.Helper()
	args := splitCommand(text)
	i := slices.Index(args, "pretrain_gpt.py")
	if i < 0 {
		t.Fatalf("no pretrain_gpt.py in %q", text)
	}
	f := optionValues(t, "megatron.txt", args[i+1:])
	for flag, want := range map[string]int{
		"--tensor-model-parallel-size": max(r.TensorParallel, 1), "--pipeline-model-parallel-size": max(r.PipelineParallel, 1),
		"--context-parallel-size": max(r.ContextParallel, 1), "--seq-length": r.SeqLen, "--micro-batch-size": max(r.MicroBatch, 1),
		"--global-batch-size": max(r.MicroBatch, 1) * gradAccum(r) * dataParallel(r),
	} {
		if got := atoi(t, f[flag]); got != want {
			t.Errorf("%s %d, the estimate assumed %d", flag, got, want)
		}
	}
	if _, on := f["--recompute-granularity"]; on != r.GradCheckpointing {
		t.Errorf("recompute %v, the estimate assumed checkpointing %v", on, r.GradCheckpointing)
	}
	if _, fp8 := f["--fp8-format"]; fp8 != (r.Precision == sizing.PrecisionFP8) {
		t.Errorf("--fp8-format given %v, precision %s", fp8, r.Precision)
	}
	// Megatron builds its expert grid from ETP × EP × PP, ETP defaulting
	// to TP, and refuses a world size it does not divide
	// (megatron/core/parallel_state.py).
	if ep, ok := f["--expert-model-parallel-size"]; ok {
		etp := max(r.TensorParallel, 1)
		if v, ok := f["--expert-tensor-parallel-size"]; ok {
			etp = atoi(t, v)
		}
		if grid := etp * atoi(t, ep) * max(r.PipelineParallel, 1); r.GPUs%grid != 0 {
			t.Errorf("expert grid ETP %d × EP %s × PP %d = %d does not divide %d GPUs", etp, ep, max(r.PipelineParallel, 1), grid, r.GPUs)
		}
	}
	// Megatron-LM has no bitsandbytes: 8-bit AdamW's memory is Transformer
	// Engine's precision-aware Adam with FP8 moments, which needs the
	// distributed optimizer.
	_, pao := f["--use-precision-aware-optimizer"]
	_, dist := f["--use-distributed-optimizer"]
	if eightBit := r.Optimizer == sizing.OptimizerAdamW8bit; pao != eightBit || (eightBit && (!dist || f["--exp-avg-dtype"] != "fp8" || f["--exp-avg-sq-dtype"] != "fp8")) {
		t.Errorf("optimizer %s: precision-aware %v, distributed %v, moments %s/%s", r.Optimizer, pao, dist, f["--exp-avg-dtype"], f["--exp-avg-sq-dtype"])
	}
	if _, sp := f["--sequence-parallel"]; sp != (r.TensorParallel > 1) {
		t.Errorf("--sequence-parallel %v with TP %d (the estimate's activations assume it with TP)", sp, r.TensorParallel)
	}
}

func checkDeepSpeed(t reporter, text string, r sizing.Request) {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		t.Fatalf("DeepSpeed config is not JSON: %v", err)
	}
	num := func(m map[string]any, k string) int {
		v, ok := m[k].(float64)
		if !ok {
			t.Fatalf("DeepSpeed %s = %v, want a number", k, m[k])
		}
		return int(v)
	}
	micro, gas, global := num(c, "train_micro_batch_size_per_gpu"), num(c, "gradient_accumulation_steps"), num(c, "train_batch_size")
	// DeepSpeed's own check (runtime/config.py _batch_assertion).
	if global != micro*gas*r.GPUs {
		t.Errorf("train_batch_size %d != micro %d x accumulation %d x world size %d", global, micro, gas, r.GPUs)
	}
	if micro != max(r.MicroBatch, 1) || gas != max(r.GradAccumSteps, 1) {
		t.Errorf("micro %d, accumulation %d; the estimate assumed %d and %d", micro, gas, r.MicroBatch, r.GradAccumSteps)
	}
	if _, ok := c["gradient_clipping"].(float64); !ok {
		t.Errorf("no gradient_clipping")
	}
	zero, _ := c["zero_optimization"].(map[string]any)
	if got := num(zero, "stage"); got != r.ZeROStage {
		t.Errorf("zero stage %d, the estimate assumed %d", got, r.ZeROStage)
	}
	device := func(k string) string {
		o, ok := zero[k].(map[string]any)
		if !ok {
			return "none"
		}
		d, _ := o["device"].(string)
		return d
	}
	if got := device("offload_optimizer"); got != string(r.Offload) {
		t.Errorf("offload_optimizer device %q, the estimate assumed %q", got, r.Offload)
	}
	wantParam := "none"
	if r.ZeROStage == 3 {
		wantParam = string(r.Offload)
	}
	if got := device("offload_param"); got != wantParam {
		t.Errorf("offload_param device %q, want %q (weights move only at stage 3)", got, wantParam)
	}
	enabledIn := func(k string) bool {
		m, ok := c[k].(map[string]any)
		if !ok {
			return false
		}
		e, _ := m["enabled"].(bool)
		return e
	}
	if got, want := enabledIn("bf16"), r.Precision == sizing.PrecisionBF16; got != want {
		t.Errorf("bf16 enabled %v, precision %s", got, r.Precision)
	}
	if got, want := enabledIn("fp16"), r.Precision == sizing.PrecisionFP16; got != want {
		t.Errorf("fp16 enabled %v, precision %s", got, r.Precision)
	}
}

func checkAccelerate(t reporter, text string, r sizing.Request) {
	t.Helper()
	var c map[string]any
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		t.Fatalf("Accelerate config is not YAML: %v", err)
	}
	fsdp, _ := c["fsdp_config"].(map[string]any)
	if c["distributed_type"] != "FSDP" || c["num_processes"] != r.GPUs || c["num_machines"] != r.Nodes {
		t.Errorf("distributed %v over %v processes on %v machines; the estimate assumed FSDP on %d GPUs, %d machines",
			c["distributed_type"], c["num_processes"], c["num_machines"], r.GPUs, r.Nodes)
	}
	if want := r.ZeROStage == 3; fsdp["fsdp_reshard_after_forward"] != want {
		t.Errorf("fsdp_reshard_after_forward %v at ZeRO stage %d, want %v (3 shards the weights)", fsdp["fsdp_reshard_after_forward"], r.ZeROStage, want)
	}
	if fsdp["fsdp_offload_params"] != (r.Offload == sizing.OffloadCPU) {
		t.Errorf("fsdp_offload_params %v, offload %s", fsdp["fsdp_offload_params"], r.Offload)
	}
	if fsdp["fsdp_activation_checkpointing"] != r.GradCheckpointing {
		t.Errorf("activation checkpointing %v, the estimate assumed %v", fsdp["fsdp_activation_checkpointing"], r.GradCheckpointing)
	}
	if mp := c["mixed_precision"]; mp != mixedPrecision(r.Precision) {
		t.Errorf("mixed_precision %v for %s", mp, r.Precision)
	}
}

// optionValues reads a command line's options by their first spelling
// in the tool's flag file; validate reports what is wrong with them.
func optionValues(t reporter, file string, args []string) map[string]string {
	t.Helper()
	specs, canon := loadFlags(t, file)
	vals, _ := checkFlags(file, args, specs, canon)
	return vals
}

func atoi(t reporter, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a whole number", s)
	}
	return n
}

func checkVLLM(t reporter, text string, p Plan) {
	t.Helper()
	r := p.Request
	args := splitCommand(text)
	if len(args) < 3 || args[0] != "vllm" || args[1] != "serve" {
		t.Fatalf("not a vllm serve command: %q", text)
	}
	repo, prequantised := servingRepo(p.HubID, r.Quant)
	if args[2] != repo || strings.Count(args[2], "/") != 1 {
		t.Errorf("model %q, want the serving repo %q of %q", args[2], repo, p.HubID)
	}
	f := optionValues(t, "vllm.txt", args[3:])
	tp, pp := atoi(t, f["--tensor-parallel-size"]), 1
	if v, ok := f["--pipeline-parallel-size"]; ok {
		pp = atoi(t, v)
	}
	if wantTP, wantPP := servingLayout(p); tp*pp != r.GPUs || pp%max(r.Nodes, 1) != 0 || tp != wantTP || pp != wantPP {
		t.Errorf("TP %d x PP %d; the estimate assumed %d GPUs on %d machines, split %d x %d", tp, pp, r.GPUs, r.Nodes, wantTP, wantPP)
	}
	wantLen, wantSeqs := r.SeqLen, max(r.MicroBatch, 1)
	if sv := p.Serving; sv != nil && sv.Fits {
		wantLen, wantSeqs = sv.MaxModelLen, sv.Concurrency
	}
	if got := atoi(t, f["--max-model-len"]); got != wantLen || got < r.SeqLen {
		t.Errorf("--max-model-len %d, want %d (context %d)", got, wantLen, r.SeqLen)
	}
	if got := atoi(t, f["--max-num-seqs"]); got != wantSeqs {
		t.Errorf("--max-num-seqs %d, answered concurrency %d", got, wantSeqs)
	}
	u, err := strconv.ParseFloat(f["--gpu-memory-utilization"], 64)
	if err != nil {
		t.Fatal(err)
	}
	// At least the estimate and the answered share; more only up to
	// vLLM's default fraction.
	if sv := p.Serving; sv != nil && sv.Fits && u < sv.GPUMemoryUtilization {
		t.Errorf("--gpu-memory-utilization %.2f, the answer's %.2f", u, sv.GPUMemoryUtilization)
	}
	if reserved := u * float64(p.VRAMBytes); reserved < float64(p.PerGPU.TotalBytes) || u > vllmDefaultUtilization && reserved > float64(p.PerGPU.TotalBytes)+0.01*float64(p.VRAMBytes) && (p.Serving == nil || u > p.Serving.GPUMemoryUtilization) {
		t.Errorf("--gpu-memory-utilization %.2f reserves %.2f GiB; the estimate is %.2f GiB", u, reserved/gib, float64(p.PerGPU.TotalBytes)/gib)
	}
	if got, want := f["--kv-cache-dtype"], map[bool]string{true: "fp8"}[r.KVPrecision == sizing.PrecisionFP8]; got != want {
		t.Errorf("--kv-cache-dtype %q for a %s KV cache", got, r.KVPrecision)
	}
	wantQ, _ := vllmQuantization(r.Quant)
	if r.Quant == sizing.QuantNone && r.Precision == sizing.PrecisionFP8 {
		wantQ = "fp8"
	}
	if prequantised || r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ {
		wantQ = "" // read from the checkpoint; an explicit awq/gptq forces the slow kernel
	}
	if f["--quantization"] != wantQ {
		t.Errorf("--quantization %q for weights %s/%s", f["--quantization"], r.Quant, r.Precision)
	}
	if (r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ) && f["--dtype"] != "float16" {
		t.Errorf("--dtype %q with %s weights: vLLM's AWQ/GPTQ kernels take float16", f["--dtype"], r.Quant)
	}
}

func checkSGLang(t reporter, text string, p Plan) {
	t.Helper()
	r := p.Request
	args := splitCommand(text)
	repo, _ := servingRepo(p.HubID, r.Quant)
	f := optionValues(t, "sglang.txt", args[3:])
	if f["--model-path"] != repo {
		t.Errorf("--model-path %q, want %q", f["--model-path"], repo)
	}
	if tp, want := atoi(t, f["--tp-size"]), tensorParallelOf(p); tp != want {
		t.Errorf("--tp-size %d, want %d", tp, want)
	}
	if sv := p.Serving; sv != nil && sv.Fits {
		if got := atoi(t, f["--max-running-requests"]); got != sv.Concurrency {
			t.Errorf("--max-running-requests %d, answered concurrency %d", got, sv.Concurrency)
		}
		if got := atoi(t, f["--context-length"]); got != sv.MaxModelLen {
			t.Errorf("--context-length %d, want %d", got, sv.MaxModelLen)
		}
	}
	if f["--quantization"] == "awq" || f["--quantization"] == "gptq" {
		t.Errorf("--quantization %s forces the slow kernel", f["--quantization"])
	}
}

// tensorParallelOf is the tensor-parallel size a serving config starts
// with.
func tensorParallelOf(p Plan) int {
	tp, _ := servingLayout(p)
	return tp
}

func checkLlama(t reporter, text string, p Plan) {
	t.Helper()
	r := p.Request
	args := splitCommand(text)
	if len(args) < 1 || args[0] != "llama-server" {
		t.Fatalf("not a llama-server command: %q", text)
	}
	f := optionValues(t, "llama_server.txt", args[1:])
	np := atoi(t, f["-np"])
	if np != max(r.MicroBatch, 1) || atoi(t, f["-c"]) != r.SeqLen*np {
		t.Errorf("-c %s over -np %s; the estimate assumed %d requests of %d tokens", f["-c"], f["-np"], r.MicroBatch, r.SeqLen)
	}
	if ngl := atoi(t, f["-ngl"]); ngl <= p.Layers {
		t.Errorf("-ngl %d leaves layers on the CPU; the estimate holds all %d on the GPU", ngl, p.Layers)
	}
	if !strings.HasSuffix(f["-m"], "-"+strings.ToUpper(string(r.Quant))+".gguf") {
		t.Errorf("-m %s is not the %s file", f["-m"], r.Quant)
	}
	want, _ := llamaCacheType(r.KVPrecision)
	if f["-ctk"] != want || f["-ctv"] != want {
		t.Errorf("cache types %q/%q for a %s KV cache", f["-ctk"], f["-ctv"], r.KVPrecision)
	}
}

func checkSkyPilot(t reporter, text string, p Plan) {
	t.Helper()
	r := p.Request
	var task map[string]any
	if err := yaml.Unmarshal([]byte(text), &task); err != nil {
		t.Fatalf("SkyPilot task is not YAML: %v", err)
	}
	res, _ := task["resources"].(map[string]any)
	acc, _ := res["accelerators"].(string)
	name, count, ok := strings.Cut(acc, ":")
	nodes, _ := task["num_nodes"].(int)
	if !ok || name != skyAccelerators[r.GPU] || atoi(t, count)*nodes != r.GPUs || nodes != r.Nodes {
		t.Errorf("accelerators %q on %d nodes; the estimate assumed %d %s on %d machines", acc, nodes, r.GPUs, r.GPU, r.Nodes)
	}
	if res["use_spot"] != p.Spot {
		t.Errorf("use_spot %v, the answer priced spot: %v", res["use_spot"], p.Spot)
	}
	if disk, _ := res["disk_size"].(int); int64(disk)*gib < p.DiskBytes {
		t.Errorf("disk_size %d GiB is less than the estimate's %.1f GiB", disk, float64(p.DiskBytes)/gib)
	}
	run, _ := task["run"].(string)
	setup, _ := task["setup"].(string)
	if !training(r) {
		args := strings.Replace(run, " \\\n  --port 8000", "", 1)
		checkVLLM(t, args, p)
		return
	}
	inner, err := Emit(DefaultKind(r), p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(setup, inner.Text) {
		t.Errorf("setup does not write the %s config", inner.Kind)
	}
	for _, want := range []string{
		fmt.Sprintf("--per_device_train_batch_size %d", max(r.MicroBatch, 1)),
		fmt.Sprintf("--gradient_accumulation_steps %d", max(r.GradAccumSteps, 1)),
		fmt.Sprintf("--gradient_checkpointing %t", scriptCheckpointing(r, inner.Kind)),
		inner.Filename,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("run does not say %q:\n%s", want, run)
		}
	}
}

// TestQueryForResolvesToAlternative turns each alternative of answers
// that do not fit back into a question and checks that the estimator
// answers it with the same configuration and memory, so that the config
// emitted for "the first alternative that fits" is that alternative's.
func TestQueryForResolvesToAlternative(t *testing.T) {
	for _, words := range []string{
		"llama 3.1 70b full 4090",
		"mistral 7b full on 1 a100",
		"llama 3.1 70b inference 1 l4 context 32768",
		"llama 3.1 8b lora 3060 micro batch 8",
		"mixtral 8x7b full 8xh100 tp 4 pp 2", // the asked layout stays in every alternative
	} {
		parsed, err := reading.Parse(words)
		if err != nil {
			t.Fatal(err)
		}
		est := &sizing.Estimator{Prices: spotPrices{}}
		a, err := est.Answer(parsed.Query)
		if err != nil {
			t.Fatal(err)
		}
		if a.Fits || len(a.Alternatives) == 0 {
			t.Fatalf("%q: fits %v with %d alternatives; the case needs a misfit with alternatives", words, a.Fits, len(a.Alternatives))
		}
		for i, alt := range a.Alternatives {
			b, err := est.Answer(QueryFor(parsed.Query, alt.Request))
			if err != nil {
				t.Errorf("%q alternative %d (%s): %v", words, i, alt.Why, err)
				continue
			}
			// GlobalBatchTokens is derived (seq x micro x accum x GPUs); an
			// alternative's copy keeps the asked configuration's figure
			// while its GPU count changes, the re-answer recomputes it.
			if diff := cmp.Diff(alt.Request, b.Request, cmpopts.IgnoreFields(sizing.Request{}, "GlobalBatchTokens")); diff != "" {
				t.Errorf("%q alternative %d (%s) resolves differently (-alt +answer):\n%s", words, i, alt.Why, diff)
			}
			if !b.Fits || b.PerGPU.TotalBytes != alt.TotalBytes {
				t.Errorf("%q alternative %d: fits %v at %d bytes, the alternative said %d", words, i, b.Fits, b.PerGPU.TotalBytes, alt.TotalBytes)
			}
		}
	}
}

func TestParseKind(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Kind
		err  bool
	}{
		{"deepspeed", KindDeepSpeed, false},
		{"DeepSpeed", KindDeepSpeed, false},
		{"fsdp", KindAccelerate, false},
		{"llama.cpp", KindLlamaCpp, false},
		{"llamacpp", KindLlamaCpp, false},
		{" vllm ", KindVLLM, false},
		{"sky", KindSkyPilot, false},
		{"megatron", KindMegatron, false},
		{"Megatron-LM", KindMegatron, false},
		{"torchtitan", "", true},
		{"", "", true},
	} {
		got, err := ParseKind(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseKind(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func FuzzParseKind(f *testing.F) {
	for _, s := range []string{"deepspeed", "llama.cpp", "SKY", "fsdp", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKind(s)
		if err != nil {
			if !strings.Contains(err.Error(), "deepspeed, accelerate, vllm, llama.cpp, skypilot") {
				t.Errorf("error %q does not list the kinds", err)
			}
			return
		}
		if again, err := ParseKind(string(k)); err != nil || again != k {
			t.Errorf("ParseKind(%q) = %q, which parses to %q, %v", s, k, again, err)
		}
	})
}

func TestHubID(t *testing.T) {
	for _, tt := range []struct{ model, want string }{
		{"llama-3.1-8b", "meta-llama/Llama-3.1-8B"},
		{"mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1"},
		{"Qwen/Qwen3-14B", "Qwen/Qwen3-14B"},
		{"13B", ""},
	} {
		if got, _ := hubID(tt.model); got != tt.want {
			t.Errorf("hubID(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}

// collector records what a check reports; Fatal stops the check.
type collector struct{ problems []string }

type stopCheck struct{}

func (c *collector) Helper() {}
func (c *collector) Errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}
func (c *collector) Fatalf(format string, args ...any) {
	c.Errorf(format, args...)
	panic(stopCheck{})
}
func (c *collector) Fatal(args ...any) {
	c.problems = append(c.problems, fmt.Sprint(args...))
	panic(stopCheck{})
}

// problems runs a check on cfg with a collector.
func problems(cfg Config, p Plan) (out []string) {
	c := &collector{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopCheck); !ok {
				panic(r)
			}
		}
		out = c.problems
	}()
	checkConfig(c, cfg, p)
	return c.problems
}

// TestChecksCatchTamperedConfigs makes sure the parse-back checks can
// fail: each emitted config, changed the way a hand edit or a bug would
// change it, is caught, and the untouched one is not.
func TestChecksCatchTamperedConfigs(t *testing.T) {
	byName := map[string]launchCase{}
	for _, c := range launchCases {
		byName[c.name] = c
	}
	for _, tt := range []struct {
		caseName string
		kind     Kind
		old, new string
	}{
		{"zero2-accum", KindDeepSpeed, `"train_batch_size": 64`, `"train_batch_size": 32`},
		{"zero2-accum", KindDeepSpeed, `"stage": 2`, `"stage": 3`},
		{"zero2-accum", KindDeepSpeed, `"gradient_clipping"`, `"grad_clip"`},
		{"zero3-offload-2nodes", KindDeepSpeed, `"device": "cpu"`, `"device": "nvme"`},
		{"zero2-accum", KindAccelerate, "fsdp_reshard_after_forward: false", "fsdp_reshard_after_forward: true"},
		{"zero2-accum", KindAccelerate, "num_processes: 8", "num_processes: 4"},
		{"tp8-kvfp8", KindVLLM, "--tensor-parallel-size 8", "--tensor-parallel-size 4"},
		{"tp8-kvfp8", KindVLLM, "--kv-cache-dtype fp8", "--kv-cache-dtype int8"},
		{"tp8-kvfp8", KindVLLM, "--max-model-len", "--max-len"},
		{"tp2-awq", KindVLLM, "--gpu-memory-utilization 0.90", "--gpu-memory-utilization 0.30"},
		{"gguf-4090", KindLlamaCpp, "-c 32768", "-c 8192"},
		{"gguf-kv-int8", KindLlamaCpp, "-ctk q8_0", "-ctk int8"},
		{"zero3-offload-2nodes", KindSkyPilot, "H100:8", "H100:4"},
		{"zero3-offload-2nodes", KindSkyPilot, "use_spot: true", "use_spot: false"},
		{"zero3-offload-2nodes", KindSkyPilot, "disk_size:", "disk:"},
	} {
		_, a := answerFor(t, byName[tt.caseName])
		p := PlanOf(a)
		cfg, err := Emit(tt.kind, p)
		if err != nil {
			t.Fatalf("%s/%s: %v", tt.caseName, tt.kind, err)
		}
		if got := problems(cfg, p); len(got) != 0 {
			t.Fatalf("%s/%s untouched: %v", tt.caseName, tt.kind, got)
		}
		if !strings.Contains(cfg.Text, tt.old) {
			t.Fatalf("%s/%s has no %q to tamper with", tt.caseName, tt.kind, tt.old)
		}
		cfg.Text = strings.Replace(cfg.Text, tt.old, tt.new, 1)
		if got := problems(cfg, p); len(got) == 0 {
			t.Errorf("%s/%s with %q for %q: the checks found nothing", tt.caseName, tt.kind, tt.new, tt.old)
		}
	}
}

// TestServingNeedsAHubRepo: a bare size trains (DeepSpeed needs no repo)
// but cannot be served, and says why.
func TestServingNeedsAHubRepo(t *testing.T) {
	_, train := answerFor(t, launchCase{name: "bare-train", words: "7B full on 8 a100 zero 3"})
	if _, err := Emit(KindDeepSpeed, PlanOf(train)); err != nil {
		t.Errorf("DeepSpeed for a bare size: %v", err)
	}
	_, serve := answerFor(t, launchCase{name: "bare-serve", words: "7B inference l4"})
	for _, k := range []Kind{KindVLLM, KindSkyPilot} {
		_, err := Emit(k, PlanOf(serve))
		if err == nil || !strings.Contains(err.Error(), "knows no Hugging Face repo") {
			t.Errorf("%s for a bare size: %v, want the missing repo said", k, err)
		}
	}
}

// TestVLLMKeepsTheAnsweredUtilisation: the engine is started at the
// memory share the capacity was answered at, a lower share the question
// asked included, so it holds the KV cache it was sized with.
func TestVLLMKeepsTheAnsweredUtilisation(t *testing.T) {
	for words, want := range map[string]string{
		"llama 3.1 8b inference h100 50 users":              "--gpu-memory-utilization 0.90",
		"llama 3.1 8b inference h100 50 users gpu util 0.8": "--gpu-memory-utilization 0.80",
	} {
		_, a := answerFor(t, launchCase{name: words, words: words})
		cfg, err := Emit(KindVLLM, PlanOf(a))
		if err != nil {
			t.Fatalf("%q: %v", words, err)
		}
		if !strings.Contains(cfg.Text, want) {
			t.Errorf("%q: command lacks %q:\n%s", words, want, cfg.Text)
		}
	}
}

// TestNoGPUEngineOnApple: vLLM and SGLang run on no Apple GPU, so an
// answer on a Mac gets neither config, and says why.
func TestNoGPUEngineOnApple(t *testing.T) {
	_, a := answerFor(t, launchCase{name: "mac-bf16", words: "llama 3.1 8b inference m4 max 128gb"})
	for _, k := range []Kind{KindVLLM, KindSGLang} {
		_, err := Emit(k, PlanOf(a))
		if err == nil || !strings.Contains(err.Error(), "Apple silicon") {
			t.Errorf("%s on a Mac: %v, want a refusal naming Apple silicon", k, err)
		}
	}
}
