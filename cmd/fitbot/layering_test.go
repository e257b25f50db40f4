package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is DESIGN.md's dependency direction, cmd -> bot -> store
// -> pricing -> sizing: for each of fitbot's packages, the fitbot packages
// its non-test code may import. A package not listed may import nothing of
// fitbot's.
var allowedImports = map[string][]string{
	"sizing":     {},
	"migrations": {},
	"pricing":    {"sizing"},
	"hub":        {"sizing"},
	"store":      {"sizing", "pricing", "hub", "migrations"},
	"bot":        {"sizing", "pricing", "store", "hub", "bot/llm"},
	"bot/llm":    {"sizing"},
}

// ioPackages lists the standard-library packages that do I/O; sizing must
// import none of them (DESIGN.md: sizing stays free of I/O).
var ioPackages = map[string]bool{
	"os": true, "os/exec": true, "net": true, "net/http": true, "database/sql": true, "syscall": true,
}

// TestLayering fails when a package imports what the design forbids, so
// that sizing stays pure and dependencies keep pointing one way.
func TestLayering(t *testing.T) {
	const module = "github.com/fitbot/fitbot/"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if strings.HasPrefix(pkg, "cmd/") {
			return nil // commands wire everything together
		}
		allowed, known := allowedImports[pkg]
		if !known {
			t.Errorf("%s: package %s is not in the layering table; add it to allowedImports", path, pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if pkg == "sizing" && ioPackages[p] {
				t.Errorf("%s imports %s: sizing must do no I/O", path, p)
			}
			if !strings.HasPrefix(p, module) {
				continue
			}
			if target := strings.TrimPrefix(p, module); !slices.Contains(allowed, target) {
				t.Errorf("%s imports %s: %s may only import %v of fitbot", path, target, pkg, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Go files checked: the walk is broken")
	}
}
