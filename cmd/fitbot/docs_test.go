package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsHaveNoConflictMarkers: a merge left "<<<<<<< HEAD" in the
// README's JSON contract once, and nothing read the README; the pages
// people read must not carry a merge's leftovers.
func TestDocsHaveNoConflictMarkers(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pages, "../../README.md", "../../BENCHMARKS.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") || line == "=======" {
				t.Errorf("%s:%d: a merge conflict marker: %q", p, n+1, line)
			}
		}
	}
}

// TestReadmeShort: the README is what a newcomer reads first and
// finishes; the rest is in docs/.
func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines, at most 200: move the detail to docs/", n)
	}
}

// designKeys are the JSON keys DESIGN.md fixes as the contract.
var designKeys = []string{
	"request", "model", "params", "active_params", "method", "optimizer", "precision", "gpu", "gpus",
	"nodes", "zero_stage", "offload", "seq_len", "micro_batch", "grad_checkpointing", "lora_rank",
	"quant", "tokens", "assumptions", "fits", "per_gpu", "weights_bytes", "gradients_bytes",
	"optimizer_bytes", "activations_bytes", "kv_cache_bytes", "overhead_bytes", "total_bytes",
	"vram_bytes", "host_ram_bytes", "disk_bytes", "throughput", "tokens_per_second", "hours",
	"usd_per_hour", "usd_total", "alternatives", "why", "week_start", "week_end", "moves",
	"new_offers", "removed_offers", "cheapest", "plans", "stale_sources", "provider", "market",
	"old_usd_per_gpu_hour", "new_usd_per_gpu_hour", "change_pct", "grad_accum_steps", "kind",
	"concurrency", "requests_per_second", "prompt_tokens", "output_tokens", "ttft_target_seconds",
	"tokens_per_second_per_user_target", "gpu_memory_utilization", "serving", "engine",
	"kv_cache_tokens", "max_concurrency", "ttft_seconds", "tpot_seconds", "output_tokens_per_second",
	"replicas", "gpus_per_replica", "usd_per_month", "usd_per_million_output_tokens",
	"tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel", "mfu",
	"flops_per_token", "fused_loss", "architecture", "resolution", "cluster", "source", "checked_at",
	"nodes", "name", "gpus_total", "gpus_free", "memory_bytes", "free", "clarify", "readings",
	"interpreted", "by", "unused_words", "model_error", "measured", "runs", "memory_ratio_mean",
	"memory_ratio_spread", "speed_ratio_mean", "speed_ratio_spread", "pending", "since",
	"start_estimate", "cluster_placement", "free_now", "missing",
}

// TestJSONDocKeepsDesignKeys: docs/json.md names every key of the
// design contract.
func TestJSONDocKeepsDesignKeys(t *testing.T) {
	b, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	word := regexp.MustCompile(`[a-z_0-9]+`)
	have := map[string]bool{}
	for _, w := range word.FindAllString(string(b), -1) {
		have[w] = true
	}
	for _, k := range designKeys {
		if !have[k] {
			t.Errorf("docs/json.md does not name the contract's key %q", k)
		}
	}
}

// jsonExample is one example of docs/json.md: the commands its line
// names, run in order, and the JSON shown for the last one.
type jsonExample struct {
	line     int
	commands [][]string
	json     string
}

// jsonExamples reads the examples of docs/json.md: a line starting
// "Example:" names `fitbot ...` commands, and a ```json block follows.
func jsonExamples(t *testing.T) []jsonExample {
	t.Helper()
	b, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile("`fitbot ([^`]+)`")
	var out []jsonExample
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "Example:") {
			continue
		}
		ex := jsonExample{line: i + 1}
		for _, m := range command.FindAllStringSubmatch(lines[i], -1) {
			ex.commands = append(ex.commands, strings.Fields(m[1]))
		}
		if len(ex.commands) == 0 || i+1 >= len(lines) || lines[i+1] != "```json" {
			t.Fatalf("docs/json.md:%d: an example names a `fitbot ...` command and a ```json block follows", i+1)
		}
		var body []string
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		ex.json = strings.Join(body, "\n")
		out = append(out, ex)
	}
	return out
}

// keyPaths are the paths of every key in a decoded JSON value, an array's
// elements all under "[]".
func keyPaths(v any, prefix string, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			into[prefix+"."+k] = true
			keyPaths(e, prefix+"."+k, into)
		}
	case []any:
		for _, e := range v {
			keyPaths(e, prefix+"[]", into)
		}
	}
}

// TestJSONDocExamples runs every example's commands of docs/json.md and
// holds the example to the real output: each key it shows is in the
// output, and its kind is the output's. The examples are the output
// abridged, so a key that was renamed or dropped fails here.
func TestJSONDocExamples(t *testing.T) {
	examples := jsonExamples(t)
	if len(examples) < 9 {
		t.Fatalf("only %d examples in docs/json.md", len(examples))
	}
	noCluster(t)
	useDB(t)
	t.Setenv("FITBOT_SLURM_URL", fakeSlurm(t).URL)
	t.Setenv("FITBOT_SLURM_TOKEN", slurmToken)
	for _, ex := range examples {
		var out string
		for _, args := range ex.commands {
			code, stdout, stderr := runCmd(t, args...)
			if code != exitOK {
				t.Fatalf("docs/json.md:%d: fitbot %s: exit %d: %s", ex.line, strings.Join(args, " "), code, stderr)
			}
			out = stdout
		}
		var shown, got any
		if err := json.Unmarshal([]byte(ex.json), &shown); err != nil {
			t.Errorf("docs/json.md:%d: the example is not JSON: %v", ex.line, err)
			continue
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Errorf("docs/json.md:%d: the command printed no JSON: %v", ex.line, err)
			continue
		}
		want, have := map[string]bool{}, map[string]bool{}
		keyPaths(shown, "", want)
		keyPaths(got, "", have)
		for p := range want {
			if !have[p] {
				t.Errorf("docs/json.md:%d: the example shows %s, which the output lacks", ex.line, p)
			}
		}
		m, _ := shown.(map[string]any)
		g, _ := got.(map[string]any)
		if m["kind"] != g["kind"] {
			t.Errorf("docs/json.md:%d: the example is kind %v, the output %v", ex.line, m["kind"], g["kind"])
		}
	}
}

// TestReadmeFirstAnswer: the README shows what its first command prints;
// every line it shows whole (not an elision marked "...") must be a line
// the command prints today, or the first thing a newcomer compares is stale.
func TestReadmeFirstAnswer(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "The first command prints:\n\n```\n")
	if !ok {
		t.Fatal(`README.md: no "The first command prints:" block`)
	}
	shown, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatal("README.md: the first answer's block is not closed")
	}
	code, out, errOut := runFit(t, "13B", "lora", "4090")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	printed := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		printed[line] = true
	}
	for _, line := range strings.Split(shown, "\n") {
		if line == "" || strings.Contains(line, "...") {
			continue
		}
		if !printed[line] {
			t.Errorf("README.md shows a line `fitbot fit 13B lora 4090` does not print:\n%s", line)
		}
	}
}
