package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

// TestParseTypedMemory: a typed memory size picks the card with that
// memory, a stand-in with the typed size, or points out a named card
// that has other memory; the estimate uses the typed memory.
func TestParseTypedMemory(t *testing.T) {
	tests := []struct {
		in       string
		gpu      string
		gpus     int
		memGiB   int64  // Query.GPUMemoryBytes in GiB; 0 when the catalog card has the memory
		note     string // part of the note about the card
		vramGiB  float64
		gpuNamed string // the answer's card name
	}{
		{"llama 3 8b inference on a 16GB gpu", "t4", 0, 0, `"16GB" taken as a 16 GB card: sized on the T4 16 GB`, 15.0, "T4 16 GB"},
		{"QLoRA a 70b on one 24gb card", "a10", 1, 0, "the smallest 24 GB card I know", 22.5, "A10 24 GB"},
		{"13b lora 2x24gb", "a10", 2, 0, `"2x24gb" taken as a 24 GB card`, 22.5, "A10 24 GB"},
		{"70b inference 80GB", "h100", 0, 0, "an 80 GB card", 79.6, "H100 SXM 80 GB"},
		{"13b lora a100 with 40gb", "a100-40", 0, 0, `"a100" with "40gb" taken as the A100 SXM 40 GB`, 39.6, "A100 SXM 40 GB"},
		{"llama 3.1 8b on my m3 max 48gb", "m3-max-128", 0, 48, `"m3 max" with "48gb" taken as the 48 GB model of the M3 Max`, 36, "M3 Max 48 GB"},
		{"llama 3.1 8b on my m3 max 36gb", "m3-max-36", 0, 0, "", 24, "M3 Max 36 GB"},
		{"gpt-oss-20b inference 7800 xt 16gb", "t4", 0, 0, `"7800 xt" is not a GPU I know: sized as a 16 GB card`, 15, "Radeon RX 7800 XT 16 GB (sized as the T4 16 GB)"},
		{"mistral 7b on my M2 Max 32GB", "m2-max-96", 0, 32, `"M2 Max" with "32GB" taken as the 32 GB model of the M2 Max (unified memory, 67% of it for the GPU by default)`, 21.33, "M2 Max 32 GB"},
		{"13b lora rtx 4090 16gb", "rtx-4090", 0, 16, `does not match the RTX 4090 24 GB`, 16, "RTX 4090 16 GB"},
		{"7b full, ~112GB right? so 2 a100 80s", "a100-80", 2, 0, `"112GB" is not the A100 SXM 80 GB's memory ("a100 80s" says 80 GB): not used`, 80, "A100 SXM 80 GB"},
		{"7b lora 20gb", "rtx-a4500", 0, 0, `"20gb" taken as a 20 GB card: sized on the RTX A4500 20 GB`, 20.0, "RTX A4500 20 GB"},
		{"13b lora 4090 24gb", "rtx-4090", 0, 0, "", 24, "RTX 4090 24 GB"},
		{"13b lora 4090 with 128 GB RAM", "rtx-4090", 0, 0, `"128 GB RAM" is the machine's memory, not the GPU's`, 24, "RTX 4090 24 GB"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			q := p.Query
			if q.GPU != tt.gpu || q.GPUs != tt.gpus || q.GPUMemoryBytes != tt.memGiB<<30 {
				t.Errorf("gpu %q x%d memory %d GiB, want %q x%d %d GiB", q.GPU, q.GPUs, q.GPUMemoryBytes>>30, tt.gpu, tt.gpus, tt.memGiB)
			}
			if tt.note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", p.Notes, tt.note)
			}
			again, err := Parse(sizing.Format(q))
			if err != nil {
				t.Fatalf("Format %q does not parse: %v", sizing.Format(q), err)
			}
			if d := cmp.Diff(q, again.Query); d != "" {
				t.Errorf("Format %q parses differently (-first +again):\n%s", sizing.Format(q), d)
			}
			if q.Model == "" && q.Params == 0 {
				return
			}
			a, err := (&sizing.Estimator{}).Answer(q)
			if err != nil {
				t.Fatal(err)
			}
			if got := float64(a.VRAMBytes) / (1 << 30); got < tt.vramGiB-0.05 || got > tt.vramGiB+0.05 {
				t.Errorf("answer VRAM %.2f GiB, want %.1f", got, tt.vramGiB)
			}
			if a.GPUName != tt.gpuNamed {
				t.Errorf("answer GPU name %q, want %q", a.GPUName, tt.gpuNamed)
			}
			if tt.memGiB > 0 && a.Request.GPUMemoryBytes != a.VRAMBytes {
				t.Errorf("request gpu_memory_bytes %d, want the VRAM used %d", a.Request.GPUMemoryBytes, a.VRAMBytes)
			}
		})
	}
}

func TestParseTypedMemoryErrors(t *testing.T) {
	for in, want := range map[string]string{
		"13b lora 16gb 24gb": `two memory sizes in one question: "16gb" and "24gb"`,
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want %q", in, err, want)
		}
	}
	if _, _, err := sizing.Resolve(sizing.Query{Params: 7e9, GPUMemoryBytes: 16 << 30}); err == nil || !strings.Contains(err.Error(), "needs a card") {
		t.Errorf("Resolve(memory without a card) error = %v, want it refused", err)
	}
}

// TestParseTypos: near misses of the vocabulary are read as the word and
// said; ordinary words that are one edit from a vocabulary word are not.
func TestParseTypos(t *testing.T) {
	tests := []struct {
		in, want, note string
	}{
		{"13B lorra 4090", "13b lora rtx-4090", `"lorra" read as "lora"`},
		{"trian 7b on a100", "7b full a100-80", `"trian" read as "train"`},
		{"lamma 3 8b", "llama-3-8b", `"lamma" read as "llama"`},
		{"13b lora 4090 bacth 2", "13b lora rtx-4090 batch 2", `"bacth" read as "batch"`},
		{"13b lora 2 nodse of 8 h100", "13b lora 16xh100 2 nodes", `"nodse" read as "nodes"`},
		{"7b qlora 4090 on 1b tokns", "7b qlora rtx-4090 1b tokens", `"tokns" read as "tokens"`},
		{"13b lora rtx4095", "13b lora rtx-4090", `"rtx4095" read as "rtx-4090"`},
		// Ordinary words stay what they are.
		{"run this code on 2 4090 for 7b", "7b inference 2xrtx-4090", `not used: "code"`},
		{"7b lora 4090 left over from the last run", "7b lora rtx-4090", `not used: "left", "last"`},
	}
	for _, tt := range tests {
		p, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := sizing.Format(p.Query); got != tt.want {
			t.Errorf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !strings.Contains(strings.Join(p.Notes, "\n"), tt.note) {
			t.Errorf("Parse(%q) notes %q lack %q", tt.in, p.Notes, tt.note)
		}
	}
}

// TestParseUnused: words the parser did not read are listed, fillers and
// mentions are not.
func TestParseUnused(t *testing.T) {
	p, err := Parse("<@U1> hey can we tune llama 3 8b on the shiny new 4090")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"shiny", "new"}, p.Unused); d != "" {
		t.Errorf("Unused (-want +got):\n%s", d)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), `not used: "shiny", "new"`) {
		t.Errorf("notes %q lack the not-used line", p.Notes)
	}
}

// BenchmarkParseTypo measures a question with a typo, which is read twice.
func BenchmarkParseTypo(b *testing.B) {
	benchmarkParse(b, "can we lorra llama 3 8b on a 24gb card bacth 2")
}

// TestMemoryKeptBesideAnotherProblem: a typed memory stays in the Try when
// the question fails on something else, so that "did you mean" keeps the
// asker's card.
func TestMemoryKeptBesideAnotherProblem(t *testing.T) {
	_, err := Parse("finetune e5-mistral-7b embedding with lora on a 24gb card")
	var ie *sizing.InputError
	if !errors.As(err, &ie) || ie.Hint != "fit finetune mistral-7b-v0.1 embedding with lora on a 24gb card" {
		t.Errorf("e5-mistral-7b on a 24gb card: %v (Try %q); want the Try on the 24 GB card", err, hintOf(ie))
	}
}

// TestTypedMemoryStandInIsACard: a card typed by its memory stands in as
// a card sold alone, never a machine of one GPU (a 128 GB Gaudi 3 is
// not sized at the DGX Spark's 273 GB/s).
func TestTypedMemoryStandInIsACard(t *testing.T) {
	for _, q := range []string{"llama 3 70b on a gaudi 3 128gb", "llama 3 70b on a 128gb card"} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		g, _, err := sizing.LookupGPU(p.Query.GPU)
		if err != nil || !discrete(g) {
			t.Errorf("%s: stood in by %q, want a discrete card", q, p.Query.GPU)
		}
	}
}
