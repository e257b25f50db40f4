package main

import (
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

// writeComparison prints the answer to a question that compares two
// cards or two training methods, in text or JSON.
func (a *app) writeComparison(c answer.CompareAnswer, asJSON bool) error {
	if asJSON {
		return a.writeJSON(comparisonJSON{Kind: answer.KindCompare, Comparison: c})
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
