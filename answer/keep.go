package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// PlanSaver writes a plan and returns its id; *store.DB is one.
type PlanSaver interface {
	SavePlan(ctx context.Context, p *store.Plan) (int64, error)
}

// StoreKeeper is the PlanKeeper both faces wire over their store: each
// plan records who asked it, from which face, and where.
type StoreKeeper struct {
	Store PlanSaver
	// Source is the face that asked: store.SourceSlack or store.SourceCLI.
	Source string
	// Budget bounds the wait for the plan's commit, apart from the
	// question's own deadline (Slack's acknowledgement leaves room for a
	// commit, not for a writer held by something long); 0: ctx's.
	Budget time.Duration
}

// KeepPlan implements PlanKeeper.
func (k StoreKeeper) KeepPlan(ctx context.Context, who Who, s plan.Summary) (int64, error) {
	if k.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), k.Budget)
		defer cancel()
	}
	p := store.NewPlan(store.Who{Source: k.Source, Team: who.Team, Channel: who.Channel, User: who.User,
		Kind: store.ChannelKind(who.ChannelKind)}, s)
	if s.Kind == plan.KindFit {
		if b, err := json.Marshal(s.Request); err == nil {
			p.RequestJSON = string(b) // else the store marshals it, and says why not
		}
	}
	id, err := k.Store.SavePlan(ctx, &p)
	if err != nil {
		return 0, fmt.Errorf("keep the answer as a plan: %w", err)
	}
	return id, nil
}

// Keep keeps r's answer as a plan for who, as Handle does: for a result
// a face serves again (its reply cache), so that every ask is kept as
// its own plan. r.PlanID and r.PlanErr say how it went.
func (s *Service) Keep(ctx context.Context, who Who, r *Result) {
	r.PlanID, r.PlanErr, r.Listed = 0, nil, ""
	q := r.Question.Parsed.Query
	listed := sizing.Format(sizing.Query{Model: q.Model, Params: q.Params, Experts: q.Experts})
	switch {
	case r.Fit != nil:
		f, q := *r.Fit, r.Question
		s.keep(ctx, who, r, func() plan.Summary { return plan.FromAnswer(q.Text, q.Parsed.Query, f.Answer) })
		if listed == "" {
			listed = "MODEL" // a --config architecture has no name to look it up by
		}
	case r.Ask != nil:
		a, q := *r.Ask, r.Question
		s.keep(ctx, who, r, func() plan.Summary { return plan.FromAsk(q.Text, q.Parsed, a, display.AskSummary(a)) })
		if listed == "" || q.Parsed.Query.Arch != nil {
			listed = string(plan.KindOf(q.Parsed.Intent))
		}
	}
	if r.PlanID != 0 {
		r.Listed = listed
	}
}
