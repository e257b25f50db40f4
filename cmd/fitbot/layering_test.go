package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
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
	"digest":            {"sizing", "display", "plan", "pricing", "measure"}, // the weekly price digest, built from what the store read
	"store":             {"sizing", "plan", "pricing", "digest", "hub", "migrations", "measure"},
	"answer":            {"sizing", "reading", "pricing", "cluster", "display", "plan", "launch", "store", "measure", "hub"}, // hub: the cached Hub models the faces list
	"measure":           {},                                                                                                  // what a run really used, and how far fitbot was
	"dcgm":              {"measure"},                                                                                         // a run read from Prometheus's DCGM series
	"cluster":           {"sizing"},
	"cluster/kube":      {"sizing", "cluster", "internal/samehost"},
	"cluster/slurm":     {"sizing", "cluster", "internal/samehost"},
	"bot":               nil, // a face: faceImports and faceExceptions say what each file may import
	"launch":            {"sizing"},
	"slackoauth":        {"store", "internal/samehost"},
	"chart":             {"sizing", "display", "pricing"},
	"llm":               {"sizing", "reading", "display", "retry"},
	"internal/ratelog":  {}, // repeated failures logged once per interval
	"internal/netcap":   {}, // the listeners' connection cap
	"internal/samehost": {}, // credentials kept on the host they were meant for (redirects)
	// Tests' helpers: listed in no package's row, so only tests import them.
	"internal/fakeclock": {},
	"internal/golden":    {},
	"internal/recorded":  {"llm", "internal/golden"},
}

// faceImports is the intended graph of the two faces, bot (Slack) and
// cmd/fitbot (the command line): they hand questions to answer and
// render its results with display, chart and launch; of sizing, pricing
// and store they use the types (TestFacesReadThroughAnswer holds them to
// that); and cmd/fitbot wires bot. No face imports hub, plan or
// cluster: reading, placing and keeping belong to answer. Everything
// else a face imports (its transport's pieces, wiring, debt) is a
// faceException with its reason.
var faceImports = map[string][]string{
	"bot":        {"answer", "display", "chart", "launch", "sizing", "pricing", "store"},
	"cmd/fitbot": {"bot", "answer", "display", "chart", "launch", "sizing", "pricing", "store"},
}

// faceException is an import a face's file makes outside faceImports,
// and why: the face's transport, wiring (main and serve construct the
// concrete types answer's interfaces are met by), a command that is not
// a question, or debt still to move into answer. An arrow not listed
// fails TestLayering; one listed that no file needs any more fails it
// too, so the table only shrinks. A new arrow is a reviewed change here.
type faceException struct {
	face, pkg string
	files     []string
	why       string
}

var faceExceptions = []faceException{
	{"bot", "reading", []string{"ask.go", "digest_poster.go", "hardware.go", "hub.go", "interactions.go", "metrics.go", "plans_family.go", "replycache.go", "route.go", "threads.go"},
		"types: answer.Question carries the question as read (reading.Request, reading.Routing), and an ask's buttons carry reading.FormatAsk's words"},
	{"bot", "digest", []string{"digest.go", "digest_poster.go", "pictures.go", "route.go"},
		"the weekly digest's Slack poster and text: digest builds it, bot posts it"},
	{"bot", "slackoauth", []string{"events.go", "http.go"}, "transport: the workspaces' tokens (OAuth install)"},
	{"bot", "retry", []string{"digest_poster.go", "slackapi.go"}, "transport: Slack Web API calls retried"},
	{"bot", "internal/ratelog", []string{"bot.go"}, "transport: a failure that repeats on every request logged once per interval"},
	{"cmd/fitbot", "reading", []string{"answers.go", "fit_chart.go", "fit_route.go", "fit_serve.go", "hardware.go", "hub.go", "model.go", "parse.go", "plans.go", "serve.go"},
		"types: answer.Question carries reading.Request; `fitbot parse` prints it, `hardware add` reads a machine (reading.ParseMachine)"},
	{"cmd/fitbot", "digest", []string{"digest.go", "fit_route.go"}, "`fitbot digest` builds and prints the week's digest: a command, not a question"},
	{"cmd/fitbot", "slackoauth", []string{"health.go", "serve.go", "settings.go"}, "wiring: the OAuth install endpoints and their settings"},
	{"cmd/fitbot", "llm", []string{"config.go", "model.go", "settings.go"}, "wiring: the language model answer's ModelReader is met by, and its settings"},
	{"cmd/fitbot", "internal/samehost", []string{"config.go", "digest.go", "hub.go", "measure.go", "prices.go", "serve.go"},
		"wiring: outside HTTP clients that keep credentials on their own host"},
	{"cmd/fitbot", "internal/netcap", []string{"config.go", "serve.go"}, "wiring: the listeners' connection cap"},
	{"cmd/fitbot", "hub", []string{"answers.go", "serve.go", "settings.go"},
		"wiring: the Hub client and resolver answer's ModelResolver is met by"},
	{"cmd/fitbot", "hub", []string{"hub.go", "models.go"},
		"`fitbot hub` manages the Hub cache, `fitbot models` lists it: commands of the cache, not questions"},
	{"cmd/fitbot", "cluster", []string{"cluster.go", "settings.go"},
		"wiring: the live cluster source (answer's Cluster) chosen from the settings, and `fitbot cluster` listing it"},
	{"cmd/fitbot", "cluster/kube", []string{"cluster.go"}, "wiring: the Kubernetes cluster source"},
	{"cmd/fitbot", "cluster/slurm", []string{"cluster.go", "settings.go"}, "wiring: the Slurm cluster source and its settings"},
	{"cmd/fitbot", "dcgm", []string{"measure.go"},
		"wiring: `fitbot plans measure --dcgm` reads a run from Prometheus's DCGM series"},
	{"cmd/fitbot", "measure", []string{"measure.go"},
		"`fitbot plans measure` reads a run's log (nvidia-smi, the words of a run) into a measure.Run before the store records it"},
}

// faceAllows reports whether file of face may import pkg, and marks the
// exception used.
func faceAllows(face, file, pkg string, used map[int]bool) bool {
	if slices.Contains(faceImports[face], pkg) {
		return true
	}
	for i, e := range faceExceptions {
		if e.face == face && e.pkg == pkg && slices.Contains(e.files, file) {
			used[i] = true
			return true
		}
	}
	return false
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
	"cmd/fitbot":   {"github.com/robfig/cron/v3", "github.com/slack-go/slack"}, // the schedules; Socket Mode's client
	"llm":          {"github.com/sashabaranov/go-openai"},
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
	used := map[int]bool{}
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
		_, face := faceImports[pkg]
		if strings.HasPrefix(pkg, "cmd/") && !face {
			return nil // the load generator and other tools wire what they need
		}
		allowed, known := allowedImports[pkg]
		if !known && !face {
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
			target := strings.TrimPrefix(p, module)
			switch {
			case face && !faceAllows(pkg, filepath.Base(path), target, used):
				t.Errorf("%s imports %s: the face %s may only import %v of fitbot, and the files faceExceptions names their exceptions", path, target, pkg, faceImports[pkg])
			case !face && !slices.Contains(allowed, target):
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
	for i, e := range faceExceptions {
		if !used[i] {
			t.Errorf("faceExceptions: %s no longer imports %s in %v; strike the exception", e.face, e.pkg, e.files)
		}
	}
}

// readingCalls are the sizing functions that read a question. Only
// package answer calls them: the faces (bot, cmd/fitbot) hand a question
// to answer, which reads it once, in one order (DESIGN.md, one answer
// service). Passing sizing.Parse as a value to wire a face is fine.
// The same functions of package reading, the reader, likewise; its
// formatting and lookups (FormatAsk, ParseMachine for `hardware add`) are
// a face's to use.
var readingCalls = map[string]bool{"Parse": true, "Read": true, "Route": true, "OnMachines": true, "FollowUp": true, "ParseComparison": true}

// decisionCalls are the calls that decide what a question is and keep
// its answer: the dispatch (which answer a question gets, whether the
// language model reads it) and plan keeping. answer.Service.Handle makes
// them; a face that makes them holds a decision of its own.
var decisionCalls = map[string]bool{
	"NeedsInterpreter": true, "Understood": true, "Interpreted": true, "Compared": true,
	"FromAnswer": true, "FromAsk": true, "SavePlan": true, // plan keeping
}

// serviceSteps are answer.Service's steps and per-kind answers, which
// Handle runs in order and dispatches to: a face calling one on its
// service (a receiver named svc or ending in answers) dispatches itself.
var serviceSteps = map[string]bool{"Resolve": true, "Fit": true, "AskAnswer": true, "Compare": true}

// estimatorWiring are the files that make a sizing.Estimator: wiring that
// hands it to answer as its Estimator. No other face file makes one, so
// none calls the estimator itself.
var estimatorWiring = map[string]bool{"cmd/fitbot/answers.go": true, "cmd/fitbot/plans_show.go": true}

// TestFacesReadThroughAnswer fails when bot or cmd/fitbot reads a
// question itself (readingCalls, package reading), makes an estimator
// outside its wiring (estimatorWiring), or decides or keeps an answer
// (decisionCalls): answer.Service.Handle decides and keeps for both.
func TestFacesReadThroughAnswer(t *testing.T) {
	const sizingPath, readingPath = "github.com/fitbot/fitbot/sizing", "github.com/fitbot/fitbot/reading"
	fset := token.NewFileSet()
	for _, dir := range []string{"bot", "cmd/fitbot"} {
		files, err := filepath.Glob(filepath.Join("../..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no files in %s: the glob is broken", dir)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			rel := dir + "/" + filepath.Base(path)
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{} // what the file calls sizing and reading
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p != sizingPath && p != readingPath {
					continue
				}
				name := filepath.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = filepath.Base(p)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Estimator" && !estimatorWiring[rel] {
						if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] == "sizing" {
							t.Errorf("%s: makes a sizing.Estimator; a face answers through package answer", fset.Position(n.Pos()))
						}
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok {
						if pkg := names[id.Name]; pkg != "" && readingCalls[sel.Sel.Name] {
							t.Errorf("%s: calls %s.%s; a face reads questions through package answer", fset.Position(n.Pos()), pkg, sel.Sel.Name)
						}
					}
					recv := types.ExprString(sel.X)
					if name := sel.Sel.Name; decisionCalls[name] || serviceSteps[name] && (recv == "svc" || strings.HasSuffix(recv, "answers")) {
						t.Errorf("%s: calls %s; answer.Service.Handle decides and keeps, a face renders", fset.Position(n.Pos()), name)
					}
				}
				return true
			})
		}
	}
}
