package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// measureUsage is how a measured run is typed in Slack.
const measureUsage = "plan 42 measured peak 71 GiB, 3150 tok/s, 5.2 h"

// measuredCommand records what a run of plan id used: `/fit plan 42
// measured peak 71 GiB, 3,150 tok/s, 5.2 h`. Nothing is stored when the
// words do not read as a measurement, the peak is more than the card
// holds, or the asker cannot read the plan (which reads as no plan).
func (h *Handler) measuredCommand(ctx context.Context, asker who, id int64, words string) Message {
	if h.answers.Runs == nil {
		return noStore()
	}
	rec, err := h.answers.RecordRunWords(ctx, asker.scope(), id, store.ViaSlack, asker.user, words)
	var (
		none answer.NoSuchPlanError
		bad  answer.RunWordsError
	)
	switch {
	case errors.As(err, &bad):
		return errorMessage(bad.Error(), measureUsage)
	case errors.As(err, &none):
		return ephemeral(fmt.Sprintf("There is no plan #%d.", id)).withOutcome(OutcomeRefused)
	case err != nil:
		return h.failure(words, err)
	}
	lines := []string{fmt.Sprintf("📏 Recorded run #%d of plan #%d: %s.", rec.Run.ID, id, escape(rec.Run.Measured.String()))}
	if said := rec.SaidLine(); said != "" {
		lines = append(lines, said)
	}
	if like := rec.Like.Line(); like != "" {
		lines = append(lines, like)
	}
	return ephemeral(strings.Join(lines, "\n"), slack.NewSectionBlock(mrkdwn(strings.Join(lines, "\n")), nil, nil))
}

// calibrationCommand is `/fit calibration`: the asker's readable measured
// runs against fitbot's figures, one short line per kind, for a phone.
func (h *Handler) calibrationCommand(ctx context.Context, asker who) Message {
	if h.answers.Runs == nil {
		return noStore()
	}
	c, err := h.answers.Calibration(ctx, asker.scope())
	if err != nil {
		return h.failure("calibration", err)
	}
	if c.All.Runs == 0 {
		return ephemeral("No measured runs yet. After a run, record what it used: `/fit " + measureUsage + "`.")
	}
	lines := []string{fmt.Sprintf("📏 *%d measured runs* against fitbot's figures (measured / fitbot):", c.All.Runs)}
	for _, g := range c.Groups {
		lines = append(lines, fmt.Sprintf("• *%s*, %d: %s", answer.KindName(g.Kind), g.Stats.Runs, g.Stats.Summary()))
	}
	if len(c.Off) > 0 {
		var ids []string
		for _, p := range c.Off {
			ids = append(ids, "#"+strconv.FormatInt(p.PlanID, 10))
		}
		lines = append(lines, fmt.Sprintf("More than %.0f%% off: plans %s.", answer.OffBy*100, strings.Join(ids, ", ")))
	}
	text := strings.Join(lines, "\n")
	return ephemeral(text, slack.NewSectionBlock(mrkdwn(text), nil, nil))
}
