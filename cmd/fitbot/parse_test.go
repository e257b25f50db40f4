package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func runParse(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"parse"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestParseText(t *testing.T) {
	code, out, errOut := runParse(t, "<@U123>", "can", "we", "fine-tune", "llama", "3.1", "8b", "on", "two", "a100s?")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
	_, assumed, err := sizing.Resolve(sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "a100-80", GPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := "understood:\n" +
		"  model   llama-3.1-8b  from \"llama 3.1 8b\"\n" +
		"  method  full          from \"fine-tune\"\n" +
		"  gpu     a100-80       from \"a100s\"\n" +
		"  gpus    2             from \"two a100s\"\n" +
		"assumed:\n" +
		"  - \"a100\" taken as A100 SXM 80 GB\n" +
		"  - \"fine-tune\" taken as full fine-tuning (say lora or qlora for adapters)\n"
	for _, a := range assumed {
		want += "  - " + a + "\n"
	}
	want += "ignored: <@U123> can we on\n" +
		"canonical: fit llama-3.1-8b full 2xa100-80\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("output (-want +got):\n%s", d)
	}
}

func TestParseJSON(t *testing.T) {
	// --json after the words is accepted too.
	code, out, errOut := runParse(t, "/fit", "llama-3.1-70b", "qlora", "2xa100", "seq", "4k", "--json")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"request", "assumptions", "ignored", "canonical"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON has no %q key", k)
		}
	}
	var got parseOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	q := sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodQLoRA, GPU: "a100-80", GPUs: 2, SeqLen: 4096}
	req, assumed, err := sizing.Resolve(q)
	if err != nil {
		t.Fatal(err)
	}
	want := parseOutput{
		Request:     req,
		Assumptions: append([]string{`"a100" taken as A100 SXM 80 GB`}, assumed...),
		Ignored:     []string{"/fit"},
		Canonical:   "llama-3.1-70b qlora 2xa100-80 seq 4096",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JSON (-want +got):\n%s", d)
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"unknown GPU", []string{"13b", "lora", "4900"},
			"fitbot: \"4900\" is not a GPU I know; did you mean rtx-4090, rtx-4080, rtx-4070?\nTry: fit 13b lora rtx-4090\n"},
		{"empty", nil, "fitbot: the question is empty\nTry: fit 13b lora rtx-4090\n"},
		{"absurd", []string{"--json", "13b", "lora", "4090", "seq", "0"},
			"fitbot: \"seq 0\" is not a context length I can use (1 to 10485760 tokens)\nTry: fit 13b lora rtx-4090 seq 4096\n"},
		{"control byte", []string{"13b\x07lora"},
			"fitbot: the question contains a control character (U+0007 at byte 3)\nTry: type the question as plain text, e.g. fit 13b lora rtx-4090\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runParse(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if errOut != tt.want {
				t.Errorf("stderr %q, want %q", errOut, tt.want)
			}
		})
	}
}

// TestParseUnresolvable shows what was understood, then the estimator's
// reason it cannot be used, with exit 2.
func TestParseUnresolvable(t *testing.T) {
	code, out, errOut := runParse(t, "4090")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(out, "gpu  rtx-4090  from \"4090\"") {
		t.Errorf("stdout %q does not show the GPU understood", out)
	}
	if !strings.HasPrefix(errOut, "fitbot: ") || !strings.Contains(errOut, "\nTry: fit ") {
		t.Errorf("stderr %q, want a problem and a Try: line", errOut)
	}
}

func TestParseHelp(t *testing.T) {
	code, out, _ := runParse(t, "-h")
	if code != exitOK || !strings.HasPrefix(out, "Usage: fitbot parse") {
		t.Errorf("exit %d, stdout %q; want 0 and the usage", code, out)
	}
}
