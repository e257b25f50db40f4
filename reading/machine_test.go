package reading

import (
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/google/go-cmp/cmp"
)

func TestParseMachine(t *testing.T) {
	tests := []struct {
		in   string
		want sizing.Machine
		hw   string
	}{
		{"our box: 2x rtx-4090, 128 GB RAM", sizing.Machine{Name: "our box", GPU: "rtx-4090", GPUs: 2, Nodes: 1, HostRAMBytes: 128 << 30, Description: "2x rtx-4090, 128 GB RAM"}, "2× RTX 4090 24 GB, 128 GB RAM"},
		{"The Cluster: 4 nodes of 8 h100", sizing.Machine{Name: "the cluster", GPU: "h100", GPUs: 32, Nodes: 4, Description: "4 nodes of 8 h100"}, "4 machines of 8× H100 SXM 80 GB"},
		{"laptop: M2 Max 32GB", sizing.Machine{Name: "laptop", GPU: "m2-max-96", GPUs: 1, Nodes: 1, GPUMemoryBytes: 32 << 30, Description: "M2 Max 32GB"}, "1× M2 Max 32 GB"},
		{"lab: a100", sizing.Machine{Name: "lab", GPU: "a100-80", GPUs: 1, Nodes: 1, Description: "a100"}, "1× A100 SXM 80 GB"},
	}
	for _, tt := range tests {
		got, err := ParseMachine(tt.in)
		if err != nil {
			t.Errorf("ParseMachine(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseMachine(%q) (-want +got):\n%s", tt.in, d)
		}
		if h := got.Hardware(); h != tt.hw {
			t.Errorf("ParseMachine(%q).Hardware() = %q, want %q", tt.in, h, tt.hw)
		}
		if _, err := (&sizing.Estimator{}).Answer(sizing.Query{Params: 7e9, Method: sizing.MethodInference, GPU: got.Query().GPU, GPUs: got.Query().GPUs, Nodes: got.Query().Nodes, GPUMemoryBytes: got.GPUMemoryBytes}); err != nil {
			t.Errorf("ParseMachine(%q).Query() does not answer: %v", tt.in, err)
		}
	}
	for in, want := range map[string]string{
		"2x rtx-4090":                      "is not NAME: HARDWARE",
		": 2x rtx-4090":                    "is not NAME: HARDWARE",
		"box: 128 GB RAM":                  "names no GPU",
		"box: 13b lora 4090":               "is a question, not hardware",
		"box: 2x rtx-4090 h100":            "two GPUs in one question",
		strings.Repeat("x", 41) + ": h100": "longer than 40 characters",
	} {
		_, err := ParseMachine(in)
		var ie *sizing.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Problem, want) {
			t.Errorf("ParseMachine(%q) error = %v, want an InputError with %q", in, err, want)
		}
	}
}

func TestMachineMentions(t *testing.T) {
	box := sizing.Machine{Name: "our box"}
	for q, want := range map[string]bool{
		"can we lora 13b on our box?": true,
		"13b lora on the box":         true,
		"13b lora on our boxes":       false,
		"13b lora 4090":               false,
		"Our Box, 13b qlora":          true,
	} {
		if got := box.Mentions(q); got != want {
			t.Errorf("Mentions(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestMachineSubstitute: any name the team gives (digits, hyphens, two
// words) reads in every phrasing fitbot suggests, and the question then
// parses on the machine's hardware.
func TestMachineSubstitute(t *testing.T) {
	for _, c := range []struct{ def, q, want string }{
		{"gpu-box-1: 2x rtx-4090, 128 GB RAM", "13b lora on gpu-box-1", "13b lora on (2x rtx-4090, 128 GB RAM)"},
		{"gpu-box-1: 2x rtx-4090", "can we qlora 70b on GPU-Box-1?", "can we qlora 70b on (2x rtx-4090)"},
		{"box2: 4x a100", "what fits on box2", "what fits on (4x a100)"},
		{"our box: 2x rtx-4090", "13b lora on the box", "13b lora on (2x rtx-4090)"},
		{"h100-rig: 8x l40s", "llama 3.1 8b full on h100-rig", "llama 3.1 8b full on (8x l40s)"},
	} {
		m, err := ParseMachine(c.def)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := m.Substitute(c.q)
		if !ok || got != c.want {
			t.Errorf("Substitute(%q) = %q, %v; want %q", c.q, got, ok, c.want)
			continue
		}
		if _, err := Parse(got); err != nil && !strings.HasPrefix(c.q, "what") {
			t.Errorf("Parse(%q): %v", got, err)
		}
	}
	m := sizing.Machine{Name: "gpu-box-1", Description: "2x rtx-4090"}
	for _, q := range []string{"13b lora on gpu-box-10", "13b lora on gpu-box", "13b lora 4090"} {
		if got, ok := m.Substitute(q); ok {
			t.Errorf("Substitute(%q) = %q, want no match", q, got)
		}
	}
}

// FuzzParseMachine: never panics; an accepted machine has a catalog GPU,
// positive counts that split evenly, and answers as hardware.
func FuzzParseMachine(f *testing.F) {
	for _, s := range []string{"our box: 2x rtx-4090, 128 GB RAM", "c: 4 nodes of 8 h100", "x: 0 gpus", ":", "a:b:c h100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseMachine(in)
		if err != nil {
			return
		}
		if _, _, err := sizing.LookupGPU(m.GPU); err != nil || m.GPUs < 1 || m.Nodes < 1 || m.GPUs%m.Nodes != 0 || m.Name == "" {
			t.Fatalf("ParseMachine(%q) = %+v", in, m)
		}
	})
}

// FuzzMachineSubstitute: never panics, and a question that names the
// machine comes back with its hardware in place of the name.
func FuzzMachineSubstitute(f *testing.F) {
	for _, s := range []string{"13b lora on gpu-box-1", "what fits on the box?", "", "gpu-box-1", "our our box"} {
		f.Add(s)
	}
	m := sizing.Machine{Name: "gpu-box-1", Description: "2x rtx-4090"}
	box := sizing.Machine{Name: "our box", Description: "4x a100"}
	f.Fuzz(func(t *testing.T, q string) {
		for _, m := range []sizing.Machine{m, box} {
			got, ok := m.Substitute(q)
			if ok && !strings.Contains(got, "("+m.Description+")") {
				t.Fatalf("Substitute(%q) = %q without the hardware", q, got)
			}
			if !ok && got != q {
				t.Fatalf("Substitute(%q) changed the question without a match: %q", q, got)
			}
		}
	})
}
