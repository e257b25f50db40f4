package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/dcgm"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/measure"
	"github.com/fitbot/fitbot/store"
)

const measureUsage = `Usage: fitbot plans measure [--json] [--workspace TEAM] ID [--peak SIZE] [--tokens-per-second N] [--hours H]
       fitbot plans measure ID --from FILE
       fitbot plans measure ID --pod NAME [--namespace NS] | --host NAME --from-time T --to-time T

Records what a run of plan ID really used, beside what fitbot said of it:
--peak is the busiest GPU's peak memory (71GiB, 71 GB, 72704MiB), --tokens-per-second
the whole job's speed, --hours its wall-clock time. --from reads them from a file:
the CSV of nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 5
(its peak memory.used), or a JSON object {"peak_bytes": ..., "tokens_per_second": ..., "hours": ...}.

--pod or --host reads the run from the Prometheus at FITBOT_PROMETHEUS_URL (bearer
FITBOT_PROMETHEUS_TOKEN), where NVIDIA's DCGM exporter keeps each GPU's memory: the
peak DCGM_FI_DEV_FB_USED of the pod's (or host's) GPUs between --from-time and
--to-time (RFC 3339, 2025-10-01T10:00:00Z), the mean DCGM_FI_PROF_PIPE_TENSOR_ACTIVE,
and the window's hours. --tokens-per-second may be added.

The same in words, as Slack takes it:
  fitbot fit "plan 42 measured peak 71 GiB, 3150 tok/s, 5.2 h"

Later answers of the same kind (method, card family, model size band) say how far
fitbot was from the team's measured runs; fitbot calibration lists them all.
`

// measureArgs is the command line of `fitbot plans measure`.
type measureArgs struct {
	plansArgs
	id     int64
	run    measure.Run
	via    string
	from   string
	window dcgm.Window // a run read from Prometheus: Pod or Host set
}

// parseMeasureArgs reads the flags of `plans measure`, anywhere among the words.
func parseMeasureArgs(args []string) (measureArgs, error) {
	m := measureArgs{via: store.ViaCLI}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		switch strings.TrimLeft(name, "-") {
		case "peak", "tokens-per-second", "hours", "from", "pod", "host", "namespace", "from-time", "to-time":
			if !strings.HasPrefix(name, "-") {
				rest = append(rest, args[i])
				continue
			}
			if !hasValue {
				if i+1 >= len(args) {
					return m, fmt.Errorf("%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if err := m.set(strings.TrimLeft(name, "-"), value); err != nil {
				return m, err
			}
		default:
			rest = append(rest, args[i])
		}
	}
	var err error
	if m.plansArgs, err = parsePlansArgs(rest); err != nil || m.help {
		return m, err
	}
	if len(m.words) != 1 {
		return m, errors.New("plans measure needs one plan id")
	}
	m.id, err = strconv.ParseInt(strings.TrimPrefix(m.words[0], "#"), 10, 64)
	if err != nil || m.id < 1 {
		return m, fmt.Errorf("%q is not a plan id", m.words[0])
	}
	fromPrometheus := m.window.Pod != "" || m.window.Host != ""
	switch {
	case m.from != "" && (!m.run.Empty() || fromPrometheus):
		return m, errors.New("--from reads the whole measurement: give it alone, or --peak, --tokens-per-second and --hours")
	case fromPrometheus && (m.run.PeakBytes != 0 || m.run.Hours != 0):
		return m, errors.New("--pod and --host read the peak and the hours from Prometheus: give --tokens-per-second only, if any")
	case fromPrometheus:
		if err := m.window.Check(); err != nil {
			return m, fmt.Errorf("--pod/--host: %w (--from-time and --to-time)", err)
		}
	case m.window.Namespace != "" || !m.window.From.IsZero() || !m.window.To.IsZero():
		return m, errors.New("--namespace, --from-time and --to-time go with --pod or --host")
	case m.from == "" && m.run.Empty():
		return m, errors.New("nothing measured: give --peak, --tokens-per-second, --hours, --from FILE, or --pod/--host with --from-time and --to-time")
	}
	return m, nil
}

// set records one flag's value.
func (m *measureArgs) set(flag, value string) error {
	switch flag {
	case "peak":
		b, err := measure.ParseBytes(value)
		if err != nil {
			return fmt.Errorf("--peak: %w", err)
		}
		m.run.PeakBytes = b
	case "tokens-per-second", "hours":
		v, err := strconv.ParseFloat(strings.ReplaceAll(value, ",", ""), 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("--%s %q is not a positive number", flag, value)
		}
		if flag == "hours" {
			m.run.Hours = v
		} else {
			m.run.TokensPerSecond = v
		}
	case "from":
		m.from = value
	case "pod":
		m.window.Pod = value
	case "host":
		m.window.Host = value
	case "namespace":
		m.window.Namespace = value
	case "from-time", "to-time":
		t, err := parseWhen(value)
		if err != nil {
			return fmt.Errorf("--%s: %w", flag, err)
		}
		if flag == "from-time" {
			m.window.From = t
		} else {
			m.window.To = t
		}
	}
	return nil
}

// whenLayouts are the times --from-time and --to-time take, in UTC
// unless they say otherwise.
var whenLayouts = []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02 15:04:05"}

func parseWhen(s string) (time.Time, error) {
	for _, layout := range whenLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time such as 2025-10-01T10:00:00Z", s)
}

// measuredOutput is what `plans measure --json` prints.
type measuredOutput struct {
	RunID       int64         `json:"run_id"`
	PlanID      int64         `json:"plan_id"`
	Via         string        `json:"via"`
	Measured    measure.Run   `json:"measured"`
	Predicted   measure.Run   `json:"predicted"`
	MemoryRatio *float64      `json:"memory_ratio"` // measured / fitbot; null when either is unknown
	SpeedRatio  *float64      `json:"speed_ratio"`
	Like        measure.Stats `json:"like"` // every measured run of this kind, this one included
}

// plansMeasure is `fitbot plans measure`.
func (a *app) plansMeasure(ctx context.Context, args []string) error {
	m, err := parseMeasureArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot plans measure 42 --peak 71GiB --tokens-per-second 3150 --hours 5.2")
	}
	if m.help {
		fmt.Fprint(a.stdout, measureUsage)
		return nil
	}
	if m.from != "" {
		if m.run, m.via, err = readMeasurement(m.from); err != nil {
			return usageError(err.Error(), "fitbot plans measure 42 --from nvidia-smi.csv")
		}
	}
	if m.window.Pod != "" || m.window.Host != "" {
		if err := a.readPrometheusRun(ctx, &m); err != nil {
			return err
		}
	}
	if !a.dbExists() {
		return failure(fmt.Sprintf("there is no plan %d: there is no database at %s", m.id, a.dbPath()), "fitbot fit --save WORDS... keeps an answer as a plan")
	}
	svc, _ := a.answers()
	rec, err := svc.RecordRun(ctx, m.scope(), m.id, m.via, "", m.run)
	var none answer.NoSuchPlanError
	if errors.As(err, &none) {
		return failure(none.Error(), "fitbot plans lists the plans there are")
	}
	if err != nil {
		return inputError(err, "")
	}
	return a.writeMeasured(rec, m.json)
}

// measuredWords records a run of plan id said in words through `fitbot
// fit` ("plan 42 measured peak 71 GiB, 3150 tok/s, 5.2 h"), as Slack's
// `/fit plan` records it.
func (a *app) measuredWords(ctx context.Context, id int64, words string, asJSON bool) error {
	if !a.dbExists() {
		return failure(fmt.Sprintf("there is no plan %d: there is no database at %s", id, a.dbPath()), "fitbot fit --save WORDS... keeps an answer as a plan")
	}
	svc, _ := a.answers()
	rec, err := svc.RecordRunWords(ctx, store.AllPlans(), id, store.ViaCLI, "", words)
	var (
		none answer.NoSuchPlanError
		bad  answer.RunWordsError
	)
	switch {
	case errors.As(err, &none):
		return failure(none.Error(), "fitbot plans lists the plans there are")
	case errors.As(err, &bad):
		return usageError(bad.Error(), "fitbot fit plan 42 measured peak 71 GiB, 3150 tok/s, 5.2 h")
	case err != nil:
		return inputError(err, "")
	}
	return a.writeMeasured(rec, asJSON)
}

// writeMeasured prints a recorded run: one JSON object (measuredOutput)
// or the lines of writeRecorded.
func (a *app) writeMeasured(rec answer.Recorded, asJSON bool) error {
	if asJSON {
		out := measuredOutput{RunID: rec.Run.ID, PlanID: rec.Plan.ID, Via: rec.Run.Via, Measured: rec.Run.Measured,
			Predicted: rec.Run.Predicted, Like: rec.Like}
		if r, ok := rec.Pair.MemoryRatio(); ok {
			out.MemoryRatio = &r
		}
		if r, ok := rec.Pair.SpeedRatio(); ok {
			out.SpeedRatio = &r
		}
		return a.writeJSON(out)
	}
	writeRecorded(a.stdout, rec)
	return nil
}

// readPrometheusRun reads m's window from FITBOT_PROMETHEUS_URL into m.run.
func (a *app) readPrometheusRun(ctx context.Context, m *measureArgs) error {
	if errs := a.env.check("FITBOT_PROMETHEUS_URL"); len(errs) > 0 {
		return errs[0]
	}
	url := a.env.get("FITBOT_PROMETHEUS_URL")
	if url == "" {
		return usageError("--pod and --host read the run from Prometheus, and FITBOT_PROMETHEUS_URL is not set",
			"FITBOT_PROMETHEUS_URL=http://prometheus:9090 fitbot plans measure 42 --pod NAME --from-time T --to-time T")
	}
	labels := dcgm.Labels{Pod: a.env.get("FITBOT_DCGM_POD_LABEL"), Namespace: a.env.get("FITBOT_DCGM_NAMESPACE_LABEL"), Host: a.env.get("FITBOT_DCGM_HOST_LABEL")}
	r, err := dcgm.New(url, a.env.get("FITBOT_PROMETHEUS_TOKEN"), labels, samehost.Client(&http.Client{Timeout: 10 * time.Second}))
	if err != nil {
		return usageError(err.Error(), "")
	}
	run, err := r.Run(ctx, m.window)
	if err != nil {
		return failure(err.Error(), "")
	}
	run.TokensPerSecond = m.run.TokensPerSecond
	m.run, m.via = run, store.ViaPrometheus
	return nil
}

// readMeasurement reads --from FILE ("-" is standard input): the run and
// how it came (nvidia-smi or json).
func readMeasurement(name string) (measure.Run, string, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return measure.Run{}, "", fmt.Errorf("--from: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return measure.Run{}, "", fmt.Errorf("--from %s: %w", name, err)
	}
	via := store.ViaNvidiaSMI
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, "{") {
		via = store.ViaJSON
	}
	run, err := measure.ReadFile(strings.NewReader(string(data)))
	if err != nil {
		return measure.Run{}, "", fmt.Errorf("--from %s: %w", name, err)
	}
	return run, via, nil
}

// writeRecorded says what was recorded and how far fitbot was.
func writeRecorded(w io.Writer, rec answer.Recorded) {
	p := rec.Plan
	fmt.Fprintf(w, "Recorded run #%d of plan #%d (%s): %s.\n", rec.Run.ID, p.ID,
		display.Truncate(strings.Join(strings.Fields(p.Question), " "), 60), rec.Run.Measured)
	if said := compared(rec.Pair); said != "" {
		fmt.Fprintln(w, said)
	}
	if line := rec.Like.Line(); line != "" {
		fmt.Fprintln(w, line)
	}
}

// compared says a run beside fitbot's figures: "fitbot said 66.2 GiB
// peak (measured 7% above) and 3,500 tok/s (measured 10% below)."
func compared(p measure.Pair) string {
	var parts []string
	if r, ok := p.MemoryRatio(); ok {
		parts = append(parts, fmt.Sprintf("%s peak (measured %s)", display.GiB(p.Predicted.PeakBytes), measure.Relative(r)))
	}
	if r, ok := p.SpeedRatio(); ok {
		if p.Measured.TokensPerSecond > 0 && p.Predicted.TokensPerSecond > 0 {
			parts = append(parts, fmt.Sprintf("%s tok/s (measured %s)", display.Commas(int64(p.Predicted.TokensPerSecond+0.5)), measure.Relative(r)))
		} else {
			parts = append(parts, fmt.Sprintf("%s h (measured speed %s)", display.Decimal(p.Predicted.Hours), measure.Relative(r)))
		}
	}
	if len(parts) == 0 {
		return "fitbot gave no figure to compare it with."
	}
	return "fitbot said " + strings.Join(parts, " and ") + "."
}
