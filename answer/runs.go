package answer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/measure"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// RunBook keeps the team's measured runs beside their plans; *store.DB
// is one.
type RunBook interface {
	Plan(ctx context.Context, scope store.Scope, id int64) (store.Plan, error)
	SaveMeasuredRun(ctx context.Context, scope store.Scope, r *store.PlanRun) error
	MeasuredRuns(ctx context.Context, scope store.Scope, limit int) ([]store.RunOfPlan, error)
}

// ErrNoRunBook is the error of recording a run on a Service without a
// RunBook.
var ErrNoRunBook = errors.New("this fitbot keeps no plans, so it cannot record runs against them")

// OffBy is how far a run must be from fitbot's figure to be listed as
// off: 15%.
const OffBy = measure.OffBy

// Recorded is a run recorded against its plan.
type Recorded struct {
	Plan store.Plan
	Run  store.PlanRun
	Pair measure.Pair
	// Like is every measured run of the plan's kind that the asker reads,
	// this one included.
	Like measure.Stats
}

// NoSuchPlanError is the error of a plan id the asker cannot read: the
// same words whether the plan does not exist or is another's, so a
// refusal says nothing of a plan the asker may not see.
type NoSuchPlanError struct{ ID int64 }

func (e NoSuchPlanError) Error() string {
	return fmt.Sprintf("there is no plan #%d here (plans are read where they were asked: `fitbot plans` lists yours)", e.ID)
}

// RecordRun keeps what a run of plan id used (run: measured figures;
// via: store.ViaCLI, ViaSlack, ViaNvidiaSMI, ViaJSON or ViaPrometheus; by:
// the Slack user, "" on the command line), beside fitbot's figures for the
// plan: its per-GPU peak as answered then, and its speed and hours as
// today's estimator answers the plan's question. A peak above the plan's
// card's memory is refused, saying why; nothing is stored on any error.
func (s *Service) RecordRun(ctx context.Context, scope store.Scope, id int64, via, by string, run measure.Run) (Recorded, error) {
	if s.Runs == nil {
		return Recorded{}, ErrNoRunBook
	}
	p, err := s.Runs.Plan(ctx, scope, id)
	if errors.Is(err, store.ErrNotFound) {
		return Recorded{}, NoSuchPlanError{ID: id}
	}
	if err != nil {
		return Recorded{}, fmt.Errorf("record a run of plan %d: %w", id, err)
	}
	if p.Kind != plan.KindFit && p.Kind != plan.KindServe {
		return Recorded{}, &sizing.InputError{
			Problem: fmt.Sprintf("plan #%d answered a %s question, which names no one configuration to measure", id, p.Kind),
			Hint:    "record runs against a plan that sized one configuration (fitbot fit --save ...)"}
	}
	var cardBytes int64
	card := display.GPUName(p.GPU)
	if g, _, err := sizing.LookupGPU(p.GPU); err == nil {
		cardBytes = g.MemoryBytes
	}
	if err := run.Check(cardBytes, card); err != nil {
		return Recorded{}, &sizing.InputError{Problem: err.Error(), Hint: "fitbot plans measure 42 --peak 71GiB --tokens-per-second 3150 --hours 5.2"}
	}
	rec := store.PlanRun{PlanID: id, Via: via, RecordedBy: by, Measured: run, Predicted: s.predicted(ctx, p)}
	if err := s.Runs.SaveMeasuredRun(ctx, scope, &rec); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Recorded{}, NoSuchPlanError{ID: id}
		}
		return Recorded{}, fmt.Errorf("record a run of plan %d: %w", id, err)
	}
	out := Recorded{Plan: p, Run: rec, Pair: store.RunOfPlan{Run: rec, Plan: p}.Pair()}
	if pairs, err := s.pairs(ctx, scope); err == nil {
		out.Like = measure.Like(pairs, out.Pair.Kind())
	}
	return out, nil
}

// predicted is fitbot's figures for plan p: the per-GPU peak it answered
// then, and the speed and hours today's estimator gives its question
// (none when the question no longer reads).
func (s *Service) predicted(ctx context.Context, p store.Plan) measure.Run {
	out := measure.Run{PeakBytes: p.PerGPUBytes}
	parsed, err := s.Reread(ctx, p.Text())
	if err != nil {
		return out
	}
	a, err := s.Estimator.Answer(ctx, parsed.Query)
	if err != nil {
		return out
	}
	if t := a.Throughput.TokensPerSecond; t != nil {
		out.TokensPerSecond = *t
	}
	if h := a.Throughput.Hours; h != nil {
		out.Hours = *h
	}
	return out
}

// pairs is every measured run the scope reads, beside fitbot's figures.
func (s *Service) pairs(ctx context.Context, scope store.Scope) ([]measure.Pair, error) {
	runs, err := s.Runs.MeasuredRuns(ctx, scope, 0)
	if err != nil {
		return nil, err
	}
	out := make([]measure.Pair, len(runs))
	for i, r := range runs {
		out[i] = r.Pair()
	}
	return out, nil
}

// HasRuns reports whether scope reads any measured run, so an answer to
// it may say them (and must not be shared with another asker's).
func (s *Service) HasRuns(ctx context.Context, scope store.Scope) bool {
	if s.Runs == nil || scope == (store.Scope{}) {
		return false
	}
	runs, err := s.Runs.MeasuredRuns(ctx, scope, 1)
	return err == nil && len(runs) > 0
}

// withTeamRuns adds to a fit answer what the team's measured runs like it
// say: one line under the verdict, the ratios in the JSON's measured, and
// a tight verdict, saying why, when the answer fits by fitbot's figure
// but not at the team's measured memory error. The figures themselves are
// never corrected. A store error leaves the answer as it was.
func (s *Service) withTeamRuns(ctx context.Context, scope store.Scope, a *sizing.Answer) {
	if s.Runs == nil || scope == (store.Scope{}) {
		return
	}
	pairs, err := s.pairs(ctx, scope)
	if err != nil {
		s.logger().Warn("measured runs unread", "err", err)
		return
	}
	st := measure.Like(pairs, measure.KindOf(string(a.Request.Method), a.Request.GPU, a.Request.Params))
	if st.Runs == 0 {
		return
	}
	if a.Measured == nil {
		a.Measured = &sizing.MeasuredSpeed{}
	} else {
		m := *a.Measured
		a.Measured = &m
	}
	a.Measured.TeamRuns = &sizing.TeamRuns{Runs: st.Runs, PlanIDs: st.PlanIDs,
		MemoryRatioMean: round3(st.MemoryRatioMean), MemoryRatioSpread: round3(st.MemoryRatioSpread),
		SpeedRatioMean: round3(st.SpeedRatioMean), SpeedRatioSpread: round3(st.SpeedRatioSpread)}
	a.Targets = append(a.Targets, st.Line())
	if a.Fits && st.WouldNotFit(a.PerGPU.TotalBytes, a.VRAMBytes) {
		a.Headroom, a.TightWhy = sizing.HeadroomTight, "at this team's measured memory error"
		a.Warnings = append(a.Warnings, fmt.Sprintf("Tight at this team's measured error: %s × %.2f is more than the card's %s",
			display.GiB(a.PerGPU.TotalBytes), st.MemoryRatioMean+st.MemoryRatioSpread, display.GiB(a.VRAMBytes)))
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// CalibrationGroup is the measured runs of one kind.
type CalibrationGroup struct {
	Kind  measure.Kind   `json:"kind"`
	Stats measure.Stats  `json:"stats"`
	Runs  []measure.Pair `json:"runs"`
}

// Calibration is a team's measured runs against fitbot's figures.
type Calibration struct {
	All    measure.Stats      `json:"all"`
	Groups []CalibrationGroup `json:"groups"`
	// Off is the runs more than OffBy from fitbot's memory or speed figure.
	Off []measure.Pair `json:"off"`
}

// Calibration reads the measured runs that scope reads and says how far
// fitbot was off, by method, card family and size band.
func (s *Service) Calibration(ctx context.Context, scope store.Scope) (Calibration, error) {
	if s.Runs == nil {
		return Calibration{}, ErrNoRunBook
	}
	pairs, err := s.pairs(ctx, scope)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibration: %w", err)
	}
	return calibrate(pairs), nil
}

func calibrate(pairs []measure.Pair) Calibration {
	c := Calibration{All: measure.Summarize(pairs), Groups: []CalibrationGroup{}, Off: []measure.Pair{}}
	byKind := map[measure.Kind][]measure.Pair{}
	for _, p := range pairs {
		byKind[p.Kind()] = append(byKind[p.Kind()], p)
		if p.Off(OffBy) {
			c.Off = append(c.Off, p)
		}
	}
	for k, ps := range byKind {
		c.Groups = append(c.Groups, CalibrationGroup{Kind: k, Stats: measure.Summarize(ps), Runs: ps})
	}
	sort.Slice(c.Groups, func(i, j int) bool {
		a, b := c.Groups[i], c.Groups[j]
		if a.Stats.Runs != b.Stats.Runs {
			return a.Stats.Runs > b.Stats.Runs
		}
		return KindName(a.Kind) < KindName(b.Kind)
	})
	return c
}

// KindName writes a kind as a reader says it: "LoRA on A100, 3-10B".
func KindName(k measure.Kind) string {
	return fmt.Sprintf("%s on %s, %s", methodName(k.Method), strings.ToUpper(k.Family), k.Band)
}

func methodName(m string) string {
	switch m {
	case "lora":
		return "LoRA"
	case "qlora":
		return "QLoRA"
	case "full":
		return "full fine-tuning"
	}
	return m
}
