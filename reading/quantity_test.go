package reading

import (
	"slices"
	"strings"
	"testing"
	"time"
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

// TestTypedQuantities: a number is typed by its unit or noun before any
// name is looked up, and fills its own slot: parameters, the machine's
// memory, counts in prose, context, a run's length; a time whose slot is
// unclear is left to the second reader (Unused), never refused.
func TestTypedQuantities(t *testing.T) {
	for _, tt := range []struct {
		q      string
		params int64
		gpus   int
		nodes  int
		seq    int
		hostGB int64
		run    time.Duration
		batch  int
		tp     int
		unused string
	}{
		{q: "13 bil params lora on a100", params: 13e9},
		{q: "7b params qlora 4090", params: 7e9},
		{q: "llama 3.1 8b on h100 for a dozen users", batch: 12},
		{q: "llama 3.1 8b 32k kv cache h100", seq: 32768},
		{q: "llama-3.1-70b inference 4xh100 context 128k kv cache fp8", gpus: 4, seq: 131072},
		{q: "llama 3 70b on 2 nodes w/ 8x h100 each", gpus: 16, nodes: 2},
		{q: "llama 3 70b on 2 nodes with 8 h100 each", gpus: 16, nodes: 2},
		{q: "llama 3 70b full on 4 nodes x 8 h100", gpus: 32, nodes: 4},
		{q: "13b lora a100 2-day run", run: 48 * time.Hour},
		{q: "13b lora on a100, a 3-week training", run: 3 * 7 * 24 * time.Hour},
		{q: "13b lora on 2x a6000 and 1 week", gpus: 2, run: 7 * 24 * time.Hour},
		{q: "7b lora oom at step 300 on 8xa100", gpus: 8},
		{q: "7b qlora 64 gigs ram 3060", hostGB: 64},
		{q: "serve llama 3.1 8b on h100 500ms", unused: "500ms"},
		{q: "serve llama 3.1 8b 2 secs", unused: "2 secs"},
		{q: "13b lora 4090 3wk", unused: "3wk"},
		{q: "llama 3.1 8b on h100 2-day", unused: "2-day"},
		{q: "llama 8b on h100 with 10 rps at 500ms p95", unused: "p95"},
		{q: "llama 3 70b 8-way h100", gpus: 8},
		{q: "llama 3 70b inference 8-way tensor parallel on h100", tp: 8},
		{q: "serve llama 3 70b with 4-way tp on a100", tp: 4},
		// Quantities that fill no slot: left to the second reader.
		{q: "13b lora on h100, it's 9am now", unused: "9am"},
		{q: "it's 11 pm, can i qlora llama 3.1 8b on a 3090", unused: "11 pm"},
		{q: "at 17:00 i need mistral 7b qlora on a 4090", unused: "17:00"},
		{q: "we're a 12-person team, 13b lora on a 4090", unused: "12-person"},
		{q: "as a 5 person lab we want llama 3.1 8b qlora on an l4", unused: "5 person"},
		{q: "gemma 3 12b on 2 a10g, product wants 3x the users", gpus: 2, unused: "3x the"},
		{q: "we serve qwen2.5 14b on one h100 and need it 4 times faster", gpus: 1, unused: "4 times faster"},
		// Comparators, words between a count and its noun, a bare memory
		// figure after a card.
		{q: "serve llama 3.1 8b to 40 users at >=20 tok/s each on an a10g", batch: 40},
		{q: "serve qwen2.5 72b to 100 users at ≥15 tok/s each on l40s", batch: 100},
		{q: "serve llama 3.1 70b to ~300 internal users on h100", batch: 300},
		{q: "serve mistral 7b to 120 peak concurrent users on h100", batch: 120},
		{q: "mixtral 8x22b inference 4xa100 80", gpus: 4},
	} {
		p, err := Parse(tt.q)
		if err != nil {
			t.Errorf("%q: %v", tt.q, err)
			continue
		}
		q := p.Query
		if tt.params != 0 && q.Params != tt.params || q.GPUs != tt.gpus || q.Nodes != tt.nodes || q.SeqLen != tt.seq ||
			p.HostRAMBytes>>30 != tt.hostGB || p.Deadline.Within != tt.run || p.Deadline.Run != (tt.run > 0) || q.MicroBatch != tt.batch || q.TensorParallel != tt.tp ||
			tt.unused != "" && !slices.Contains(p.Unused, tt.unused) {
			t.Errorf("%q: params %d, gpus %d, nodes %d, seq %d, host %d GiB, run %v, batch %d, tp %d, unused %q; want %+v",
				tt.q, q.Params, q.GPUs, q.Nodes, q.SeqLen, p.HostRAMBytes>>30, p.Deadline.Within, q.MicroBatch, q.TensorParallel, p.Unused, tt)
		}
	}
}
