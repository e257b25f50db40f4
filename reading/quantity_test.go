package reading

import (
	"strings"
	"testing"
)

// TestTypedQuantitiesNeverNames: a number with a unit of time or of the
// machine's memory is classed before names are looked up: it is never
// read, or refused, as a card.
func TestTypedQuantitiesNeverNames(t *testing.T) {
	for _, tt := range []struct {
		q       string
		ttft    float64
		hostGB  int64
		gpuWant string
	}{
		{"serve llama 3.1 8b on l4 with 500ms ttft", 0.5, 0, "l4"},
		{"llama 3.1 8b with 40ms latency on h100", 0.04, 0, "h100"},
		{"serve llama 3.1 8b on h100, 500ms ttft", 0.5, 0, "h100"},
		{"llama 70b qlora, box has 128gb of system ram and a 4090", 0, 128, "rtx-4090"},
		{"llama 70b qlora on a 4090 with 128gb ram", 0, 128, "rtx-4090"},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			if strings.Contains(err.Error(), "is not a GPU I know") {
				t.Errorf("%q: a quantity refused as a card: %v", tt.q, err)
			} else {
				t.Errorf("%q: %v", tt.q, err)
			}
			continue
		}
		if p.Query.GPU != tt.gpuWant || p.Query.GPUMemoryBytes != 0 || p.Query.Serve.TTFTTargetSeconds != tt.ttft || p.HostRAMBytes>>30 != tt.hostGB {
			t.Errorf("%q: gpu %q (typed memory %d), ttft %v, host RAM %d GiB; want %q, none, %v, %d", tt.q, p.Query.GPU, p.Query.GPUMemoryBytes, p.Query.Serve.TTFTTargetSeconds, p.HostRAMBytes>>30, tt.gpuWant, tt.ttft, tt.hostGB)
		}
	}
}
