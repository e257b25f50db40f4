package reading

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

var update = flag.Bool("update", false, "rewrite ../sizing/testdata/readings.json")

// sizingReading is one entry of ../sizing/testdata/readings.json: the
// part of a Request that the tests of package sizing use (they cannot
// import this package, which imports theirs).
type sizingReading struct {
	Query         sizing.Query
	Intent        sizing.Intent
	Workload      sizing.Workload
	Notes         []string
	Ignored       []string
	MethodImplied bool
	Err           *sizing.InputError `json:",omitempty"`
}

const sizingReadingsFile = "../sizing/testdata/readings.json"

// TestSizingReadings checks that the readings the sizing tests use are
// what Parse reads today. With -update it rewrites them, adding the
// questions listed one per line (Go-quoted) in the file that
// FITBOT_READINGS_MISSING names, which the sizing tests fill when run
// with it set.
func TestSizingReadings(t *testing.T) {
	data, err := os.ReadFile(sizingReadingsFile)
	if err != nil && !*update {
		t.Fatal(err)
	}
	stored := map[string]json.RawMessage{}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &stored); err != nil {
			t.Fatal(err)
		}
	}
	if path := os.Getenv("FITBOT_READINGS_MISSING"); *update && path != "" {
		missing, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(missing)) {
			q, err := strconv.Unquote(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			stored[q] = nil
		}
	}
	now := map[string]sizingReading{}
	for q := range stored {
		p, err := Parse(q)
		r := sizingReading{Query: p.Query, Intent: p.Intent, Workload: p.Workload, Notes: p.Notes, Ignored: p.Ignored, MethodImplied: p.MethodImplied}
		var ie *sizing.InputError
		if errors.As(err, &ie) {
			r.Err = ie
		} else if err != nil {
			t.Fatalf("Parse(%q): %v is not an *InputError", q, err)
		}
		now[q] = r
	}
	want, err := json.MarshalIndent(now, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(sizingReadingsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(data, want) {
		t.Errorf("%s is not what Parse reads today: run go test ./reading -run TestSizingReadings -update, and review the diff", sizingReadingsFile)
	}
}
