package bot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// phoneColumns is the widest code line a phone shows in Slack without
// scrolling sideways.
const phoneColumns = 40

// TestGoldenCodeLinesFitAPhone holds every golden Slack message's code
// blocks (``` in any text field) to phoneColumns: a wider line scrolls
// sideways on a phone, which the fit answers avoid and every other answer
// must too.
func TestGoldenCodeLinesFitAPhone(t *testing.T) {
	var files []string
	for _, dir := range []string{"golden", "digest"} {
		f, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d golden messages found", len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var msg any
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, line := range codeLines(msg) {
			if n := utf8.RuneCountInString(line); n > phoneColumns {
				t.Errorf("%s: a code line of %d columns (at most %d): %q", f, n, phoneColumns, line)
			}
		}
	}
}

// TestCodeLines: the walk finds code in nested text fields, and only
// between ``` fences.
func TestCodeLines(t *testing.T) {
	var msg any
	if err := json.Unmarshal([]byte(`{"blocks":[{"text":{"text":"prose that is long\n`+"```a\\nbb```"+` more `+"```ccc```"+`"}},
		{"elements":[{"text":"`+"```dddd```"+`"}]}]}`), &msg); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(codeLines(msg), "|"), "a|bb|ccc|dddd"; got != want {
		t.Errorf("codeLines = %q, want %q", got, want)
	}
}

// codeLines are the lines inside ``` fences of every "text" string in a
// decoded JSON message.
func codeLines(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "text" {
				parts := strings.Split(s, "```")
				for i := 1; i < len(parts); i += 2 {
					out = append(out, strings.Split(parts[i], "\n")...)
				}
				continue
			}
			out = append(out, codeLines(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, codeLines(e)...)
		}
	}
	return out
}
