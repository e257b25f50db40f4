package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// TestClarify: a question read two ways exits 2 with a command per
// reading on stderr, or with --json prints the readings and exits 0.
func TestClarify(t *testing.T) {
	readings := []clarifyReading{
		{Label: "GPU prices of the H100", Command: "prices h100"},
		{Label: "the largest model one H100 serves", Command: "largest model inference h100"},
	}
	var out, errOut bytes.Buffer
	a := &app{stdout: &out, stderr: &errOut}
	err := a.clarify("what is an h100 selling for", readings, false)
	var ce *cliError
	if !errors.As(err, &ce) || ce.code != exitUsage || out.Len() != 0 {
		t.Fatalf("err %v, stdout %q: want exit 2 and nothing on stdout", err, out.String())
	}
	for _, w := range []string{`"what is an h100 selling for" can be read more than one way`, "fitbot fit prices h100\n", "fitbot fit largest model inference h100\n"} {
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("stderr %q lacks %q", errOut.String(), w)
		}
	}

	out.Reset()
	errOut.Reset()
	if err := a.clarify("what is an h100 selling for", readings, true); err != nil {
		t.Fatalf("--json: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("--json printed %q: %v", out.String(), err)
	}
	want := map[string]any{"kind": "clarify", "text": "what is an h100 selling for", "readings": []any{
		map[string]any{"label": "GPU prices of the H100", "command": "prices h100"},
		map[string]any{"label": "the largest model one H100 serves", "command": "largest model inference h100"},
	}}
	if diff := cmp.Diff(want, got); diff != "" || errOut.Len() != 0 {
		t.Errorf("--json (-want +got):\n%s\nstderr %q", diff, errOut.String())
	}
}

// TestFitUnsureGolden: `fitbot fit` asks back about a question whose
// words ask one of two things alike, with the answer service's readings:
// exit 2 and testdata/fit_clarify.txt on stderr (go test -update rewrites
// it); with --json the readings and exit 0.
func TestFitUnsureGolden(t *testing.T) {
	code, out, errOut := runFit(t, "what is an h100 selling for")
	if code != exitUsage || out != "" {
		t.Fatalf("exit %d, stdout %q: want exit 2 and nothing on stdout", code, out)
	}
	golden.Check(t, filepath.Join("testdata", "fit_clarify.txt"), []byte(errOut))
	code, out, errOut = runFit(t, "--json", "what is an h100 selling for")
	var got clarifyJSON
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil {
		t.Fatalf("--json: exit %d, %v, stdout %q, stderr %q", code, err, out, errOut)
	}
	if got.Kind != kindClarify || len(got.Readings) != 2 || got.Readings[0].Command != "prices h100" || got.Readings[1].Command != "h100 purchase price" {
		t.Errorf("--json = %+v, want clarify with the rental prices and the purchase price", got)
	}
}
