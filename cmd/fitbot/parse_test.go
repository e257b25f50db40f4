package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/reading"
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
	for _, k := range []string{"request", "assumptions", "intent", "ignored", "canonical"} {
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
		Assumptions: sizing.MergeAssumptions([]string{`"a100" taken as A100 SXM 80 GB`}, assumed),
		Intent:      sizing.IntentFit,
		Ignored:     []string{"/fit"},
		Canonical:   "llama-3.1-70b qlora 2xa100-80 seq 4096",
	}
	if r := got.Reading; r.Kind != reading.RouteSizing || r.Query != q || len(r.Notes) != 0 {
		t.Errorf("reading: kind %q, query %+v, notes %q; want sizing, %+v and the notes left to assumptions", r.Kind, r.Query, r.Notes, q)
	}
	got.Reading = reading.Request{}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JSON (-want +got):\n%s", d)
	}
}

// TestParseAssumptionsOnce: the parser and the estimator both read the
// ambiguous "h100"; parse says so once.
func TestParseAssumptionsOnce(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		args := []string{"7b", "full", "h100"}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errOut := runParse(t, args...)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		if n := strings.Count(out, `taken as H100 SXM 80 GB`); n != 1 {
			t.Errorf("json=%v: the H100 assumption is said %d times, want once:\n%s", asJSON, n, out)
		}
	}
}

// TestParseAsk shows what the questions that run the other way round ask,
// in text and JSON, with a canonical form that reads back to the same
// question.
func TestParseAsk(t *testing.T) {
	tests := []struct {
		args     []string
		intent   sizing.Intent
		text     []string // lines the text shows
		workload *sizing.Workload
	}{
		{[]string{"what", "2x4090", "lora"}, sizing.IntentLargest,
			[]string{"asks: the largest model that fits (largest_model)\n", "canonical: fit what lora 2xrtx-4090\n"}, nil},
		{[]string{"llama-3.1-8b", "inference", "l4", "max", "context"}, sizing.IntentMaxContext,
			[]string{"asks: the longest context that fits (max_context)\n", "canonical: fit llama-3.1-8b inference l4 max context\n"}, nil},
		{[]string{"which", "gpu", "13b", "lora", "on", "1B", "tokens"}, sizing.IntentWhichGPU,
			[]string{"asks: which GPUs fit, cheapest first (which_gpu)\n", "canonical: fit which gpu 13b lora 1b tokens\n"}, nil},
		// Power and years not said: the defaults (sizing.DefaultUSDPerKWh, DefaultYears).
		{[]string{"13B", "lora", "4090", "buy-vs-rent", "3", "jobs/week", "5h"}, sizing.IntentBuyRent,
			[]string{"asks: whether to buy or rent (buy_vs_rent)\n", "workload: 3 jobs a week, 5 h each, $0.15/kWh, over 3 years\n",
				"  - electricity $0.15 per kWh (say e.g. $0.30/kWh)\n", "canonical: fit 13b lora rtx-4090 buy-vs-rent 3 jobs/week 5h\n"},
			&sizing.Workload{JobsPerWeek: 3, HoursPerJob: 5, USDPerKWh: 0.15, Years: 3}},
		// Hardware only: the request is the card, nothing assumed about a model.
		{[]string{"buy-vs-rent", "2x4090", "2", "jobs/week", "8h", "$0.30/kWh", "over", "5", "years"}, sizing.IntentBuyRent,
			[]string{"workload: 2 jobs a week, 8 h each, $0.3/kWh, over 5 years\n", "canonical: fit 2xrtx-4090 buy-vs-rent 2 jobs/week 8h $0.3/kWh over 5 years\n"},
			&sizing.Workload{JobsPerWeek: 2, HoursPerJob: 8, USDPerKWh: 0.3, Years: 5}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runParse(t, tt.args...)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			for _, w := range tt.text {
				if !strings.Contains(out, w) {
					t.Errorf("text lacks %q:\n%s", w, out)
				}
			}
			code, out, errOut = runParse(t, append([]string{"--json"}, tt.args...)...)
			if code != exitOK || errOut != "" {
				t.Fatalf("--json: exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			var got parseOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.Intent != tt.intent {
				t.Errorf("intent %q, want %q", got.Intent, tt.intent)
			}
			if d := cmp.Diff(tt.workload, got.Workload); d != "" {
				t.Errorf("workload (-want +got):\n%s", d)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &keys); err != nil {
				t.Fatal(err)
			}
			if _, has := keys["workload"]; has != (tt.workload != nil) {
				t.Errorf("workload key present = %v, want %v", has, tt.workload != nil)
			}
			if got.Request.GPU == "" && tt.intent != sizing.IntentWhichGPU {
				t.Errorf("request %+v: want the card resolved", got.Request)
			}
			if tt.intent == sizing.IntentMaxContext && (got.Request.SeqLen != 0 || slices.ContainsFunc(got.Assumptions, func(a string) bool {
				return strings.HasPrefix(a, "context ")
			})) {
				t.Errorf("longest context: seq_len %d, assumptions %q; want the context left to the search", got.Request.SeqLen, got.Assumptions)
			}
			// The canonical form asks the same question again.
			want, err := reading.Parse(strings.Join(tt.args, " "))
			if err != nil {
				t.Fatal(err)
			}
			again, err := reading.Parse(got.Canonical)
			if err != nil {
				t.Fatalf("canonical %q: %v", got.Canonical, err)
			}
			if d := cmp.Diff(want.Query, again.Query); d != "" || again.Intent != want.Intent || again.Workload != want.Workload {
				t.Errorf("canonical %q reads back as %s %+v (-want +got query):\n%s", got.Canonical, again.Intent, again.Workload, d)
			}
		})
	}
}

// TestParseLargestMatchesFit: a largest-model question resolves to the
// request and assumptions `fit` answers with, the model left to the
// search.
func TestParseLargestMatchesFit(t *testing.T) {
	args := []string{"--json", "what", "2x4090", "lora"}
	code, out, errOut := runParse(t, args...)
	if code != exitOK {
		t.Fatalf("parse: exit %d, stderr %q", code, errOut)
	}
	var parsed parseOutput
	if err := json.Unmarshal([]byte(out), &parsed); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runFit(t, args...)
	if code != exitOK {
		t.Fatalf("fit: exit %d, stderr %q", code, errOut)
	}
	var fit struct {
		Request     sizing.Request `json:"request"`
		Assumptions []string       `json:"assumptions"`
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil {
		t.Fatal(err)
	}
	if fit.Request.Params == 0 {
		t.Fatalf("fit found no model: %s", out)
	}
	want := fit.Request
	want.Model, want.Params, want.ActiveParams = "", 0, 0
	if d := cmp.Diff(want, parsed.Request); d != "" {
		t.Errorf("request (-fit +parse):\n%s", d)
	}
	if d := cmp.Diff(fit.Assumptions, parsed.Assumptions); d != "" {
		t.Errorf("assumptions (-fit +parse):\n%s", d)
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"unknown GPU", []string{"13b", "lora", "4900"},
			"fitbot: \"4900\" is not a GPU I know; did you mean rtx-4090, rtx-4080, rtx-4070? (a card I do not know: add its memory, \"4900 16gb\")\nTry: fit 13b lora rtx-4090\n"},
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
