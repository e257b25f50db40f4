package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fitbot/fitbot/plan"
)

// Where a plan was asked.
const (
	SourceSlack = "slack"
	SourceCLI   = "cli"
)

// DefaultPlanLimit is how many plans a lookup returns when the caller
// gives no limit.
const DefaultPlanLimit = 20

// Plan is one answer fitbot gave, kept so that the team can find it again
// and see how it would be answered today.
type Plan struct {
	ID        int64
	CreatedAt time.Time // UTC; SavePlan sets it from the store's clock when zero

	// Who asked: Source is SourceSlack or SourceCLI; Team, Channel and
	// User are Slack ids, empty for the command line. ChannelKind is the
	// kind of conversation it was asked in (see Scope); SavePlan sets it
	// when empty: cli for the command line, private for Slack.
	Source, Team, Channel, User string
	ChannelKind                 ChannelKind

	// The question and the answer's summary, as they stood then.
	plan.Summary

	// RequestJSON, when set, is Request as json.Marshal writes it:
	// SavePlan stores it as it is rather than marshalling Request again
	// (a cached reply carries it). Plans read back leave it empty.
	RequestJSON string
}

// insertPlanSQL inserts one plan; batch.go binds its arguments in this
// order. On SQLite the new id is the connection's last insert rowid; on
// PostgreSQL, whose driver has none, the statement ends with RETURNING id
// (see insertPlans).
const insertPlanSQL = `INSERT INTO plans (created_at, source, team, channel, user_id,
	question, canonical, request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes,
	usd_per_hour, price_provider, price_as_of, kind, answer, channel_kind)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// planColumns are the columns scanPlan reads, in its order.
const planColumns = `id, created_at, source, team, channel, user_id, question, canonical,
	request_json, model_key, fits, headroom, gpu, gpus, per_gpu_bytes, usd_per_hour,
	price_provider, price_as_of, kind, answer, channel_kind`

// SavePlan stores p and returns its id, which it also sets in p, with
// p.CreatedAt (the store's clock when p left it zero). It returns once
// the plan is committed; plans saved at the same time share one
// transaction (see batch.go). When ctx ends first it returns ctx's
// error, and the plan may or may not have been written.
func (db *DB) SavePlan(ctx context.Context, p *Plan) (int64, error) {
	if p.Kind == "" {
		p.Kind = plan.KindFit
	}
	if p.ChannelKind == "" {
		p.ChannelKind = ChannelPrivate
		if p.Source == SourceCLI {
			p.ChannelKind = ChannelCLI
		}
	}
	if err := validatePlan(p); err != nil {
		return 0, err
	}
	reqJSON := p.RequestJSON
	if reqJSON == "" {
		b, err := json.Marshal(p.Request)
		if err != nil {
			return 0, fmt.Errorf("save plan: request: %w", err)
		}
		reqJSON = string(b)
	}
	created := p.CreatedAt
	if created.IsZero() {
		created = db.now()
	}
	var asOf *string
	if p.PriceAsOf != nil {
		s := formatTime(*p.PriceAsOf)
		asOf = &s
	}
	row := &planRow{ctx: ctx, result: make(chan planResult, 1), args: []any{
		formatTime(created), p.Source, p.Team, p.Channel, p.User,
		p.Question, p.Canonical, reqJSON, p.ModelKey, p.Fits, p.Headroom, p.GPU, p.GPUs, p.PerGPUBytes,
		p.USDPerHour, p.PriceProvider, asOf, string(p.Kind), p.Answer, string(p.ChannelKind)}}
	id, err := db.writer().enqueue(ctx, row)
	if err != nil {
		return 0, fmt.Errorf("save plan for %s: %w", p.ModelKey, err)
	}
	p.ID, p.CreatedAt = id, created.UTC()
	return id, nil
}

// validatePlan refuses a plan the table's constraints would, with a
// message that says which field is wrong.
func validatePlan(p *Plan) error {
	switch {
	case p.Source != SourceSlack && p.Source != SourceCLI:
		return fmt.Errorf("save plan: source %q is neither %q nor %q", p.Source, SourceSlack, SourceCLI)
	case !p.ChannelKind.Valid():
		return fmt.Errorf("save plan: channel kind %q is not one of public, private, dm, cli", p.ChannelKind)
	case (p.Source == SourceCLI) != (p.ChannelKind == ChannelCLI):
		return fmt.Errorf("save plan: a %s plan cannot have channel kind %s", p.Source, p.ChannelKind)
	case p.Source == SourceSlack && p.Team == "":
		return errors.New("save plan: a Slack plan needs its workspace (team)")
	case !p.Kind.Valid():
		return fmt.Errorf("save plan: kind %q is not a plan kind", p.Kind)
	case p.ModelKey == "":
		return errors.New("save plan: no model key")
	case p.GPUs < 0 || p.PerGPUBytes < 0:
		return fmt.Errorf("save plan: negative GPUs (%d) or bytes (%d)", p.GPUs, p.PerGPUBytes)
	case p.USDPerHour != nil && *p.USDPerHour < 0:
		return fmt.Errorf("save plan: negative price %v", *p.USDPerHour)
	}
	return nil
}

// Plan returns the plan with the given id that scope reads, or an
// error wrapping ErrNotFound: a plan outside the scope reads exactly
// like a missing one.
func (db *DB) Plan(ctx context.Context, scope Scope, id int64) (Plan, error) {
	cond, args := scope.where()
	p, err := scanPlan(db.ro.QueryRowContext(ctx, "SELECT "+planColumns+" FROM plans WHERE id = ? AND "+cond, append([]any{id}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return Plan{}, fmt.Errorf("plan %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Plan{}, db.wrap(fmt.Sprintf("plan %d", id), err)
	}
	return p, nil
}

// PlansForModel returns the newest plans that scope reads for one model
// key (see ModelKey), newest first; limit <= 0 means DefaultPlanLimit.
func (db *DB) PlansForModel(ctx context.Context, scope Scope, modelKey string, limit int) ([]Plan, error) {
	cond, args := scope.where()
	plans, err := db.queryPlans(ctx, `SELECT `+planColumns+` FROM plans WHERE model_key = ? AND `+cond+`
		ORDER BY created_at DESC, id DESC LIMIT ?`, append(append([]any{modelKey}, args...), planLimit(limit))...)
	if err != nil {
		return nil, db.wrap("plans for "+modelKey, err)
	}
	return plans, nil
}

// RecentPlans returns the plans that scope reads made at or after since,
// newest first; limit <= 0 means DefaultPlanLimit.
func (db *DB) RecentPlans(ctx context.Context, scope Scope, since time.Time, limit int) ([]Plan, error) {
	cond, args := scope.where()
	plans, err := db.queryPlans(ctx, `SELECT `+planColumns+` FROM plans WHERE created_at >= ? AND `+cond+`
		ORDER BY created_at DESC, id DESC LIMIT ?`, append(append([]any{formatTime(since)}, args...), planLimit(limit))...)
	if err != nil {
		return nil, db.wrap("recent plans", err)
	}
	return plans, nil
}

func planLimit(limit int) int {
	if limit <= 0 {
		return DefaultPlanLimit
	}
	return limit
}

func (db *DB) queryPlans(ctx context.Context, query string, args ...any) ([]Plan, error) {
	rows, err := db.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plans []Plan
	for rows.Next() {
		p, err := scanPlan(rows)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	return plans, rows.Err()
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanPlan(s scanner) (Plan, error) {
	dest, finish := planScanDest()
	if err := s.Scan(dest...); err != nil {
		return Plan{}, err
	}
	return finish()
}

// planScanDest is what a row of planColumns scans into, and the function
// that makes the plan of it once scanned (runs.go scans a plan after a
// run's columns in one row).
func planScanDest() ([]any, func() (Plan, error)) {
	var (
		p                Plan
		created, reqJSON string
		asOf             sql.NullString
		usd              sql.NullFloat64
		kind, chanKind   string
	)
	dest := []any{&p.ID, &created, &p.Source, &p.Team, &p.Channel, &p.User, &p.Question, &p.Canonical,
		&reqJSON, &p.ModelKey, &p.Fits, &p.Headroom, &p.GPU, &p.GPUs, &p.PerGPUBytes, &usd,
		&p.PriceProvider, &asOf, &kind, &p.Answer, &chanKind}
	return dest, func() (Plan, error) {
		var err error
		p.Kind, p.ChannelKind = plan.Kind(kind), ChannelKind(chanKind)
		if p.CreatedAt, err = parseTime(created); err != nil {
			return Plan{}, fmt.Errorf("plan %d: %w", p.ID, err)
		}
		if err := json.Unmarshal([]byte(reqJSON), &p.Request); err != nil {
			return Plan{}, fmt.Errorf("plan %d: request: %w", p.ID, err)
		}
		if usd.Valid {
			p.USDPerHour = &usd.Float64
		}
		if asOf.Valid {
			t, err := parseTime(asOf.String)
			if err != nil {
				return Plan{}, fmt.Errorf("plan %d: %w", p.ID, err)
			}
			p.PriceAsOf = &t
		}
		return p, nil
	}
}
