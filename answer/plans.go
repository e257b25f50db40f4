package answer

import (
	"context"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// Reanswer answers a kept fit plan again with today's catalog and
// prices: its canonical question read again (Reread, the Hub model
// included) and estimated, and what changed since (plan.Reanswer).
func (s *Service) Reanswer(ctx context.Context, then plan.Summary) plan.Diff {
	return plan.Reanswer(then, s.rereader(ctx), plan.AnswerFunc(func(q sizing.Query) (sizing.Answer, error) {
		return s.Estimator.Answer(ctx, q)
	}), nil)
}

// Reask answers a kept plan of a question that runs the other way round
// again, as AskAnswer answers it today, and says what changed
// (plan.Reask).
func (s *Service) Reask(ctx context.Context, then plan.Summary) plan.AskDiff {
	return plan.Reask(then, s.rereader(ctx), func(p reading.Request) (sizing.AskAnswer, error) {
		return s.AskAnswer(ctx, Question{Text: then.Text(), Parsed: p})
	})
}

// rereader is Reread bound to ctx, as plan's Parser.
func (s *Service) rereader(ctx context.Context) plan.Parser {
	return func(text string) (reading.Request, error) { return s.Reread(ctx, text) }
}
