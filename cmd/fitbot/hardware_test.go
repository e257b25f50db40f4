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

// TestFitPlansQuestion: "what did we decide for llama last month?" lists
// the plans kept for the family, not a Hub search or a sizing (#31).
func TestFitPlansQuestion(t *testing.T) {
	useDB(t)
	if code, _, errOut := runCmd(t, "fit", "--save", "llama", "3.1", "8b", "qlora", "4090"); code != exitOK {
		t.Fatalf("fit --save: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "fit", "what", "did", "we", "decide", "for", "llama", "last", "month?")
	if code != exitOK || !strings.Contains(out, "llama 3.1 8b qlora 4090") || strings.Contains(out, "Fits") {
		t.Errorf("plans question: exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
}
