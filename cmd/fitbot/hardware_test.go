package main

import (
	"os"
	"strings"
	"testing"
)

// TestHardwareCommand: the command line names, lists and removes its
// machines, and `fit` sizes on them, saying so; listing never creates a
// database.
func TestHardwareCommand(t *testing.T) {
	path := useDB(t)
	if code, out, _ := runCmd(t, "hardware"); code != exitOK || !strings.Contains(out, "No machines named yet") {
		t.Errorf("hardware on no database: exit %d, %q", code, out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("listing created the database (%v)", err)
	}
	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hardware", "add", "our", "box:", "2x", "rtx-4090,", "128", "GB", "RAM"}, exitOK, "Saved our box: 2× RTX 4090 24 GB, 128 GB RAM"},
		{[]string{"hardware", "add", "box", "2x", "rtx-4090"}, exitUsage, ""},
		{[]string{"hardware"}, exitOK, "our box: 2× RTX 4090 24 GB, 128 GB RAM"},
		{[]string{"fit", "13b", "qlora", "on", "our", "box"}, exitOK, "QLoRA r=16 on 2× RTX 4090 24 GB"},
		{[]string{"fit", "13b", "qlora"}, exitOK, `no GPU named: sized on the team's machine "our box"`},
		{[]string{"fit", "13b", "qlora", "h100"}, exitOK, "1× H100 SXM 80 GB"},
		{[]string{"hardware", "add", "gpu-box-1:", "4x", "a100"}, exitOK, "Saved gpu-box-1"},
		{[]string{"fit", "13b", "lora", "on", "gpu-box-1"}, exitOK, `"gpu-box-1" is the team's 4× A100 SXM 80 GB`},
		{[]string{"fit", "what", "fits", "on", "GPU-Box-1?"}, exitOK, "4× A100 SXM 80 GB"},
		{[]string{"hardware", "--json"}, exitOK, `"hardware": "2× RTX 4090 24 GB, 128 GB RAM"`},
		{[]string{"hardware", "remove", "our", "box"}, exitOK, "Removed our box"},
		{[]string{"hardware", "remove", "our", "box"}, exitUsage, ""},
	}
	for _, s := range steps {
		code, out, errOut := runCmd(t, s.args...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Errorf("%v: exit %d (want %d), stdout:\n%s\nstderr: %s", s.args, code, s.code, out, errOut)
		}
	}
}
