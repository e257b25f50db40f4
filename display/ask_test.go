package display

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

func TestAskSummary(t *testing.T) {
	tests := []struct {
		name string
		a    sizing.AskAnswer
		want string
	}{
		{"largest", sizing.AskAnswer{Largest: &sizing.LargestResult{GPUName: "RTX 4090 24 GB", GPUs: 2, Rows: []sizing.LargestRow{
			{Method: sizing.MethodLoRA, Label: "LoRA", MaxParams: 10_200_000_000},
			{Method: sizing.MethodFull, MaxParams: 0},
			{Method: sizing.MethodInference, Label: "inference int4", MaxParams: 85_200_000_000},
			{Method: sizing.MethodInference, Label: "inference fp8", MaxParams: 40e9, Note: "the card has no fp8"},
		}}}, "2× RTX 4090 24 GB: LoRA up to 10.2B, inference int4 up to 85.2B"},
		{"largest, nothing", sizing.AskAnswer{Largest: &sizing.LargestResult{GPUName: "T4 16 GB", GPUs: 1, FitsNothing: true}}, "1× T4 16 GB: nothing fits"},
		{"context", sizing.AskAnswer{MaxContext: &sizing.ContextResult{MaxTokens: 49897, Bound: sizing.BoundMemory}}, "longest context 49,897 tokens (bound by memory)"},
		{"context, none", sizing.AskAnswer{MaxContext: &sizing.ContextResult{}}, "no context fits"},
		{"which gpu", sizing.AskAnswer{WhichGPU: &sizing.WhichGPUResult{Options: []sizing.GPUOption{{GPUName: "L4 24 GB", GPUs: 2}, {GPUName: "A100", GPUs: 1}}}}, "2 cards fit; cheapest 2× L4 24 GB"},
		{"which gpu, none", sizing.AskAnswer{WhichGPU: &sizing.WhichGPUResult{FitsNothing: true}}, "no card fits within one machine"},
		{"buy or rent", sizing.AskAnswer{BuyRent: &sizing.BuyRentResult{Verdict: "rent", GPUName: "RTX 4090 24 GB", GPUs: 1, OwnUSDPerMonth: 124,
			OnDemand: &sizing.RentCost{USDPerMonth: 22.1}}}, "rent: 1× RTX 4090 24 GB, $124 a month to own, $22.10 a month on demand"},
		{"no kind", sizing.AskAnswer{}, ""},
	}
	for _, tt := range tests {
		if got := AskSummary(tt.a); got != tt.want {
			t.Errorf("%s: AskSummary = %q, want %q", tt.name, got, tt.want)
		}
	}
}
