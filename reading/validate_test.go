package reading

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// corpusQuestions are the questions of both corpora, without verdicts.
func corpusQuestions(t testing.TB) []string {
	t.Helper()
	var qs []string
	for _, c := range readCorpus(t) {
		qs = append(qs, c.question)
	}
	data, err := os.ReadFile("testdata/people.txt")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(data)) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		q, _, _ := strings.Cut(l, " => ")
		if base, _, ok := strings.Cut(q, " || "); ok {
			q = base
		}
		qs = append(qs, q)
	}
	return qs
}

// TestValidateAcceptsTheGrammar: every question the grammar reads
// without a problem passes Validate unchanged; the grammar's own bounds
// are never tighter than Validate's.
func TestValidateAcceptsTheGrammar(t *testing.T) {
	for _, q := range corpusQuestions(t) {
		p, err := Parse(q)
		if err != nil {
			continue
		}
		if _, err := Validate(p); err != nil {
			t.Errorf("%q: Parse reads it, Validate refuses it: %v", q, err)
		}
	}
}

// TestValidateRefuses: what a language model might fill in and the
// grammar never does is refused with a problem naming it.
func TestValidateRefuses(t *testing.T) {
	zero := 5
	for _, tt := range []struct {
		name string
		r    Request
		want string
	}{
		{"negative GPUs", Request{Query: sizing.Query{Model: "llama-3.1-8b", GPUs: -1}}, "GPU count cannot be negative"},
		{"too many GPUs", Request{Query: sizing.Query{Model: "llama-3.1-8b", GPUs: sizing.MaxGPUs + 1}}, "GPU count of 32769 is outside"},
		{"huge context", Request{Query: sizing.Query{Model: "llama-3.1-8b", SeqLen: sizing.MaxSeqLen * 2}}, "sequence length"},
		{"zero stage", Request{Query: sizing.Query{Model: "llama-3.1-8b", ZeROStage: &zero}}, "ZeRO stages are 0 to 3"},
		{"memory alone", Request{Query: sizing.Query{Model: "llama-3.1-8b", GPUMemoryBytes: 16 << 30}}, "needs a card"},
		{"uneven nodes", Request{Query: sizing.Query{Model: "llama-3.1-8b", GPU: "h100", GPUs: 9, Nodes: 2}}, "do not split evenly"},
		{"rank on full", Request{Query: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodFull, LoRARank: 16}}, "LoRA rank needs"},
		{"mfu over one", Request{Query: sizing.Query{Model: "llama-3.1-8b", MFU: 1.5}}, "MFU of 1.5"},
		{"budget", Request{Money: Money{BudgetUSD: 2e9}}, "budget of 2e+09"},
	} {
		_, err := Validate(tt.r)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, tt.want) {
			t.Errorf("%s: Validate = %v, want an InputError with %q", tt.name, err, tt.want)
		}
	}
	for _, r := range []Request{{Kind: "weather"}, {Intent: "poem"}} {
		if _, err := Validate(r); err == nil {
			t.Errorf("Validate(%+v) = nil, want an unknown kind or intent", r)
		}
	}
}

// TestRead: Read routes, reads and validates in one call.
func TestRead(t *testing.T) {
	for _, tt := range []struct {
		in     string
		kind   RouteKind
		intent sizing.Intent
		cmp    bool
	}{
		{"thanks!", RouteChat, "", false},
		{"how much is an h100 per hour", RoutePrice, "", false},
		{"can we fine-tune llama 3.1 8b on a 4090", RouteSizing, sizing.IntentFit, false},
		{"llama 3.1 8b lora on a100 vs h100", RouteSizing, sizing.IntentFit, true},
		{"how many users can 2x h100 serve llama-3.1-70b", RouteSizing, sizing.IntentServe, false},
	} {
		r, err := Read(tt.in)
		if err != nil {
			t.Errorf("Read(%q): %v", tt.in, err)
			continue
		}
		if r.Kind != tt.kind || r.Intent != tt.intent || (r.Comparison != nil) != tt.cmp {
			t.Errorf("Read(%q) = kind %q intent %q comparison %v, want %q %q %v", tt.in, r.Kind, r.Intent, r.Comparison != nil, tt.kind, tt.intent, tt.cmp)
		}
		if (r.Route != nil) == (tt.kind == RouteSizing) {
			t.Errorf("Read(%q): route %+v for kind %q", tt.in, r.Route, r.Kind)
		}
	}
}
