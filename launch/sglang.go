package launch

import (
	"fmt"
	"strconv"

	"github.com/fitbot/fitbot/sizing"
)

// KindSGLang is SGLang's server, `python -m sglang.launch_server`.
const KindSGLang Kind = "sglang"

// sglangQuantization is SGLang's --quantization for a weight format that
// is quantised in flight: vLLM's names, which SGLang shares, except that
// an AWQ or GPTQ checkpoint names its own format and gets none; ok is
// false for formats SGLang does not serve.
func sglangQuantization(q sizing.Quant) (string, bool) {
	if q == sizing.QuantAWQ || q == sizing.QuantGPTQ {
		return "", true
	}
	return vllmQuantization(q)
}

// emitSGLang writes the SGLang command of a serving plan: the same
// replica, context and concurrency as the vLLM command, with SGLang's
// memory share (--mem-fraction-static) as answered.
func emitSGLang(p Plan) (Config, error) {
	r := p.Request
	switch {
	case training(r):
		return Config{}, &Unsupported{Kind: KindSGLang, Reason: "SGLang serves models and this answer trains one", Try: DefaultKind(r)}
	case isGGUF(r.Quant):
		return Config{}, &Unsupported{Kind: KindSGLang, Reason: fmt.Sprintf("the answer serves GGUF %s weights", r.Quant), Try: KindLlamaCpp}
	case p.HubID == "":
		return Config{}, &Unsupported{Kind: KindSGLang, Reason: "fitbot knows no Hugging Face repo for this model (a bare size or a local config.json): name a catalog model or a Hub id"}
	}
	if err := onApple(KindSGLang, p); err != nil {
		return Config{}, err
	}
	quant, ok := sglangQuantization(r.Quant)
	if !ok {
		return Config{}, &Unsupported{Kind: KindSGLang, Reason: fmt.Sprintf("SGLang has no %s weight format", r.Quant)}
	}
	if r.Quant == sizing.QuantNone && r.Precision == sizing.PrecisionFP8 {
		quant = "fp8"
	}
	repo, prequantised := servingRepo(p.HubID, r.Quant)
	if prequantised {
		quant = ""
	}
	var kv string
	switch r.KVPrecision {
	case "", sizing.PrecisionBF16, sizing.PrecisionFP16, sizing.PrecisionFP32:
	case sizing.PrecisionFP8:
		kv = "fp8_e4m3"
	default:
		return Config{}, &Unsupported{Kind: KindSGLang, Reason: fmt.Sprintf("SGLang's KV cache is 16-bit or fp8, not %s", r.KVPrecision), Try: KindLlamaCpp}
	}
	maxLen, seqs, frac := r.SeqLen, max(r.MicroBatch, 1), memoryUtilization(p)
	if sv := p.Serving; sv != nil && sv.Fits {
		maxLen, seqs = sv.MaxModelLen, max(sv.Concurrency, 1)
		if sv.Engine == sizing.EngineSGLang {
			frac = sv.GPUMemoryUtilization
		}
	}
	tp, pp := servingLayout(p)
	args := []string{"python", "-m", "sglang.launch_server", "--model-path", repo,
		"--tp-size", strconv.Itoa(tp)}
	if pp > 1 {
		args = append(args, "--pp-size", strconv.Itoa(pp))
	}
	if r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ {
		args = append(args, "--dtype", "float16")
	}
	if quant != "" {
		args = append(args, "--quantization", quant)
	}
	args = append(args,
		"--context-length", strconv.Itoa(maxLen),
		"--max-running-requests", strconv.Itoa(seqs),
		"--mem-fraction-static", strconv.FormatFloat(frac, 'f', 2, 64))
	if kv != "" {
		args = append(args, "--kv-cache-dtype", kv)
	}
	notes := []string{fmt.Sprintf("--mem-fraction-static %.2f: SGLang keeps the weights and the KV cache within this share of each card and its activations and CUDA graphs in the rest", frac)}
	if !prequantised && (r.Quant == sizing.QuantAWQ || r.Quant == sizing.QuantGPTQ) {
		notes = append(notes, fmt.Sprintf("%s needs a checkpoint quantised that way: replace %s with a repo of the same model quantised with %s", r.Quant, repo, r.Quant))
	}
	if sv := p.Serving; sv != nil && sv.Replicas > 1 {
		notes = append(notes, replicaNote(sv.Replicas))
	}
	if r.Nodes > 1 {
		notes = append(notes, fmt.Sprintf("%d machines: start the same command on each with --nnodes %d --node-rank N --dist-init-addr HEAD:PORT", r.Nodes, r.Nodes))
	}
	// "python -m sglang.launch_server" stays on the first line with the model.
	return Config{Kind: KindSGLang, Filename: "sglang_serve.sh", Text: "python -m sglang.launch_server " + shellCommand(args[3:]), Notes: notes}, nil
}
