package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/fitbot/fitbot/internal/golden"
	"path/filepath"
	"strings"
	"testing"
)

func runFit(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// No database: the answer is priced from the embedded sheet, whatever
	// fitbot.db a developer has lying around.
	t.Setenv("FITBOT_DB", filepath.Join(t.TempDir(), "none.db"))
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"fit"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestFitJSONGolden pins `fitbot fit --json 13B lora 4090`, the README's
// first command, against testdata/fit_13b_lora_4090.json (go test -update
// rewrites it).
func TestFitJSONGolden(t *testing.T) {
	code, out, errOut := runFit(t, "--json", "13B", "lora", "4090")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "fit_13b_lora_4090.json"), []byte(out))
}

// TestFitJSONKeys checks the DESIGN.md contract: every key of fit --json
// is there, with the right shape, and flags work after the words.
func TestFitJSONKeys(t *testing.T) {
	code, out, errOut := runFit(t, "llama", "3.1", "8b", "qlora", "on", "2", "a100", "for", "1B", "tokens", "--json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"request", "assumptions", "fits", "per_gpu", "vram_bytes", "host_ram_bytes", "disk_bytes", "throughput", "alternatives"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	var sub map[string]any
	for key, keys := range map[string][]string{
		"request": {"model", "params", "active_params", "method", "optimizer", "precision", "gpu", "gpus", "nodes",
			"zero_stage", "offload", "seq_len", "micro_batch", "grad_checkpointing", "lora_rank", "quant", "tokens"},
		"per_gpu":    {"weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "kv_cache_bytes", "overhead_bytes", "total_bytes"},
		"throughput": {"tokens_per_second", "hours", "usd_per_hour", "usd_total"},
	} {
		sub = nil
		if err := json.Unmarshal(got[key], &sub); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		for _, k := range keys {
			if _, ok := sub[k]; !ok {
				t.Errorf("%s: missing key %q", key, k)
			}
		}
	}
	if !strings.Contains(string(got["request"]), `"tokens": 1000000000`) || !strings.Contains(string(got["request"]), `"gpus": 2`) {
		t.Errorf("request = %s, want 1B tokens on 2 GPUs", got["request"])
	}
	if strings.Contains(string(got["throughput"]), "null") {
		t.Errorf("throughput = %s: with a token budget and the default price sheet nothing should be null", got["throughput"])
	}
}

// TestFitText checks the readable answer: verdict first, the breakdown,
// alternatives with prices, assumptions last.
func TestFitText(t *testing.T) {
	code, out, _ := runFit(t, "13B", "lora", "4090")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(out, "❌ Does not fit as asked: 13B (bare size), LoRA r=16 on 1× RTX 4090 24 GB") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "; fits with QLoRA (4-bit base, adapters only) on the same card: 11.4 GiB") {
		t.Errorf("first line = %q", strings.SplitN(out, "\n", 2)[0])
	}
	order := []string{"Per GPU (GiB", "weights", "total", "Speed:", "Alternatives:", "1. QLoRA", "Assumed:"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", s, out)
		}
		at += i
	}
	code, out, _ = runFit(t, "llama", "3.1", "8b", "qlora", "4090")
	if code != exitOK || !strings.HasPrefix(out, "✅ Fits: Llama 3.1 8B, QLoRA r=16 on 1× RTX 4090 24 GB") {
		t.Errorf("exit %d, first line %q", code, strings.SplitN(out, "\n", 2)[0])
	}
}

// TestFitBadInput: input that cannot be used exits 2 with the problem and
// a "Try:" hint on stderr, never an answer on stdout.
func TestFitBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"13B", "lora", "4099"}, "did you mean rtx-4090"},
		{[]string{"llama", "9", "1b", "lora", "4090"}, "Try:"},
		{[]string{"llama", "2", "7b", "inference", "4090", "seq", "8192"}, "context of 4096"},
		{[]string{"--config"}, "needs a file"},
		{[]string{"--config", "testdata/missing/config.json", "lora", "4090"}, "read --config"},
		{[]string{"--frobnicate", "13B"}, "unknown flag"},
		{[]string{}, "Usage"},
	} {
		code, out, errOut := runFit(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, exitUsage, errOut)
		}
		if out != "" {
			t.Errorf("%q: printed an answer on stdout: %q", tc.args, out)
		}
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: stderr %q, want it to contain %q", tc.args, errOut, tc.want)
		}
	}
}

// TestFitConfig sizes a model from a Hugging Face config.json (Qwen2.5-0.5B's
// published config): 494,032,768 parameters.
func TestFitConfig(t *testing.T) {
	code, out, errOut := runFit(t, "--config", filepath.Join("testdata", "Qwen2.5-0.5B", "config.json"), "--json", "full", "rtx-4090")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var a struct {
		Request struct {
			Params int64  `json:"params"`
			Method string `json:"method"`
		} `json:"request"`
		Fits bool `json:"fits"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if a.Request.Params != 494_032_768 || a.Request.Method != "full" || !a.Fits {
		t.Errorf("got %+v, want 494,032,768 params, full, fits", a)
	}
}

func TestFitHelp(t *testing.T) {
	code, out, _ := runFit(t, "-h")
	if code != exitOK || !strings.Contains(out, "Usage: fitbot fit") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// TestFitServingCardsWithoutCount: a serving load on cards named without
// a count ("on h100s", "on an h100") asks how many of them it needs, in
// which weight format (#31), after what one of them holds.
func TestFitServingCardsWithoutCount(t *testing.T) {
	const oneHolds = "One H100 SXM 80 GB holds 24 of the 100 users at once (awq). "
	code, out, _ := runFit(t, "llama", "3.1", "70b", "for", "100", "concurrent", "users", "on", "h100s")
	first := strings.SplitN(out, "\n", 2)[0]
	if code != exitOK || !strings.HasPrefix(first, oneHolds+"Cheapest for 100 users of Llama 3.1 70B: ") || !strings.Contains(first, "H100 SXM 80 GB (") {
		t.Errorf("exit %d, first line %q, want the H100s that serve 100 users", code, first)
	}
	if strings.Contains(out, "on 1× H100") {
		t.Errorf("sized on one H100:\n%s", out)
	}
	code, out, _ = runFit(t, "llama", "3.1", "70b", "for", "100", "users", "on", "an", "h100")
	if first := strings.SplitN(out, "\n", 2)[0]; code != exitOK || !strings.HasPrefix(first, oneHolds+"Cheapest for 100 users of Llama 3.1 70B: ") || !strings.Contains(first, "H100 SXM 80 GB") {
		t.Errorf("an h100: exit %d, first line %q, want the H100s that serve 100 users", code, first)
	}
}

// TestFitOutsideModels: a model the catalog lacks ("command r plus", "yi
// 34b") is refused by name with exit 2, the Try line keeping the question
// with the model's Hub id; one known by name only ("vit large") saying
// that no similar question exists; never another model sized (#31).
func TestFitOutsideModels(t *testing.T) {
	for _, c := range []struct {
		args      []string
		name, try string
	}{
		{[]string{"command", "r", "plus", "inference", "4xa100"}, "I don't know Command R+", "Try: fit hf.co/CohereForAI/c4ai-command-r-plus inference 4xa100-80"},
		{[]string{"yi", "34b", "lora", "a100"}, "I don't know Yi 34B", "Try: fit hf.co/01-ai/Yi-34B lora a100-80"},
		{[]string{"vit", "large", "training", "on", "a100"}, "ViT-L/16 is a 304M-parameter image encoder", "no similar question to offer"},
	} {
		code, out, errOut := runFit(t, c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, c.name) || !strings.Contains(errOut, c.try) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q with %q", c.args, code, out, errOut, c.name, c.try)
		}
	}
}
