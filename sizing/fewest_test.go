package sizing

import "testing"

// TestFewestGPUs answers count asks ("how many a100s") on the fewest of
// the named card that fit: 1, 2, 4, 8 in a machine, then whole machines,
// with the ZeRO stage and layout the answer picks at that count, and
// gradient checkpointing when it was not said and saves cards (#31).
func TestFewestGPUs(t *testing.T) {
	var e Estimator
	for _, c := range []struct {
		q          string
		found      bool
		gpus       int
		nodes      int
		checkpoint bool
	}{
		{"how many a100s do i need to full finetune a 70b", true, 16, 2, false},
		{"how many h200s for llama 3.1 405b full finetune", true, 64, 8, false},
		{"how many gpus do i need to full finetune llama 3.1 70b on a100s", true, 16, 2, false},
		{"llama 3.1 8b lora on h100s", true, 1, 1, false},
		{"how many l40s to full finetune llama 3.1 8b", true, 4, 1, true},
		{"how many h100s to run llama 3.1 405b", true, 16, 2, false},
		{"fewest h100 llama 3.1 70b full no-ckpt", true, 16, 2, false},
		{"how many rtx 4090s to full finetune a 1t model", false, 1, 1, false},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.q, err)
			continue
		}
		if !p.Query.Fewest {
			t.Errorf("%q: not read as a count ask: %s", c.q, Format(p.Query))
			continue
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Errorf("Answer(%q): %v", c.q, err)
			continue
		}
		f := a.Fewest
		if f == nil || f.Found != c.found || a.Request.GPUs != c.gpus || a.Request.Nodes != c.nodes || f.GradCheckpointing != c.checkpoint {
			t.Errorf("%q: fewest %+v on %d GPUs over %d machines, want found %v on %d over %d, checkpointing %v",
				c.q, f, a.Request.GPUs, a.Request.Nodes, c.found, c.gpus, c.nodes, c.checkpoint)
			continue
		}
		if a.Fits != c.found {
			t.Errorf("%q: fits %v, want %v", c.q, a.Fits, c.found)
		}
		if c.found && c.gpus > 1 && (f.FewerGPUs == 0 || f.FewerGPUs >= c.gpus || f.FewerTotalBytes <= a.VRAMBytes) {
			t.Errorf("%q: the count below (%d, %d bytes) should be fewer and not fit %d bytes", c.q, f.FewerGPUs, f.FewerTotalBytes, a.VRAMBytes)
		}
		if back, err := Parse(Format(p.Query)); err != nil || !back.Query.Fewest {
			t.Errorf("%q: %q does not read back as a count ask (%v)", c.q, Format(p.Query), err)
		}
	}
}

// TestFewestNotAsked: a count, a serving load or no card keeps its own
// reading; only a card without a count is a count ask.
func TestFewestNotAsked(t *testing.T) {
	for _, q := range []string{
		"8 a100s full finetune a 70b",
		"llama 3.1 70b full on an h100",
		"how many l4s to serve 200 users of llama 3.1 8b",
		"how many users can 2xh100 serve llama-3.1-70b",
		"full finetune llama 3.1 70b",
	} {
		p, err := Parse(q)
		if err != nil {
			t.Errorf("Parse(%q): %v", q, err)
			continue
		}
		if p.Query.Fewest {
			t.Errorf("%q read as a count ask: %s", q, Format(p.Query))
		}
	}
}

// TestFewestWithNoCard: "how many gpus min" with no card named answers on
// the card that fits on the fewest GPUs: Llama 3.1 405B QLoRA (about 225
// GiB) fits one 256 GB or 288 GB card, where the cheapest per hour needs
// two or more.
func TestFewestWithNoCard(t *testing.T) {
	p, err := Parse("llama 3.1 405b qlora how many gpus min")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Query.Fewest {
		t.Fatalf("Fewest not read from %q", "min")
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fits || a.Request.GPUs != 1 {
		t.Errorf("answered on %d× %s (fits %v), want one card", a.Request.GPUs, a.GPUName, a.Fits)
	}
}
