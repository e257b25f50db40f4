package bot

import (
	"context"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/launch"
)

// withLaunch adds to a fit answer the launch config its words asked for
// ("a deepspeed config for ...": reading.Request.Emit), as the Launch
// config button shows it; a config the answer cannot have is said so.
func (h *Handler) withLaunch(ctx context.Context, r answer.Result, msg Message) Message {
	asked := r.Question.Parsed.Emit
	if asked == "" {
		return msg
	}
	kind, err := launch.ParseKind(asked)
	var cfg launch.Config
	p, a, perr := h.answers.Launch(ctx, r)
	switch {
	case err != nil:
	case perr != nil:
		err = perr
	default:
		cfg, err = launch.Emit(kind, p)
	}
	if err != nil {
		msg.Blocks = append(msg.Blocks, slack.NewContextBlock("", mrkdwn("No "+asked+" config for this answer: "+err.Error())))
		return msg
	}
	msg.Blocks = append(msg.Blocks, launchMessage(a, r.Question.Text, cfg, false).Blocks...)
	return msg
}
