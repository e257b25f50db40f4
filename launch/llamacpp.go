package launch

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// llamaCacheType is llama.cpp's -ctk/-ctv for a KV-cache precision: ""
// for its f16 default; ok is false for precisions it has no type for.
func llamaCacheType(p sizing.Precision) (string, bool) {
	switch p {
	case "", sizing.PrecisionBF16, sizing.PrecisionFP16:
		return "", true
	case sizing.PrecisionINT8:
		return "q8_0", true
	case sizing.PrecisionINT4:
		return "q4_0", true
	}
	return "", false
}

// allLayers is -ngl's "every layer" when the layer count is unknown.
const allLayers = 999

func emitLlamaCpp(p Plan) (Config, error) {
	args, notes, err := llamaArgs(p)
	if err != nil {
		return Config{}, err
	}
	return Config{Kind: KindLlamaCpp, Filename: "llama_server.sh", Text: shellCommand(args), Notes: notes}, nil
}

// ggufFile is the quant file's name as GGUF repos name them:
// <model>-<QUANT>.gguf.
func ggufFile(p Plan) string {
	base := path.Base(p.HubID)
	if base == "." || base == "" {
		base = strings.ReplaceAll(p.Request.Model, " ", "-")
	}
	return fmt.Sprintf("%s-%s.gguf", base, strings.ToUpper(string(p.Request.Quant)))
}

// llamaArgs is the `llama-server` command line of a GGUF serving plan.
func llamaArgs(p Plan) ([]string, []string, error) {
	r := p.Request
	if training(r) {
		return nil, nil, &Unsupported{Kind: KindLlamaCpp, Reason: "llama-server serves models and this answer trains one", Try: DefaultKind(r)}
	}
	if !isGGUF(r.Quant) {
		return nil, nil, &Unsupported{Kind: KindLlamaCpp, Reason: "llama.cpp runs GGUF files and this answer keeps the weights in " + weightFormat(r), Try: KindVLLM}
	}
	if r.Nodes > 1 {
		return nil, nil, &Unsupported{Kind: KindLlamaCpp, Reason: "llama-server runs on one machine and this answer spans several", Try: KindVLLM}
	}
	ct, ok := llamaCacheType(r.KVPrecision)
	if !ok {
		return nil, nil, &Unsupported{Kind: KindLlamaCpp, Reason: fmt.Sprintf("llama.cpp has no %s KV cache (q8_0 is its 8-bit one: ask for an int8 KV cache)", r.KVPrecision)}
	}
	slots := max(r.MicroBatch, 1)
	ngl := allLayers
	if p.Layers > 0 {
		ngl = p.Layers + 1 // the blocks and the output layer
	}
	args := []string{"llama-server", "-m", ggufFile(p),
		"-ngl", strconv.Itoa(ngl),
		"-c", strconv.Itoa(r.SeqLen * slots),
		"-np", strconv.Itoa(slots)}
	if ct != "" {
		// A quantised V cache needs flash attention: llama.cpp refuses it
		// with flash attention off, and older builds default to off.
		args = append(args, "-ctk", ct, "-ctv", ct, "-fa", "on")
	}
	args = append(args, "--host", "0.0.0.0", "--port", "8080")
	var notes []string
	if slots > 1 {
		notes = append(notes, fmt.Sprintf("-c is the whole context: %d tokens for each of %d parallel slots", r.SeqLen, slots))
	}
	if p.HubID != "" {
		notes = append(notes, fmt.Sprintf("%s is a GGUF conversion of %s: download it from a GGUF repo of that model", ggufFile(p), p.HubID))
	}
	if r.GPUs > 1 {
		notes = append(notes, fmt.Sprintf("llama.cpp splits the layers over the %d visible GPUs (--split-mode layer)", r.GPUs))
	}
	return args, notes, nil
}

func weightFormat(r sizing.Request) string {
	if r.Quant != sizing.QuantNone {
		return string(r.Quant)
	}
	return string(r.Precision)
}
