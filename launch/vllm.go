package launch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// vllmQuantization is vLLM's --quantization for a weight format; ok is
// false for formats vLLM does not serve from a Hub checkpoint (GGUF goes
// to llama.cpp). The released formats (fp8, mxfp4) are read from the
// checkpoint too; naming them keeps the command explicit.
func vllmQuantization(q sizing.Quant) (string, bool) {
	switch q {
	case sizing.QuantNone:
		return "", true
	case sizing.QuantAWQ:
		return "awq", true
	case sizing.QuantGPTQ:
		return "gptq", true
	case sizing.QuantFP8:
		return "fp8", true
	case sizing.QuantMXFP4:
		return "mxfp4", true
	case sizing.QuantNVFP4:
		return "modelopt_fp4", true
	case sizing.QuantINT8, sizing.QuantNF4, sizing.QuantNF4DQ:
		return "bitsandbytes", true
	}
	return "", false
}

// vllmDType is vLLM's --dtype for the activations' precision.
func vllmDType(p sizing.Precision) string {
	switch p {
	case sizing.PrecisionFP16:
		return "float16"
	case sizing.PrecisionFP32:
		return "float32"
	}
	return "bfloat16"
}

// vllmKVCacheDType is vLLM's --kv-cache-dtype: "" for a 16-bit cache
// (vLLM's auto), fp8 for an fp8 cache; ok is false for int8/int4 caches,
// which vLLM does not offer.
func vllmKVCacheDType(p sizing.Precision) (string, bool) {
	switch p {
	case "", sizing.PrecisionBF16, sizing.PrecisionFP16, sizing.PrecisionFP32:
		return "", true
	case sizing.PrecisionFP8:
		return "fp8", true
	}
	return "", false
}

func emitVLLM(p Plan) (Config, error) {
	args, notes, err := vllmArgs(p)
	if err != nil {
		return Config{}, err
	}
	return Config{Kind: KindVLLM, Filename: "vllm_serve.sh", Text: shellCommand(args), Notes: notes}, nil
}

// vllmArgs is the `vllm serve` command line of a serving plan.
func vllmArgs(p Plan) ([]string, []string, error) {
	r := p.Request
	if training(r) {
		return nil, nil, &Unsupported{Kind: KindVLLM, Reason: "vLLM serves models and this answer trains one", Try: DefaultKind(r)}
	}
	if isGGUF(r.Quant) {
		return nil, nil, &Unsupported{Kind: KindVLLM, Reason: fmt.Sprintf("the answer serves GGUF %s weights", r.Quant), Try: KindLlamaCpp}
	}
	if err := onApple(KindVLLM, p); err != nil {
		return nil, nil, err
	}
	quant, ok := vllmQuantization(r.Quant)
	if r.Quant == sizing.QuantNone && r.Precision == sizing.PrecisionFP8 {
		quant = "fp8" // fp8 weights said as a precision: vLLM's dynamic fp8
	}
	if !ok {
		return nil, nil, &Unsupported{Kind: KindVLLM, Reason: fmt.Sprintf("vLLM has no %s weight format", r.Quant)}
	}
	kv, ok := vllmKVCacheDType(r.KVPrecision)
	if !ok {
		return nil, nil, &Unsupported{Kind: KindVLLM, Reason: fmt.Sprintf("vLLM's KV cache is 16-bit or fp8, not %s (ask for an fp8 KV cache)", r.KVPrecision), Try: KindLlamaCpp}
	}
	if p.HubID == "" {
		return nil, nil, &Unsupported{Kind: KindVLLM, Reason: "fitbot knows no Hugging Face repo for this model (a bare size or a local config.json): name a catalog model or a Hub id"}
	}
	repo, prequantised := servingRepo(p.HubID, r.Quant)
	var notes []string
	switch {
	case prequantised:
		// vLLM reads the format from the checkpoint and picks its fast
		// kernel; --quantization awq or gptq would force the slow one.
		quant = ""
	case r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ:
		quant = "" // never force the slow AWQ/GPTQ kernel (awq_marlin and gptq_marlin are picked from the checkpoint)
		notes = append(notes, fmt.Sprintf("%s needs a checkpoint quantised that way: replace %s with a repo of the same model quantised with %s (vLLM reads the format from it)", r.Quant, repo, strings.ToUpper(string(r.Quant))))
	case r.Quant == sizing.QuantNVFP4:
		notes = append(notes, fmt.Sprintf("%s needs a checkpoint quantised that way: replace %s with a repo of the same model quantised with %s", r.Quant, repo, strings.ToUpper(string(r.Quant))))
	case r.Quant == sizing.QuantINT8:
		notes = append(notes, "bitsandbytes int8 needs a pre-quantised 8-bit checkpoint; vLLM quantises in flight to 4-bit only")
	}
	dtype := vllmDType(r.Precision)
	if r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ {
		dtype = "float16" // vLLM's AWQ and GPTQ kernels take fp16 activations
	}
	maxLen, seqs, util := r.SeqLen, max(r.MicroBatch, 1), memoryUtilization(p)
	if sv := p.Serving; sv != nil && sv.Fits {
		// The share the capacity was answered at (vLLM's 0.9 unless the
		// question asked another), so the engine holds the KV it was sized with.
		maxLen, seqs, util = sv.MaxModelLen, max(sv.Concurrency, 1), sv.GPUMemoryUtilization
	}
	tp, pp := servingLayout(p)
	args := []string{"vllm", "serve", repo,
		"--tensor-parallel-size", strconv.Itoa(tp)}
	if pp > 1 {
		args = append(args, "--pipeline-parallel-size", strconv.Itoa(pp))
	}
	args = append(args, "--dtype", dtype)
	if quant != "" {
		args = append(args, "--quantization", quant)
	}
	args = append(args,
		"--max-model-len", strconv.Itoa(maxLen),
		"--max-num-seqs", strconv.Itoa(seqs),
		"--gpu-memory-utilization", strconv.FormatFloat(util, 'f', 2, 64))
	if kv != "" {
		args = append(args, "--kv-cache-dtype", kv)
	}
	if r.Nodes > 1 {
		notes = append(notes, fmt.Sprintf("%d machines: start a Ray cluster over them first (vLLM's multi-node serving)", r.Nodes))
	}
	if sv := p.Serving; sv != nil && sv.Replicas > 1 {
		notes = append(notes, replicaNote(sv.Replicas))
	}
	if sv := p.Serving; sv != nil && sv.Fits {
		requests := "requests"
		if sv.MaxConcurrency == 1 {
			requests = "request"
		}
		notes = append(notes, fmt.Sprintf("--gpu-memory-utilization %.2f leaves %.1f GiB of KV cache per GPU: about %s tokens, %d %s of %d tokens at once (--max-num-seqs %d)",
			util, float64(sv.KVCacheBytes)/gib, commas(sv.KVCacheTokens), sv.MaxConcurrency, requests, sv.PromptTokens+sv.OutputTokens, seqs))
	} else {
		notes = append(notes, fmt.Sprintf("--gpu-memory-utilization %.2f: the estimate needs %.1f GiB per GPU of the card's %.1f GiB (%d × %d tokens of KV cache); vLLM gives the rest of the fraction to more KV cache",
			util, float64(p.PerGPU.TotalBytes)/gib, float64(p.VRAMBytes)/gib, max(r.MicroBatch, 1), r.SeqLen))
	}
	return args, notes, nil
}

// shellCommand writes a command line one argument pair per line, joined
// with backslashes, quoting what the shell would split.
func shellCommand(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			if strings.HasPrefix(a, "-") {
				b.WriteString(" \\\n  ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(shellQuote(a))
	}
	b.WriteByte('\n')
	return b.String()
}

// shellQuote quotes an argument in single quotes when it holds anything
// but letters, digits and -_./:=.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=$", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// commas groups the digits of n in thousands ("178,880").
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// replicaNote says a serving config is one of n identical replicas.
func replicaNote(n int) string {
	return fmt.Sprintf("this is one of %d replicas the load needs: run %d copies, each on its own GPUs, behind a load balancer", n, n)
}
