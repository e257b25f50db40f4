package display

import (
	"testing"
	"unicode/utf8"

	"github.com/fitbot/fitbot/sizing"
)

func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"GiB", GiB(22_548_578_304), "21.0 GiB"},
		{"GiB zero", GiB(0), "0.0 GiB"},
		{"GiBTotal small", GiBTotal(22_548_578_304), "21.0 GiB"},
		{"GiBTotal over a TiB", GiBTotal(2_686_204_059_238), "2,501.7 GiB (2.44 TiB)"},
		{"USD cents", USD(0.333), "$0.33"},
		{"USD just under 100", USD(99.994), "$99.99"},
		{"USD whole dollars", USD(281.4), "$281"},
		{"USD millions", USD(12_345_678), "$12,345,678"},
		{"USD negative", USD(-1234.5), "-$1,235"},
		{"Commas", Commas(1234567), "1,234,567"},
		{"Commas small", Commas(999), "999"},
		{"Commas negative", Commas(-1000), "-1,000"},
		{"Hours minutes", Hours(0.5), "30 min"},
		{"Hours", Hours(5.54), "5.5 h"},
		{"Hours days", Hours(852), "35.5 days"},
		{"Count billions", Count(2.5e9), "2.5B"},
		{"Count millions", Count(300e6), "300M"},
		{"Count thousands", Count(1234.4), "1,234"},
		{"Count small", Count(45.60), "45.6"},
		{"Params", Params(8_030_261_248), "8.03B"},
		{"Params millions", Params(350_000_000), "350M"},
		{"Params small", Params(124_000), "124,000"},
		{"TrimZero", TrimZero("3.0"), "3"},
		{"TrimZero integer", TrimZero("300"), "300"},
		{"Decimal", Decimal(2.54), "2.5"},
		{"Decimal whole", Decimal(3.02), "3"},
		{"Truncate short", Truncate("héllo", 5), "héllo"},
		{"Truncate runes", Truncate("héllo wörld", 5), "héll…"},
		{"Truncate multibyte at the cut", Truncate("ééééé", 3), "éé…"},
		{"Truncate exactly", Truncate("exactly10!", 10), "exactly10!"},
		{"Truncate one over", Truncate("eleven char", 10), "eleven ch…"},
		{"Truncate blocks", Truncate("█▓▒░█▓▒░", 3), "█▓…"},
		{"Truncate empty", Truncate("", 5), ""},
		{"Truncate one", Truncate("abc", 1), "…"},
		{"Truncate zero", Truncate("abc", 0), ""},
		{"GPUName", GPUName("rtx-4090"), "RTX 4090 24 GB"},
		{"GPUName unknown", GPUName("tpu-v9"), "tpu-v9"},
		{"Hardware", Hardware(2, "RTX 4090 24 GB"), "2× RTX 4090 24 GB"},
		{"Hardware none", Hardware(0, "L4"), "1× L4"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// FuzzTruncate: any cut is valid UTF-8, at most max runes, and the text
// itself when it fits.
func FuzzTruncate(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, max int) {
		got := Truncate(s, max%1000)
		max %= 1000
		if n := utf8.RuneCountInString(got); max > 0 && n > max || max <= 0 && got != "" {
			t.Fatalf("Truncate(%q, %d) = %q: %d runes", s, max, got, n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: not valid UTF-8", s, max, got)
		}
		if max > 0 && utf8.RuneCountInString(s) <= max && got != s {
			t.Fatalf("Truncate(%q, %d) = %q, want it whole", s, max, got)
		}
	})
}

func TestGPUOption(t *testing.T) {
	usd, hours, total := 0.33, 5.54, 12.4
	for _, tc := range []struct {
		o    sizing.GPUOption
		want string
	}{
		{sizing.GPUOption{TotalBytes: 21 << 30, Headroom: sizing.HeadroomComfortable}, ": 21.0 GiB per GPU, no price known"},
		{sizing.GPUOption{Nodes: 2, ZeROStage: 3, TotalBytes: 21 << 30, Headroom: sizing.HeadroomTight, USDPerHour: &usd, Hours: &hours, USDTotal: &total},
			" on 2 machines, ZeRO-3: 21.0 GiB per GPU (tight), $0.33/h, 5.5 h and $12.40 for 100M tokens"},
	} {
		if got := GPUOption(tc.o, 100e6); got != tc.want {
			t.Errorf("GPUOption(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

// TestParamsNoScientificNotation: a trillion-parameter model reads
// "1.03T", never "1.03e+03B" (#31).
func TestParamsNoScientificNotation(t *testing.T) {
	for n, want := range map[int64]string{1_030_000_000_000: "1.03T", 405_000_000_000: "405B", 8_030_000_000: "8.03B", 350_000_000: "350M", 999_500_000_000: "1T", 999_600_000: "1B"} {
		if got := Params(n); got != want {
			t.Errorf("Params(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSameCardWay: an answer that does not fit as asked names its first
// way that keeps the cards, and nothing when every way moves them.
func TestSameCardWay(t *testing.T) {
	a := sizing.Answer{Request: sizing.Request{GPU: "rtx-4090", GPUs: 1}, Alternatives: []sizing.Alternative{
		{GPU: "rtx-4090", GPUs: 1, Fits: true, TotalBytes: 22 << 30, Why: "gradient checkpointing on the same card: 22.0 GiB per GPU"}}}
	if got, want := SameCardWay(a), "fits with gradient checkpointing on the same card: 22.0 GiB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	a.Alternatives[0].GPU, a.Alternatives[0].Why = "a100-80", "as asked on 1× A100 SXM 80 GB: 31.5 GiB per GPU"
	if got := SameCardWay(a); got != "" {
		t.Errorf("another card: got %q, want nothing", got)
	}
	// More of the card first, then the way on the cards asked: the headline names the way on the cards the asker has.
	a.Alternatives = []sizing.Alternative{
		{GPU: "rtx-5090", GPUs: 4, Fits: true, TotalBytes: 16 << 30, Why: "as asked on 4× RTX 5090 32 GB: 16.1 GiB per GPU"},
		{GPU: "rtx-5090", GPUs: 1, Fits: true, TotalBytes: 17 << 30, Why: "awq weights on the same card: 17.5 GiB per GPU"}}
	a.Request.GPU = "rtx-5090"
	if got, want := SameCardWay(a), "fits with awq weights on the same card: 17.0 GiB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSameCardSpeed: the speed line times the way that fits on the same
// card beside the setup as asked, and nothing when the
// way is elsewhere or has no speed.
func TestSameCardSpeed(t *testing.T) {
	tps := 22.49
	a := sizing.Answer{Request: sizing.Request{GPU: "l40s", GPUs: 1}, Alternatives: []sizing.Alternative{
		{GPU: "l40s", GPUs: 1, Fits: true, TotalBytes: 29 << 30, Why: "fp8 weights on the same card: 29.4 GiB per GPU", TokensPerSecond: &tps}}}
	if way, got := SameCardSpeed(a); way != "fp8 weights on the same card" || got != tps {
		t.Errorf("got %q at %v, want the fp8 way at %v", way, got, tps)
	}
	a.Alternatives[0].TokensPerSecond = nil
	if way, _ := SameCardSpeed(a); way != "" {
		t.Errorf("no speed: got %q, want nothing", way)
	}
	a.Alternatives[0].TokensPerSecond, a.Alternatives[0].GPU = &tps, "a100-80"
	if way, _ := SameCardSpeed(a); way != "" {
		t.Errorf("another card: got %q, want nothing", way)
	}
}

// TestMonthOfRuns: a cadence said prices a month of runs in words both
// faces show; nothing without one.
func TestMonthOfRuns(t *testing.T) {
	month := 214.4
	a := sizing.Answer{Request: sizing.Request{RunsPerMonth: 52.0 / 12}, Throughput: sizing.Throughput{USDPerMonthOfRuns: &month}}
	if got, want := MonthOfRuns(a), "$214/month for 4.3 runs"; got != want {
		t.Errorf("MonthOfRuns = %q, want %q", got, want)
	}
	if got := MonthOfRuns(sizing.Answer{}); got != "" {
		t.Errorf("MonthOfRuns with no cadence = %q, want none", got)
	}
}

// TestLargestBatch: the largest micro-batch as asked, then each lever
// that raises it with its own largest; a lever that raises nothing is
// named with the next that does; "or more" at the search's cap.
func TestLargestBatch(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		name string
		lb   *sizing.LargestBatch
		want string
	}{
		{"none asked", nil, ""},
		{"both levers", &sizing.LargestBatch{MicroBatch: 2, WithCheckpointing: n(16), WithFusedLoss: n(24)},
			"Largest micro-batch that fits: 2 per GPU (at seq 4096); with gradient checkpointing 16; with a fused loss too 24."},
		{"checkpointing on", &sizing.LargestBatch{MicroBatch: 6, WithFusedLoss: n(34)},
			"Largest micro-batch that fits: 6 per GPU (at seq 4096); with a fused loss 34."},
		{"checkpointing raises nothing", &sizing.LargestBatch{MicroBatch: 0, WithCheckpointing: n(0), WithFusedLoss: n(3)},
			"Largest micro-batch: batch 1 does not fit as asked (at seq 4096); with gradient checkpointing and a fused loss 3."},
		{"none fits", &sizing.LargestBatch{MicroBatch: 0, WithCheckpointing: n(0), WithFusedLoss: n(0)},
			"Largest micro-batch: batch 1 does not fit as asked (at seq 4096), nor with gradient checkpointing and a fused loss; the ways that fit are below."},
		{"at the cap", &sizing.LargestBatch{MicroBatch: 750, WithCheckpointing: n(sizing.BatchSearchCap), WithFusedLoss: n(sizing.BatchSearchCap)},
			"Largest micro-batch that fits: 750 per GPU (at seq 4096); with gradient checkpointing 1024 or more."},
	}
	for _, tt := range tests {
		a := sizing.Answer{Request: sizing.Request{SeqLen: 4096}, LargestBatch: tt.lb}
		if got := LargestBatch(a); got != tt.want {
			t.Errorf("%s: LargestBatch = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestKVPerToken: the memory-in-all line says the KV cache per token of
// context for inference (Llama 3.1 70B, 320 KiB), and
// nothing for training.
func TestKVPerToken(t *testing.T) {
	m := sizing.Memory{KVCacheBytes: 320 << 10 * 2048}
	if got, want := KVPerToken(m, sizing.Request{Method: sizing.MethodInference, SeqLen: 2048, MicroBatch: 1}), " KV cache 320 KiB per token of context."; got != want {
		t.Errorf("KVPerToken = %q, want %q", got, want)
	}
	if got := KVPerToken(m, sizing.Request{Method: sizing.MethodLoRA, SeqLen: 2048}); got != "" {
		t.Errorf("training: %q, want nothing", got)
	}
}

// TestRunTiming: a run that does not fit as asked is timed and costed
// with the way on the same cards that fits, said (gave
// 19.8 h for a setup that does not fit; the one that does takes 29.4 h).
func TestRunTiming(t *testing.T) {
	asked, way, wayHours, wayTotal := 1597.0, 1076.0, 29.4, 29.56
	a := sizing.Answer{Request: sizing.Request{GPU: "a10g", GPUs: 1}, Throughput: sizing.Throughput{TokensPerSecond: &asked},
		Alternatives: []sizing.Alternative{{GPU: "a10g", GPUs: 1, Fits: true, Why: "gradient checkpointing on the same card: 20.1 GiB per GPU",
			TokensPerSecond: &way, Hours: &wayHours, USDTotal: &wayTotal}}}
	run, with := RunTiming(a)
	if *run.TokensPerSecond != way || *run.Hours != wayHours || *run.USDTotal != wayTotal || with != " with gradient checkpointing on the same card" {
		t.Errorf("RunTiming = %v tok/s, %v h, $%v, %q; want the way's", *run.TokensPerSecond, *run.Hours, *run.USDTotal, with)
	}
	a.Fits = true
	if run, with := RunTiming(a); *run.TokensPerSecond != asked || with != "" {
		t.Errorf("fits as asked: %v tok/s, %q; want as asked", *run.TokensPerSecond, with)
	}
}

func TestCardHours(t *testing.T) {
	for name, want := range map[string]string{
		"A100 SXM 80 GB": "A100-hours", "A100 PCIe 40 GB": "A100-hours", "H100 NVL 94 GB": "H100 NVL-hours",
		"RTX 4090 24 GB": "RTX 4090-hours", "V100 SXM2 32 GB": "V100-hours", "MI300X 192 GB": "MI300X-hours", "": "GPU-hours",
	} {
		if got := CardHours(name); got != want {
			t.Errorf("CardHours(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestJobLine(t *testing.T) {
	usd := 1.89
	j := sizing.JobCost{Documents: 5e6, DocumentTokens: 512, Tokens: 2_560_000_000, TokensPerSecond: 127825, Hours: 5.56, GPUs: 1, USD: &usd}
	if got, want := JobLine(j, "1× RTX 4090 24 GB"), "5M documents of 512 tokens (2.56B tokens): 5.6 h on 1× RTX 4090 24 GB at 128k tokens/s, $1.89"; got != want {
		t.Errorf("JobLine = %q, want %q", got, want)
	}
	j.Monthly, j.BusyShare = true, 5.56/730
	if got, want := JobLine(j, "1× RTX 4090 24 GB"), "5M documents of 512 tokens a month (2.56B tokens): 5.6 h a month on 1× RTX 4090 24 GB at 128k tokens/s, $1.89 a month, busy 0.8% of the month"; got != want {
		t.Errorf("JobLine = %q, want %q", got, want)
	}
	j.BusyShare, j.USD = 2.3, nil
	if got, want := JobLine(j, "1× L4 24 GB"), "5M documents of 512 tokens a month (2.56B tokens): 5.6 h a month on 1× L4 24 GB at 128k tokens/s, no price known; more than a month's work: 3× as many cards keep up"; got != want {
		t.Errorf("JobLine = %q, want %q", got, want)
	}
}
