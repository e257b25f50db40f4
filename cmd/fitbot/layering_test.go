package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is DESIGN.md's dependency direction, cmd -> bot ->
// answer, store -> digest -> pricing, plan -> reading, display -> sizing (answer, which
// reads and answers questions for both faces, knows no transport and no
// store): for each of fitbot's packages, the fitbot packages
// its non-test code may import. A package not listed may import nothing of
// fitbot's.
var allowedImports = map[string][]string{
	"sizing":            {},
	"migrations":        {},
	"display":           {"sizing"},
	"reading":           {"sizing"},
	"plan":              {"sizing", "reading"},
	"retry":             {},
	"hub":               {"sizing", "reading", "retry", "internal/samehost"},
	"pricing":           {"sizing", "retry", "internal/samehost"},
	"digest":            {"sizing", "display", "plan", "pricing"}, // the weekly price digest, built from what the store read
	"store":             {"sizing", "plan", "pricing", "digest", "hub", "migrations", "measure"},
	"answer":            {"sizing", "reading", "pricing", "cluster", "display", "plan", "store", "measure"},
	"measure":           {},          // what a run really used, and how far fitbot was
	"dcgm":              {"measure"}, // a run read from Prometheus's DCGM series
	"cluster":           {"sizing"},
	"cluster/kube":      {"sizing", "cluster", "internal/samehost"},
	"cluster/slurm":     {"sizing", "cluster", "internal/samehost"},
	"bot":               {"sizing", "reading", "display", "plan", "pricing", "digest", "store", "hub", "retry", "bot/llm", "launch", "chart", "answer", "slackoauth", "cluster", "internal/ratelog", "measure"},
	"launch":            {"sizing"},
	"slackoauth":        {"store", "internal/samehost"},
	"chart":             {"sizing", "display", "pricing"},
	"bot/llm":           {"sizing", "reading", "display", "retry"},
	"internal/ratelog":  {}, // repeated failures logged once per interval
	"internal/netcap":   {}, // the listeners' connection cap
	"internal/samehost": {}, // credentials stay on their host: redirects to another host refused
	// Tests' helpers: listed in no package's row, so only tests import them.
	"internal/fakeclock": {},
	"internal/golden":    {},
}

// allowedThirdParty lists, for each of fitbot's packages, the modules
// outside the standard library and fitbot its non-test code may import
// (as golang/oscar's import test does): a new dependency is a decision
// made here, in review, not a side effect. A package not listed may
// import none.
var allowedThirdParty = map[string][]string{
	"cluster/kube": {"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"},
	"store":        {"github.com/mattn/go-sqlite3", "github.com/jackc/pgx/v5"},
	"bot":          {"github.com/prometheus/client_golang", "github.com/slack-go/slack"},
	"bot/llm":      {"github.com/sashabaranov/go-openai"},
	"launch":       {"go.yaml.in/yaml/v3"},
	"dcgm":         {"github.com/prometheus/client_golang", "github.com/prometheus/common"},
	"chart":        {"gonum.org/v1/plot"},
	"slackoauth":   {"github.com/slack-go/slack"},
	// Tests' helpers.
	"internal/golden": {"github.com/google/go-cmp"},
}

// thirdParty reports whether an import path is outside the standard
// library (its first element has a dot) and fitbot's module.
func thirdParty(path, module string) bool {
	first, _, _ := strings.Cut(path, "/")
	return strings.Contains(first, ".") && !strings.HasPrefix(path, module)
}

// ioPackages lists the standard-library packages that do I/O; sizing must
// import none of them (DESIGN.md: sizing stays free of I/O).
var ioPackages = map[string]bool{
	"os": true, "os/exec": true, "net": true, "net/http": true, "database/sql": true, "syscall": true,
}

// TestLayering fails when a package imports what the design forbids, so
// that sizing stays pure, dependencies keep pointing one way and each
// third-party module stays in the package that needs it.
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
			if thirdParty(p, module) && !slices.ContainsFunc(allowedThirdParty[pkg], func(m string) bool { return p == m || strings.HasPrefix(p, m+"/") }) {
				t.Errorf("%s imports %s: %s may only import the third-party modules %v", path, p, pkg, allowedThirdParty[pkg])
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

// readingCalls are the sizing functions that read a question. Only
// package answer calls them: the faces (bot, cmd/fitbot) hand a question
// to answer, which reads it once, in one order (DESIGN.md, one answer
// service). Passing reading.Parse as a value to wire a face is fine.
var readingCalls = map[string]bool{"Parse": true, "Route": true, "OnMachines": true, "FollowUp": true}

// TestFacesReadThroughAnswer fails when bot or cmd/fitbot calls one of
// readingCalls itself.
func TestFacesReadThroughAnswer(t *testing.T) {
	const sizingPath = "github.com/fitbot/fitbot/sizing"
	fset := token.NewFileSet()
	for _, dir := range []string{"../../bot", "."} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			name := "" // what the file calls package sizing
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == sizingPath {
					name = "sizing"
					if imp.Name != nil {
						name = imp.Name.Name
					}
				}
			}
			if name == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && readingCalls[sel.Sel.Name] {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
						t.Errorf("%s: calls sizing.%s; a face reads questions through package answer", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
