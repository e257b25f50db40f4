package sizing

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Parsed is what package reading read from a question, as the tests of
// this package need it. Package reading imports sizing, so these tests
// cannot call it; its readings of the questions they ask are kept in
// testdata/readings.json, which reading's TestSizingReadings writes
// (-update) and checks against the parser on every run.
type Parsed struct {
	Query         Query
	Intent        Intent
	Workload      Workload
	Notes         []string
	Ignored       []string
	MethodImplied bool
	// Err is the reading's *InputError; nil when it read cleanly.
	Err *InputError `json:",omitempty"`
}

// readingsFile holds, per question, what package reading read from it.
const readingsFile = "testdata/readings.json"

// missingFile, when FITBOT_READINGS_MISSING names it, collects the
// questions a test asked that readings.json lacks, for reading's
// TestSizingReadings -update to add.
var readings = sync.OnceValues(func() (map[string]Parsed, error) {
	data, err := os.ReadFile(readingsFile)
	if err != nil {
		return nil, err
	}
	m := map[string]Parsed{}
	return m, json.Unmarshal(data, &m)
})

// Parse is reading.Parse of text, from testdata/readings.json.
func Parse(text string) (Parsed, error) {
	m, err := readings()
	if err != nil {
		return Parsed{}, fmt.Errorf("read %s: %w", readingsFile, err)
	}
	p, ok := m[text]
	if !ok {
		if path := os.Getenv("FITBOT_READINGS_MISSING"); path != "" {
			if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(f, "%q\n", text)
				f.Close()
			}
		}
		return Parsed{}, fmt.Errorf("%q is not in %s: run go test ./reading -run TestSizingReadings -update", text, readingsFile)
	}
	if p.Err != nil {
		return p, p.Err
	}
	return p, nil
}

// hintOf is an InputError's Try, "" for none.
func hintOf(ie *InputError) string {
	if ie == nil {
		return ""
	}
	return ie.Hint
}
