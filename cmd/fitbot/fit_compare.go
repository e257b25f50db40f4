package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/fitbot/fitbot/answer"
)

// comparisonJSON is `fit --json` for a comparison: the kind and the
// comparison (docs/json.md).
type comparisonJSON struct {
	Kind       answer.Kind          `json:"kind"`
	Comparison answer.CompareAnswer `json:"comparison"`
}

// compare answers a question that compares two cards or two training
// methods, in text or JSON. A comparison has no one configuration to
// save, emit or chart.
func (a *app) compare(ctx context.Context, svc *answer.Service, q answer.Question, f fitArgs) error {
	if f.emit != "" || f.chart != "" || f.save {
		return usageError("--emit, --chart and --save need a question with one configuration, not a comparison of two", "fitbot fit --save 13B lora 4090")
	}
	c, err := svc.Compare(ctx, q)
	if err != nil {
		return inputError(err, "")
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(comparisonJSON{Kind: answer.KindCompare, Comparison: c}); err != nil {
			return failure(fmt.Sprintf("write the answer: %v", err), "")
		}
		return nil
	}
	writeCompare(a.stdout, c)
	return nil
}

// writeCompare prints a comparison for a person: the verdict, the two
// options side by side, then what was assumed (shared, then each
// option's own).
func writeCompare(w io.Writer, c answer.CompareAnswer) {
	fmt.Fprintf(w, "⚖️  %s\n\n", c.Summary)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintf(tw, "  \t%s\t%s\n", c.Options[0].Label, c.Options[1].Label)
	for _, r := range c.Rows() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Name, r.Values[0], r.Values[1])
	}
	tw.Flush()
	shared, own := c.SharedAssumptions()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Assumed:")
	for _, s := range shared {
		fmt.Fprintf(w, "  - %s\n", s)
	}
	for i, list := range own {
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(w, "For %s:\n", c.Options[i].Label)
		for _, s := range list {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
}
