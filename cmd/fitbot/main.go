// Command fitbot answers an ML team's GPU capacity questions: on the
// command line (fitbot fit 13B lora 4090) and as a Slack bot (fitbot serve).
//
// The command wires the packages together and owns the configuration,
// the subcommands and the schedules; it holds no sizing, pricing or Slack
// logic of its own.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
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

// app carries what every subcommand needs: where to write, and how to read
// the environment (tests replace getenv).
type app struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// run is the whole program behind main, callable from tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 {
		a.usage(stderr)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "fit":
		return a.fit(ctx, rest)
	case "parse":
		return a.parse(ctx, rest)
	case "plans":
		return a.plans(ctx, rest)
	case "prices":
		return a.prices(ctx, rest)
	case "hardware":
		return a.hardware(ctx, rest)
	case "digest":
		return a.digest(ctx, rest)
	case "serve":
		return a.serve(ctx, rest)
	case "backup":
		return a.backup(ctx, rest)
	case "version":
		return a.version(rest)
	case "help", "-h", "-help", "--help":
		a.usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "fitbot: unknown command %q\n", cmd)
		a.usage(stderr)
		return exitUsage
	}
}

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `fitbot answers GPU capacity questions: does it fit, how, how long, what it costs.

Usage:
  fitbot fit [--json] [--save] WORDS...     answer a sizing question (fitbot fit 13B lora 4090)
                                            or ask what fits: what 2x4090 lora, ... max context,
                                            which gpu 13b lora, ... buy-vs-rent 3 jobs/week 5h
  fitbot parse [--json] WORDS...            show how a question is understood
  fitbot plans [--json] [MODEL]             earlier plans, newest first
  fitbot plans show ID                      re-answer a saved plan with today's prices
  fitbot prices [--json] [GPU]              cheapest offers per GPU, or every offer for one GPU
  fitbot prices refresh [--provider NAME]   fetch prices now
  fitbot prices import [--at TIME] FILE.csv import a price sheet
  fitbot hardware [add NAME: HW | remove NAME]   the team's own machines
  fitbot digest [--json] [--dry-run] [--at TIME]  the weekly price-change digest
  fitbot serve [--http ADDR]                run the Slack bot
  fitbot backup PATH                        write a consistent copy of the database
  fitbot version                            print the version

Run "fitbot COMMAND -h" for a command's flags.
`)
}

// fail prints a problem and a hint in the house style ("Try: ...") and
// returns the exit code for it.
func (a *app) fail(code int, problem, hint string) int {
	fmt.Fprintf(a.stderr, "fitbot: %s\n", problem)
	if hint != "" {
		fmt.Fprintf(a.stderr, "Try: %s\n", hint)
	}
	return code
}
