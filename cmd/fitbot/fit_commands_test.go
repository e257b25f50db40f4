package main

import (
	"strings"
	"testing"
)

// TestFitCommands: the words that are one of fitbot's own commands in
// Slack's /fit mean the same after `fitbot fit`, said as the command or
// asked in words.
func TestFitCommands(t *testing.T) {
	for _, k := range []string{"KUBECONFIG", "FITBOT_KUBE_CONTEXT", "KUBERNETES_SERVICE_HOST", "FITBOT_SLURM_URL", "FITBOT_SLURM_SINFO", "FITBOT_CLUSTER"} {
		t.Setenv(k, "") // no cluster configured
	}
	for _, c := range []struct {
		words []string
		code  int
		want  string // in stdout and stderr together
	}{
		{[]string{"cluster"}, exitUsage, "no cluster is configured"},
		{[]string{"plan", "17"}, exitFailure, "there is no plan 17"},
		{[]string{"what gpus does the bot know about"}, exitOK, "rtx-4090"},
		{[]string{"--json", "what gpus do you know"}, exitOK, `"kind": "gpus"`},
		{[]string{"which models do you support"}, exitOK, "llama-3.1-8b"},
		{[]string{"how do i tell fitbot about our new dgx"}, exitOK, "fitbot hardware add NAME: HARDWARE"},
		{[]string{"hardware", "add", "gpu-box-2:", "4x", "rtx", "6000", "ada,", "256gb", "ram"}, exitOK, "Saved gpu-box-2: 4× RTX 6000 Ada 48 GB, 256 GB RAM"},
		{[]string{"gpt-4 finetune cost"}, exitUsage, "weights are not released"},
	} {
		code, out, errOut := runFit(t, c.words...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("fitbot fit %q: exit %d, want %d with %q:\n%s%s", c.words, code, c.code, c.want, out, errOut)
		}
	}
}
