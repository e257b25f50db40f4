// Command fitload is fitbot's load generator. It sends signed `/fit`
// slash commands (a mix of the questions a team asks) to a fitbot HTTP
// endpoint at a fixed concurrency for a bounded time and reports
// requests per second, latency percentiles and errors.
//
//	go run ./cmd/fitload -target http://127.0.0.1:8080 -secret S -c 200 -d 20s -compare-bare
//
// With -compare-bare it also loads a bare net/http handler, started in
// this process on loopback, the same way in the same run, and prints the
// ratio of the two throughputs. With -self it starts fitbot's own HTTP
// endpoints in this process (the real handler, parser, estimator and a
// SQLite file in a temporary folder) instead of a -target. With
// -fake-slack ADDR it only serves a fake Slack Web API (auth.test,
// chat.postMessage) for a `fitbot serve` under test, for -d. With
// -minimal ADDR it only serves the minimal signed handler (read the form,
// check the v0 signature, reply with fitbot's answer to "13B lora 4090",
// about 4.3 KB) for -d, in its own process; -compare URL then loads it
// right after -target in the same run and prints the ratio:
//
//	fitload -minimal 127.0.0.1:18081 -secret S -d 5m &
//	fitload -target http://127.0.0.1:18080 -secret S -c 64 -d 30s -compare http://127.0.0.1:18081
//
// It talks to loopback addresses only, and every run is bounded by -d
// and -n.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "fitload:", err)
		os.Exit(1)
	}
}

// options are fitload's flags.
type options struct {
	target      string
	secret      string
	concurrency int
	duration    time.Duration
	maxRequests int
	compareBare bool
	compare     string
	minimal     string
	self        bool
	fakeSlack   string
	users       int
	jsonOut     bool
	cpuProfile  string
	keptFile    string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("fitload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.target, "target", "", "fitbot's base URL on loopback, e.g. http://127.0.0.1:8080")
	fs.StringVar(&o.secret, "secret", os.Getenv("SLACK_SIGNING_SECRET"), "Slack signing secret the target checks (default $SLACK_SIGNING_SECRET)")
	fs.IntVar(&o.concurrency, "c", 200, "requests in flight at once")
	fs.DurationVar(&o.duration, "d", 20*time.Second, "how long to send (at most 10m)")
	fs.IntVar(&o.maxRequests, "n", 2_000_000, "stop after this many requests per target")
	fs.BoolVar(&o.compareBare, "compare-bare", false, "also load a bare net/http handler in this process and print the ratio")
	fs.StringVar(&o.compare, "compare", "", "also load this loopback base URL (e.g. a -minimal handler) right after -target and print the ratio")
	fs.StringVar(&o.minimal, "minimal", "", "only serve the minimal signed handler on this loopback address for -d")
	fs.BoolVar(&o.self, "self", false, "serve fitbot's HTTP endpoints in this process instead of -target")
	fs.StringVar(&o.fakeSlack, "fake-slack", "", "only serve a fake Slack Web API on this loopback address for -d")
	fs.IntVar(&o.users, "users", 500, "distinct Slack user ids the commands come from")
	fs.BoolVar(&o.jsonOut, "json", false, "print the results as JSON")
	fs.StringVar(&o.keptFile, "kept", "", "write the ids of the plans fitbot's answers said were kept to this file, one a line, to check against the database afterwards")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (with -self: fitbot's server too) to this file")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.concurrency < 1 || o.concurrency > 10_000:
		return o, fmt.Errorf("-c %d: want 1 to 10000", o.concurrency)
	case o.duration <= 0 || o.duration > 10*time.Minute:
		return o, fmt.Errorf("-d %v: want more than 0 and at most 10m", o.duration)
	case o.maxRequests < 1:
		return o, fmt.Errorf("-n %d: want at least 1", o.maxRequests)
	case o.users < 1:
		return o, fmt.Errorf("-users %d: want at least 1", o.users)
	case o.fakeSlack != "":
		return o, checkLoopbackAddr(o.fakeSlack)
	case o.minimal != "" && o.secret == "":
		return o, errors.New("-secret (or SLACK_SIGNING_SECRET) is required with -minimal")
	case o.minimal != "":
		return o, checkLoopbackAddr(o.minimal)
	case o.compare != "" && o.compareBare:
		return o, errors.New("-compare and -compare-bare: choose one")
	case o.self && o.target != "":
		return o, errors.New("-self and -target: choose one")
	case !o.self && o.target == "":
		return o, errors.New("-target URL or -self is required")
	case !o.self && o.secret == "":
		return o, errors.New("-secret (or SLACK_SIGNING_SECRET) is required with -target")
	}
	if o.compare != "" {
		if err := checkLoopbackURL(o.compare); err != nil {
			return o, err
		}
	}
	if o.target != "" {
		return o, checkLoopbackURL(o.target)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.fakeSlack != "" {
		return serveFakeSlack(ctx, o.fakeSlack, o.duration, stderr)
	}
	if o.minimal != "" {
		return serveMinimal(ctx, o.minimal, o.secret, o.duration, stderr)
	}
	sink, err := startSink()
	if err != nil {
		return err
	}
	defer sink.close()
	if o.self {
		srv, err := startSelf(ctx, sink.url)
		if err != nil {
			return err
		}
		defer srv.close()
		o.target, o.secret = srv.url, srv.secret
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	gen := newGenerator(o.secret, o.users, sink.url)
	results := []result{load(ctx, "fitbot", o.target+"/slack/commands", gen, o)}
	if o.compareBare {
		bare, err := startBare()
		if err != nil {
			return err
		}
		defer bare.close()
		results = append(results, load(ctx, "bare net/http", bare.url+"/slack/commands", gen, o))
	}
	if o.compare != "" {
		results = append(results, load(ctx, "compared", o.compare+"/slack/commands", gen, o))
	}
	if o.keptFile != "" {
		if err := writeKept(o.keptFile, results[0].KeptIDs); err != nil {
			return err
		}
	}
	return report(stdout, o, results)
}

// writeKept writes plan ids to path, one a line.
func writeKept(path string, ids []int64) error {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strconv.FormatInt(id, 10))
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
