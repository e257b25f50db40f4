package sizing

import (
	"strings"
	"testing"
)

// TestOffloadBeyondAServer: CPU offload of a 405B full fine-tune onto one
// machine needs about 10 TB of RAM. The answer says no server holds it,
// and no alternative offers an offload that needs more than 4 TiB a
// machine (before, "gradient checkpointing on the same card" was offered
// with the same 10 TB offload under it).
func TestOffloadBeyondAServer(t *testing.T) {
	for _, text := range []string{
		"llama 3.1 405b full finetune on 1 h200 with zero 3 offload",
		"llama 3.1 405b full finetune on 1 h200",
	} {
		p, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if a.Request.Offload == OffloadCPU && !hasPrefix(a.Warnings, "cpu offload needs") {
			t.Errorf("%q: %s GiB of host RAM and no warning: %q", text, Commas(a.HostRAMBytes>>30), a.Warnings)
		}
		rs, err := resolve(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		for _, alt := range a.Alternatives {
			if alt.Offload != OffloadCPU {
				continue
			}
			if ram, _ := hostNeeds(&alt.Request, &rs.shape); ram > maxServerRAMBytes {
				t.Errorf("%q: alternative %q needs %s GiB of host RAM a machine", text, alt.Why, Commas(ram>>30))
			}
		}
		if strings.Contains(text, "offload") && len(a.Warnings) == 0 {
			t.Errorf("%q: no warnings", text)
		}
	}
}

// TestQLoRAHostRAM: a QLoRA base is quantised shard by shard as it loads,
// so host RAM never holds the 16-bit checkpoint (131 GiB for 70B, which
// the answer used to ask for); offloaded, it holds the 4-bit base (about
// 37 GiB) and the adapters' state, 1.5× for pinned memory. A full
// fine-tune without offload still loads one 16-bit copy.
func TestQLoRAHostRAM(t *testing.T) {
	for _, c := range []struct {
		text   string
		ramGiB int64 // host RAM per machine, whole GiB
	}{
		{"llama 3.1 70b qlora offload 1 4090", 60},
		{"llama 3.1 70b qlora 1 h100", 4},
		{"llama 3.1 8b full finetune 1 h100", 14},
	} {
		p, err := Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		a, err := (&Estimator{}).Answer(p.Query)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.HostRAMBytes >> 30; got != c.ramGiB {
			t.Errorf("%q: host RAM %d GiB, want %d", c.text, got, c.ramGiB)
		}
	}
}
