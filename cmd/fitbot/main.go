// Command fitbot answers an ML team's GPU capacity questions: on the
// command line (fitbot fit 13B lora 4090) and as a Slack bot (fitbot serve).
//
// The command wires the packages together and owns the configuration
// (the only reader of the environment), the subcommands, their text
// layout and the schedules. Figures are written by package display and
// plan comparisons made by package plan; subcommands return errors and
// run turns them into exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fitbot/fitbot/sizing"
)

// Exit codes are part of the command-line contract (DESIGN.md).
const (
	exitOK      = 0 // an answer, including "does not fit"
	exitFailure = 1 // anything else that went wrong
	exitUsage   = 2 // input that could not be understood
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// app carries what every subcommand needs: where to write, and the
// settings table as read from the environment once (tests build their own).
type app struct {
	stdout io.Writer
	stderr io.Writer
	env    environ
}

// run is the whole program behind main, callable from tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, env: readEnviron(os.Getenv)}
	if len(args) == 0 {
		a.usage(stderr)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return a.serve(ctx, rest)
	case "help", "-h", "-help", "--help":
		a.usage(stdout)
		return exitOK
	}
	commands := map[string]func(context.Context, []string) error{
		"fit": a.fit, "parse": a.parse, "plans": a.plans, "models": a.models, "prices": a.prices,
		"digest": a.digest, "backup": a.backup, "hardware": a.hardware, "db": a.db, "cluster": a.clusterCommand, "workspaces": a.workspaces,
		"calibration": a.calibration,
		"version":     func(_ context.Context, args []string) error { return a.version(args) },
	}
	c, ok := commands[cmd]
	if !ok {
		fmt.Fprintf(stderr, "fitbot: unknown command %q\n", cmd)
		a.usage(stderr)
		return exitUsage
	}
	return a.exit(c(ctx, rest))
}

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `fitbot answers GPU capacity questions: does it fit, how, how long, what it costs.

Usage:
  fitbot fit [--json] [--save] WORDS...     answer a sizing question (fitbot fit 13B lora 4090);
                                            any Hugging Face Hub id or link names a model
                                            or ask what fits: what 2x4090 lora, ... max context,
                                            which gpu 13b lora, ... buy-vs-rent 3 jobs/week 5h
  fitbot parse [--json] WORDS...            show how a question is understood
  fitbot models [--json] [QUERY]            the catalog and cached Hugging Face Hub models
  fitbot plans [--json] [MODEL]             earlier plans, newest first
  fitbot plans show ID                      re-answer a saved plan with today's prices
  fitbot plans measure ID --peak 71GiB ...  record what a run of a plan really used
  fitbot calibration [--json]               how far fitbot was from the team's measured runs
  fitbot prices [--json] [GPU]              cheapest offers per GPU, or every offer for one GPU
  fitbot prices refresh [--provider NAME]   fetch prices now
  fitbot prices import [--at TIME] FILE.csv import a price sheet
  fitbot hardware [add NAME: HW | remove NAME]   the team's own machines
  fitbot cluster [--json]                   the team's live cluster: free GPUs by node (Kubernetes, Slurm)
  fitbot digest [--json] [--dry-run] [--at TIME]  the weekly price-change digest
  fitbot serve [--http ADDR]                run the Slack bot
  fitbot backup PATH                        write a consistent copy of the database
  fitbot db copy --to postgres://...        copy the SQLite database into PostgreSQL
  fitbot workspaces [digest WORKSPACE CHANNEL]  Slack workspaces installed through OAuth
  fitbot version                            print the version

Run "fitbot COMMAND -h" for a command's flags.
`)
}

// cliError is how a subcommand fails: run prints the problem and the
// hint in the house style ("fitbot: ...", "Try: ...") and exits with code.
// An empty problem prints nothing: the command has already said what went
// wrong (its usage, or a report).
type cliError struct {
	code    int // exitUsage or exitFailure
	problem string
	hint    string
}

func (e *cliError) Error() string { return e.problem }

// usageError is input the command could not use: exit 2, with a hint
// that works.
func usageError(problem, hint string) error {
	return &cliError{code: exitUsage, problem: problem, hint: hint}
}

// failure is anything else that went wrong: exit 1, with a hint when one
// helps.
func failure(problem, hint string) error {
	return &cliError{code: exitFailure, problem: problem, hint: hint}
}

// quietError exits with code and prints nothing more.
func quietError(code int) error { return &cliError{code: code} }

// inputError is err as the command line reports it: a *sizing.InputError
// is a usage error with hint (the InputError's own hint when hint is
// ""), anything else a failure.
func inputError(err error, hint string) error {
	var uh interface{ UserHint() string } // a refusal with its own next step (the Hugging Face Hub's)
	if errors.As(err, &uh) {
		return failure(err.Error(), uh.UserHint())
	}
	var ie *sizing.InputError
	if errors.As(err, &ie) {
		if hint == "" {
			hint = ie.Hint
		}
		return usageError(ie.Problem, hint)
	}
	return failure(err.Error(), "")
}

// exit prints a subcommand's error and returns the exit code for it: the
// one place an error becomes an exit code. A plain error is a failure.
func (a *app) exit(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *cliError
	if !errors.As(err, &ce) {
		ce = &cliError{code: exitFailure, problem: err.Error()}
	}
	if ce.problem != "" {
		a.fail(ce.code, ce.problem, ce.hint)
	}
	return ce.code
}

// fail prints a problem and a hint in the house style ("Try: ...") and
// returns the exit code for it. Subcommands return a cliError instead;
// serve, which reports while it runs, still calls it.
func (a *app) fail(code int, problem, hint string) int {
	fmt.Fprintf(a.stderr, "fitbot: %s\n", problem)
	if hint != "" {
		fmt.Fprintf(a.stderr, "Try: %s\n", hint)
	}
	return code
}
