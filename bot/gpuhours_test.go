package bot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestGPUHoursInSlack: the Slack face says a question's GPU-hours right
// under the verdict, as the command line does ("2000 a100 gpu-hours" is
// a budget, not 2000 GPUs).
func TestGPUHoursInSlack(t *testing.T) {
	h, _ := newRealHandler(t)
	for q, want := range map[string]string{
		"we got 2000 a100 gpu-hours from the university cluster, can we train a 1b model from scratch on 20b tokens with that?": "✅ 2,000 A100-hours cover it: the run of 20B tokens takes about ",
		"we have 500 gpu hours on a100 40gb, how many tokens can we pretrain for a 410m pythia model":                           "500 A100-hours train about ",
		"pretrain a 3b model from scratch on 60B tokens — how many a100 gpu hours is that roughly":                              "The run of 60B tokens takes about ",
		"how many gpu hours to finetune llama 3 8b on 1b tokens on h100s":                                                       "The run of 1B tokens takes about ",
	} {
		msg := h.Command(context.Background(), slash(q))
		checkLimits(t, msg)
		found := -1
		for i, b := range msg.Blocks {
			if i > 3 {
				break
			}
			raw, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), want) {
				found = i
			}
		}
		if found < 0 {
			t.Errorf("/fit %s: no %q in the first blocks:\n%s", q, want, messageJSON(t, msg))
		}
		if strings.Contains(msg.Text, "2000×") || strings.Contains(msg.Text, "500×") {
			t.Errorf("/fit %s: GPU-hours read as GPUs: %s", q, msg.Text)
		}
	}
}
