package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// HardwareStore keeps each team's named machines; *store.DB is one.
type HardwareStore interface {
	SaveMachine(ctx context.Context, team string, m sizing.Machine) error
	Machines(ctx context.Context, team string) ([]sizing.Machine, error)
	RemoveMachine(ctx context.Context, team, name string) (bool, error)
}

// hardwareCommand is `/fit hardware`: list the team's machines, `add
// NAME: HARDWARE` or `remove NAME`.
func (h *Handler) hardwareCommand(ctx context.Context, team, rest string) Message {
	if h.cfg.Hardware == nil {
		return ephemeral("Team hardware is not kept on this fitbot (no database configured).")
	}
	verb, arg, _ := strings.Cut(rest, " ")
	verb, arg = strings.ToLower(verb), strings.TrimSpace(arg)
	switch {
	case verb == "" || verb == "list":
		return h.listMachines(ctx, team)
	case verb == "remove" || verb == "rm" || verb == "delete":
		name := strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(arg, ":")), " "))
		ok, err := h.cfg.Hardware.RemoveMachine(ctx, team, name)
		switch {
		case err != nil:
			h.log.Error("bot: removing a machine failed", "err", err)
			return apology()
		case !ok:
			return errorMessage(fmt.Sprintf("The team has no machine named “%s”.", name), "hardware")
		}
		return ephemeral(fmt.Sprintf("Removed %s from the team's hardware.", name))
	case verb == "add":
		return h.addMachine(ctx, team, arg)
	case strings.Contains(rest, ":"):
		return h.addMachine(ctx, team, rest)
	}
	return errorMessage(fmt.Sprintf("`/fit hardware` does not know “%s”.", verb), "hardware add our box: 2x rtx-4090, 128 GB RAM")
}

func (h *Handler) addMachine(ctx context.Context, team, text string) Message {
	m, err := reading.ParseMachine(text)
	var in *sizing.InputError
	if errors.As(err, &in) {
		return errorMessage(in.Problem, "hardware add "+strings.TrimPrefix(in.Hint, "fit "))
	}
	if err == nil {
		err = h.cfg.Hardware.SaveMachine(ctx, team, m)
	}
	if err != nil {
		h.log.Error("bot: saving a machine failed", "err", err)
		return errorMessage("That machine could not be saved: the team may name up to "+fmt.Sprint(sizing.MaxMachines)+" machines.", "hardware")
	}
	text = fmt.Sprintf("Saved *%s*: %s. Ask `/fit 13b lora on %s`; a question that names no GPU is sized on the team's machines.", escape(m.Name), m.Hardware(), escape(m.Name))
	return ephemeral(fmt.Sprintf("Saved %s: %s", m.Name, m.Hardware()), slack.NewSectionBlock(mrkdwn(":white_check_mark: "+text), nil, nil))
}

func (h *Handler) listMachines(ctx context.Context, team string) Message {
	ms, err := h.cfg.Hardware.Machines(ctx, team)
	if err != nil {
		h.log.Error("bot: listing machines failed", "err", err)
		return apology()
	}
	if len(ms) == 0 {
		return ephemeral("The team has named no machines yet. Add one: /fit hardware add our box: 2x rtx-4090, 128 GB RAM",
			slack.NewSectionBlock(mrkdwn("The team has named no machines yet. Add one: `/fit hardware add our box: 2x rtx-4090, 128 GB RAM`"), nil, nil))
	}
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "*%s*: %s", escape(m.Name), m.Hardware())
	}
	return ephemeral(fmt.Sprintf("The team's machines: %d", len(ms)),
		slack.NewHeaderBlock(plain("The team's machines")),
		slack.NewSectionBlock(mrkdwn(b.String()), nil, nil),
		slack.NewContextBlock("", mrkdwn("`/fit 13b lora on NAME` sizes on one; a question that names no GPU is sized on them. `/fit hardware remove NAME` forgets one.")))
}
