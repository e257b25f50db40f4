package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// parseOutput is what `fitbot parse --json` prints. request and
// assumptions are the contract (DESIGN.md); intent, workload, ignored and
// canonical are documented extensions. workload is set for buy_vs_rent
// only, with the defaults it would use filled in.
type parseOutput struct {
	Request     sizing.Request   `json:"request"`
	Assumptions []string         `json:"assumptions"`
	Intent      sizing.Intent    `json:"intent"`
	Workload    *sizing.Workload `json:"workload,omitempty"`
	Ignored     []string         `json:"ignored"`
	Canonical   string           `json:"canonical"`
	// Reading is everything the reader understood (reading.Request),
	// its notes left to Assumptions.
	Reading reading.Request `json:"reading"`
}

const parseUsage = `Usage: fitbot parse [--json] WORDS...

Shows how a question is understood, without estimating: each field and the
words that gave it, what is asked (fit, or largest model, longest context,
which GPU, buy or rent with its workload), what was assumed, which words
were ignored, and the canonical command. --json prints {request,
assumptions, intent, workload, ignored, canonical, reading}.

Examples: fitbot parse can we fine-tune llama 3.1 8b on two a100s
          fitbot parse 13B lora 4090 buy-vs-rent 3 jobs/week 5h
`

// parse is `fitbot parse`. Flags may come before or after the words.
func (a *app) parse(ctx context.Context, args []string) error {
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
		return nil
	}
	svc, _ := a.answers()
	parsed, err := svc.Reread(ctx, strings.Join(words, " "))
	if err != nil {
		return inputError(err, "")
	}
	req, assumed, err := answer.Request(parsed)
	work, workAssumed := answer.Workload(parsed)
	assumptions := sizing.MergeAssumptions(parsed.Notes, append(assumed, workAssumed...))
	if !asJSON {
		writeUnderstood(a.stdout, parsed, work, assumptions)
	}
	if err != nil {
		return inputError(err, "")
	}
	if !asJSON {
		return nil
	}
	out := parseOutput{
		Request:     req,
		Assumptions: assumptions,
		Intent:      parsed.Intent,
		Workload:    work,
		Ignored:     append([]string{}, parsed.Ignored...),
		Canonical:   reading.FormatAsk(parsed),
		Reading:     parsed,
	}
	out.Reading.Kind = reading.RouteSizing
	out.Reading.Notes = nil // said once, in assumptions
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return failure(fmt.Sprintf("write the answer: %v", err), "")
	}
	return nil
}

// asks says what a question that runs the other way round asks, in words.
var asks = map[sizing.Intent]string{
	sizing.IntentLargest:    "the largest model that fits",
	sizing.IntentMaxContext: "the longest context that fits",
	sizing.IntentWhichGPU:   "which GPUs fit, cheapest first",
	sizing.IntentBuyRent:    "whether to buy or rent",
	sizing.IntentServe:      "how many users it serves, or the cheapest GPUs for the load (fastest first when speed is asked)",
}

// writeUnderstood prints the parse as a person reads it.
func writeUnderstood(w io.Writer, p reading.Request, work *sizing.Workload, assumed []string) {
	fmt.Fprintln(w, "understood:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range p.Fields {
		fmt.Fprintf(tw, "  %s\t%s\tfrom %q\n", f.Name, f.Value, f.Words)
	}
	tw.Flush()
	if what, ok := asks[p.Intent]; ok {
		fmt.Fprintf(w, "asks: %s (%s)\n", what, p.Intent)
	}
	if work != nil {
		jobs, hours := "jobs a week not said", "hours a job not said"
		if work.JobsPerWeek > 0 {
			jobs = fmt.Sprintf("%g jobs a week", work.JobsPerWeek)
		}
		if work.HoursPerJob > 0 {
			hours = fmt.Sprintf("%g h each", work.HoursPerJob)
		}
		fmt.Fprintf(w, "workload: %s, %s, $%g/kWh, over %g years\n", jobs, hours, work.USDPerKWh, work.Years)
	}
	if len(assumed) > 0 {
		fmt.Fprintln(w, "assumed:")
		for _, n := range assumed {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	if len(p.Ignored) > 0 {
		fmt.Fprintf(w, "ignored: %s\n", strings.Join(p.Ignored, " "))
	}
	fmt.Fprintf(w, "canonical: fit %s\n", reading.FormatAsk(p))
}
