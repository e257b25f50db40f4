package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fitbot/fitbot/sizing"
)

// parseOutput is what `fitbot parse --json` prints. request and
// assumptions are the contract (DESIGN.md); ignored and canonical are
// documented extensions.
type parseOutput struct {
	Request     sizing.Request `json:"request"`
	Assumptions []string       `json:"assumptions"`
	Ignored     []string       `json:"ignored"`
	Canonical   string         `json:"canonical"`
}

const parseUsage = `Usage: fitbot parse [--json] WORDS...

Shows how a question is understood, without estimating: each field and the
words that gave it, what was assumed, which words were ignored, and the
canonical command. --json prints {request, assumptions, ignored, canonical}.

Example: fitbot parse can we fine-tune llama 3.1 8b on two a100s
`

// parse is `fitbot parse`. Flags may come before or after the words.
func (a *app) parse(_ context.Context, args []string) int {
	asJSON, help := false, false
	words := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--json", "-json":
			asJSON = true
		case "-h", "-help", "--help":
			help = true
		case "--": // the rest are words, even "--json"
			words = append(words, args[i+1:]...)
			i = len(args)
		default:
			words = append(words, args[i])
		}
	}
	if help {
		fmt.Fprint(a.stdout, parseUsage)
		return exitOK
	}
	question := strings.Join(words, " ")
	parsed, err := sizing.Parse(question)
	if err != nil {
		return a.parseFailed(err)
	}
	req, assumed, err := sizing.Resolve(parsed.Query)
	if !asJSON {
		writeUnderstood(a.stdout, parsed, assumed)
	}
	if err != nil {
		return a.parseFailed(err)
	}
	if !asJSON {
		return exitOK
	}
	out := parseOutput{
		Request:     req,
		Assumptions: append(append([]string{}, parsed.Notes...), assumed...),
		Ignored:     append([]string{}, parsed.Ignored...),
		Canonical:   sizing.Format(parsed.Query),
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return a.fail(exitFailure, fmt.Sprintf("write the answer: %v", err), "")
	}
	return exitOK
}

// parseFailed reports input the parser or the estimator cannot use: exit 2
// with the problem and the corrected example.
func (a *app) parseFailed(err error) int {
	var ie *sizing.InputError
	if errors.As(err, &ie) {
		return a.fail(exitUsage, ie.Problem, ie.Hint)
	}
	return a.fail(exitFailure, err.Error(), "")
}

// writeUnderstood prints the parse as a person reads it.
func writeUnderstood(w io.Writer, p sizing.Parsed, assumed []string) {
	fmt.Fprintln(w, "understood:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range p.Fields {
		fmt.Fprintf(tw, "  %s\t%s\tfrom %q\n", f.Name, f.Value, f.Words)
	}
	tw.Flush()
	if len(p.Notes)+len(assumed) > 0 {
		fmt.Fprintln(w, "assumed:")
		for _, n := range append(append([]string{}, p.Notes...), assumed...) {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	if len(p.Ignored) > 0 {
		fmt.Fprintf(w, "ignored: %s\n", strings.Join(p.Ignored, " "))
	}
	fmt.Fprintf(w, "canonical: fit %s\n", sizing.Format(p.Query))
}
