package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitEmit runs `fitbot fit --emit` end to end: the config on stdout,
// notes on stderr, the exit codes of the contract.
func TestFitEmit(t *testing.T) {
	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string
		stdoutJSON bool
	}{
		{name: "deepspeed zero-3", args: []string{"--emit", "deepspeed", "llama", "3.1", "70b", "full", "on", "2", "nodes", "of", "8", "h100", "zero", "3", "offload", "cpu"},
			code: exitOK, stdoutHas: `"train_batch_size": 16`, stdoutJSON: true},
		{name: "flag after the words", args: []string{"llama", "3.1", "8b", "inference", "l4", "--emit=vllm"},
			code: exitOK, stdoutHas: "vllm serve meta-llama/Llama-3.1-8B", stderrHas: "note: --gpu-memory-utilization"},
		{name: "misfit emits the first alternative", args: []string{"--emit", "deepspeed", "llama", "3.1", "70b", "full", "4090"},
			code: exitOK, stdoutHas: `"zero_optimization"`, stderrHas: "does not fit", stdoutJSON: true},
		{name: "wrong kind for the answer", args: []string{"--emit", "vllm", "13B", "lora", "4090"},
			code: exitUsage, stderrHas: "Try: fitbot fit --emit deepspeed 13B lora 4090"},
		{name: "unknown kind", args: []string{"--emit", "torchtitan", "13B", "lora", "4090"},
			code: exitUsage, stderrHas: "one of deepspeed, accelerate, vllm, llama.cpp, skypilot, sglang, megatron"},
		{name: "no value", args: []string{"13B", "lora", "4090", "--emit"},
			code: exitUsage, stderrHas: "--emit needs a value"},
		{name: "a search, not one configuration", args: []string{"--emit", "deepspeed", "what", "2x4090", "lora"},
			code: exitUsage, stderrHas: "need a question with one configuration"},
		{name: "with --json", args: []string{"--json", "--emit", "deepspeed", "13B", "lora", "4090"},
			code: exitUsage, stderrHas: "ask for one at a time"},
		{name: "serving capacity to vllm", args: []string{"--emit", "vllm", "how", "many", "users", "can", "2xh100", "serve", "llama-3.1-70b", "fp8", "at", "4k", "context"},
			code: exitOK, stdoutHas: "--max-num-seqs 55", stderrHas: "requests of 4096 tokens at once"},
		{name: "serving plan to sglang", args: []string{"--emit", "sglang", "gpus", "for", "200", "users", "of", "llama-3.1-70b", "ttft", "1s", "20", "tok/s", "each"},
			code: exitOK, stdoutHas: "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct", stderrHas: "replicas the load needs"},
		{name: "with --save", args: []string{"--save", "--emit", "deepspeed", "13B", "lora", "4090"},
			code: exitUsage, stderrHas: "save the plan with a separate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runFit(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			if !strings.Contains(out, tt.stdoutHas) || !strings.Contains(errOut, tt.stderrHas) {
				t.Errorf("stdout %q\nstderr %q\nwant %q and %q", out, errOut, tt.stdoutHas, tt.stderrHas)
			}
			if tt.stdoutJSON && !json.Valid([]byte(out)) {
				t.Errorf("stdout is not the JSON config alone: %q", out)
			}
		})
	}
}

// TestFitAndPricesChart writes both pictures through the CLI and decodes
// them; the text answer still goes to stdout with --chart.
func TestFitAndPricesChart(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "memory.png")
	code, out, errOut := runFit(t, "--chart", mem, "13B", "lora", "4090")
	if code != exitOK || out == "" {
		t.Fatalf("fit --chart: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	checkPNGFile(t, mem)

	prices := filepath.Join(dir, "h100.png")
	t.Setenv("FITBOT_DB", filepath.Join(dir, "none.db"))
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"prices", "--chart", prices, "h100"}, &o, &e); code != exitOK {
		t.Fatalf("prices --chart: exit %d, stderr %q", code, e.String())
	}
	if !strings.Contains(e.String(), "no on-demand h100 prices") {
		t.Errorf("an empty history is not said: %q", e.String())
	}
	checkPNGFile(t, prices)
	if code := run(context.Background(), []string{"prices", "--chart", prices}, &o, &e); code != exitUsage {
		t.Errorf("prices --chart without a GPU: exit %d, want %d", code, exitUsage)
	}
}

func checkPNGFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}
