package bot

import (
	"strings"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// TestAlternativesRunCost: an alternative shows its price per hour, run
// time and run cost when the answer has a token budget, and only what is
// known otherwise.
func TestAlternativesRunCost(t *testing.T) {
	alt := sizing.Alternative{Method: sizing.MethodQLoRA, GPU: "rtx-4090", GPUs: 1, Fits: true, TotalBytes: 11_360_929_228,
		Why: "as asked on 1× RTX 4090 24 GB: 10.6 GiB per GPU"}
	tests := []struct {
		name              string
		perHour, h, total *float64
		want, wantAbsent  string
	}{
		// 0.33 $/h × 852 h = $281.16 (35.5 days).
		{"budget and price", new(0.33), new(852.0), new(281.16), "10.6 GiB per GPU, $0.33/h · 35.5 days · $281 — ", ""},
		{"no budget", new(0.33), nil, nil, "10.6 GiB per GPU, $0.33/h — ", "days"},
		{"budget, no price", nil, new(852.0), nil, "10.6 GiB per GPU, 35.5 days — ", "$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := alt
			a.USDPerHour, a.Hours, a.USDTotal = tt.perHour, tt.h, tt.total
			got := alternativesText(sizing.Answer{Fits: true, Alternatives: []sizing.Alternative{a}})
			if !strings.Contains(got, tt.want) {
				t.Errorf("alternatives text = %q, want it to contain %q", got, tt.want)
			}
			if tt.wantAbsent != "" && strings.Contains(got, tt.wantAbsent) {
				t.Errorf("alternatives text = %q, want no %q", got, tt.wantAbsent)
			}
		})
	}
}

// TestCostLineFirstToken: asked the time to first token, the Slack answer
// says it for one request alone (gave only the time at 13
// requests), and says nothing of it when not asked.
func TestCostLineFirstToken(t *testing.T) {
	tps := 79.9
	a := sizing.Answer{Request: sizing.Request{Method: sizing.MethodInference, FirstTokenAsked: true},
		Throughput: sizing.Throughput{TokensPerSecond: &tps},
		Serving:    &sizing.Serving{AloneTTFTSeconds: 4.13, PromptTokens: 32768}}
	if got := costLine(a); !strings.Contains(got, "*First token* 4.13 s for a 32,768-token prompt at batch 1") {
		t.Errorf("costLine = %q, want the first token at batch 1", got)
	}
	a.Request.FirstTokenAsked = false
	if got := costLine(a); strings.Contains(got, "First token") {
		t.Errorf("costLine (not asked) = %q", got)
	}
}

// TestCostLineSameCardWay: the Slack answer times the way that fits on
// the same card beside the setup as asked.
func TestCostLineSameCardWay(t *testing.T) {
	asked, way := 12.27, 22.49
	a := sizing.Answer{Request: sizing.Request{Method: sizing.MethodInference, GPU: "l40s", GPUs: 1},
		Throughput:   sizing.Throughput{TokensPerSecond: &asked},
		Alternatives: []sizing.Alternative{{GPU: "l40s", GPUs: 1, Fits: true, Why: "fp8 weights on the same card: 29.4 GiB per GPU", TokensPerSecond: &way}}}
	if got, want := costLine(a), "*Speed* ~12 tokens/s as asked, ~22 tokens/s with fp8 weights on the same card"; !strings.HasPrefix(got, want) {
		t.Errorf("costLine = %q, want it to start %q", got, want)
	}
}

// TestAnswerBlocksLargestBatchFirst: the Slack answer to a largest-batch
// ask says the largest micro-batch in the first block under the verdict.
func TestAnswerBlocksLargestBatchFirst(t *testing.T) {
	p, err := reading.Parse("what batch size can we fit for lora llama 3 8b on a 40gb a100, seq 4096")
	if err != nil {
		t.Fatal(err)
	}
	var e sizing.Estimator
	a, err := e.Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	blocks := answerBlocks(a, answerView{})
	sec, ok := blocks[1].(*slack.SectionBlock)
	want := "*Largest micro-batch: batch 1 does not fit as asked (at seq 4096); with gradient checkpointing 2; with a fused loss too 12.*"
	if !ok || sec.Text == nil || sec.Text.Text != want {
		t.Errorf("block 1 = %+v, want the section %q", blocks[1], want)
	}
}
