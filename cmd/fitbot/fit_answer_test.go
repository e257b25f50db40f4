package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestFitHubModelOnTeamMachines is the review's reproduction through the
// command line (bot's TestHubModelOnTeamMachines is the Slack face): with
// two machines, 1× RTX 4090 and 8× H100, a Hub model asked with no GPU is
// placed by its own size on the smaller one, by id and by words.
func TestFitHubModelOnTeamMachines(t *testing.T) {
	fakeHub(t)
	useDB(t)
	for _, add := range [][]string{{"hardware", "add", "the", "4090:", "1x", "rtx-4090"}, {"hardware", "add", "the", "big", "one:", "8x", "h100"}} {
		if code, _, errOut := runCmd(t, add...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", add, code, errOut)
		}
	}
	for _, words := range [][]string{{"Qwen/Qwen3-1.7B", "qlora"}, {"qwen3", "1.7b", "qlora"}} {
		req, asm, code, errOut := fitJSON(t, words...)
		if code != exitOK {
			t.Fatalf("fit %v: exit %d: %s", words, code, errOut)
		}
		if req["model"] != "Qwen/Qwen3-1.7B" || req["gpu"] != "rtx-4090" || req["gpus"] != float64(1) {
			t.Errorf("fit %v: model %v on %v× %v, want Qwen/Qwen3-1.7B on 1× rtx-4090", words, req["model"], req["gpus"], req["gpu"])
		}
		if !strings.Contains(asm, `sized on "the 4090"`) || !strings.Contains(asm, "the smallest of the team's 2 machines it fits on") {
			t.Errorf("fit %v: assumptions do not say the machine:\n%s", words, asm)
		}
	}
}

// TestFitJSONAlwaysJSON: whatever the words, `fit --json` that exits 0
// prints exactly one JSON object, and small talk, help and prices say
// their kind; "hello there" is greeted, not thanked.
func TestFitJSONAlwaysJSON(t *testing.T) {
	useDB(t)
	tests := []struct {
		words    []string
		kind     string
		contains string
	}{
		{[]string{"hello", "there"}, "greeting", "Hello!"},
		{[]string{"thanks!"}, "chat", "Happy to help"},
		{[]string{"what", "can", "you", "do?"}, "help", "Usage: fitbot fit"},
		{[]string{"--help"}, "help", "Usage: fitbot fit"},
		{[]string{"how", "much", "is", "an", "h100", "per", "hour?"}, "prices", `"gpu": "h100"`},
		{[]string{"is", "the", "h200", "cheaper", "than", "the", "h100", "this", "week?"}, "prices", `"cheaper": "h`},
		{[]string{"gpu", "prices"}, "prices", `"cheapest"`},
		{[]string{"13b", "lora", "4090"}, "", `"request"`},
		{[]string{"what", "2x4090", "lora"}, "", `"largest_model"`},
		{[]string{"plans", "mistral", "7b"}, "plans", `"plans": []`},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, append([]string{"fit", "--json"}, tt.words...)...)
		if code != exitOK {
			t.Errorf("fit --json %v: exit %d: %s", tt.words, code, errOut)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Errorf("fit --json %v: not JSON: %v\n%s", tt.words, err, out)
			continue
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Errorf("fit --json %v: more than one JSON value:\n%s", tt.words, out)
		}
		if tt.kind != "" && obj["kind"] != tt.kind {
			t.Errorf("fit --json %v: kind %v, want %s", tt.words, obj["kind"], tt.kind)
		}
		if !strings.Contains(out, tt.contains) {
			t.Errorf("fit --json %v: lacks %s:\n%s", tt.words, tt.contains, out)
		}
	}
	var out bytes.Buffer
	if code := run(t.Context(), []string{"fit", "hello", "there"}, &out, io.Discard); code != exitOK || !strings.HasPrefix(out.String(), "Hello!") {
		t.Errorf("fit hello there: exit %d, %q; want a greeting", code, out.String())
	}
}

// TestFitLargestBatchFirst: a training question that asks the largest
// batch is answered by it on the line right under the verdict, as asked
// and with the same-card levers (fixed the batch at 1 and
// gave no maximum), and the JSON carries it as largest_batch.
func TestFitLargestBatchFirst(t *testing.T) {
	useDB(t)
	for _, tt := range []struct{ q, want string }{
		{"what batch size can we fit for lora llama 3 8b on a 40gb a100, seq 4096",
			"Largest micro-batch: batch 1 does not fit as asked (at seq 4096); with gradient checkpointing 2; with a fused loss too 12."},
		{"max batch size lora llama 3 8b h100 seq 4096",
			"Largest micro-batch that fits: 2 per GPU (at seq 4096); with gradient checkpointing 6; with a fused loss too 34."},
	} {
		code, out, errOut := runCmd(t, "fit", tt.q)
		if code != exitOK {
			t.Fatalf("fit %q: exit %d: %s", tt.q, code, errOut)
		}
		if lines := strings.SplitN(out, "\n", 3); len(lines) < 2 || lines[1] != tt.want {
			t.Errorf("fit %q: second line %q, want %q\n%s", tt.q, lines[1], tt.want, out)
		}
	}
	code, out, errOut := runCmd(t, "fit", "--json", "max bs lora llama 3 8b h100 seq 4096")
	if code != exitOK {
		t.Fatalf("fit --json: exit %d: %s", code, errOut)
	}
	var a struct {
		LargestBatch struct {
			MicroBatch        int  `json:"micro_batch"`
			WithCheckpointing *int `json:"with_checkpointing"`
			WithFusedLoss     *int `json:"with_fused_loss"`
		} `json:"largest_batch"`
		Request struct {
			MicroBatch int `json:"micro_batch"`
		} `json:"request"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	lb := a.LargestBatch
	if lb.MicroBatch != 2 || lb.WithCheckpointing == nil || *lb.WithCheckpointing != 6 || lb.WithFusedLoss == nil || *lb.WithFusedLoss != 34 || a.Request.MicroBatch != 2 {
		t.Errorf("largest_batch %+v at micro_batch %d, want 2, 6 and 34 at 2", lb, a.Request.MicroBatch)
	}
}
