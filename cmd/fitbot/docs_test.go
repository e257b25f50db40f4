package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsHaveNoConflictMarkers: a merge left "<<<<<<< HEAD" in the
// README's JSON contract once, and nothing read the README; the pages
// people read must not carry a merge's leftovers.
func TestDocsHaveNoConflictMarkers(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pages, "../../README.md", "../../BENCHMARKS.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") || line == "=======" {
				t.Errorf("%s:%d: a merge conflict marker: %q", p, n+1, line)
			}
		}
	}
}
