package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMeasuredRunShowsOnTheNextSimilarAnswer records runs of a saved plan
// from flags, an nvidia-smi CSV and a JSON file, and reads them back on
// the next answer of the same kind, in calibration, and not on an answer
// of another kind.
func TestMeasuredRunShowsOnTheNextSimilarAnswer(t *testing.T) {
	useDB(t)
	if code, _, errOut := runCmd(t, "fit", "--save", "llama 3.1 8b lora a100 80gb"); code != 0 {
		t.Fatalf("fit --save: %d %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "plans", "measure", "1", "--peak", "33GiB", "--tokens-per-second", "5,000", "--hours", "2")
	if code != 0 || !strings.Contains(out, "Recorded run #1 of plan #1") || !strings.Contains(out, "fitbot said 31.5 GiB peak (measured 5% above)") {
		t.Fatalf("measure from flags: %d\n%s%s", code, out, errOut)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "smi.csv")
	os.WriteFile(csv, []byte("timestamp, index, memory.used [MiB], memory.total [MiB]\n2026/10/01 10:00:00.000, 0, 33800 MiB, 81559 MiB\n2026/10/01 10:00:05.000, 0, [N/A], 81559 MiB\n"), 0o600)
	if code, out, errOut := runCmd(t, "plans", "measure", "1", "--from", csv); code != 0 || !strings.Contains(out, "peak 33 GiB") {
		t.Fatalf("measure from nvidia-smi: %d\n%s%s", code, out, errOut)
	}
	js := filepath.Join(dir, "run.json")
	os.WriteFile(js, []byte(`{"peak_bytes": 38654705664, "hours": 2.2}`), 0o600)
	code, out, errOut = runCmd(t, "plans", "measure", "--json", "1", "--from", js)
	var rec measuredOutput
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Via != "json" || rec.Like.Runs != 3 || rec.MemoryRatio == nil {
		t.Fatalf("measure --json from JSON: %d\n%s%s", code, out, errOut)
	}

	_, out, _ = runCmd(t, "fit", "llama 3 8b lora a100 40gb")
	if !strings.Contains(out, "On 3 measured runs like this here, peak memory was 8% ± 5% above fitbot's figure") {
		t.Errorf("the next LoRA 8B on an A100 does not say the team's runs:\n%s", out)
	}
	_, out, _ = runCmd(t, "fit", "--json", "llama 3.1 8b lora a100 80gb")
	var fit struct {
		Measured struct {
			Runs            int     `json:"runs"`
			MemoryRatioMean float64 `json:"memory_ratio_mean"`
			PlanIDs         []int64 `json:"plan_ids"`
		} `json:"measured"`
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil || fit.Measured.Runs != 3 || fit.Measured.MemoryRatioMean < 1.07 || len(fit.Measured.PlanIDs) != 3 {
		t.Errorf("fit --json measured = %+v (%v)", fit.Measured, err)
	}
	if _, out, _ = runCmd(t, "fit", "llama 3.1 70b qlora a100 80gb"); strings.Contains(out, "measured runs") {
		t.Errorf("a 70B QLoRA answer says the 8B LoRA runs:\n%s", out)
	}
	code, out, _ = runCmd(t, "calibration")
	if code != 0 || !strings.Contains(out, "LoRA on A100, 3-10B  3") || !strings.Contains(out, "#1") {
		t.Errorf("calibration:\n%s", out)
	}
}

func TestMeasureRefusesBadInput(t *testing.T) {
	path := useDB(t)
	seedPlans(t, path, fourPlans()...)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"1", "--peak", "240GiB"}, exitUsage, "more than one RTX 4090 24 GB holds"},
		{[]string{"1", "--peak", "lots"}, exitUsage, "not a memory size"},
		{[]string{"1"}, exitUsage, "nothing measured"},
		{[]string{"99", "--hours", "2"}, exitFailure, "there is no plan #99 here"},
		{[]string{"--workspace", "T0OTHER", "1", "--hours", "2"}, exitFailure, "there is no plan #1 here"},
		{[]string{"1", "--from", "/nonexistent/smi.csv"}, exitUsage, "--from"},
		{[]string{"one", "--hours", "2"}, exitUsage, `"one" is not a plan id`},
	} {
		code, out, errOut := runCmd(t, append([]string{"plans", "measure"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("plans measure %v: %d %q %q, want %d saying %q", c.args, code, out, errOut, c.code, c.says)
		}
	}
	if _, out, _ := runCmd(t, "calibration"); !strings.Contains(out, "No measured runs yet") {
		t.Errorf("a refused run was stored:\n%s", out)
	}
}

// TestMeasureFromRealPrometheus records a run read from the real
// Prometheus that .ci/run starts with the DCGM series of
// dcgm/testdata/dcgm-exporter.om (FITBOT_TEST_PROMETHEUS is its URL).
func TestMeasureFromRealPrometheus(t *testing.T) {
	url := os.Getenv("FITBOT_TEST_PROMETHEUS")
	if url == "" {
		t.Skip("FITBOT_TEST_PROMETHEUS is not set: .ci/run starts a Prometheus for this test")
	}
	t.Setenv("FITBOT_PROMETHEUS_URL", url)
	useDB(t)
	if code, _, errOut := runCmd(t, "fit", "--save", "llama 3.1 70b qlora h100"); code != 0 {
		t.Fatalf("fit --save: %s", errOut)
	}
	code, out, errOut := runCmd(t, "plans", "measure", "--json", "1", "--pod", "llama-lora-0", "--namespace", "ml",
		"--from-time", "2025-10-01T10:00:00Z", "--to-time", "2025-10-01 11:00")
	var rec measuredOutput
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil {
		t.Fatalf("measure from Prometheus: %d\n%s%s", code, out, errOut)
	}
	if rec.Via != "prometheus" || rec.Measured.PeakBytes != 72704<<20 || rec.Measured.Hours != 1 || rec.Measured.TensorActive < 0.44 {
		t.Errorf("recorded %+v, want the pod's 72,704 MiB peak over 1 h", rec)
	}
	if _, out, _ := runCmd(t, "calibration"); !strings.Contains(out, "QLoRA on H100, 35-100B  1") {
		t.Errorf("calibration does not list the Prometheus run:\n%s", out)
	}
}

// TestMeasuredRunInWords: `fitbot fit "plan 1 measured ..."` records the
// run as Slack's `/fit plan 1 measured ...` does, and words that are no
// measurement say so with the words' usage.
func TestMeasuredRunInWords(t *testing.T) {
	useDB(t)
	if code, _, errOut := runCmd(t, "fit", "--save", "llama 3.1 8b lora a100 80gb"); code != 0 {
		t.Fatalf("fit --save: %d %s", code, errOut)
	}
	code, out, errOut := runCmd(t, "fit", "plan 1 measured peak 33 GiB, 2,800 tok/s, took 2h")
	if code != 0 || !strings.Contains(out, "Recorded run #1 of plan #1") || !strings.Contains(out, "peak 33 GiB, 2,800 tok/s, 2 h") {
		t.Fatalf("measured in words: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "fit", "plan 1 measured nonsense"); code == 0 || !strings.Contains(errOut, "not understood: nonsense") {
		t.Errorf("words that are no measurement: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "fit", "plan 9 measured peak 33 GiB"); code == 0 || !strings.Contains(errOut, "no plan #9") {
		t.Errorf("a plan that is not there: %d\n%s%s", code, out, errOut)
	}
}
