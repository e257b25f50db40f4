package reading

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// corpusLine is one line of testdata/questions.txt.
type corpusLine struct {
	line     int
	question string
	want     string // canonical command, error text or needs-llm canonical
	kind     string // "query", "error" or "needs-llm"
}

func readCorpus(t testing.TB) []corpusLine {
	t.Helper()
	data, err := os.ReadFile("testdata/questions.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusLine
	for i, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		q, want, ok := strings.Cut(l, " => ")
		if !ok {
			t.Fatalf("questions.txt:%d: no \" => \" in %q", i+1, l)
		}
		c := corpusLine{line: i + 1, question: q, want: want, kind: "query"}
		if rest, ok := strings.CutPrefix(want, "error: "); ok {
			c.kind, c.want = "error", rest
		} else if rest, ok := strings.CutPrefix(want, "needs-llm: "); ok {
			c.kind, c.want = "needs-llm", rest
		}
		out = append(out, c)
	}
	return out
}

// TestCorpus parses every question of testdata/questions.txt and checks
// the Query against the expected canonical command, which must itself
// parse to the same Query. It logs the share the parser handles alone.
func TestCorpus(t *testing.T) {
	corpus := readCorpus(t)
	if len(corpus) < 80 {
		t.Errorf("corpus has %d questions, want at least 80", len(corpus))
	}
	needsLLM := 0
	for _, c := range corpus {
		got, err := Parse(c.question)
		switch c.kind {
		case "query":
			if err != nil {
				t.Errorf("questions.txt:%d: Parse(%q): %v", c.line, c.question, err)
				continue
			}
			if f := sizing.Format(got.Query); f != c.want {
				t.Errorf("questions.txt:%d: Parse(%q) = %q, want %q", c.line, c.question, f, c.want)
			}
			want, err := Parse(c.want)
			if err != nil {
				t.Errorf("questions.txt:%d: expected %q does not parse: %v", c.line, c.want, err)
				continue
			}
			if d := cmp.Diff(want.Query, got.Query); d != "" {
				t.Errorf("questions.txt:%d: Parse(%q) differs from Parse(%q) (-want +got):\n%s", c.line, c.question, c.want, d)
			}
		case "error":
			var ie *sizing.InputError
			if !errors.As(err, &ie) {
				t.Errorf("questions.txt:%d: Parse(%q) error = %v, want an *InputError containing %q", c.line, c.question, err, c.want)
				continue
			}
			if !strings.Contains(ie.Problem, c.want) {
				t.Errorf("questions.txt:%d: Parse(%q) problem = %q, want it to contain %q", c.line, c.question, ie.Problem, c.want)
			}
		case "needs-llm":
			needsLLM++
			if err == nil && sizing.Format(got.Query) == c.want {
				t.Errorf("questions.txt:%d: Parse(%q) now gives %q: make it a plain corpus line", c.line, c.question, c.want)
			}
		}
	}
	t.Logf("deterministic parser handles %d of %d questions alone (%.0f%%); %d marked needs-llm",
		len(corpus)-needsLLM, len(corpus), 100*float64(len(corpus)-needsLLM)/float64(len(corpus)), needsLLM)
}

// TestParseQuery checks the Query field by field for the forms the issue
// names, independently of Format.
func TestParseQuery(t *testing.T) {
	tests := []struct {
		in   string
		want sizing.Query
	}{
		{"/fit 13B lora 4090", sizing.Query{Params: 13e9, Method: sizing.MethodLoRA, GPU: "rtx-4090"}},
		{"/fit llama-3.1-70b qlora 2xa100 seq 4k", sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodQLoRA, GPU: "a100-80", GPUs: 2, SeqLen: 4096}},
		{"@fitbot can we full fine-tune Qwen2.5 7B on a single H100 with 8-bit Adam?",
			sizing.Query{Model: "qwen2.5-7b", Method: sizing.MethodFull, Optimizer: sizing.OptimizerAdamW8bit, GPU: "h100", GPUs: 1}},
		{"will mixtral run on two 4090s in int4?", sizing.Query{Model: "mixtral-8x7b", Method: sizing.MethodInference, Quant: sizing.QuantGPTQ, GPU: "rtx-4090", GPUs: 2}},
		{"350m", sizing.Query{Params: 350e6}},
		{"1.5b", sizing.Query{Params: 1.5e9}},
		{"0.6B", sizing.Query{Params: 600e6}},
		{"8x7B", sizing.Query{Params: 7e9, Experts: 8}},
		{"70 billion", sizing.Query{Params: 70e9}},
		{"7e9 params", sizing.Query{Params: 7e9}},
		{"a100x8", sizing.Query{GPU: "a100-80", GPUs: 8}},
		{"8xH100", sizing.Query{GPU: "h100", GPUs: 8}},
		{"8x h100", sizing.Query{GPU: "h100", GPUs: 8}},
		{"2 x RTX 4090", sizing.Query{GPU: "rtx-4090", GPUs: 2}},
		{"2 x NVIDIA A100 80GB", sizing.Query{GPU: "a100-80", GPUs: 2}},
		{"2000000000 tokens", sizing.Query{Tokens: 2e9}},
		{"Llama-3.1-8B-Instruct-AWQ", sizing.Query{Model: "llama-3.1-8b", Quant: sizing.QuantAWQ}},
		{"lora alpha 32 r 16", sizing.Query{Method: sizing.MethodLoRA, LoRARank: 16}},
		{"four 3090s", sizing.Query{GPU: "rtx-3090", GPUs: 4}},
		{"a node of 8 H100s", sizing.Query{GPU: "h100", GPUs: 8, Nodes: 1}},
		{"2 nodes of 8 h100", sizing.Query{GPU: "h100", GPUs: 16, Nodes: 2}},
		{"16xh100 2 nodes", sizing.Query{GPU: "h100", GPUs: 16, Nodes: 2}},
		{"8 gpus", sizing.Query{GPUs: 8}},
		{"a single H100", sizing.Query{GPU: "h100", GPUs: 1}},
		{"dual 4090", sizing.Query{GPU: "rtx-4090", GPUs: 2}},
		{"quad 3090", sizing.Query{GPU: "rtx-3090", GPUs: 4}},
		{"sixteen a100s", sizing.Query{GPU: "a100-80", GPUs: 16}},
		{"zero3", sizing.Query{ZeROStage: new(3)}},
		{"zero-2", sizing.Query{ZeROStage: new(2)}},
		{"zero 1", sizing.Query{ZeROStage: new(1)}},
		{"z3", sizing.Query{ZeROStage: new(3)}},
		{"fsdp", sizing.Query{ZeROStage: new(3)}},
		{"ddp", sizing.Query{ZeROStage: new(0)}},
		{"offload", sizing.Query{Offload: sizing.OffloadCPU}},
		{"cpu offload", sizing.Query{Offload: sizing.OffloadCPU}},
		{"offload to cpu", sizing.Query{Offload: sizing.OffloadCPU}},
		{"nvme offload", sizing.Query{Offload: sizing.OffloadNVMe}},
		{"gc", sizing.Query{GradCheckpointing: new(true)}},
		{"gradient checkpointing", sizing.Query{GradCheckpointing: new(true)}},
		{"activation checkpointing", sizing.Query{GradCheckpointing: new(true)}},
		{"no ckpt", sizing.Query{GradCheckpointing: new(false)}},
		{"without checkpointing", sizing.Query{GradCheckpointing: new(false)}},
		{"seq 4096", sizing.Query{SeqLen: 4096}},
		{"ctx 8k", sizing.Query{SeqLen: 8192}},
		{"32k context", sizing.Query{SeqLen: 32768}},
		{"context 128k", sizing.Query{SeqLen: 131072}},
		{"10M context", sizing.Query{SeqLen: 10 << 20}},
		{"mac studio m4 max 128gb", sizing.Query{GPU: "m4-max-128"}},
		{"macbook pro m3 max", sizing.Query{GPU: "m3-max-128"}},
		{"1m tokens of context", sizing.Query{SeqLen: 1 << 20}},
		{"2M context length", sizing.Query{SeqLen: 2 << 20}},
		{"batch 8", sizing.Query{MicroBatch: 8}},
		{"bs 8", sizing.Query{MicroBatch: 8}},
		{"mbs 2", sizing.Query{MicroBatch: 2}},
		{"8 concurrent users", sizing.Query{MicroBatch: 8, Serve: sizing.ServeLoad{Plan: true}}},
		{"8 concurrent requests", sizing.Query{MicroBatch: 8, Serve: sizing.ServeLoad{Plan: true}}},
		{"r16", sizing.Query{LoRARank: 16}},
		{"r=16", sizing.Query{LoRARank: 16}},
		{"rank 64", sizing.Query{LoRARank: 64}},
		{"on 2B tokens", sizing.Query{Tokens: 2e9}},
		{"3 epochs of 500M tokens", sizing.Query{Tokens: 1.5e9}},
		{"1 epoch over 100M tokens", sizing.Query{Tokens: 100e6}},
		{"adamw", sizing.Query{Optimizer: sizing.OptimizerAdamW}},
		{"adam", sizing.Query{Optimizer: sizing.OptimizerAdamW}},
		{"adam8bit", sizing.Query{Optimizer: sizing.OptimizerAdamW8bit}},
		{"adamw 8bit", sizing.Query{Optimizer: sizing.OptimizerAdamW8bit}},
		{"paged adamw 8bit", sizing.Query{Optimizer: sizing.OptimizerAdamW8bit}},
		{"bnb adam", sizing.Query{Optimizer: sizing.OptimizerAdamW8bit}},
		{"sgd", sizing.Query{Optimizer: sizing.OptimizerSGD}},
		{"sgd with momentum", sizing.Query{Optimizer: sizing.OptimizerSGDMomentum}},
		{"sgd momentum", sizing.Query{Optimizer: sizing.OptimizerSGDMomentum}},
		{"adafactor", sizing.Query{Optimizer: sizing.OptimizerAdafactor}},
		{"fp32", sizing.Query{Precision: sizing.PrecisionFP32}},
		{"bf16", sizing.Query{Precision: sizing.PrecisionBF16}},
		{"fp16", sizing.Query{Precision: sizing.PrecisionFP16}},
		{"fp8", sizing.Query{Precision: sizing.PrecisionFP8}},
		{"int8", sizing.Query{Quant: sizing.QuantINT8}},
		{"int4 inference", sizing.Query{Quant: sizing.QuantGPTQ, Method: sizing.MethodInference}},
		{"full int4", sizing.Query{Quant: sizing.QuantNF4, Method: sizing.MethodFull}},
		{"int4 lora", sizing.Query{Method: sizing.MethodQLoRA}},
		{"qlora int4", sizing.Query{Method: sizing.MethodQLoRA}},
		{"nf4", sizing.Query{Quant: sizing.QuantNF4}},
		{"awq", sizing.Query{Quant: sizing.QuantAWQ}},
		{"gptq", sizing.Query{Quant: sizing.QuantGPTQ}},
		{"q4_k_m", sizing.Query{Quant: sizing.QuantQ4_KM}},
		{"q8_0", sizing.Query{Quant: sizing.QuantQ8_0}},
		{"kv fp8", sizing.Query{KVPrecision: sizing.PrecisionFP8}},
		{"fp8 kv cache", sizing.Query{KVPrecision: sizing.PrecisionFP8}},
		{"q8 kv", sizing.Query{KVPrecision: sizing.PrecisionINT8}},
		{"full", sizing.Query{Method: sizing.MethodFull}},
		{"full fine-tune", sizing.Query{Method: sizing.MethodFull}},
		{"finetune", sizing.Query{Method: sizing.MethodFull}},
		{"pretrain", sizing.Query{Method: sizing.MethodFull, FromScratch: true}},
		{"train a 1b from scratch", sizing.Query{Method: sizing.MethodFull, Params: 1e9, FromScratch: true}},
		{"SFT", sizing.Query{Method: sizing.MethodFull}},
		{"q-lora", sizing.Query{Method: sizing.MethodQLoRA}},
		{"4-bit lora", sizing.Query{Method: sizing.MethodQLoRA}},
		{"serve", sizing.Query{Method: sizing.MethodInference}},
		{"deploy", sizing.Query{Method: sizing.MethodInference}},
		{"generate", sizing.Query{Method: sizing.MethodInference}},
		{"fine-tune with lora", sizing.Query{Method: sizing.MethodLoRA}},
		{"run a qlora", sizing.Query{Method: sizing.MethodQLoRA}},
		{"run a fine-tune", sizing.Query{Method: sizing.MethodFull}},
		{"qlora with lora rank 64", sizing.Query{Method: sizing.MethodQLoRA, LoRARank: 64}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got.Query); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

// TestParseExplains checks the notes, ignored words, field sources and
// the implied-method flag that `fitbot parse` shows.
func TestParseExplains(t *testing.T) {
	got, err := Parse("<@U123> can we fine-tune llama 3.1 8b on two a100s?")
	if err != nil {
		t.Fatal(err)
	}
	want := Request{
		Query:  sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, GPU: "a100-80", GPUs: 2},
		Intent: sizing.IntentFit,
		Fields: []Field{
			{Name: "model", Value: "llama-3.1-8b", Words: "llama 3.1 8b"},
			{Name: "method", Value: "full", Words: "fine-tune"},
			{Name: "gpu", Value: "a100-80", Words: "a100s"},
			{Name: "gpus", Value: "2", Words: "two a100s"},
		},
		Notes: []string{
			`"a100" taken as A100 SXM 80 GB`,
			`"fine-tune" taken as full fine-tuning (say lora or qlora for adapters)`,
		},
		Ignored:       []string{"<@U123>", "can", "we", "on"},
		MethodImplied: true,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

// TestParseErrors checks that input the parser cannot use gives an
// *InputError naming the words and a hint that parses.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		in      string
		problem string // substring of Problem
		hint    string // the whole Hint
	}{
		{"", "the question is empty", "fit 13b lora rtx-4090"},
		{"   ?!  ", "the question is empty", "fit 13b lora rtx-4090"},
		{"please help", `"please help" names no model`, "fit 13b lora rtx-4090"},
		{"13b lora 4900", `"4900" is not a GPU I know; did you mean rtx-4090`, "fit 13b lora rtx-4090"},
		{"llama-5-70b qlora 4090", `"llama-5-70b" is not a model I know; did you mean llama-2-70b`, "fit llama-2-70b qlora 4090"},
		{"llama 5 70b qlora 4090", `"llama 5 70b" is not a model I know`, "fit llama-2-70b qlora 4090"},
		{"llama 3 8b qwen 7b", `two models in one question: "llama 3 8b" and "qwen 7b"`, "fit llama-3-8b"},
		{"13b 7b lora", `two models in one question: "13b" and "7b"`, "fit 13b lora"},
		{"13b lora 4090 h100", `two GPUs in one question: "4090" and "h100"`, "fit 13b lora rtx-4090"},
		{"13b lora inference", `two methods in one question: "lora" and "inference"`, "fit 13b lora"},
		{"13b adamw sgd", `two optimizers in one question`, "fit 13b adamw"},
		{"13b 2xh100 4xh100", `two GPU counts in one question: "2xh100" and "4xh100"`, "fit 13b 2xh100"},
		{"0B lora", `"0B" is not a model size`, "fit 13b lora"},
		{"-5B lora", `"-5B" is not a model size`, "fit 13b lora"},
		{"1e30 params", `"1e30 params" is more parameters than any model I size`, "fit 13b lora rtx-4090"},
		{"500k lora", `"500k" is a number without a meaning`, "fit 13b lora seq 4096"},
		{"13b lora seq 0", `"seq 0" is not a context length`, "fit 13b lora seq 4096"},
		{"13b lora seq 99999999", `"seq 99999999" is not a context length`, "fit 13b lora seq 4096"},
		{"13b lora batch -1", `"batch -1" is not a batch size`, "fit 13b lora batch 8"},
		{"13b lora rank 0", `"lora rank 0" is not a LoRA rank`, "fit 13b lora rank 16"},
		{"13b 90000 gpus of 4090", `"90000 gpus" is more GPUs than I size (the limit is 32768`, "fit 13b 8xrtx-4090"},
		{"13b 5000 nodes of 8 h100", `"5000 nodes" is more machines than I size`, "fit 13b 8xh100"},
		{"13b 2 nodes of 32 h100", `"32 h100" is more GPUs than one machine holds`, "fit 13b 16xh100 2 nodes"},
		{"13b 8xh100 3 nodes", `"8xh100" GPUs do not split evenly over "3 nodes"`, "fit 13b 8xh100 1 node"},
		{"13b 3 epochs", `"3 epochs": of how many tokens?`, "fit 13b 1.5b tokens"},
		{"13b full 4096 tokens", `"4096 tokens" is too small for a training budget`, "fit 13b full seq 4096"},
		{"13b lora 8", `"8" is a number without a meaning here`, "fit 13b lora"},
		{"13b lora banana42", `I do not understand "banana42"`, "fit 13b lora"},
		// Several models on one card: refused, the Try sizes one.
		{"can we serve 3x 8b models on one a100 80gb at the same time", `"3x 8b models": several models sharing GPUs are not sized`, "fit 8b inference 1xa100-80"},
		{"two llama 3 8b models on an h100", `"two llama 3 8b models": several models`, "fit llama-3-8b h100"},
		{"13b lora \x00 4090", "control character (U+0000 at byte 9)", "type the question as plain text, e.g. fit 13b lora rtx-4090"},
		{"13b lora \xff 4090", "not valid UTF-8 text (byte 9)", "type the question as plain text, e.g. fit 13b lora rtx-4090"},
		{strings.Repeat("x", MaxQuestionBytes+1), "too long (1001 bytes; the limit is 1000)", "ask in one short sentence, e.g. fit 13b lora rtx-4090"},
		{strings.Repeat("a ", MaxQuestionWords+1), "too long (more than 100 words)", "ask in one short sentence, e.g. fit 13b lora rtx-4090"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) {
			t.Errorf("Parse(%q) error = %v, want an *InputError", tt.in, err)
			continue
		}
		if !strings.Contains(ie.Problem, tt.problem) {
			t.Errorf("Parse(%q) problem = %q, want it to contain %q", tt.in, ie.Problem, tt.problem)
		}
		if ie.Hint != tt.hint {
			t.Errorf("Parse(%q) hint = %q, want %q", tt.in, ie.Hint, tt.hint)
		}
		if h, ok := strings.CutPrefix(ie.Hint, "fit "); ok {
			if _, err := Parse(h); err != nil {
				t.Errorf("Parse(%q): hint %q does not parse: %v", tt.in, ie.Hint, err)
			}
		}
	}
}

// TestParsePartialOnError checks that a failed parse still returns what
// was understood, so the bot can tell a bad number from a missing model.
func TestParsePartialOnError(t *testing.T) {
	got, err := Parse("llama 3.1 8b lora 4090 seq 0")
	if err == nil {
		t.Fatal("Parse succeeded, want an error for seq 0")
	}
	want := sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodLoRA, GPU: "rtx-4090"}
	if d := cmp.Diff(want, got.Query); d != "" {
		t.Errorf("partial Query (-want +got):\n%s", d)
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in    string
		unit  int64
		want  int64
		exact bool
	}{
		{"13b", 1e9, 13e9, true},
		{"1.5b", 1e9, 1.5e9, true},
		{"0.6b", 1e9, 600e6, true},
		{"6.738415616b", 1e9, 6738415616, true},
		{"350m", 1e6, 350e6, true},
		{"4k", 1024, 4096, true},
		{"4.5k", 1024, 4608, true},
		{"4.1k", 1024, 0, false},
		{"7e9", 1, 7e9, true},
		{"1e30", 1, 0, false},
		{"99999999999999999999", 1, 0, false},
		{"-5b", 1e9, -5e9, true},
	}
	for _, tt := range tests {
		n, ok := parseNumber(tt.in)
		if !ok {
			t.Errorf("parseNumber(%q) not a number", tt.in)
			continue
		}
		got, exact := n.scaled(tt.unit)
		if exact != tt.exact || (exact && got != tt.want) {
			t.Errorf("parseNumber(%q).scaled(%d) = %d, %v; want %d, %v", tt.in, tt.unit, got, exact, tt.want, tt.exact)
		}
	}
	for _, bad := range []string{"", "-", ".", "b", "1.", "1x", "1e", "1e99999", "12q"} {
		if _, ok := parseNumber(bad); ok {
			t.Errorf("parseNumber(%q) = ok, want not a number", bad)
		}
	}
}

// fakeLexicon is a two-entry catalog, to show the parser takes names only
// from its lexicon.
type fakeLexicon struct{}

func (fakeLexicon) matchModel(w string) (string, string, bool) {
	if strings.ReplaceAll(keyOf(w), " ", "") == "tiny1b" {
		return "tiny-1b", "", true
	}
	return "", "", false
}

func (fakeLexicon) matchGPU(w string) (string, string, bool) {
	if strings.ReplaceAll(keyOf(w), " ", "") == "card9" {
		return "card-9", "card9 taken as Card 9 (the big one)", true
	}
	return "", "", false
}

func (fakeLexicon) suggestModels(string) []string { return []string{"tiny-1b"} }
func (fakeLexicon) suggestGPUs(string) []string   { return []string{"card-9"} }
func (fakeLexicon) isModelFamily(k string) bool   { return strings.HasPrefix(k, "tiny") }
func (fakeLexicon) nameWords() []string           { return []string{"tiny"} }
func (fakeLexicon) memoryCard(string, int) (memoryPick, bool) {
	return memoryPick{}, false
}

func TestParseWithLexicon(t *testing.T) {
	got, err := parseWith("tiny 1b lora on 2 card9s", fakeLexicon{})
	if err != nil {
		t.Fatal(err)
	}
	want := sizing.Query{Model: "tiny-1b", Method: sizing.MethodLoRA, GPU: "card-9", GPUs: 2}
	if d := cmp.Diff(want, got.Query); d != "" {
		t.Errorf("Query (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"card9 taken as Card 9 (the big one)"}, got.Notes); d != "" {
		t.Errorf("Notes (-want +got):\n%s", d)
	}
	// A suggestion of another size changes the question (#31): the Try
	// keeps the size asked instead.
	_, err = parseWith("tiny 2b lora", fakeLexicon{})
	var in *sizing.InputError
	if !errors.As(err, &in) || !strings.Contains(in.Problem, `"tiny 2b" is not a model I know; I know no similar 2B model`) || in.Hint != "fit 2b lora" {
		t.Errorf("parseWith(tiny 2b) error = %v, want no similar 2B model and Try: fit 2b lora", err)
	}
}

// FuzzParse asserts the parser's properties on any input: it never panics;
// an accepted question formats to a canonical command that parses back to
// the same Query (and formats the same again); a rejected one gets an
// *InputError that quotes one of its words, or says why there were none,
// with a Try unless it says there is no similar question to offer.
func FuzzParse(f *testing.F) {
	for _, c := range readCorpus(f) {
		f.Add(c.question)
	}
	f.Add("13b lora \x00 4090")
	f.Add("\xff\xfe")
	f.Add("2 nodes of 8 h100 3 epochs of 1.5b tokens")
	f.Add("on prem box for 100 users, qwen3 30b-a3b, what do we buy; how many gpus to procure, which card to order in order of magnitude, buy or rent 24/7")
	f.Add("70b full 64 h100 global batch 100 tokens grad accum 0")
	f.Add("13 bil params a dozen users 32k kv cache 2 nodes w/ 8x h100 each 2-day run 500ms how many tokens per hour")
	f.Add("gpt-oss-120b mxfp4 nvfp4 pure bf16 bf16-true gbs 2.5m tokens accumulation 1e9")
	f.Add("405b full 16384 h100 tp8 pp 16 cp 2 ep 0 3d parallel fused loss tp99999")
	f.Add("what batch size can we fit for 8b lora on 4 gpus 3 times a week at 40% mfu, largest micro batch, max bs 8")
	f.Add("we got 2,000 a100 gpu-hours, 1b on 20b tokens; how many h100-hours, 30 node hours, $2 per gpu hour, 1.5k GPU-h")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Parse(in)
		if err != nil {
			var ie *sizing.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Parse(%q) error %T %v, want *InputError", in, err, err)
			}
			if ie.Hint == "" && !strings.Contains(ie.Problem, "no similar question to offer") {
				t.Errorf("Parse(%q): no hint, and the problem does not say why", in)
			}
			if !namesInput(in, ie.Problem) {
				t.Errorf("Parse(%q) problem %q names none of the input's words", in, ie.Problem)
			}
			return
		}
		canon := sizing.Format(got.Query)
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", in, canon, err)
		}
		if d := cmp.Diff(got.Query, again.Query); d != "" {
			t.Fatalf("Parse(%q) = %q, which parses differently (-first +again):\n%s", in, canon, d)
		}
		if c2 := sizing.Format(again.Query); c2 != canon {
			t.Fatalf("Format is not stable: %q then %q", canon, c2)
		}
	})
}

// namesInput reports whether a problem quotes a part of the input, or is
// one of the messages about the input as a whole.
func namesInput(in, problem string) bool {
	for _, whole := range []string{"the question is empty", "too long", "not valid UTF-8", "control character"} {
		if strings.Contains(problem, whole) {
			return true
		}
	}
	parts := strings.Split(problem, `"`)
	for k := 1; k < len(parts); k += 2 {
		if parts[k] != "" && strings.Contains(in, parts[k]) {
			return true
		}
	}
	return false
}

// BenchmarkParse measures a typical chat question.
func BenchmarkParse(b *testing.B) {
	benchmarkParse(b, "@fitbot can we full fine-tune Qwen2.5 7B on a single H100 with 8-bit Adam?")
}

// BenchmarkParseSlash measures a short slash command.
func BenchmarkParseSlash(b *testing.B) {
	benchmarkParse(b, "llama-3.1-70b qlora 2xa100 seq 4k")
}

// benchmarkParse reports wall time and, where the platform says, CPU time
// per parse (cpu-ns/op), which stays honest on a busy shared machine.
func benchmarkParse(b *testing.B, q string) {
	if _, err := Parse(q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0, ok := processCPU()
	for b.Loop() {
		if _, err := Parse(q); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// TestParseLayoutWords: the parallel degrees, spaced and glued, the
// Megatron words and fused loss; each survives Format and re-parsing.
func TestParseLayoutWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want func(q sizing.Query) bool
	}{
		{"llama-3.1-405b full 16384 h100 tp 8 pp 16 cp 2", func(q sizing.Query) bool {
			return q.TensorParallel == 8 && q.PipelineParallel == 16 && q.ContextParallel == 2
		}},
		{"deepseek-v3 full 2048 h800 pp16 ep64 fp8", func(q sizing.Query) bool { return q.PipelineParallel == 16 && q.ExpertParallel == 64 }},
		{"llama-3.1-70b full 64 h100 3d parallel", func(q sizing.Query) bool { return q.ModelParallel }},
		{"llama-3.1-70b full 64 h100 megatron", func(q sizing.Query) bool { return q.ModelParallel }},
		{"llama-3.1-8b qlora 4090 seq 32k fused loss", func(q sizing.Query) bool { return q.FusedLoss != nil && *q.FusedLoss }},
		{"llama-3.1-8b lora 4090 liger", func(q sizing.Query) bool { return q.FusedLoss != nil && *q.FusedLoss }},
		// Cards in the plural with no count are as many as the degrees.
		{"tp=8 llama 3.1 405b fp8 on h100s", func(q sizing.Query) bool { return q.GPUs == 8 && q.TensorParallel == 8 }},
		{"TP4 pp 2 llama 3.1 405b on h100s", func(q sizing.Query) bool { return q.GPUs == 8 && q.PipelineParallel == 2 }},
		{"how many h100s tp 8 llama 3.1 405b", func(q sizing.Query) bool { return q.GPUs == 0 && q.Fewest }},
	} {
		q, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if !tc.want(q.Query) {
			t.Errorf("%q parsed as %+v", tc.in, q.Query)
		}
		again, err := Parse(sizing.Format(q.Query))
		if err != nil || !tc.want(again.Query) {
			t.Errorf("%q → %q → %+v (%v)", tc.in, sizing.Format(q.Query), again.Query, err)
		}
	}
	for _, in := range []string{"llama-3.1-70b full 64 h100 tp 0", "llama-3.1-70b full 64 h100 tp 1.5", "llama-3.1-70b full 64 h100 tp 8 tp 4"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestLessThanIsNotSlackMarkup: "<" opens a Slack mention, channel or
// link only when one follows and a ">" closes it; "<50ms" typed on the
// command line is a bound, where it swallowed the rest of the question.
func TestLessThanIsNotSlackMarkup(t *testing.T) {
	for in, want := range map[string]bool{
		"<@U123>": true, "<#C1|general>": true, "<!here>": true, "<https://hf.co/a/b|b>": true,
		"<50ms per token": false, "<@U123 no close": false, "<": false,
	} {
		if got := slackToken(in); got != want {
			t.Errorf("slackToken(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestParseDescribedLength: one or two words may describe a length
// before what it is the length of ("16k rag context", "4k system
// prompt", "2k text tokens"), and "text" alone after a length is its
// tokens ("images + 2k text"), never numbers without a meaning.
func TestParseDescribedLength(t *testing.T) {
	for in, want := range map[string]string{
		"cheapest gpu to serve qwen2.5 7b to 50 users with 16k rag context":             "qwen2.5-7b inference seq 16384 batch 50 gpus needed",
		"qwen2-vl 7b serving on an a10g, images + 2k text, 10 concurrent users?":        "qwen2-vl-7b inference a10g seq 2048 batch 10 gpus needed",
		"qwen2-vl 7b serving on an a10g, images + 2k text tokens, 10 concurrent users?": "qwen2-vl-7b inference a10g seq 2048 batch 10 gpus needed",
		"llama 3.1 8b with 16k rag ctx on an l4":                                        "llama-3.1-8b l4 seq 16384",
		"llama 3 8b with 8k token context on an l4":                                     "llama-3-8b l4 seq 8192",
		"lora llama 3 8b with 4k long chat context on an a100 80gb":                     "llama-3-8b lora a100-80 seq 4096",
		"serve llama 3 8b on an l4 with a 4k system prompt":                             "llama-3-8b inference l4 prompt 4096",
		"llama 3.1 8b on an l4, 8k rag input prompts":                                   "llama-3.1-8b l4 prompt 8192",
		"lora llama 3 8b on 2b text tokens on 8 h100":                                   "llama-3-8b lora 8xh100 2b tokens",
	} {
		p, err := Parse(in)
		if got := sizing.Format(p.Query); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// A describer with nothing it describes after it is no length.
	var ie *sizing.InputError
	if _, err := Parse("llama 3 8b on an l4 with 16k rag"); !errors.As(err, &ie) || !strings.Contains(ie.Problem, "number without a meaning") {
		t.Errorf("\"16k rag\": %v; want a number without a meaning", err)
	}
}

// TestParseModelWindow: a length that is the model's window, said beside
// its name or as "128k context", is the model's when another, smaller
// length is the one used ("phi-3.5 mini 128k context with 100k tokens"
// is not refused as two lengths); alone, "128k context" is
// still the length asked and two other lengths still conflict.
func TestParseModelWindow(t *testing.T) {
	for _, c := range []struct{ in, want, note string }{
		{"phi-3.5 mini 128k context with 100k tokens on a l4 does it fit", "phi-3.5-mini l4 seq 102400",
			`"128k context" read as Phi-3.5 mini's window (131072 tokens), not the request's: the 102400 tokens of "100k tokens" are sized`},
		{"phi-3.5 mini 128k with 100k tokens on a l4", "phi-3.5-mini l4 seq 102400", `"128k" read as Phi-3.5 mini's window (131072 tokens)`},
		{"llama 3.1 8b 128k, 32k context on an h100", "llama-3.1-8b h100 seq 32768", `"128k" read as Llama 3.1 8B's window`},
		{"llama 3.1 8b 128k context with 32k tokens on an h100", "llama-3.1-8b h100 seq 32768", `"128k context" read as Llama 3.1 8B's window`},
		{"phi-3.5 mini 128k context on a l4", "phi-3.5-mini l4 seq 131072", ""},
	} {
		p, err := Parse(c.in)
		if got := sizing.Format(p.Query); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if c.note != "" && !anyHasPrefix(p.Notes, c.note) {
			t.Errorf("Parse(%q) notes %q, want one starting %q", c.in, p.Notes, c.note)
		}
	}
	for _, c := range []struct{ in, problem, hint string }{
		{"llama 3.1 8b seq 8192 seq 4096 on h100", `two context lengths in one question: "seq 8192" and "seq 4096"`, "fit llama-3.1-8b h100 seq 8192"},
		{"7b 128k context with 100k tokens on an h100", "two context lengths in one question", "fit 7b h100 seq 131072"},
		{"phi-3.5 mini 128k on a l4", `"128k" is a number without a meaning`, "fit phi-3.5-mini l4 seq 4096"},
	} {
		_, err := Parse(c.in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, c.problem) || ie.Hint != c.hint {
			t.Errorf("%q: %v (hint %q); want %q, Try %q", c.in, err, hintOf(ie), c.problem, c.hint)
		}
	}
}
