package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/display"
)

const calibrationUsage = `Usage: fitbot calibration [--json] [--workspace TEAM] [--chart FILE.png]

How far fitbot's figures were from the team's measured runs (fitbot plans measure),
by method, card family and model size band: the mean and spread of measured / fitbot
for the peak memory and the speed, the plans behind each figure, and the runs more
than 15% off. --chart writes the picture: measured against predicted peak memory,
one dot a run, the diagonal where they agree.
`

// calibration is `fitbot calibration`.
func (a *app) calibration(ctx context.Context, args []string) error {
	var picture string
	for i := 0; i < len(args); i++ {
		if v, ok := strings.CutPrefix(args[i], "--chart="); ok {
			picture, args = v, append(args[:i:i], args[i+1:]...)
			break
		}
		if args[i] == "--chart" {
			if i+1 >= len(args) {
				return usageError("--chart needs a file", "fitbot calibration --chart runs.png")
			}
			picture, args = args[i+1], append(args[:i:i], args[i+2:]...)
			break
		}
	}
	f, err := parsePlansArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot calibration --json")
	}
	if f.help {
		fmt.Fprint(a.stdout, calibrationUsage)
		return nil
	}
	if len(f.words) > 0 {
		return usageError(fmt.Sprintf("calibration takes no words (%q)", strings.Join(f.words, " ")), "fitbot calibration --json")
	}
	svc, _ := a.answers()
	c, err := svc.Calibration(ctx, f.scope())
	if err != nil {
		return failure(err.Error(), "")
	}
	if picture != "" {
		if err := writeCalibrationChart(picture, c); err != nil {
			return err
		}
	}
	if f.json {
		return a.writeJSON(c)
	}
	writeCalibration(a.stdout, c)
	return nil
}

// writeCalibrationChart writes the calibration picture to path.
func writeCalibrationChart(path string, c answer.Calibration) error {
	d := chart.CalibrationData{Title: fmt.Sprintf("Peak memory: %d measured runs", c.All.MemoryRuns)}
	for _, g := range c.Groups {
		for _, p := range g.Runs {
			if p.Measured.PeakBytes > 0 && p.Predicted.PeakBytes > 0 {
				d.Points = append(d.Points, chart.CalibrationPoint{PredictedGiB: display.InGiB(p.Predicted.PeakBytes), MeasuredGiB: display.InGiB(p.Measured.PeakBytes)})
			}
		}
	}
	if len(d.Points) == 0 {
		return failure("no measured run has a peak memory to draw", "fitbot plans measure ID --peak 71GiB")
	}
	png, err := chart.CalibrationPNG(d)
	if err != nil {
		return failure(err.Error(), "")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return failure(fmt.Sprintf("write %s: %v", path, err), "")
	}
	return nil
}

// writeCalibration prints the calibration as a table.
func writeCalibration(w io.Writer, c answer.Calibration) {
	if c.All.Runs == 0 {
		fmt.Fprintln(w, "No measured runs yet. fitbot plans measure ID --peak 71GiB --tokens-per-second 3150 --hours 5.2 records one.")
		return
	}
	fmt.Fprintf(w, "%d measured runs against fitbot's figures (measured / fitbot):\n", c.All.Runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tRUNS\tPEAK MEMORY\tSPEED\tPLANS")
	for _, g := range c.Groups {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", answer.KindName(g.Kind), g.Stats.Runs,
			ratioCell(g.Stats.MemoryRatioMean, g.Stats.MemoryRatioSpread, g.Stats.MemoryRuns),
			ratioCell(g.Stats.SpeedRatioMean, g.Stats.SpeedRatioSpread, g.Stats.SpeedRuns), planList(g.Stats.PlanIDs))
	}
	tw.Flush()
	if len(c.Off) == 0 {
		fmt.Fprintf(w, "No run is more than %.0f%% off.\n", answer.OffBy*100)
		return
	}
	fmt.Fprintf(w, "More than %.0f%% off:\n", answer.OffBy*100)
	for _, p := range c.Off {
		fmt.Fprintf(w, "  plan #%d (%s on %s): %s\n", p.PlanID, p.Method, display.GPUName(p.GPU), compared(p))
	}
}

// ratioCell writes a mean ratio as a signed percentage with its spread:
// "+4% ± 3% (6)"; "-" with no run.
func ratioCell(mean, spread float64, n int) string {
	if n == 0 {
		return "-"
	}
	s := fmt.Sprintf("%+.0f%%", math.Round((mean-1)*100))
	if n > 1 {
		s += fmt.Sprintf(" ± %.0f%%", math.Round(spread*100))
	}
	return s
}

// planList writes plan ids once each: "#1, #4".
func planList(ids []int64) string {
	var out []string
	seen := map[int64]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, "#"+strconv.FormatInt(id, 10))
		}
	}
	return strings.Join(out, ", ")
}
