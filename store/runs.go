package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/measure"
)

// How a measured run reached fitbot.
const (
	ViaSlack      = "slack"
	ViaCLI        = "cli"
	ViaNvidiaSMI  = "nvidia-smi"
	ViaJSON       = "json"
	ViaPrometheus = "prometheus"
)

// PlanRun is one measured run of a plan, beside what fitbot said of the
// plan when the run was recorded.
type PlanRun struct {
	ID         int64
	PlanID     int64
	RecordedAt time.Time // UTC; SaveMeasuredRun sets it from the store's clock
	RecordedBy string    // the Slack user id; "" on the command line
	Via        string    // ViaSlack, ViaCLI, ...
	Measured   measure.Run
	Predicted  measure.Run // TensorActive unused
}

// RunOfPlan is a measured run with its plan.
type RunOfPlan struct {
	Run  PlanRun
	Plan Plan
}

// Pair is the run beside fitbot's figures, with what makes it alike to
// others (its plan's method, card and model size).
func (r RunOfPlan) Pair() measure.Pair {
	req := r.Plan.Request
	return measure.Pair{PlanID: r.Plan.ID, Method: string(req.Method), GPU: r.Plan.GPU, Params: req.Params,
		Predicted: r.Run.Predicted, Measured: r.Run.Measured}
}

// RunsRecordedBetween returns the measured runs recorded in [from, to)
// of the plans scope reads, oldest first.
func (db *DB) RunsRecordedBetween(ctx context.Context, scope Scope, from, to time.Time) ([]RunOfPlan, error) {
	runs, err := db.runsOfPlans(ctx, scope, "r.recorded_at >= ? AND r.recorded_at < ?", []any{formatTime(from), formatTime(to)}, 0)
	if err != nil {
		return nil, db.wrap("runs recorded between", err)
	}
	return runs, nil
}

// SaveMeasuredRun records a measured run of plan r.PlanID, which scope must read
// (a plan it does not read is ErrNotFound, as if it did not exist: a plan
// id from another workspace records nothing). It sets r.ID and
// r.RecordedAt. A run with no figure, or a negative one, is refused
// before anything is written.
func (db *DB) SaveMeasuredRun(ctx context.Context, scope Scope, r *PlanRun) error {
	if r.Measured.Empty() {
		return fmt.Errorf("save run of plan %d: %w", r.PlanID, measure.ErrNothingMeasured)
	}
	if err := r.Measured.Check(0, ""); err != nil {
		return fmt.Errorf("save run of plan %d: %w", r.PlanID, err)
	}
	switch r.Via {
	case ViaSlack, ViaCLI, ViaNvidiaSMI, ViaJSON, ViaPrometheus:
	default:
		return fmt.Errorf("save run of plan %d: %q is not a way a run is recorded", r.PlanID, r.Via)
	}
	at := db.now()
	cond, args := scope.where()
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM plans WHERE id = ? AND "+cond, append([]any{r.PlanID}, args...)...).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("plan %d: %w", r.PlanID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		m, p := r.Measured, r.Predicted
		return tx.QueryRowContext(ctx, `INSERT INTO plan_runs (plan_id, recorded_at, recorded_by, via,
			peak_bytes, tokens_per_second, hours, tensor_active,
			predicted_peak_bytes, predicted_tokens_per_second, predicted_hours)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			r.PlanID, formatTime(at), r.RecordedBy, r.Via,
			nullInt(m.PeakBytes), nullFloat(m.TokensPerSecond), nullFloat(m.Hours), nullFloat(m.TensorActive),
			max(p.PeakBytes, 0), nullFloat(p.TokensPerSecond), nullFloat(p.Hours)).Scan(&r.ID)
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		return db.wrap(fmt.Sprintf("save run of plan %d", r.PlanID), err)
	}
	r.RecordedAt = at.UTC()
	return nil
}

// measuredColumns are the columns scanRunOfPlan reads, in its order, on plan_runs
// named r.
const measuredColumns = `r.id, r.plan_id, r.recorded_at, r.recorded_by, r.via, r.peak_bytes, r.tokens_per_second,
	r.hours, r.tensor_active, r.predicted_peak_bytes, r.predicted_tokens_per_second, r.predicted_hours`

// RunsForPlan returns a plan's measured runs, oldest first, when scope
// reads the plan; none (and no error) when it does not.
func (db *DB) RunsForPlan(ctx context.Context, scope Scope, planID int64) ([]PlanRun, error) {
	runs, err := db.runsOfPlans(ctx, scope, "r.plan_id = ?", []any{planID}, 0)
	if err != nil {
		return nil, db.wrap(fmt.Sprintf("runs of plan %d", planID), err)
	}
	out := make([]PlanRun, len(runs))
	for i, r := range runs {
		out[i] = r.Run
	}
	return out, nil
}

// MeasuredRuns returns the newest measured runs, up to limit (<= 0: 500),
// of the plans scope reads, each with its plan, oldest first.
func (db *DB) MeasuredRuns(ctx context.Context, scope Scope, limit int) ([]RunOfPlan, error) {
	if limit <= 0 {
		limit = 500
	}
	runs, err := db.runsOfPlans(ctx, scope, "1 = 1", nil, limit)
	if err != nil {
		return nil, db.wrap("measured runs", err)
	}
	return runs, nil
}

// runsOfPlans reads the runs matching cond (on plan_runs r) of the plans
// scope reads, oldest first; limit > 0 keeps the newest limit of them.
func (db *DB) runsOfPlans(ctx context.Context, scope Scope, cond string, args []any, limit int) ([]RunOfPlan, error) {
	scopeCond, scopeArgs := scope.where()
	// The runs drive the join, each finding its plan by id, so a team's
	// thousands of unmeasured plans are never read: CROSS JOIN keeps
	// SQLite's loops in this order (PostgreSQL plans it by its statistics),
	// and plan_runs has none of the scope's column names (they are the
	// plan's).
	query := `SELECT ` + measuredColumns + `, ` + qualified("p", planColumns) + `
		FROM plan_runs r CROSS JOIN plans p
		WHERE p.id = r.plan_id AND ` + scopeCond + ` AND ` + cond + ` ORDER BY r.recorded_at DESC, r.id DESC`
	all := append(scopeArgs, args...)
	if limit > 0 {
		query += ` LIMIT ?`
		all = append(all, limit)
	}
	rows, err := db.ro.QueryContext(ctx, query, all...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunOfPlan
	for rows.Next() {
		r, err := scanRunOfPlan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// scanRunOfPlan reads a row of measuredColumns then planColumns.
func scanRunOfPlan(rows *sql.Rows) (RunOfPlan, error) {
	var (
		r                      PlanRun
		at                     string
		peak                   sql.NullInt64
		tps, hours, tensor     sql.NullFloat64
		predTPS, predHours     sql.NullFloat64
		planDest, planFinisher = planScanDest()
	)
	dest := append([]any{&r.ID, &r.PlanID, &at, &r.RecordedBy, &r.Via, &peak, &tps, &hours, &tensor,
		&r.Predicted.PeakBytes, &predTPS, &predHours}, planDest...)
	if err := rows.Scan(dest...); err != nil {
		return RunOfPlan{}, err
	}
	p, err := planFinisher()
	if err != nil {
		return RunOfPlan{}, err
	}
	if r.RecordedAt, err = parseTime(at); err != nil {
		return RunOfPlan{}, fmt.Errorf("run %d: %w", r.ID, err)
	}
	r.Measured = measure.Run{PeakBytes: peak.Int64, TokensPerSecond: tps.Float64, Hours: hours.Float64, TensorActive: tensor.Float64}
	r.Predicted.TokensPerSecond, r.Predicted.Hours = predTPS.Float64, predHours.Float64
	return RunOfPlan{Run: r, Plan: p}, nil
}

// qualified prefixes each column of a comma-separated list with table.
func qualified(table, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = table + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

func nullInt(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: v != 0} }

func nullFloat(v float64) sql.NullFloat64 { return sql.NullFloat64{Float64: v, Valid: v != 0} }
