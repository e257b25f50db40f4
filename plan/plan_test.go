package plan

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestModelKey(t *testing.T) {
	for _, tc := range []struct {
		q    sizing.Query
		want string
	}{
		{sizing.Query{Model: "mistral-7b-v0.1"}, "mistral-7b-v0.1"},
		{sizing.Query{Model: "llama-3.1-70b", Params: 70e9}, "llama-3.1-70b"},
		{sizing.Query{Params: 13_000_000_000}, "bare:13000000000"},
		{sizing.Query{Params: 7_000_000_000, Experts: 8}, "bare:8x7000000000"},
		{sizing.Query{Arch: &sizing.Model{ID: "my-finetune"}, Model: "ignored"}, "config:my-finetune"},
		{sizing.Query{Method: sizing.MethodLoRA}, ""},
		{sizing.Query{Model: "Qwen/Qwen3-14B"}, "hub:qwen/qwen3-14b"},
		{sizing.Query{Model: "Qwen/Qwen3-14B", Arch: &sizing.Model{ID: "Qwen/Qwen3-14B"}}, "hub:qwen/qwen3-14b"},
	} {
		if got := ModelKey(tc.q); got != tc.want {
			t.Errorf("ModelKey(%+v) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestModelKeyFor: the ways people name one model all find its plans.
func TestModelKeyFor(t *testing.T) {
	for _, tc := range []struct {
		words, want string
	}{
		{"mistral 7b", "mistral-7b-v0.1"},
		{"Mistral-7B-v0.1", "mistral-7b-v0.1"},
		{"mistral-7b", "mistral-7b-v0.1"},
		{"mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1"},
		{"llama 3.1 70b", "llama-3.1-70b"},
		{"13B", "bare:13000000000"},
		{"13b", "bare:13000000000"},
		{"8x7B", "bare:8x7000000000"},
		{"Qwen/Qwen3-14B", "qwen3-14b"}, // in the catalog
		{"Qwen/Qwen3-1.7B", "hub:qwen/qwen3-1.7b"},
		{"hf.co/Qwen/Qwen3-1.7B", "hub:qwen/qwen3-1.7b"},
		{"https://huggingface.co/qwen/qwen3-1.7b", "hub:qwen/qwen3-1.7b"},
	} {
		got, err := ModelKeyFor(tc.words)
		if err != nil || got != tc.want {
			t.Errorf("ModelKeyFor(%q) = %q, %v; want %q", tc.words, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		words, inProblem string
	}{
		{"gpt-9", "gpt-9"},
		{"rtx 4090", "names no model"},
		{"", ""},
	} {
		_, err := ModelKeyFor(tc.words)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, tc.inProblem) {
			t.Errorf("ModelKeyFor(%q) = %v, want an InputError mentioning %q", tc.words, err, tc.inProblem)
		}
	}
}

// TestFromAnswer keeps a real answer's summary: the canonical text
// re-parses to the same query and the price is a copy.
func TestFromAnswer(t *testing.T) {
	const question = "can we lora Mistral-7B-v0.1 on a 4090?"
	parsed, err := reading.Parse(question)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := (&sizing.Estimator{Prices: sheet{"rtx-4090": 0.69}}).Answer(parsed.Query)
	if err != nil {
		t.Fatal(err)
	}
	s := FromAnswer(question, parsed.Query, answer)
	asOf := answer.Price.AsOf.UTC()
	want := Summary{
		Kind:      KindFit,
		Question:  question,
		Canonical: "mistral-7b-v0.1 lora rtx-4090",
		Request:   answer.Request,
		ModelKey:  "mistral-7b-v0.1",
		Fits:      answer.Fits, Headroom: string(answer.Headroom),
		GPU: "rtx-4090", GPUs: 1, PerGPUBytes: answer.PerGPU.TotalBytes,
		USDPerHour: answer.Throughput.USDPerHour, PriceProvider: "test-sheet", PriceAsOf: &asOf,
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("FromAnswer (-want +got):\n%s", diff)
	}
	if s.USDPerHour == answer.Throughput.USDPerHour {
		t.Error("the summary shares the answer's price pointer; it must keep its own copy")
	}
	again, err := reading.Parse(s.Canonical)
	if err != nil {
		t.Fatalf("the canonical text %q does not parse: %v", s.Canonical, err)
	}
	if diff := cmp.Diff(parsed.Query, again.Query); diff != "" {
		t.Errorf("canonical text re-parses to another query (-asked +reparsed):\n%s", diff)
	}
}

// sheet prices GPUs per GPU-hour, as of one fixed day.
type sheet map[string]float64

func (s sheet) GPUHourPrice(gpu string) (sizing.Price, bool) {
	usd, ok := s[gpu]
	return sizing.Price{USDPerGPUHour: usd, Provider: "test-sheet", Market: "on_demand", AsOf: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}, ok
}
