package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
)

// TestFitCompareGolden pins the text of a comparison, the first
// phrasing (#31), against testdata/fit_compare.txt (go test -update
// rewrites it).
func TestFitCompareGolden(t *testing.T) {
	code, out, errOut := runFit(t, "h100 or h200 for serving llama 3.1 70b, which is cheaper per user")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "fit_compare.txt"), []byte(out))
}

// TestFitCompareFormatsGolden pins the text of a comparison of two
// weight formats against
// testdata/fit_compare_formats.txt: fp8 serves no request on the one
// H100 named, and the answer says so rather than sizing AWQ alone.
func TestFitCompareFormatsGolden(t *testing.T) {
	code, out, errOut := runFit(t, "fp8 vs int4 awq for llama 3 70b on h100 - which is faster for throughput")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "fit_compare_formats.txt"), []byte(out))
}

// TestFitCompareJSON checks the comparison's JSON: kind "comparison" and
// the documented keys of the comparison and of each option.
func TestFitCompareJSON(t *testing.T) {
	code, out, errOut := runFit(t, "--json", "whats the cost difference between lora and full finetune for llama 3.1 8b on an a100")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Kind       string                     `json:"kind"`
		Comparison map[string]json.RawMessage `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Kind != "comparison" {
		t.Errorf("kind %q, want comparison", got.Kind)
	}
	for _, k := range []string{"setting", "figure", "cheaper", "summary", "options", "assumptions"} {
		if _, ok := got.Comparison[k]; !ok {
			t.Errorf("comparison lacks %q", k)
		}
	}
	var opts []map[string]json.RawMessage
	if err := json.Unmarshal(got.Comparison["options"], &opts); err != nil || len(opts) != 2 {
		t.Fatalf("options: %v (%d)", err, len(opts))
	}
	for _, k := range []string{"words", "label", "request", "fits", "gpus_chosen", "total_bytes", "vram_bytes", "throughput", "usd_per_user_month", "value", "assumptions"} {
		if _, ok := opts[0][k]; !ok {
			t.Errorf("option lacks %q", k)
		}
	}
}

// TestFitCompareNoSave: a comparison has no one configuration to keep.
func TestFitCompareNoSave(t *testing.T) {
	if code, _, _ := runFit(t, "--save", "13b lora 4090 h100"); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
}
