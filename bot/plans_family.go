package bot

import (
	"context"
	"fmt"
	"slices"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// familyPlans lists the newest plans of every model of a family
// (`/fit plans llama`); ok is false when the words name no family.
func (h *Handler) familyPlans(ctx context.Context, scope store.Scope, words string) (Message, bool) {
	models := reading.FamilyModels(words)
	if len(models) == 0 {
		return Message{}, false
	}
	var plans []store.Plan
	for _, m := range models {
		ps, err := h.cfg.Plans.PlansForModel(ctx, scope, m.ID, maxPlansListed)
		if err != nil {
			h.log.Error("bot: listing plans failed", "model", m.ID, "err", err)
			return apology(), true
		}
		plans = append(plans, ps...)
	}
	if len(plans) == 0 {
		example := models[0].ID
		return ephemeral(fmt.Sprintf("No plans yet for any of the %d %s models.", len(models), words),
			slack.NewSectionBlock(mrkdwn(fmt.Sprintf("No plans yet for any of the %d *%s* models. Ask about one (`/fit %s lora 4090`) and the answer is kept.",
				len(models), escape(words), example)), nil, nil)), true
	}
	slices.SortStableFunc(plans, func(a, b store.Plan) int { return b.CreatedAt.Compare(a.CreatedAt) })
	if len(plans) > maxPlansListed {
		plans = plans[:maxPlansListed]
	}
	return plansMessage(fmt.Sprintf("the %s family (%d models)", words, len(models)), plans, h.now()), true
}
